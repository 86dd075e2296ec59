// The native ruleset of the nftables proxier: `table ip kube-proxy` as typed data.
//
// Rendering (transaction text, `nft list ...`) and packet evaluation both read this one
// structure, so every statement kube-proxy emits has exactly one shape below. A packet
// evaluator should treat an unknown `t` as a bug, never skip it.
//
// Statement shapes (transaction text as knftables writes it -> as `nft list` prints it):
//
//  t: "ct-state"     ct state new                                      (same)
//  t: "ip"           ip daddr 172.30.0.41 / ip saddr != 10.0.0.0/8       (same)
//  t: "ip-anon"      ip daddr { 172.30.0.0/16 }                        -> ip daddr 172.30.0.0/16
//                    ip saddr != { a , b }                             -> ip saddr != { a, b } (merged, sorted)
//  t: "ip-lookup"    ip daddr @cluster-ips                             (same)
//  t: "fib-local"    fib saddr type local                              (same)
//  t: "l4proto"      meta l4proto tcp                                  (same)
//  t: "mark-zero"    mark and 0x4000 == 0                              -> meta mark & 0x00004000 == 0x00000000
//  t: "vmap"         ip daddr . meta l4proto . th dport vmap @service-ips (same)
//  t: "numgen-vmap"  numgen random mod 2 vmap { 0 : goto a , 1 : goto b } -> { 0 : goto a, 1 : goto b }
//  t: "mark-set"     mark set mark or 0x4000                           -> meta mark set meta mark | 0x00004000
//                    mark set mark xor 0x4000                          -> meta mark set meta mark ^ 0x00004000
//  t: "update-set"   update @affinity-X { ip saddr }                   (same)
//  t: "dnat"         dnat to 10.180.0.1:80 (preceded by an "l4proto")  (same)
//  t: "masquerade"   masquerade fully-random                           (same)
//  t: "reject"       reject                                            (same)
//  t: "verdict"      accept | drop | return | jump <chain> | goto <chain>
//
// A rule is a list of these in order, plus an optional rule comment (`comment "..."`,
// printed last). Matches come first; evaluation stops at the first match that fails.

import { IndexedMap, TAG_ADDR, portNum, portTextNum, protoCode, protoPortTag } from "../../util/addr-index.js";
import { ipv4Num } from "../../util/ip.js";
import { TableHandles } from "./handles.js";

type AddrField = "saddr" | "daddr";
type L4Proto = "tcp" | "udp" | "sctp";
type CtState = "new" | "established" | "related" | "invalid";

export type Verdict =
  | { readonly kind: "accept" }
  | { readonly kind: "drop" }
  | { readonly kind: "return" }
  | { readonly kind: "jump"; readonly chain: string }
  | { readonly kind: "goto"; readonly chain: string };

/** One field of a concatenated lookup key: `ip daddr`, `meta l4proto`, `th dport`. */
export type KeyPart = "daddr" | "l4proto" | "dport";

export type Expr =
  /** Conntrack state is one of `states`. */
  | { readonly t: "ct-state"; readonly states: readonly CtState[] }
  /** Address (or CIDR prefix, "a.b.c.d/len") comparison. */
  | { readonly t: "ip"; readonly field: AddrField; readonly neg: boolean; readonly value: string }
  /** Address in (or, neg, not in) an anonymous set of addresses/prefixes, as written. */
  | { readonly t: "ip-anon"; readonly field: AddrField; readonly neg: boolean; readonly values: readonly string[] }
  /** Address in the named set `set`. */
  | { readonly t: "ip-lookup"; readonly field: AddrField; readonly set: string }
  /** `fib <field> type local`: the address is local to this node. */
  | { readonly t: "fib-local"; readonly field: AddrField }
  /** Layer-4 protocol match. */
  | { readonly t: "l4proto"; readonly proto: L4Proto }
  /** `mark and <mask> == 0`. */
  | { readonly t: "mark-zero"; readonly mask: number }
  /** Look `key` up in the verdict map `map`; on a hit apply the element's verdict, else continue. */
  | { readonly t: "vmap"; readonly key: readonly KeyPart[]; readonly map: string }
  /** Pick n = random mod `mod`, apply targets[n]. */
  | { readonly t: "numgen-vmap"; readonly mod: number; readonly targets: readonly Verdict[] }
  /** meta mark = meta mark <op> value. */
  | { readonly t: "mark-set"; readonly op: "or" | "xor"; readonly value: number }
  /** Add/refresh the packet's <field> address in the dynamic set `set` (with its timeout). */
  | { readonly t: "update-set"; readonly set: string; readonly field: AddrField }
  /** Destination NAT to addr:port (terminal for the nat hook). */
  | { readonly t: "dnat"; readonly addr: string; readonly port: number }
  /** Source NAT to the outgoing interface address. */
  | { readonly t: "masquerade"; readonly fullyRandom: boolean }
  /** Reject (ICMP port unreachable / TCP reset): terminal. */
  | { readonly t: "reject" }
  | { readonly t: "verdict"; readonly verdict: Verdict };

export interface Rule {
  readonly exprs: readonly Expr[];
  readonly comment?: string;
}

type ChainType = "filter" | "nat";
type Hook = "prerouting" | "input" | "forward" | "output" | "postrouting";

interface BaseHook {
  readonly type: ChainType;
  readonly hook: Hook;
  /** Numeric priority (dstnat = -100, srcnat = 100, filter = 0). */
  readonly priority: number;
  readonly policy: "accept" | "drop";
}

export interface Chain {
  readonly name: string;
  readonly base?: BaseHook;
  readonly comment?: string;
  /**
   * The chain's rules. Read-only for everyone but the proxier, and possibly computed on read
   * (endpoint chains are stored compactly), so do not keep or mutate the returned array.
   */
  rules: Rule[];
}

export type KeyType = "ipv4_addr" | "inet_proto" | "inet_service";
export type KeyValue = string | number;

export interface SetElement {
  /** One value per key type: ["172.30.0.41", "tcp", 80]. */
  readonly key: readonly KeyValue[];
  /** Maps only: the verdict. */
  readonly value?: Verdict;
  readonly comment?: string;
}

export interface NftSet {
  readonly name: string;
  /** true for `map` (verdict map), false for `set`. */
  readonly isMap: boolean;
  readonly keyType: readonly KeyType[];
  readonly flags: readonly ("dynamic" | "timeout")[];
  /** Default element timeout in seconds (affinity sets). */
  readonly timeout?: number;
  /** The kernel-side size nft records for sets that packets update (65535). */
  readonly size?: number;
  readonly comment?: string;
  /** Keyed by elementKey(key); iteration order is insertion order (listing sorts). */
  readonly elements: Map<string, SetElement>;
}

export interface NftTable {
  readonly family: "ip";
  readonly name: string;
  readonly comment?: string;
  /** Sets and maps in creation (kernel handle) order, as `nft list` prints them. */
  readonly sets: Map<string, NftSet>;
  /** Chains in creation (kernel handle) order, as `nft list` prints them. */
  readonly chains: ChainMap;
  /** The kernel handles `nft -a` prints; the proxier updates them after each sync. */
  readonly handles: TableHandles;
}

export function elementKey(key: readonly KeyValue[]): string {
  return key.length === 1 ? String(key[0]) : key.join(" . ");
}

export function newTable(name: string, comment?: string): NftTable {
  return { family: "ip", name, comment, sets: new Map(), chains: new ChainMap(), handles: new TableHandles() };
}

/**
 * A table's chains by name, in creation order, and its base chains by priority (the hooks'
 * registrations), kept as the chains are written so that reading them changes nothing.
 */
export class ChainMap extends Map<string, Chain> {
  private bases: readonly Chain[] = [];

  override set(name: string, chain: Chain): this {
    const old = super.get(name);
    super.set(name, chain);
    if (chain.base !== undefined || old?.base !== undefined) this.sortBases();
    return this;
  }

  override delete(name: string): boolean {
    const old = super.get(name);
    const deleted = super.delete(name);
    if (old?.base !== undefined) this.sortBases();
    return deleted;
  }

  override clear(): void {
    super.clear();
    this.bases = [];
  }

  /** The base chains, by priority (equal priorities in creation order). */
  baseChains(): readonly Chain[] {
    return this.bases;
  }

  private sortBases(): void {
    const base: Chain[] = [];
    for (const c of super.values()) if (c.base) base.push(c);
    this.bases = base.sort((a, b) => a.base!.priority - b.base!.priority);
  }
}

/**
 * A set's or map's elements by elementKey, with a numeric index (net/addr-index.ts) of the keys
 * that are a canonical dotted quad alone (`@cluster-ips`) or followed by " . tcp|udp|sctp .
 * <port>" (`ip daddr . meta l4proto . th dport` maps). `hasAddr(addr)` is exactly `has(addr)`
 * and `findAddrProtoPort(addr, proto, port)` exactly `get(addr + " . " + proto + " . " + port)`:
 * a canonical key is indexed whoever writes it, and a lookup that is not canonical (an odd
 * address text, protocol or port) asks the string map.
 */
export class ElementMap extends IndexedMap<SetElement> {
  findAddrProtoPort(addr: string, proto: string, port: number): SetElement | undefined {
    const a = ipv4Num(addr);
    const p = protoCode(proto);
    const n = portNum(port);
    if (a < 0 || p === 0 || n < 0) return super.get(`${addr} . ${proto} . ${port}`);
    return this.index.get(a, protoPortTag(p, n));
  }

  protected indexKey(key: string): { addr: number; tag: number } | undefined {
    const i = key.indexOf(" . ");
    if (i < 0) {
      const a = ipv4Num(key);
      return a < 0 ? undefined : { addr: a, tag: TAG_ADDR };
    }
    const j = key.indexOf(" . ", i + 3);
    if (j < 0) return undefined;
    const a = ipv4Num(key.slice(0, i));
    const p = protoCode(key.slice(i + 3, j));
    const n = portTextNum(key.slice(j + 3));
    if (a < 0 || p === 0 || n < 0) return undefined;
    return { addr: a, tag: protoPortTag(p, n) };
  }
}

// Shared: rules are never mutated after creation, so identical sub-expressions can be one object.
export const V_DROP: Verdict = Object.freeze({ kind: "drop" });

export function jump(chain: string): Expr {
  return { t: "verdict", verdict: { kind: "jump", chain } };
}
export function gotoVerdict(chain: string): Verdict {
  return { kind: "goto", chain };
}
export function goto(chain: string): Expr {
  return { t: "verdict", verdict: { kind: "goto", chain } };
}

/** Every chain a rule or map element can send a packet to. */
function* verdictTargets(table: NftTable): Generator<{ from: string; chain: string }> {
  for (const chain of table.chains.values()) {
    for (const rule of chain.rules) {
      for (const e of rule.exprs) {
        if (e.t === "verdict" && (e.verdict.kind === "jump" || e.verdict.kind === "goto")) {
          yield { from: `chain ${chain.name}`, chain: e.verdict.chain };
        } else if (e.t === "numgen-vmap") {
          for (const v of e.targets) if (v.kind === "jump" || v.kind === "goto") yield { from: `chain ${chain.name}`, chain: v.chain };
        }
      }
    }
  }
  for (const set of table.sets.values()) {
    for (const el of set.elements.values()) {
      const v = el.value;
      if (v && (v.kind === "jump" || v.kind === "goto")) yield { from: `map ${set.name}`, chain: v.chain };
    }
  }
}

/**
 * Checks the references nft itself would refuse: jump/goto targets and @set lookups must
 * exist, vmap lookups must name maps, set lookups must name sets. Returns the problems.
 */
export function validateTable(table: NftTable): string[] {
  const problems: string[] = [];
  for (const { from, chain } of verdictTargets(table)) {
    if (!table.chains.has(chain)) problems.push(`${from}: target chain ${chain} does not exist`);
  }
  for (const chain of table.chains.values()) {
    for (const rule of chain.rules) {
      for (const e of rule.exprs) {
        const ref = e.t === "vmap" ? e.map : e.t === "ip-lookup" || e.t === "update-set" ? e.set : undefined;
        if (ref === undefined) continue;
        const set = table.sets.get(ref);
        if (!set) problems.push(`chain ${chain.name}: set @${ref} does not exist`);
        else if (set.isMap !== (e.t === "vmap")) problems.push(`chain ${chain.name}: @${ref} is a ${set.isMap ? "map" : "set"}`);
      }
    }
  }
  return problems;
}
