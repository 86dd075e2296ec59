// kube-proxy in nftables mode (K/pkg/proxy/nftables/proxier.go, v1.33), building its native
// ruleset (model.ts) instead of an nft transaction. What `sync` leaves in `table` is what the
// kernel would hold after kube-proxy's transaction: chains keep their creation position when
// rewritten (nft flushes and refills them), new ones are appended, stale service chains are
// flushed at once and deleted on the following sync (kube-proxy waits >= 1s, because kernels
// before 6.2 notice map elements pointing at a chain only a little later), affinity sets are
// deleted at once.
import type { EndpointInfo, ProxyConfig, ProxyNode, ProxyState, Proxier, ServicePortInfo, SyncResult } from "../types.js";
import { endpointString, servicePortNameString } from "../types.js";
import { canonicalCIDR, canonicalIP, parseIPv4Sloppy, parsePrefix, prefixContains } from "../../util/ip.js";
import {
  type Chain,
  type Expr,
  type KeyValue,
  type NftSet,
  type NftTable,
  type Rule,
  type SetElement,
  type Verdict,
  V_DROP,
  elementKey,
  goto,
  jump,
  newTable,
  ElementMap,
  gotoVerdict,
} from "./model.js";
import * as N from "./names.js";
import { MadeRules, type MadeOnRead } from "../made-rules.js";
import { categorizeEndpoints, externallyAccessible, usesClusterEndpoints, usesLocalEndpoints } from "../topology.js";

interface NftablesProxierOptions {
  /**
   * ServiceCIDRs of the cluster's IPv4 family (kube-proxy reads them from ServiceCIDR objects);
   * traffic to an unallocated address in them is dropped. Default: kubeadm's 10.96.0.0/12.
   */
  serviceCIDRs?: readonly string[];
}

/** Where one element of a set/map came from, for per-service rendering and cleanup. */
export interface ElementRef {
  readonly set: string;
  readonly key: string;
}

/** What one service port owns in the table (kube-proxy keeps the same in its element storages). */
export interface ServicePortRecord {
  readonly key: string;
  readonly svc: ServicePortInfo;
  /** Chains of this service port in creation order: service-, local-, external-, endpoint-*, firewall-. */
  readonly chains: readonly string[];
  readonly affinitySets: readonly string[];
  /** Elements in kube-proxy's order, minus the no-endpoint ones listed below. */
  readonly elements: readonly ElementRef[];
  /** no-endpoint-services / no-endpoint-nodeports elements. */
  readonly noEndpointElements: readonly ElementRef[];
  readonly hasEndpoints: boolean;
  readonly hasExternalChain: boolean;
}

// Shared by every table, so frozen.
const MARK_MASQ_JUMP: Expr = Object.freeze({ t: "verdict", verdict: Object.freeze({ kind: "jump", chain: N.MARK_MASQ_CHAIN }) }) as Expr;
type IpExpr = Extract<Expr, { t: "ip" }>;
const CT_NEW: Expr = Object.freeze({ t: "ct-state", states: Object.freeze(["new"]) }) as Expr;
const DADDR_PROTO_PORT = Object.freeze(["daddr", "l4proto", "dport"] as const);
const PROTO_PORT = Object.freeze(["l4proto", "dport"] as const);
const DROP: Expr = { t: "verdict", verdict: V_DROP };
const L4PROTO: Record<"tcp" | "udp" | "sctp", Expr> = {
  tcp: Object.freeze({ t: "l4proto", proto: "tcp" }),
  udp: Object.freeze({ t: "l4proto", proto: "udp" }),
  sctp: Object.freeze({ t: "l4proto", proto: "sctp" }),
};
const GOTO_REJECT: Verdict = Object.freeze({ kind: "goto", chain: N.REJECT_CHAIN });

/**
 * The base chains and their order in the table. The order is the one of the golden kernel
 * listing (dumps/nftables-overall.kernel-list.txt, loaded from TestOverallNFTablesRules).
 */
const BASE_CHAINS: readonly { name: string; base?: Chain["base"]; comment?: string }[] = [
  { name: N.CLUSTER_IPS_CHECK },
  { name: N.FILTER_PREROUTING_PRE_DNAT, base: { type: "filter", hook: "prerouting", priority: -110, policy: "accept" } },
  { name: N.FILTER_OUTPUT_PRE_DNAT, base: { type: "filter", hook: "output", priority: -110, policy: "accept" } },
  { name: N.FILTER_FORWARD, base: { type: "filter", hook: "forward", priority: 0, policy: "accept" } },
  { name: N.FILTER_INPUT, base: { type: "filter", hook: "input", priority: 0, policy: "accept" } },
  { name: N.FILTER_OUTPUT, base: { type: "filter", hook: "output", priority: 0, policy: "accept" } },
  { name: N.FIREWALL_CHECK },
  { name: N.MARK_MASQ_CHAIN },
  { name: N.MASQUERADING_CHAIN },
  { name: N.NAT_OUTPUT, base: { type: "nat", hook: "output", priority: -100, policy: "accept" } },
  { name: N.NAT_POSTROUTING, base: { type: "nat", hook: "postrouting", priority: 100, policy: "accept" } },
  { name: N.NAT_PREROUTING, base: { type: "nat", hook: "prerouting", priority: -100, policy: "accept" } },
  { name: N.NODEPORT_ENDPOINTS_CHECK },
  { name: N.REJECT_CHAIN, comment: "helper for @no-endpoint-services / @no-endpoint-nodeports" },
  { name: N.SERVICES_CHAIN },
  { name: N.SERVICE_ENDPOINTS_CHECK },
];

/**
 * Jump rules from base chains, in kube-proxy's nftablesJumpChains order (so rules in one chain
 * keep that relative order). Reject is only valid in input/forward/output hooks on older
 * kernels, hence the endpoint checks are not hooked into prerouting.
 */
const JUMP_CHAINS: readonly { src: string; dst: string; ctNew: boolean }[] = [
  { dst: N.NODEPORT_ENDPOINTS_CHECK, src: N.FILTER_INPUT, ctNew: true },
  { dst: N.SERVICE_ENDPOINTS_CHECK, src: N.FILTER_INPUT, ctNew: true },
  { dst: N.SERVICE_ENDPOINTS_CHECK, src: N.FILTER_FORWARD, ctNew: true },
  { dst: N.SERVICE_ENDPOINTS_CHECK, src: N.FILTER_OUTPUT, ctNew: true },
  { dst: N.FIREWALL_CHECK, src: N.FILTER_PREROUTING_PRE_DNAT, ctNew: true },
  { dst: N.FIREWALL_CHECK, src: N.FILTER_OUTPUT_PRE_DNAT, ctNew: true },
  { dst: N.SERVICES_CHAIN, src: N.NAT_OUTPUT, ctNew: false },
  { dst: N.SERVICES_CHAIN, src: N.NAT_PREROUTING, ctNew: false },
  { dst: N.MASQUERADING_CHAIN, src: N.NAT_POSTROUTING, ctNew: false },
  { dst: N.CLUSTER_IPS_CHECK, src: N.FILTER_FORWARD, ctNew: true },
  { dst: N.CLUSTER_IPS_CHECK, src: N.FILTER_OUTPUT, ctNew: true },
];

/** Sets and maps created by setupNFTables, in the golden listing's order. */
const BASE_SETS: readonly Omit<NftSet, "elements">[] = [
  { name: N.CLUSTER_IPS_SET, isMap: false, keyType: ["ipv4_addr"], flags: [], comment: "Active ClusterIPs" },
  { name: N.NODEPORT_IPS_SET, isMap: false, keyType: ["ipv4_addr"], flags: [], comment: "IPs that accept NodePort traffic" },
  {
    name: N.FIREWALL_IPS_MAP,
    isMap: true,
    keyType: ["ipv4_addr", "inet_proto", "inet_service"],
    flags: [],
    comment: "destinations that are subject to LoadBalancerSourceRanges",
  },
  {
    name: N.NO_ENDPOINT_NODEPORTS_MAP,
    isMap: true,
    keyType: ["inet_proto", "inet_service"],
    flags: [],
    comment: "vmap to drop or reject packets to service nodeports with no endpoints",
  },
  {
    name: N.NO_ENDPOINT_SERVICES_MAP,
    isMap: true,
    keyType: ["ipv4_addr", "inet_proto", "inet_service"],
    flags: [],
    comment: "vmap to drop or reject packets to services with no endpoints",
  },
  {
    name: N.SERVICE_IPS_MAP,
    isMap: true,
    keyType: ["ipv4_addr", "inet_proto", "inet_service"],
    flags: [],
    comment: "ClusterIP, ExternalIP and LoadBalancer IP traffic",
  },
  { name: N.SERVICE_NODEPORTS_MAP, isMap: true, keyType: ["inet_proto", "inet_service"], flags: [], comment: "NodePort traffic" },
];

/** nft records this size for sets that packets update (`update @set`). */
const DYNAMIC_SET_SIZE = 65535;

/** Go's net.JoinHostPort order: kube-proxy keeps each service's endpoints sorted by "IP:port". */
function byEndpointString(a: EndpointInfo, b: EndpointInfo): number {
  const x = endpointString(a);
  const y = endpointString(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function rule(exprs: Expr[], comment?: string): Rule {
  return comment === undefined ? { exprs } : { exprs, comment };
}

/**
 * An endpoint chain, stored compactly: its rules are a pure function of (IP, port, protocol,
 * affinity set), built when read (a packet to the endpoint, a listing) and kept while recent
 * (MadeRules). A large cluster has ~10 of these per service, most never read; materialised they
 * would be most of the heap.
 *
 *   ip saddr <ip> jump mark-for-masquerade       (hairpin: the pod talking to itself)
 *   update @affinity-<...> { ip saddr }          (ClientIP affinity only)
 *   meta l4proto <proto> dnat to <ip>:<port>
 */
export class EndpointChain implements Chain, MadeOnRead {
  private own: Rule[] | undefined = undefined;
  constructor(
    readonly name: string,
    readonly ip: string,
    readonly port: number,
    readonly proto: "tcp" | "udp" | "sctp",
    readonly affinitySet: string | undefined,
    private readonly made: MadeRules,
  ) {}

  get rules(): Rule[] {
    if (this.own !== undefined) return this.own;
    const hairpin = rule([{ t: "ip", field: "saddr", neg: false, value: this.ip }, MARK_MASQ_JUMP]);
    const dnat = rule([L4PROTO[this.proto], { t: "dnat", addr: this.ip, port: this.port }]);
    const rules = this.affinitySet === undefined ? [hairpin, dnat] : [hairpin, rule([{ t: "update-set", set: this.affinitySet, field: "saddr" }]), dnat];
    this.made.made(this);
    return (this.own = Object.freeze(rules) as Rule[]);
  }

  forget(): void {
    this.own = undefined;
  }

  /** How many rules the chain has, without building them (for its kernel handles). */
  get ruleCount(): number {
    return this.affinitySet === undefined ? 2 : 3;
  }

  set rules(_: Rule[]) {
    throw new Error(`endpoint chain ${this.name} is rewritten by replacing it in the table`);
  }
}

/**
 * A service port's service- or local- chain (its rules an ordinary frozen array):
 *
 *   ip daddr <clusterIP> [ip saddr != <cluster CIDR>] jump mark-for-masquerade   (optional)
 *   ip saddr @<affinity set> goto <endpoint chain>          (per endpoint, ClientIP affinity only)
 *   numgen random mod <n> vmap { 0 : goto <endpoint chain>, ... }
 */
function serviceChain(
  name: string,
  masq: { daddr: string; fromOutside: IpExpr | undefined } | undefined,
  affinitySets: readonly string[] | undefined,
  targets: readonly Verdict[],
): Chain {
  const rules: Rule[] = [];
  if (masq !== undefined) {
    const daddr: Expr = { t: "ip", field: "daddr", neg: false, value: masq.daddr };
    rules.push(rule(masq.fromOutside === undefined ? [daddr, MARK_MASQ_JUMP] : [daddr, masq.fromOutside, MARK_MASQ_JUMP]));
  }
  if (affinitySets !== undefined) {
    for (let i = 0; i < targets.length; i++) rules.push(rule([{ t: "ip-lookup", field: "saddr", set: affinitySets[i] }, { t: "verdict", verdict: targets[i] }]));
  }
  rules.push(rule([{ t: "numgen-vmap", mod: targets.length, targets }]));
  return { name, rules: Object.freeze(rules) as Rule[] };
}

export class NftablesProxier implements Proxier {
  readonly mode = "nftables" as const;
  /** The live ruleset; read it, never write it from outside. */
  readonly table: NftTable = newTable(N.KUBE_PROXY_TABLE, N.TABLE_COMMENT);
  /** What endpoint chains made on read, the recent ones kept. */
  private readonly made = new MadeRules();

  private readonly node: ProxyNode;
  private readonly config: ProxyConfig;
  private readonly serviceCIDRs: readonly string[];
  private readonly masqMark: number;
  private readonly localCIDR: string | undefined;
  /** `ip saddr != <cluster CIDR>`, one object for every service's masquerade rule. */
  private readonly fromOutsideCluster: IpExpr | undefined;
  private readonly nodeIP: number | undefined;
  /** undefined: nodePortAddresses match all local addresses (no nodeport-ips set). */
  private readonly nodePortIPs: readonly string[] | undefined;

  private readonly records = new Map<string, ServicePortRecord>();
  /** Flushed service chains waiting for deletion at the next sync. */
  private readonly staleChains = new Set<string>();
  private initialized = false;

  constructor(node: ProxyNode, config: ProxyConfig, options: NftablesProxierOptions = {}) {
    this.node = node;
    this.config = config;
    this.serviceCIDRs = (options.serviceCIDRs ?? ["10.96.0.0/12"]).map((c) => canonicalCIDR(c) ?? c.trim());
    this.masqMark = 2 ** config.masqueradeBit;
    this.localCIDR = config.clusterCIDR ? canonicalCIDR(config.clusterCIDR) : undefined;
    this.fromOutsideCluster = this.localCIDR ? { t: "ip", field: "saddr", neg: true, value: this.localCIDR } : undefined;
    this.nodeIP = node.ips.map(parseIPv4Sloppy).find((v) => v !== undefined);
    this.nodePortIPs = resolveNodePortAddresses(node, config.nodePortAddresses);
  }

  /** Service ports in the table, in key order (the transaction renderer reads these). */
  serviceRecords(): ServicePortRecord[] {
    return [...this.records.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Chains flushed in the last sync and deleted at the next one. */
  staleChainNames(): string[] {
    return [...this.staleChains];
  }

  /** The masquerade mark kube-proxy writes in its transaction ("0x4000"). */
  masqueradeMarkText(): string {
    return `0x${this.masqMark.toString(16)}`;
  }

  sync(state: ProxyState, changed?: ReadonlySet<string>): SyncResult {
    // Stale chains from the previous sync are no longer referenced: delete them first.
    for (const name of this.staleChains) this.table.chains.delete(name);
    this.staleChains.clear();

    const full = changed === undefined || !this.initialized;
    let keys: Iterable<string>;
    if (full) {
      this.setupBase();
      keys = new Set([...state.services.keys(), ...this.records.keys()]);
    } else {
      keys = changed;
    }
    const sorted = [...keys].sort();
    let synced = 0;
    for (const key of sorted) {
      const got = state.services.get(key);
      // This is the IPv4 proxier (table ip): a service without an IPv4 ClusterIP is not its own.
      const svc = got && parseIPv4Sloppy(got.clusterIP) !== undefined ? got : undefined;
      const old = this.records.get(key);
      if (!svc) {
        if (old) this.removeRecord(old, undefined);
        continue;
      }
      const eps = (state.endpoints.get(key) ?? []).filter((e) => parseIPv4Sloppy(e.ip) !== undefined).sort(byEndpointString);
      this.writeServicePort(key, svc, eps, old);
      synced++;
    }
    this.initialized = true;
    this.table.handles.update(this.table);
    return { full, servicesSynced: synced };
  }

  // ---- setup ---------------------------------------------------------------------------------

  private setupBase(): void {
    const t = this.table;
    for (const def of BASE_SETS) {
      if (def.name === N.NODEPORT_IPS_SET && this.nodePortIPs === undefined) {
        t.sets.delete(def.name);
        continue;
      }
      const existing = t.sets.get(def.name);
      if (existing) existing.elements.clear();
      else t.sets.set(def.name, { ...def, elements: new ElementMap() });
    }
    // A full sync rewrites every element (kube-proxy resets its element storages).
    for (const r of this.records.values()) this.records.set(r.key, { ...r, elements: [], noEndpointElements: [] });

    for (const def of BASE_CHAINS) {
      const existing = t.chains.get(def.name);
      if (existing) existing.rules = [];
      else t.chains.set(def.name, { ...def, rules: [] });
    }
    for (const j of JUMP_CHAINS) {
      this.chain(j.src).rules.push(rule(j.ctNew ? [CT_NEW, jump(j.dst)] : [jump(j.dst)]));
    }
    this.chain(N.MARK_MASQ_CHAIN).rules.push(rule([{ t: "mark-set", op: "or", value: this.masqMark }]));
    const masq = this.chain(N.MASQUERADING_CHAIN).rules;
    masq.push(rule([{ t: "mark-zero", mask: this.masqMark }, { t: "verdict", verdict: { kind: "return" } }]));
    masq.push(rule([{ t: "mark-set", op: "xor", value: this.masqMark }]));
    masq.push(rule([{ t: "masquerade", fullyRandom: true }]));

    const cic = this.chain(N.CLUSTER_IPS_CHECK).rules;
    cic.push(rule([{ t: "ip-lookup", field: "daddr", set: N.CLUSTER_IPS_SET }, { t: "reject" }], "Reject traffic to invalid ports of ClusterIPs"));
    if (this.serviceCIDRs.length > 0) {
      cic.push(rule([{ t: "ip-anon", field: "daddr", neg: false, values: this.serviceCIDRs }, DROP], "Drop traffic to unallocated ClusterIPs"));
    }

    if (this.nodePortIPs !== undefined) {
      const set = t.sets.get(N.NODEPORT_IPS_SET)!;
      for (const ip of this.nodePortIPs) set.elements.set(ip, { key: [ip] });
    }

    this.chain(N.REJECT_CHAIN).rules.push(rule([{ t: "reject" }]));
    this.chain(N.SERVICE_ENDPOINTS_CHECK).rules.push(
      rule([{ t: "vmap", key: DADDR_PROTO_PORT, map: N.NO_ENDPOINT_SERVICES_MAP }]),
    );
    const noLocalhost: Expr = { t: "ip", field: "daddr", neg: true, value: "127.0.0.0/8" };
    const npIPs: Expr = { t: "ip-lookup", field: "daddr", set: N.NODEPORT_IPS_SET };
    const matchAll = this.nodePortIPs === undefined;
    this.chain(N.NODEPORT_ENDPOINTS_CHECK).rules.push(
      rule([matchAll ? noLocalhost : npIPs, { t: "vmap", key: PROTO_PORT, map: N.NO_ENDPOINT_NODEPORTS_MAP }]),
    );
    this.chain(N.FIREWALL_CHECK).rules.push(rule([{ t: "vmap", key: DADDR_PROTO_PORT, map: N.FIREWALL_IPS_MAP }]));
    const services = this.chain(N.SERVICES_CHAIN).rules;
    services.push(rule([{ t: "vmap", key: DADDR_PROTO_PORT, map: N.SERVICE_IPS_MAP }]));
    services.push(
      rule(
        matchAll
          ? [{ t: "fib-local", field: "daddr" }, noLocalhost, { t: "vmap", key: PROTO_PORT, map: N.SERVICE_NODEPORTS_MAP }]
          : [npIPs, { t: "vmap", key: PROTO_PORT, map: N.SERVICE_NODEPORTS_MAP }],
      ),
    );
    // Written once per full sync (the next one starts new arrays): frozen, so that nothing
    // else changes them.
    for (const def of BASE_CHAINS) Object.freeze(this.chain(def.name).rules);
  }

  private chain(name: string): Chain {
    const c = this.table.chains.get(name);
    if (!c) throw new Error(`nftables proxier: chain ${name} missing`);
    return c;
  }

  // ---- per service port ------------------------------------------------------------------------

  private removeRecord(old: ServicePortRecord, keep: ReadonlySet<string> | undefined): void {
    for (const ref of [...old.elements, ...old.noEndpointElements]) this.table.sets.get(ref.set)?.elements.delete(ref.key);
    for (const name of old.chains) {
      if (keep?.has(name)) continue;
      if (this.table.chains.has(name)) {
        this.table.chains.set(name, { name, rules: [] });
        this.staleChains.add(name);
      }
    }
    for (const name of old.affinitySets) if (!keep?.has(name)) this.table.sets.delete(name);
    if (!keep) this.records.delete(old.key);
  }

  private writeServicePort(key: string, svc: ServicePortInfo, endpoints: EndpointInfo[], old: ServicePortRecord | undefined): void {
    const proto = svc.protocol.toLowerCase() as "tcp" | "udp" | "sctp";
    const spnString = servicePortNameString(svc.name);
    const base = N.servicePortChainNameBase(svc.name);
    const clusterPolicyChain = N.prefixed(N.SERVICE_CHAIN_PREFIX, base);
    const localPolicyChain = N.prefixed(N.LOCAL_CHAIN_PREFIX, base);
    const externalChain = N.prefixed(N.EXTERNAL_CHAIN_PREFIX, base);
    const fwChain = N.prefixed(N.FIREWALL_CHAIN_PREFIX, base);
    const affinity = svc.stickyMaxAgeSeconds > 0;

    const cat = categorizeEndpoints(endpoints, svc, { nodeName: this.node.name, zone: this.node.zone, preferSameNode: false });
    const hasEndpoints = cat.hasAny;
    // Names are hashed once per endpoint and the same string objects are shared by the chain,
    // the verdicts pointing at it and the record (kube-proxy caches them in endpointInfo). The
    // endpoint's chain object is made with them, for the service chains to hold.
    const names = new Map<EndpointInfo, { chain: string; affinity: string; goto: Verdict; ownChain: EndpointChain }>();
    const epNames = (ep: EndpointInfo) => {
      let n = names.get(ep);
      if (!n) {
        const b = N.servicePortEndpointChainNameBase(svc.name, ep.ip, ep.port);
        const chain = N.prefixed(N.ENDPOINT_CHAIN_PREFIX, b);
        const aff = affinity ? N.prefixed(N.AFFINITY_SET_PREFIX, b) : "";
        const ownChain = new EndpointChain(chain, canonicalIP(ep.ip), ep.port, proto, affinity ? aff : undefined, this.made);
        n = { chain, affinity: aff, goto: gotoVerdict(chain), ownChain };
        names.set(ep, n);
      }
      return n;
    };
    const epChain = (ep: EndpointInfo) => epNames(ep).chain;
    const epAffinity = (ep: EndpointInfo) => epNames(ep).affinity;

    const usesClusterPolicyChain = cat.cluster.length > 0 && usesClusterEndpoints(svc);
    const usesLocalPolicyChain = cat.local.length > 0 && usesLocalEndpoints(svc);

    let hasInternalEndpoints = hasEndpoints;
    const internalTrafficChain = svc.internalPolicyLocal ? localPolicyChain : clusterPolicyChain;
    if (svc.internalPolicyLocal && cat.local.length === 0) hasInternalEndpoints = false;
    let hasExternalEndpoints = hasEndpoints;
    const externalPolicyChain = svc.externalPolicyLocal ? localPolicyChain : clusterPolicyChain;
    if (svc.externalPolicyLocal && cat.local.length === 0) hasExternalEndpoints = false;
    // Built whenever there are endpoints anywhere: the local-traffic short-circuit rules are
    // needed even when no endpoint is usable for external traffic.
    const usesExternalTrafficChain = hasEndpoints && externallyAccessible(svc);

    let internalFilter: Verdict | undefined;
    let externalFilter: Verdict | undefined;
    if (!hasEndpoints) {
      internalFilter = GOTO_REJECT;
      externalFilter = GOTO_REJECT;
    } else {
      if (!hasInternalEndpoints) internalFilter = V_DROP;
      if (!hasExternalEndpoints) externalFilter = V_DROP;
    }

    // ---- chains and their rules, in the order this service creates them
    const chains: Chain[] = [];
    const affinitySets: string[] = [];
    const reachable = [...cat.allReachable].sort((a, b) => {
      const x = epChain(a);
      const y = epChain(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });

    // The masquerade rule of the chain internal traffic takes, and each chain's endpoints.
    const masq = (chain: string) => {
      if (!hasInternalEndpoints || internalTrafficChain !== chain) return undefined;
      const daddr = canonicalIP(svc.clusterIP);
      if (this.config.masqueradeAll) return { daddr, fromOutside: undefined };
      return this.fromOutsideCluster ? { daddr, fromOutside: this.fromOutsideCluster } : undefined;
    };
    // An endpoint's goto verdict is one object for its affinity rule and numgen's map.
    const policyChain = (chain: string, eps: readonly EndpointInfo[]) =>
      serviceChain(
        chain,
        masq(chain),
        affinity ? eps.map(epAffinity) : undefined,
        eps.map((ep) => epNames(ep).goto),
      );

    if (usesClusterPolicyChain) chains.push(policyChain(clusterPolicyChain, cat.cluster));
    if (usesLocalPolicyChain) chains.push(policyChain(localPolicyChain, cat.local));
    if (usesExternalTrafficChain) {
      const rules: Rule[] = [];
      if (!svc.externalPolicyLocal) {
        // Endpoints may be on other nodes: masquerade so replies come back through us.
        rules.push(rule([MARK_MASQ_JUMP]));
      } else {
        if (this.localCIDR) {
          // Pod -> external IP traffic acts as if it went out to the LB and came back in.
          rules.push(rule([{ t: "ip", field: "saddr", neg: false, value: this.localCIDR }, goto(clusterPolicyChain)], "short-circuit pod traffic"));
        }
        // The node's own traffic gets the LB IP as source: masquerade it.
        rules.push(rule([{ t: "fib-local", field: "saddr" }, MARK_MASQ_JUMP], "masquerade local traffic"));
        rules.push(rule([{ t: "fib-local", field: "saddr" }, goto(clusterPolicyChain)], "short-circuit local traffic"));
      }
      if (hasExternalEndpoints) rules.push(rule([goto(externalPolicyChain)]));
      chains.push({ name: externalChain, rules });
    }
    for (const ep of reachable) {
      chains.push(epNames(ep).ownChain);
      if (affinity) affinitySets.push(epAffinity(ep));
    }
    const lbVIPs = ipv4Only(svc.loadBalancerVIPs);
    const sourceRanges = svc.loadBalancerSourceRanges.map((c) => canonicalCIDR(c)).filter((c): c is string => c !== undefined);
    const usesFWChain = lbVIPs.length > 0 && sourceRanges.length > 0;
    if (usesFWChain) {
      const sources = [...sourceRanges];
      const allowFromNode =
        this.nodeIP !== undefined && sourceRanges.some((c) => prefixContains(parsePrefix(c)!, this.nodeIP!));
      // A VIP often is a local address too: node -> VIP then loops back with the VIP as source.
      if (allowFromNode) sources.push(...lbVIPs);
      chains.push({ name: fwChain, rules: [rule([{ t: "ip-anon", field: "saddr", neg: true, values: sources }, DROP])] });
    }

    // ---- set and map elements, in kube-proxy's order
    const elements: { set: string; key: KeyValue[]; el: SetElement }[] = [];
    const noEp: { set: string; key: KeyValue[]; el: SetElement }[] = [];
    const port = svc.port;
    const cip = canonicalIP(svc.clusterIP);
    const add = (set: string, key: KeyValue[], value?: Verdict, comment?: string) => {
      const el: SetElement = value === undefined ? { key } : comment !== undefined ? { key, value, comment } : { key, value };
      (set === N.NO_ENDPOINT_SERVICES_MAP || set === N.NO_ENDPOINT_NODEPORTS_MAP ? noEp : elements).push({ set, key, el });
    };
    add(N.CLUSTER_IPS_SET, [cip]);
    if (hasInternalEndpoints) add(N.SERVICE_IPS_MAP, [cip, proto, port], gotoVerdict(internalTrafficChain));
    else add(N.NO_ENDPOINT_SERVICES_MAP, [cip, proto, port], internalFilter, spnString);
    for (const ext of ipv4Only(svc.externalIPs)) {
      if (hasEndpoints) add(N.SERVICE_IPS_MAP, [ext, proto, port], gotoVerdict(externalChain));
      if (!hasExternalEndpoints) add(N.NO_ENDPOINT_SERVICES_MAP, [ext, proto, port], externalFilter, spnString);
    }
    for (const lb of lbVIPs) {
      if (hasEndpoints) add(N.SERVICE_IPS_MAP, [lb, proto, port], gotoVerdict(externalChain));
      if (usesFWChain) add(N.FIREWALL_IPS_MAP, [lb, proto, port], gotoVerdict(fwChain));
    }
    if (!hasExternalEndpoints) for (const lb of lbVIPs) add(N.NO_ENDPOINT_SERVICES_MAP, [lb, proto, port], externalFilter, spnString);
    if (svc.nodePort !== 0) {
      if (hasEndpoints) add(N.SERVICE_NODEPORTS_MAP, [proto, svc.nodePort], gotoVerdict(externalChain));
      if (!hasExternalEndpoints) add(N.NO_ENDPOINT_NODEPORTS_MAP, [proto, svc.nodePort], externalFilter, spnString);
    }

    // ---- apply to the table
    const newChainNames = new Set(chains.map((c) => c.name));
    const newSetNames = new Set(affinitySets);
    if (old) this.removeRecord(old, new Set([...newChainNames, ...newSetNames]));
    for (const name of affinitySets) {
      const existing = this.table.sets.get(name);
      if (!existing || existing.timeout !== svc.stickyMaxAgeSeconds) {
        // A changed stickiness timeout takes effect for the set in place (Map.set keeps its
        // position); learned client entries stay.
        this.table.sets.set(name, {
          name,
          isMap: false,
          keyType: ["ipv4_addr"],
          flags: ["dynamic", "timeout"],
          timeout: svc.stickyMaxAgeSeconds,
          size: DYNAMIC_SET_SIZE,
          elements: existing?.elements ?? new Map(),
        });
      }
    }
    for (const c of chains) {
      // Map.set on an existing name keeps the chain's position: nft flushes and refills it.
      this.table.chains.set(c.name, c);
      this.staleChains.delete(c.name);
    }
    const refs = (list: typeof elements): ElementRef[] =>
      list.map(({ set, key, el }) => {
        const k = elementKey(key);
        this.table.sets.get(set)?.elements.set(k, el);
        return { set, key: k };
      });
    this.records.set(key, {
      key,
      svc,
      chains: chains.map((c) => c.name),
      affinitySets,
      elements: refs(elements),
      noEndpointElements: refs(noEp),
      hasEndpoints,
      hasExternalChain: usesExternalTrafficChain,
    });
  }
}

function ipv4Only(ips: readonly string[]): string[] {
  return ips.filter((ip) => parseIPv4Sloppy(ip) !== undefined).map(canonicalIP);
}

/**
 * nodePortAddresses for nftables: unset means "primary" (the node's primary IP; facts §9),
 * "primary" selects the node's primary IPv4, CIDRs select the node IPs inside them, and a
 * CIDR matching everything (0.0.0.0/0) means all local addresses (undefined: no nodeport-ips set).
 */
function resolveNodePortAddresses(node: ProxyNode, addrs: readonly string[]): string[] | undefined {
  const ipv4 = node.ips.map(canonicalIP).filter((ip) => parseIPv4Sloppy(ip) !== undefined);
  const wanted = addrs.length === 0 ? ["primary"] : addrs;
  const out: string[] = [];
  for (const a of wanted) {
    if (a === "primary") {
      if (ipv4[0] !== undefined) out.push(ipv4[0]);
      continue;
    }
    const p = parsePrefix(a);
    if (!p || !a.includes("/")) continue; // IPv6 or invalid: not this family
    if (p.len === 0) return undefined;
    for (const ip of ipv4) if (prefixContains(p, parseIPv4Sloppy(ip)!)) out.push(ip);
  }
  // Loopback addresses never accept NodePorts in nftables mode.
  return [...new Set(out)].filter((ip) => !ip.startsWith("127."));
}
