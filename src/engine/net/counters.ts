// The packet and byte counters of a node's netfilter rules, as `iptables -nvL`, `iptables-save -c`
// and `nft list ruleset` (iptables-nft) print them. A counter belongs to the rule the kernel
// holds: kube-proxy rewriting a rule (iptables-restore of its chain) starts it again at zero,
// so each is kept with the rule's text and reads as zero once the text at its place changed.
// What is counted: every rule a connection's first packet matched (nat chains only ever see that
// packet, as in the kernel); later packets of a connection are not walked through the rules here,
// so filter rules that also match established traffic (KUBE-FORWARD's) count connections' first
// packets only. Node kernel state: kept for the cluster's lifetime, not in snapshots (a restored
// cluster is a rebooted node, as for conntrack).

import type { Rule } from "../proxy/iptables/model.js";
import { saveRule, type CounterSource } from "../proxy/iptables/render.js";

interface Counter {
  packets: number;
  bytes: number;
}

/** Bound on the counted rules of one node (past it, counting starts again from empty). */
const MAX_RULES = 50_000;

interface Entry {
  text: string;
  packets: number;
  bytes: number;
}

/** A rule's iptables-save text without "-A CHAIN" (rules are immutable: made once per rule object). */
const texts = new WeakMap<Rule, string>();
function textOf(r: Rule): string {
  let t = texts.get(r);
  if (t === undefined) texts.set(r, (t = saveRule("", r)));
  return t;
}

export class RuleCounters {
  /** table -> chain -> entry per rule index; the policy's at index -1 is kept apart. */
  private readonly tables = new Map<string, Map<string, (Entry | undefined)[]>>();
  private readonly policies = new Map<string, Map<string, Entry>>();
  private size = 0;

  private chain(table: string, chain: string): (Entry | undefined)[] {
    let t = this.tables.get(table);
    if (t === undefined) this.tables.set(table, (t = new Map()));
    let c = t.get(chain);
    if (c === undefined) t.set(chain, (c = []));
    return c;
  }

  /** A packet of `bytes` matched `rule`, rule `index` (0-based) of table/chain. */
  add(table: string, chain: string, index: number, rule: Rule, bytes: number): void {
    const c = this.chain(table, chain);
    const text = textOf(rule);
    let e = c[index];
    if (e === undefined || e.text !== text) {
      if (e === undefined && ++this.size > MAX_RULES) {
        this.tables.clear();
        this.size = 0;
        return this.add(table, chain, index, rule, bytes);
      }
      c[index] = e = { text, packets: 0, bytes: 0 };
    }
    e.packets++;
    e.bytes += bytes;
  }

  /** A packet of `bytes` reached the end of built-in chain table/chain: its policy decided. */
  policy(table: string, chain: string, bytes: number): void {
    let t = this.policies.get(table);
    if (t === undefined) this.policies.set(table, (t = new Map()));
    let e = t.get(chain);
    if (e === undefined) t.set(chain, (e = { text: "", packets: 0, bytes: 0 }));
    e.packets++;
    e.bytes += bytes;
  }

  /** The policy counter of built-in chain table/chain (undefined: zero). */
  policyCounter(table: string, chain: string): Counter | undefined {
    return this.policies.get(table)?.get(chain);
  }

  /** The counter of `rule`, now rule `index` of table/chain (undefined: zero, or a rule since rewritten). */
  get(table: string, chain: string, index: number, rule: Rule): Counter | undefined {
    const e = this.tables.get(table)?.get(chain)?.[index];
    return e !== undefined && e.text === textOf(rule) ? e : undefined;
  }
}

/** The size of a connection's first packet on the wire (IP header and all): a TCP SYN with its options, a bare UDP datagram, an ICMP echo of ping's 56 bytes. */
export function firstPacketBytes(proto: "tcp" | "udp" | "sctp" | "icmp"): number {
  return proto === "tcp" ? 60 : proto === "icmp" ? 84 : proto === "sctp" ? 68 : 28;
}

/** What the renderers read: a rule's counter if the rule at its place is still the one counted. */
export function counterSource(c: RuleCounters): CounterSource {
  return {
    rule: (table: string, chain: string, index: number, rule: Rule) => c.get(table, chain, index, rule),
    policy: (table: string, chain: string) => c.policyCounter(table, chain),
  };
}

/** Packets each way, client to server (in) and back (out), as ipvsadm --stats counts them. */
interface Exchange {
  inPkts: number;
  inBytes: number;
  outPkts: number;
  outBytes: number;
}

/** TCP/IP headers with the timestamp option: what every segment after the SYN carries. */
const TCP_HEADERS = 52;
/** The payload of a full segment on a 1500-byte MTU with timestamps. */
const MSS = 1448;

/**
 * A connection's handshake and close: TCP SYN, ACK ... FIN, ACK from the client and SYN-ACK,
 * FIN-ACK from the server (curl closes first); UDP one datagram each way (its payload unknown
 * here: headers only); SCTP's INIT/COOKIE exchange is counted like TCP's.
 */
export function handshakePackets(proto: string): Exchange {
  return proto === "udp" ? UDP_EXCHANGE : TCP_HANDSHAKE;
}
const UDP_EXCHANGE: Exchange = Object.freeze({ inPkts: 1, inBytes: 28, outPkts: 1, outBytes: 28 });
const TCP_HANDSHAKE: Exchange = Object.freeze({ inPkts: 4, inBytes: 60 + 3 * TCP_HEADERS, outPkts: 2, outBytes: 60 + TCP_HEADERS });

/** A request of `sent` bytes and an answer of `received`: full segments each way, the client ACKing every second one. */
export function dataPackets(sent: number, received: number): Exchange {
  const up = Math.max(1, Math.ceil(sent / MSS));
  const down = Math.max(1, Math.ceil(received / MSS));
  const acks = Math.ceil(down / 2);
  return { inPkts: up + acks, inBytes: sent + up * TCP_HEADERS + acks * TCP_HEADERS, outPkts: down, outBytes: received + down * TCP_HEADERS };
}
