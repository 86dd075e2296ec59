// Compact forms of the per-endpoint rules (shapes V2, V3, D1, D2 in model.ts). A 10k-service
// cluster has ~100k endpoints and ~300k such rules, so these store one reference (and a count)
// each and derive their matches and targets when read (kept while recent: MadeRules); to a reader they
// are ordinary `Rule`s and the endpoint record is an ordinary `Chain` (the KUBE-SEP-* chain
// itself). A full sync computes every endpoint's chain name; the KUBE-SEP chain objects are made
// when a service port's chains are first read, and the chains (KUBE-SEP-*, KUBE-SVC-*,
// KUBE-SVL-*) make their rule lists on first read: most are read later or never (iptables-save,
// a packet to that service).
import { endpointString, type EndpointInfo } from "../types.js";
import type { Chain, L4, Match, Rule, Target } from "./model.js";
import { KUBE_MARK_MASQ } from "./names.js";
import type { MadeOnRead, MadeRules } from "../made-rules.js";

const NO_MATCHES: readonly Match[] = Object.freeze([]);
const T_MARK_MASQ: Target = Object.freeze({ t: "jump", chain: KUBE_MARK_MASQ });

/** -m statistic for the i-th of n remaining endpoints: computeProbability(n) = %0.10f of 1/n. */
function statisticMatch(n: number): Match {
  return { m: "statistic", probability: Number((1 / n).toFixed(10)) };
}

/** -m tcp|udp|sctp without a port: the same object for every service port. */
const PROTO_MATCHES: Readonly<Record<L4, Match>> = {
  tcp: Object.freeze({ m: "tcp", dport: undefined }),
  udp: Object.freeze({ m: "udp", dport: undefined }),
  sctp: Object.freeze({ m: "sctp", dport: undefined }),
};

/**
 * What the endpoint rules of one service port share. Their match lists are made with the first
 * rule that reads them (a sync makes one context per service port, most never read).
 */
export class ServiceContext {
  private hairpin: readonly Match[] | undefined = undefined;
  private dnat: readonly Match[] | undefined = undefined;
  constructor(
    readonly spn: string,
    readonly proto: L4,
    /** ClientIP affinity timeout; 0 = none. */
    readonly sticky: number,
    /** Large cluster mode: no per-endpoint comments. */
    readonly large: boolean,
    /** Keeps what the endpoint rules make on read (the proxier's). */
    readonly made: MadeRules,
  ) {}

  get protoMatch(): Match {
    return PROTO_MATCHES[this.proto];
  }

  /** `-m comment --comment <spn>` of the SEP rules; absent in large cluster mode. */
  get hairpinMatches(): readonly Match[] {
    return (this.hairpin ??= this.large ? NO_MATCHES : Object.freeze([Object.freeze({ m: "comment", text: this.spn })]));
  }

  /** SEP DNAT matches without affinity: [comment], -m <proto>. */
  get dnatMatches(): readonly Match[] {
    return (this.dnat ??= Object.freeze(this.large ? [this.protoMatch] : [this.hairpinMatches[0], this.protoMatch]));
  }
}

/** One endpoint of one service port that this node can reach: also its KUBE-SEP-* chain. */
class EndpointChain implements Chain {
  private own: Rule[] | undefined = undefined;
  constructor(
    readonly svc: ServiceContext,
    readonly info: EndpointInfo,
    /** KUBE-SEP-<hash>. */
    readonly name: string,
  ) {}
  /** D1 and D2, made on first read. */
  get rules(): Rule[] {
    return (this.own ??= [new HairpinRule(this), new DnatRule(this)]);
  }
  set rules(rules: Rule[]) {
    this.own = rules;
  }
  /** "IP:port" (net.JoinHostPort); derived, not stored (100k endpoints). */
  get str(): string {
    return endpointString(this.info);
  }
  get origin(): "restore" {
    return "restore";
  }
  get policy(): undefined {
    return undefined;
  }
}

abstract class EndpointRule implements Rule, MadeOnRead {
  /** The matches and target as made on read (see MadeRules), when they are not shared ones. */
  protected m: readonly Match[] | undefined = undefined;
  protected t: Target | undefined = undefined;
  constructor(readonly ep: EndpointChain) {}
  /** To be called before this rule keeps a match list or target it made. */
  protected making(): void {
    if (this.m === undefined && this.t === undefined) this.ep.svc.made.made(this);
  }
  forget(): void {
    this.m = this.t = undefined;
  }
  get src(): string | undefined {
    return undefined;
  }
  get srcNeg(): boolean {
    return false;
  }
  get dst(): string | undefined {
    return undefined;
  }
  get dstNeg(): boolean {
    return false;
  }
  get proto(): L4 | undefined {
    return undefined;
  }
  abstract readonly matches: readonly Match[];
  abstract readonly target: Target | null;
}

/** D1: [-m comment --comment <spn>] -s EPIP -j KUBE-MARK-MASQ (hairpin traffic is masqueraded). */
class HairpinRule extends EndpointRule {
  override get src(): string {
    return this.ep.info.ip;
  }
  get matches(): readonly Match[] {
    return this.ep.svc.hairpinMatches;
  }
  get target(): Target {
    return T_MARK_MASQ;
  }
}

/** D2: [-m comment --comment <spn>] [-m recent --name SEP --set] -m P -p P -j DNAT --to-destination IP:port. */
class DnatRule extends EndpointRule {
  override get proto(): L4 {
    return this.ep.svc.proto;
  }
  get matches(): readonly Match[] {
    const svc = this.ep.svc;
    if (svc.sticky === 0) return svc.dnatMatches;
    if (this.m === undefined) {
      this.making();
      const m: Match[] = svc.large ? [] : [svc.hairpinMatches[0]];
      m.push({ m: "recent", op: "set", name: this.ep.name, seconds: undefined, reap: false }, svc.protoMatch);
      this.m = Object.freeze(m);
    }
    return this.m;
  }
  get target(): Target {
    if (this.t === undefined) {
      this.making();
      this.t = Object.freeze({ t: "DNAT", to: this.ep.str });
    }
    return this.t;
  }
}

/**
 * V2 (affinity, remaining = 0): [-m comment --comment "<spn> -> IP:port"] -m recent --name SEP --rcheck --seconds T --reap -j SEP
 * V3: [-m comment --comment "<spn> -> IP:port"] [-m statistic ... 1/remaining] -j SEP (remaining 1: no statistic)
 */
class EndpointJumpRule extends EndpointRule {
  constructor(
    ep: EndpointChain,
    /** Endpoints left including this one (probability 1/remaining); 0 marks the affinity check. */
    readonly remaining: number,
  ) {
    super(ep);
  }
  get matches(): readonly Match[] {
    if (this.m !== undefined) return this.m;
    this.making();
    const svc = this.ep.svc;
    const m: Match[] = svc.large ? [] : [{ m: "comment", text: `${svc.spn} -> ${this.ep.str}` }];
    if (this.remaining === 0) {
      m.push({ m: "recent", op: "rcheck", name: this.ep.name, seconds: svc.sticky, reap: true });
    } else if (this.remaining > 1) {
      m.push(statisticMatch(this.remaining));
    }
    return (this.m = Object.freeze(m));
  }
  get target(): Target {
    if (this.t === undefined) {
      this.making();
      this.t = Object.freeze({ t: "jump", chain: this.ep.name });
    }
    return this.t;
  }
}

/**
 * The reachable endpoints of one service port and their KUBE-SEP names, computed by the sync;
 * the EndpointChain objects are made on first read (a cold 10k-service sync made 100k of them,
 * most never read, and as young objects that all survive they were copied by every scavenge).
 */
export class ServiceEndpoints {
  private made: EndpointChain[] | undefined = undefined;
  constructor(
    readonly svc: ServiceContext,
    /** In the order the policy chains jump to them. */
    readonly infos: readonly EndpointInfo[],
    /** KUBE-SEP-<hash> of each of `infos`. */
    readonly names: readonly string[],
  ) {}

  /** The KUBE-SEP chains, one per endpoint, the same objects on every read. */
  get chains(): readonly EndpointChain[] {
    if (this.made === undefined) {
      const n = this.names.length;
      const made = new Array<EndpointChain>(n);
      for (let i = 0; i < n; i++) made[i] = new EndpointChain(this.svc, this.infos[i], this.names[i]);
      this.made = made;
    }
    return this.made;
  }

  /** The chains of a subset of the endpoints (the Local ones; usually the Cluster list is all of them). */
  chainsOf(eps: readonly EndpointInfo[]): readonly EndpointChain[] {
    const chains = this.chains;
    if (eps === this.infos) return chains;
    const byInfo = new Map<EndpointInfo, EndpointChain>();
    for (const c of chains) if (!byInfo.has(c.info)) byInfo.set(c.info, c);
    return eps.map((info) => byInfo.get(info)!);
  }
}

/**
 * A KUBE-SVC-* or KUBE-SVL-* chain: the rules written into it before its endpoints (the
 * masquerade rule V1), then per endpoint V2 (ClientIP affinity only) and V3, made on first read.
 */
export class PolicyChain implements Chain {
  private own: Rule[] | undefined = undefined;
  constructor(
    readonly name: string,
    private readonly head: readonly Rule[],
    private readonly endpoints: ServiceEndpoints,
    /** The endpoints this chain jumps to, in order: all of `endpoints` or some of them. */
    private readonly jumpsTo: readonly EndpointInfo[],
    private readonly sticky: boolean,
  ) {}
  get rules(): Rule[] {
    if (this.own === undefined) {
      const eps = this.endpoints.chainsOf(this.jumpsTo);
      const rules = this.head.slice();
      if (this.sticky) for (const c of eps) rules.push(new EndpointJumpRule(c, 0));
      for (let i = 0; i < eps.length; i++) rules.push(new EndpointJumpRule(eps[i], eps.length - i));
      this.own = rules;
    }
    return this.own;
  }
  set rules(rules: Rule[]) {
    this.own = rules;
  }
  get origin(): "restore" {
    return "restore";
  }
  get policy(): undefined {
    return undefined;
  }
}
