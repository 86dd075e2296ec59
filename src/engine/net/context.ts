// What a node's rule evaluators share while one packet crosses that node: the packet's mutable
// header fields, the node's local addresses, its per-node kernel state (xt_recent tables, nft
// dynamic sets), the cluster's Rng and the trace being written.
import type { L4, TraceStep } from "./packet.js";
import { ipv4Num, ipv4Unchecked } from "../util/ip.js";
import { RuleCounters } from "./counters.js";

/** The cluster's Rng as the data plane uses it (uint32 draws, as the kernel's prandom). */
export interface RandomSource {
  uint32(): number;
}

/** The first packet of a connection while it is being evaluated (addresses set with setSrc and setDst). */
export interface Pkt {
  proto: L4;
  src: string;
  sport: number;
  /** ipv4Num(src): read by every rule that matches an address, so parsed once per rewrite. */
  srcNum: number;
  dst: string;
  dport: number;
  dstNum: number;
  mark: number;
  /** Conntrack: first packet of a new connection (nat chains run only for these). */
  ctNew: boolean;
  /** The connection has been destination-NATed (ctstate DNAT). */
  dnat: boolean;
  /** A MASQUERADE rule/statement matched in POSTROUTING. */
  masquerade: boolean;
}

/** The kernel's log ring (dmesg): at most this many lines, the oldest dropped. */
export const KERNEL_LOG_LINES = 1000;
/** net_ratelimit(): net.core.message_burst messages per net.core.message_cost seconds. */
const NET_RATELIMIT_BURST = 10;
const NET_RATELIMIT_INTERVAL_MS = 5000;

/** A node's kernel log (printk into the ring `dmesg` reads), with times in the cluster's ms. */
export class KernelLog {
  readonly lines: Array<{ ts: number; text: string }> = [];
  private windowStart = -Infinity;
  private inWindow = 0;
  private suppressed = 0;

  print(ts: number, text: string): void {
    this.lines.push({ ts, text });
    if (this.lines.length > KERNEL_LOG_LINES) this.lines.splice(0, this.lines.length - KERNEL_LOG_LINES);
  }

  /**
   * net_warn_ratelimited: at most NET_RATELIMIT_BURST messages per interval; the ones held back
   * are counted and said when the next interval begins, as ___ratelimit says them.
   */
  warnRatelimited(ts: number, text: string): void {
    if (ts - this.windowStart >= NET_RATELIMIT_INTERVAL_MS) {
      if (this.suppressed) this.print(ts, `net_ratelimit: ${this.suppressed} callbacks suppressed`);
      this.windowStart = ts;
      this.inWindow = 0;
      this.suppressed = 0;
    }
    if (this.inWindow >= NET_RATELIMIT_BURST) {
      this.suppressed++;
      return;
    }
    this.inWindow++;
    this.print(ts, text);
  }
}

/** Kernel state of one node that rules read and write. */
export class NodeKernelState {
  /** Its kernel log (conntrack's "table full"). */
  readonly log = new KernelLog();
  /** xt_recent tables: name -> source IP -> last seen (ms). */
  readonly recent = new Map<string, Map<string, number>>();
  /** nft dynamic sets (affinity-*): set name -> element -> expiry (ms). */
  readonly nftDynamic = new Map<string, Map<string, number>>();
  /** The packet and byte counters of the node's iptables rules. */
  readonly counters = new RuleCounters();
}

export type HookName = "prerouting" | "input" | "forward" | "output" | "postrouting";

/** How a hook (all tables/base chains registered on it) ended for the packet. */
export type HookOutcome = { t: "accept" } | { t: "drop"; reason: string } | { t: "reject"; reason: string };

export class EvalContext {
  rules = 0;
  /** The packet is traffic (not a diagnostic probe): matched rules count it, of `pktBytes` bytes. */
  counting = false;
  pktBytes = 0;
  /** IPVS mode: the node's ipsets for `-m set --match-set` (set per hop; not bound, no allocation). */
  ipvs: { ipset(name: string): { type: string; entries: ReadonlyMap<string, unknown> } | undefined } | undefined;
  constructor(
    readonly node: string,
    readonly isLocal: (ip: string) => boolean,
    /** Mutable: the data plane reuses one trace-less context per node across packets. */
    public now: number,
    public rng: RandomSource,
    readonly kernel: NodeKernelState,
    /** The Dataplane's parsed address specs. */
    readonly specs: SpecCache,
    readonly trace: TraceStep[] | undefined,
  ) {}
  step(s: Omit<TraceStep, "node">): void {
    this.trace?.push({ node: this.node, ...s });
  }
}

/** A tracer met a rule shape it was not written for: fail loudly instead of misrouting. */
export class UnknownRuleShape extends Error {
  constructor(what: string) {
    super(`packet tracer: unknown rule shape: ${what}`);
    this.name = "UnknownRuleShape";
  }
}

export function setSrc(pkt: Pkt, ip: string, port: number): void {
  pkt.src = ip;
  pkt.srcNum = ipv4Num(ip);
  pkt.sport = port;
}

export function setDst(pkt: Pkt, ip: string, port: number): void {
  pkt.dst = ip;
  pkt.dstNum = ipv4Num(ip);
  pkt.dport = port;
}

/** A rule's address or CIDR as SpecCache.matches reads it (with text: an address, compared as text). */
interface Spec {
  readonly base: number;
  readonly mask: number;
  readonly text: string | undefined;
}

/**
 * The rules' address specs as numbers, parsed once per Dataplane (its nodes' rules repeat the same
 * few thousand). Bounded: cleared when full, and a refill costs one parse per spec.
 */
export class SpecCache {
  private readonly specs = new Map<string, Spec>();
  constructor(private readonly limit = 1 << 16) {}

  get size(): number {
    return this.specs.size;
  }

  of(spec: string): Spec {
    let c = this.specs.get(spec);
    if (c === undefined) {
      const slash = spec.indexOf("/");
      if (slash < 0) c = { base: 0, mask: 0, text: spec };
      else {
        const len = Number(spec.slice(slash + 1));
        const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
        c = { base: (ipv4Unchecked(spec.slice(0, slash)) & mask) >>> 0, mask, text: undefined };
      }
      if (this.specs.size >= this.limit) this.specs.clear();
      this.specs.set(spec, c);
    }
    return c;
  }

  /** Is `ip` (whose ipv4Num is `num`) the address `spec` or inside the CIDR `spec` ("a.b.c.d" or "a.b.c.d/len")? */
  matches(spec: string, ip: string, num: number): boolean {
    const c = this.of(spec);
    if (c.text !== undefined) return c.text === ip;
    return (((num >= 0 ? num : ipv4Unchecked(ip)) & c.mask) >>> 0) === c.base;
  }
}
