// What a node's rule evaluators share while one packet crosses that node: the packet's mutable
// header fields, the node's local addresses, its per-node kernel state (xt_recent tables, nft
// dynamic sets), the cluster's Rng and the trace being written.
import type { L4, TraceStep } from "./packet.js";
import { ipv4Unchecked } from "./ip.js";
import { addrNum } from "./addr-index.js";

/** The cluster's Rng as the data plane uses it (uint32 draws, as the kernel's prandom). */
export interface RandomSource {
  uint32(): number;
}

/** The first packet of a connection while it is being evaluated. */
export interface Pkt {
  proto: L4;
  src: string;
  sport: number;
  dst: string;
  dport: number;
  mark: number;
  /** Conntrack: first packet of a new connection (nat chains run only for these). */
  ctNew: boolean;
  /** The connection has been destination-NATed (ctstate DNAT). */
  dnat: boolean;
  /** A MASQUERADE rule/statement matched in POSTROUTING. */
  masquerade: boolean;
}

/** Kernel state of one node that rules read and write. */
export class NodeKernelState {
  /** xt_recent tables: name -> source IP -> last seen (ms). */
  readonly recent = new Map<string, Map<string, number>>();
  /** nft dynamic sets (affinity-*): set name -> element -> expiry (ms). */
  readonly nftDynamic = new Map<string, Map<string, number>>();
}

export type HookName = "prerouting" | "input" | "forward" | "output" | "postrouting";

/** How a hook (all tables/base chains registered on it) ended for the packet. */
export type HookOutcome = { t: "accept" } | { t: "drop"; reason: string } | { t: "reject"; reason: string };

export class EvalContext {
  rules = 0;
  /** IPVS mode: the node's ipsets for `-m set --match-set` (set per hop; not bound, no allocation). */
  ipvs: { ipset(name: string): { type: string; entries: ReadonlyMap<string, unknown> } | undefined } | undefined;
  constructor(
    readonly node: string,
    readonly isLocal: (ip: string) => boolean,
    /** Mutable: the data plane reuses one trace-less context per node across packets. */
    public now: number,
    public rng: RandomSource,
    readonly kernel: NodeKernelState,
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

const cidrCache = new Map<string, { base: number; mask: number }>();

const ipNum = ipv4Unchecked;

/** Is `ip` the address `spec` or inside the CIDR `spec` ("a.b.c.d" or "a.b.c.d/len")? */
export function addrMatches(spec: string, ip: string): boolean {
  const c = cidrOf(spec);
  if (c === undefined) return spec === ip;
  // A packet's addresses are read against several prefixes per node: addrNum keeps the last four.
  const a = addrNum(ip);
  return (((a >= 0 ? a : ipNum(ip)) & c.mask) >>> 0) === c.base;
}

/** The CIDR `spec` as addrMatches reads it (undefined: `spec` is an address, matched as text). */
export function cidrOf(spec: string): { readonly base: number; readonly mask: number } | undefined {
  const slash = spec.indexOf("/");
  if (slash < 0) return undefined;
  let c = cidrCache.get(spec);
  if (c === undefined) {
    const len = Number(spec.slice(slash + 1));
    const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
    c = { base: (ipNum(spec.slice(0, slash)) & mask) >>> 0, mask };
    cidrCache.set(spec, c);
  }
  return c;
}

export { ipNum };
