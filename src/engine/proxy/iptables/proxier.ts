// The iptables-mode kube-proxy: syncProxyRules of K/pkg/proxy/iptables/proxier.go (~v1.31-1.33)
// turned into a structured ruleset (model.ts) instead of iptables-restore text.
//
// Differences from the real thing, on purpose:
// - Services are processed in sorted service-port-key order (Go map order is random), so the
//   restore order is deterministic; iptables-save sorts chains anyway.
// - Stale per-service chains disappear at once (kube-proxy defers their deletion in large
//   cluster mode until the next syncPeriod).
// - IPv4 only, like one of the two proxiers of kube-proxy's dual-stack MetaProxier.
import { MadeRules } from "../made-rules.js";
import type { EndpointInfo, ProxyConfig, ProxyNode, ProxyState, Proxier, ServicePortInfo, SyncResult } from "../types.js";
import { endpointString, sameEndpointList, sameServicePort, servicePortNameString } from "../types.js";
import { formatPrefix, parseIPv4Sloppy, parsePrefix, prefixContains, type Prefix } from "../../util/ip.js";
import {
  BUILTIN_CHAINS,
  TABLE_ORDER,
  rule,
  type Chain,
  type ChainMap,
  type ChainOrigin,
  type L4,
  type Match,
  type Rule,
  type Ruleset,
  type Table,
  type TableName,
  type Target,
} from "./model.js";
import * as N from "./names.js";
import { PolicyChain, ServiceContext, ServiceEndpoints } from "./compact.js";
import { categorizeEndpoints, externallyAccessible, usesClusterEndpoints, usesLocalEndpoints } from "../topology.js";

/** Facts about the node's iptables/kernel that KubeProxyConfiguration does not carry. */
export interface IptablesProxierOptions {
  /**
   * nfacct counters exist (localhost NodePort and INVALID-drop accounting rules are written).
   * Default false: the nfacct objects are absent in a fresh network namespace, so a real
   * iptables-restore would refuse those rules.
   */
  nfacct?: boolean;
  /** iptables supports MASQUERADE --random-fully (HasRandomFully); true for iptables 1.8.9. */
  randomFully?: boolean;
  /** Create the empty KUBE-PROXY-CANARY chains in mangle, nat and filter (iptables Monitor). */
  canaryChains?: boolean;
  /** net.netfilter.nf_conntrack_tcp_be_liberal=1: no DROP of conntrack INVALID packets. */
  conntrackTCPBeLiberal?: boolean;
  /** Feature gate PreferSameTrafficDistribution (node hints); alpha, off by default in v1.33. */
  preferSameTrafficDistribution?: boolean;
}

const STICKY_NONE = 0;
const L4_OF: Readonly<Record<ServicePortInfo["protocol"], L4>> = { TCP: "tcp", UDP: "udp", SCTP: "sctp" };
const FIREWALL_COMMENT = "block incoming localnet connections";
const NODEPORTS_TAIL_COMMENT = "kubernetes service nodeports; NOTE: this must be the last rule in this chain";
const LOCALHOST_NPS_NFACCT = "localhost_nps_accepted_pkts";
const CT_INVALID_NFACCT = "ct_state_invalid_dropped_pkts";
const LOOPBACK_V4 = 0x7f000001;

/** kube-proxy's iptablesJumpChains + the kubelet duplicates, each installed with EnsureRule(Prepend). */
const JUMP_CHAINS: ReadonlyArray<{ table: TableName; dst: string; src: string; comment: string; ctNew: boolean }> = [
  { table: "filter", dst: N.KUBE_EXTERNAL_SERVICES, src: N.CHAIN_INPUT, comment: "kubernetes externally-visible service portals", ctNew: true },
  { table: "filter", dst: N.KUBE_EXTERNAL_SERVICES, src: N.CHAIN_FORWARD, comment: "kubernetes externally-visible service portals", ctNew: true },
  { table: "filter", dst: N.KUBE_NODEPORTS, src: N.CHAIN_INPUT, comment: "kubernetes health check service ports", ctNew: false },
  { table: "filter", dst: N.KUBE_SERVICES, src: N.CHAIN_FORWARD, comment: "kubernetes service portals", ctNew: true },
  { table: "filter", dst: N.KUBE_SERVICES, src: N.CHAIN_OUTPUT, comment: "kubernetes service portals", ctNew: true },
  { table: "filter", dst: N.KUBE_FORWARD, src: N.CHAIN_FORWARD, comment: "kubernetes forwarding rules", ctNew: false },
  { table: "filter", dst: N.KUBE_PROXY_FIREWALL, src: N.CHAIN_INPUT, comment: "kubernetes load balancer firewall", ctNew: true },
  { table: "filter", dst: N.KUBE_PROXY_FIREWALL, src: N.CHAIN_OUTPUT, comment: "kubernetes load balancer firewall", ctNew: true },
  { table: "filter", dst: N.KUBE_PROXY_FIREWALL, src: N.CHAIN_FORWARD, comment: "kubernetes load balancer firewall", ctNew: true },
  { table: "nat", dst: N.KUBE_SERVICES, src: N.CHAIN_OUTPUT, comment: "kubernetes service portals", ctNew: false },
  { table: "nat", dst: N.KUBE_SERVICES, src: N.CHAIN_PREROUTING, comment: "kubernetes service portals", ctNew: false },
  { table: "nat", dst: N.KUBE_POSTROUTING, src: N.CHAIN_POSTROUTING, comment: "kubernetes postrouting rules", ctNew: false },
  // iptablesKubeletJumpChains: no comment.
  { table: "filter", dst: N.KUBE_FIREWALL, src: N.CHAIN_INPUT, comment: "", ctNew: false },
  { table: "filter", dst: N.KUBE_FIREWALL, src: N.CHAIN_OUTPUT, comment: "", ctNew: false },
];

// Shared immutable pieces: a 10k-service ruleset reuses them instead of allocating per rule.
const jumpTargets = new Map<string, Target>();
function jump(chain: string): Target {
  let t = jumpTargets.get(chain);
  if (t === undefined) {
    t = { t: "jump", chain };
    // Only the fixed chains are interned; per-service targets live as long as their service.
    if (!N.isServiceChainName(chain)) jumpTargets.set(chain, t);
  }
  return t;
}
const T_ACCEPT: Target = { t: "ACCEPT" };
const T_DROP: Target = { t: "DROP" };
const T_RETURN: Target = { t: "RETURN" };
const T_REJECT: Target = { t: "REJECT" };
const T_MARK_MASQ = jump(N.KUBE_MARK_MASQ);
const ADDRTYPE_DST_LOCAL: Match = { m: "addrtype", srcType: undefined, dstType: "LOCAL" };
const ADDRTYPE_SRC_LOCAL: Match = { m: "addrtype", srcType: "LOCAL", dstType: undefined };
const CT_NEW: Match = { m: "conntrack", ctstate: ["NEW"], invert: false };

function comment(text: string): Match {
  return { m: "comment", text };
}

/** What one service port contributes: rules in shared chains, and the nat chains it owns. */
interface ServiceRecord {
  natServices: Rule[] | undefined;
  natNodePorts: Rule[] | undefined;
  filterServices: Rule[] | undefined;
  filterExternal: Rule[] | undefined;
  filterNodePorts: Rule[] | undefined;
  filterFirewall: Rule[] | undefined;
  /** Its own chains but the KUBE-SEP ones: EXT, FW, SVC, SVL (those it uses). */
  chains: Chain[];
  /** The KUBE-SEP chains' endpoints and names (the names are reused on the next build). */
  endpoints: ServiceEndpoints | undefined;
  /** The inputs it was built from, and in which mode. */
  svc: ServicePortInfo;
  eps: readonly EndpointInfo[];
  large: boolean;
  /** portProtoHash of the service port, reused on the next build. */
  hash: string | undefined;
  /** len(endpointsMap[svc]): counted for large-cluster mode whether usable or not. */
  endpointCount: number;
}

/**
 * Service records that do not depend on the node, shared by the iptables proxiers of one cluster.
 * Every node's kube-proxy keeps a full ruleset (as on a real cluster), but a service port with no
 * topology hints and no loadBalancerSourceRanges, whose endpoint list holds no endpoint local to
 * the node or which has no Local traffic policy (see endpointsFor), is built from the same inputs
 * into the same chains on every node with the same configuration: one record serves them all. Records are never changed after they are
 * built (a sync replaces them), so sharing is invisible to renderers and the packet path.
 */
export class SharedServiceRecords {
  /** Which service port each per-service chain name belongs to, for every proxier sharing records. */
  readonly owners = new ChainOwners();
  private readonly byKey = new Map<string, { svc: ServicePortInfo; eps: readonly EndpointInfo[]; fp: string; rec: ServiceRecord }>();

  /** @internal */
  get(key: string, svc: ServicePortInfo, eps: readonly EndpointInfo[], fp: string): ServiceRecord | undefined {
    const e = this.byKey.get(key);
    return e && e.svc === svc && e.eps === eps && e.fp === fp ? e.rec : undefined;
  }

  /** @internal */
  set(key: string, svc: ServicePortInfo, eps: readonly EndpointInfo[], fp: string, rec: ServiceRecord): void {
    this.byKey.set(key, { svc, eps, fp, rec });
  }

  /** Forget a service port no proxier has any more. */
  delete(key: string): void {
    this.byKey.delete(key);
  }
}

/** The chain names of a service port's record. */
interface ChainNames {
  readonly chains: readonly Chain[];
  readonly endpoints: { readonly names: readonly string[] } | undefined;
}

/** How many chains a record has. */
function chainCount(rec: ChainNames): number {
  return rec.chains.length + (rec.endpoints?.names.length ?? 0);
}

/**
 * Which service port a per-service nat chain (KUBE-SVC/SVL/EXT/FW/SEP) belongs to, by name: the
 * nat table finds such a chain in the proxier's record of that port. A chain name is a hash of
 * its service port (and endpoint), so an entry is never wrong, only possibly stale; entries
 * follow the latest records built, and a proxier that still holds an older record looks
 * through its records instead.
 */
export class ChainOwners {
  // An open-addressing table (linear probing, at most half full, backward-shift deletion) with
  // the probe tags in an Int32Array beside the names and keys. Chain names end in 16 base32
  // characters of a sha256, so a tag made from their last characters is already well spread and
  // costs six character reads; a Map hashed every new name in full and probed and rehashed a
  // table of ~110k entries (a fifth of a cold 10k-service sync).
  private tags = new Int32Array(64);
  // Holey arrays (a slot is read only where its tag is set): filling a 256k-slot array with
  // undefined cost a cold sync more than all the inserts into it.
  private names: (string | undefined)[] = new Array<string | undefined>(64);
  private keys: (string | undefined)[] = new Array<string | undefined>(64);
  private mask = 63;
  private count = 0;

  keyOf(name: string): string | undefined {
    const i = this.slot(name, tagOf(name));
    return i < 0 ? undefined : this.keys[i];
  }

  /** The chains of service port `key` went from `was` to `now`. */
  replace(key: string, was: ChainNames | undefined, now: ChainNames | undefined): void {
    if (was === now) return;
    if (was) {
      for (const c of was.chains) this.remove(c.name, key);
      if (was.endpoints) for (const name of was.endpoints.names) this.remove(name, key);
    }
    if (now) {
      for (const c of now.chains) this.set(c.name, key);
      if (now.endpoints) for (const name of now.endpoints.names) this.set(name, key);
    }
  }

  private remove(name: string, key: string): void {
    const i = this.slot(name, tagOf(name));
    if (i >= 0 && this.keys[i] === key) this.removeAt(i);
  }

  /** The slot holding `name`, or -1. */
  private slot(name: string, tag: number): number {
    const tags = this.tags;
    const mask = this.mask;
    for (let i = tag & mask; ; i = (i + 1) & mask) {
      const t = tags[i];
      if (t === 0) return -1;
      if (t === tag && this.names[i] === name) return i;
    }
  }

  private set(name: string, key: string): void {
    const tag = tagOf(name);
    const tags = this.tags;
    const mask = this.mask;
    let i = tag & mask;
    for (;;) {
      const t = tags[i];
      if (t === 0) break;
      if (t === tag && this.names[i] === name) {
        this.keys[i] = key;
        return;
      }
      i = (i + 1) & mask;
    }
    if ((this.count + 1) * 2 > tags.length) {
      this.grow();
      this.set(name, key);
      return;
    }
    tags[i] = tag;
    this.names[i] = name;
    this.keys[i] = key;
    this.count++;
  }

  private removeAt(i: number): void {
    const { tags, names, keys, mask } = this;
    for (let j = i; ; ) {
      tags[i] = 0;
      names[i] = keys[i] = undefined;
      for (;;) {
        j = (j + 1) & mask;
        const t = tags[j];
        if (t === 0) {
          this.count--;
          return;
        }
        const home = t & mask;
        if (i <= j ? home <= i || home > j : home <= i && home > j) {
          tags[i] = t;
          names[i] = names[j];
          keys[i] = keys[j];
          i = j;
          break;
        }
      }
    }
  }

  /** Room for `n` names without growing on the way (a cold full sync knows about how many). */
  reserve(n: number): void {
    let size = this.tags.length;
    while (n * 2 > size) size *= 2;
    if (size !== this.tags.length) this.grow(size);
  }

  private grow(size = this.tags.length * 2): void {
    const { tags, names, keys } = this;
    const n = size;
    this.tags = new Int32Array(n);
    this.names = new Array<string | undefined>(n);
    this.keys = new Array<string | undefined>(n);
    this.mask = n - 1;
    for (let i = 0; i < tags.length; i++) {
      const t = tags[i];
      if (t === 0) continue;
      let k = t & this.mask;
      while (this.tags[k] !== 0) k = (k + 1) & this.mask;
      this.tags[k] = t;
      this.names[k] = names[i];
      this.keys[k] = keys[i];
    }
  }
}

/** A non-zero probe tag from a chain name's last (hash) characters, and its length. */
function tagOf(name: string): number {
  const n = name.length;
  let h = n;
  for (let i = n > 6 ? n - 6 : 0; i < n; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x9e3779b1);
  h ^= h >>> 15;
  return (h & 0x3fffffff) | 0x40000000;
}

/** A record's chain by name: a scan of a few chains, or a map made once for a large record. */
const endpointIndexes = new WeakMap<ServiceEndpoints, Map<string, number>>();
function recordChain(rec: ServiceRecord | undefined, name: string): Chain | undefined {
  if (rec === undefined) return undefined;
  const chains = rec.chains;
  for (let i = 0; i < chains.length; i++) if (chains[i].name === name) return chains[i];
  const eps = rec.endpoints;
  if (eps === undefined) return undefined;
  const names = eps.names;
  if (names.length <= 16) {
    for (let i = 0; i < names.length; i++) if (names[i] === name) return eps.chains[i];
    return undefined;
  }
  let m = endpointIndexes.get(eps);
  if (m === undefined) {
    m = new Map();
    for (let i = 0; i < names.length; i++) if (!m.has(names[i])) m.set(names[i], i);
    endpointIndexes.set(eps, m);
  }
  const i = m.get(name);
  return i === undefined ? undefined : eps.chains[i];
}

/**
 * The nat table's chains: the proxier's own (built-in and static), then the chains of its
 * service records in service-port order (`order`). Not a Map of its own: a 1000-service node
 * would hold ~10k entries, most of them chains of records every node shares.
 */
class NatChains implements ChainMap {
  constructor(
    private readonly own: Map<string, Chain>,
    private readonly owners: ChainOwners,
    private readonly records: () => ReadonlyMap<string, ServiceRecord>,
    private readonly order: () => readonly string[],
  ) {}

  get(name: string): Chain | undefined {
    const c = this.own.get(name);
    if (c !== undefined) return c;
    const records = this.records();
    const key = this.owners.keyOf(name);
    const found = key === undefined ? undefined : recordChain(records.get(key), name);
    if (found !== undefined) return found;
    for (const rec of records.values()) {
      const f = recordChain(rec, name);
      if (f !== undefined) return f;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Only the table's own chains are set and deleted; service chains follow the records. */
  set(name: string, chain: Chain): this {
    this.own.set(name, chain);
    return this;
  }

  delete(name: string): boolean {
    return this.own.delete(name);
  }

  get size(): number {
    let n = this.own.size;
    for (const rec of this.records().values()) n += chainCount(rec);
    return n;
  }

  *values(): MapIterator<Chain> {
    yield* this.own.values();
    const records = this.records();
    for (const key of this.order()) {
      const rec = records.get(key)!;
      yield* rec.chains;
      if (rec.endpoints) yield* rec.endpoints.chains;
    }
  }

  *keys(): MapIterator<string> {
    for (const c of this.values()) yield c.name;
  }

  *entries(): MapIterator<[string, Chain]> {
    for (const c of this.values()) yield [c.name, c];
  }

  [Symbol.iterator](): MapIterator<[string, Chain]> {
    return this.entries();
  }

  forEach(cb: (value: Chain, key: string, map: ReadonlyMap<string, Chain>) => void, thisArg?: unknown): void {
    for (const c of this.values()) cb.call(thisArg, c, c.name, this);
  }
}

function nodeIndependent(svc: ServicePortInfo, eps: readonly EndpointInfo[]): boolean {
  if (svc.loadBalancerSourceRanges.length > 0) return false;
  for (let i = 0; i < eps.length; i++) {
    const e = eps[i];
    if (e.isLocal || e.zoneHints.length > 0 || e.nodeHints.length > 0) return false;
  }
  return true;
}

/** How many endpoints `key` has (the node's list and the shared one are the same length). */
function endpointCount(state: ProxyState, key: string): number {
  return (state.nodeIndependentEndpoints ?? state.endpoints).get(key)?.length ?? 0;
}

function hasHints(eps: readonly EndpointInfo[]): boolean {
  for (let i = 0; i < eps.length; i++) if (eps[i].zoneHints.length > 0 || eps[i].nodeHints.length > 0) return true;
  return false;
}

function push(list: Rule[] | undefined, r: Rule): Rule[] {
  if (list === undefined) return [r];
  list.push(r);
  return list;
}

function byEndpointString(eps: readonly EndpointInfo[]): readonly EndpointInfo[] {
  // The endpoints cache hands kube-proxy endpoints sorted by "IP:port" string; keep that order
  // even if the state was not built by our change tracker (testing.ts's lists are in numeric
  // order: 10.0.0.9 before 10.0.0.10).
  for (let i = 1; i < eps.length; i++) {
    if (compareEndpointStrings(eps[i - 1], eps[i]) > 0) return eps.slice().sort(compareEndpointStrings);
  }
  return eps;
}

/** "IP:port" order without making the strings when the IPs decide (neither is a prefix of the other). */
function compareEndpointStrings(a: EndpointInfo, b: EndpointInfo): number {
  const x = a.ip;
  const y = b.ip;
  // Only the shorter of two IPs can be a prefix of the other.
  if (x < y) {
    if (!y.startsWith(x)) return -1;
  } else if (x > y && !x.startsWith(y)) {
    return 1;
  }
  const s = endpointString(a);
  const t = endpointString(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

/** Incremental syncs of at most this many service ports splice the shared chains instead of rebuilding them. */
const SPLICE_MAX = 64;

/** Appends `src` (if any) to `dst`. */
function appendRules(dst: Rule[], src: Rule[] | undefined): void {
  if (src) for (let i = 0; i < src.length; i++) dst.push(src[i]);
}

/** The record fields that go into the chains all services write into, in assembleShared's terms. */
const SHARED_FIELDS: ReadonlyArray<{
  field: "natServices" | "natNodePorts" | "filterServices" | "filterExternal" | "filterNodePorts" | "filterFirewall";
  table: "nat" | "filter";
  chain: string;
}> = [
  { field: "natServices", table: "nat", chain: N.KUBE_SERVICES },
  { field: "natNodePorts", table: "nat", chain: N.KUBE_NODEPORTS },
  { field: "filterServices", table: "filter", chain: N.KUBE_SERVICES },
  { field: "filterExternal", table: "filter", chain: N.KUBE_EXTERNAL_SERVICES },
  { field: "filterNodePorts", table: "filter", chain: N.KUBE_NODEPORTS },
  { field: "filterFirewall", table: "filter", chain: N.KUBE_PROXY_FIREWALL },
];

export class IptablesProxier implements Proxier {
  readonly mode = "iptables" as const;
  readonly ruleset: Ruleset;

  private readonly node: ProxyNode;
  private readonly masqMark: number;
  private readonly masqueradeAll: boolean;
  private readonly localCidr: string | undefined;
  private readonly localhostNodePorts: boolean;
  private readonly nodePortAddressesAll: boolean;
  private readonly nodePortIPs: string[];
  private readonly nodeIP: number | undefined;
  private readonly opts: Required<IptablesProxierOptions>;

  private readonly filter: Table;
  private readonly nat: Table;
  private records = new Map<string, ServiceRecord>();
  /** Service-port keys in sorted order: the order services are written in. */
  private keys: string[] = [];
  private totalEndpoints = 0;
  private largeCluster = false;
  private synced = false;
  private tainted = false;

  /** Records shared with the other nodes' proxiers, and what besides the inputs they depend on. */
  private readonly shared: SharedServiceRecords | undefined;
  private readonly owners: ChainOwners;
  /** What compact endpoint rules made on read, the recent ones kept. */
  private readonly made = new MadeRules();
  private readonly fingerprint: string;

  constructor(node: ProxyNode, config: ProxyConfig, options: IptablesProxierOptions = {}, shared?: SharedServiceRecords) {
    this.node = node;
    this.shared = shared;
    this.owners = shared?.owners ?? new ChainOwners();
    this.opts = {
      nfacct: options.nfacct ?? false,
      randomFully: options.randomFully ?? true,
      canaryChains: options.canaryChains ?? true,
      conntrackTCPBeLiberal: options.conntrackTCPBeLiberal ?? false,
      preferSameTrafficDistribution: options.preferSameTrafficDistribution ?? false,
    };
    this.masqMark = (1 << config.masqueradeBit) >>> 0;
    this.masqueradeAll = config.masqueradeAll;
    const cc = config.clusterCIDR ? parsePrefix(config.clusterCIDR) : undefined;
    this.localCidr = cc ? formatPrefix(cc) : undefined;
    const ip0 = node.ips.find((ip) => parseIPv4Sloppy(ip) !== undefined);
    this.nodeIP = ip0 === undefined ? undefined : parseIPv4Sloppy(ip0);

    // nodePortAddresses: empty (or a zero CIDR) means every local address.
    const npCidrs: Prefix[] = [];
    let matchAll = config.nodePortAddresses.length === 0;
    let primary = false;
    for (const s of config.nodePortAddresses) {
      if (s === "primary") {
        primary = true;
        continue;
      }
      const c = parsePrefix(s);
      if (!c) continue;
      if (c.len === 0) matchAll = true;
      npCidrs.push(c);
    }
    this.nodePortAddressesAll = matchAll;
    const containsLoopback = matchAll || npCidrs.some((c) => prefixContains(c, LOOPBACK_V4));
    // NewProxier: localhostNodePorts only if nodePortAddresses can match 127.0.0.1.
    this.localhostNodePorts = config.localhostNodePorts && containsLoopback;
    const localAddrs = ["127.0.0.1", ...node.ips.filter((ip) => parseIPv4Sloppy(ip) !== undefined)];
    this.nodePortIPs = matchAll
      ? []
      : localAddrs.filter((ip) => {
          const v = parseIPv4Sloppy(ip)!;
          if (primary && ip !== "127.0.0.1" && node.ips.includes(ip)) return true;
          return npCidrs.some((c) => prefixContains(c, v));
        });

    const tables: Table[] = [];
    for (const name of TABLE_ORDER) {
      if (name === "mangle" && !this.opts.canaryChains) continue;
      const own = new Map<string, Chain>();
      for (const b of BUILTIN_CHAINS[name]) own.set(b, { name: b, origin: "builtin", policy: "ACCEPT", rules: [] });
      const chains = name === "nat" ? new NatChains(own, this.owners, () => this.records, () => this.keys) : own;
      tables.push({ name, chains, chainSetVersion: 0 });
    }
    // Everything of this proxier that a node-independent service record depends on.
    this.fingerprint = [this.opts.nfacct, this.opts.preferSameTrafficDistribution, this.masqueradeAll, this.localCidr ?? "", this.localhostNodePorts].join("|");
    this.ruleset = { tables };
    this.filter = tables.find((t) => t.name === "filter")!;
    this.nat = tables.find((t) => t.name === "nat")!;
    this.installStatic();
  }

  /**
   * Something outside the proxier changed the ruleset (say `iptables -F` in the node's shell):
   * the next full sync rebuilds every chain instead of keeping those whose inputs are unchanged.
   */
  invalidate(): void {
    this.tainted = true;
  }

  /** True when the last sync ran in large cluster mode (more than 1000 endpoints). */
  get largeClusterMode(): boolean {
    return this.largeCluster;
  }

  /**
   * Rules per table as kube-proxy's IPTablesRulesTotal metric (and TestNumberIptablesRules)
   * count them: the rule lines of a full restore input, built-in jump rules not included.
   */
  ruleCounts(): { filter: number; nat: number } {
    const count = (t: Table) => {
      let n = 0;
      for (const c of t.chains.values()) if (c.origin === "restore") n += c.rules.length;
      return n;
    };
    return { filter: count(this.filter), nat: count(this.nat) };
  }

  sync(state: ProxyState, changed?: ReadonlySet<string>): SyncResult {
    if (changed === undefined || !this.synced) return this.fullSync(state);

    // Large cluster mode changes every service's comments: decide it before building anything.
    let total = this.totalEndpoints;
    for (const key of changed) {
      const old = this.records.get(key);
      if (old) total -= old.endpointCount;
      if (this.proxied(state.services.get(key))) total += endpointCount(state, key);
    }
    if (total > N.LARGE_CLUSTER_ENDPOINTS_THRESHOLD !== this.largeCluster) return this.fullSync(state);
    this.totalEndpoints = total;

    let synced = 0;
    const splices: { key: string; old: ServiceRecord | undefined }[] | undefined = changed.size <= SPLICE_MAX && !this.tainted ? [] : undefined;
    for (const key of changed) {
      const old = this.records.get(key);
      splices?.push({ key, old });
      const svc = state.services.get(key);
      // A record that stays is replaced in place: deleting and setting again left a hole per
      // changed key in the Map's table, and a 1000-service node's table doubled to 2048 entries.
      if (old && !this.proxied(svc)) this.records.delete(key);
      if (this.proxied(svc)) {
        const rec = this.record(key, svc, this.endpointsFor(state, key, svc), old, false);
        this.records.set(key, rec);
        this.owners.replace(key, old, rec);
        if (!old) this.keys.splice(lowerBound(this.keys, key), 0, key);
        if (!sameNames(old, rec)) this.nat.chainSetVersion++;
        synced++;
      } else if (old) {
        this.shared?.delete(key);
        this.owners.replace(key, old, undefined);
        this.keys.splice(lowerBound(this.keys, key), 1);
        if (chainCount(old) > 0) this.nat.chainSetVersion++;
      }
    }
    if (splices) this.spliceShared(splices);
    else this.assembleShared();
    return { full: false, servicesSynced: synced };
  }

  private proxied(svc: ServicePortInfo | undefined): svc is ServicePortInfo {
    return svc !== undefined && svc.clusterIP !== "" && isV4(svc.clusterIP);
  }

  private fullSync(state: ProxyState): SyncResult {
    const previous = this.records;
    this.records = new Map();
    const keys: string[] = [];
    let total = 0;
    for (const [key, svc] of state.services) {
      if (!this.proxied(svc)) continue;
      keys.push(key);
      total += endpointCount(state, key);
    }
    keys.sort();
    this.keys = keys;
    this.totalEndpoints = total;
    this.largeCluster = total > N.LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
    // A service port has a chain per endpoint and one or two of its own (the SVC chain and
    // maybe EXT/SVL/FW): room for that many names at once instead of doubling on the way.
    this.owners.reserve(total + 2 * keys.length);
    // Only chain names that appear or vanish change the chain set.
    let setChanged = false;
    const rebuild = this.tainted;
    this.tainted = false;
    for (const key of keys) {
      const svc = state.services.get(key)!;
      const eps = this.endpointsFor(state, key, svc);
      const prev = previous.get(key);
      // Same inputs, same mode, untouched ruleset: syncProxyRules would write the same chains.
      if (!rebuild && prev && prev.large === this.largeCluster && sameServicePort(prev.svc, svc) && sameEndpointList(prev.eps, eps)) {
        this.records.set(key, prev);
        continue;
      }
      const rec = this.record(key, svc, eps, prev, rebuild);
      this.records.set(key, rec);
      this.owners.replace(key, prev, rec);
      if (!sameNames(prev, rec)) setChanged = true;
    }
    for (const [key, rec] of previous) {
      if (this.records.has(key)) continue;
      this.owners.replace(key, rec, undefined);
      if (chainCount(rec) > 0) setChanged = true;
    }
    if (setChanged) this.nat.chainSetVersion++;
    this.assembleShared();
    this.synced = true;
    return { full: true, servicesSynced: keys.length };
  }

  private ensureChain(table: Table, name: string, origin: ChainOrigin): Chain {
    let c = table.chains.get(name);
    if (!c) {
      c = { name, origin, policy: undefined, rules: [] };
      table.chains.set(name, c);
      table.chainSetVersion++;
    }
    return c;
  }

  /** Everything that does not depend on services: chains, jump rules, masquerade, forward rules. */
  private installStatic(): void {
    const { filter, nat } = this;
    for (const t of this.ruleset.tables) {
      if (this.opts.canaryChains) this.ensureChain(t, N.KUBE_PROXY_CANARY, "ensure");
    }
    for (const name of [N.KUBE_SERVICES, N.KUBE_EXTERNAL_SERVICES, N.KUBE_FORWARD, N.KUBE_NODEPORTS, N.KUBE_PROXY_FIREWALL]) {
      this.ensureChain(filter, name, "restore");
    }
    this.ensureChain(filter, N.KUBE_FIREWALL, this.localhostNodePorts ? "restore" : "ensure");
    for (const name of [N.KUBE_SERVICES, N.KUBE_NODEPORTS, N.KUBE_POSTROUTING, N.KUBE_MARK_MASQ]) {
      this.ensureChain(nat, name, "restore");
    }

    // EnsureRule(Prepend, ...) for each jump in list order: later entries end up first.
    for (const j of JUMP_CHAINS) {
      const table = j.table === "filter" ? filter : nat;
      const matches: Match[] = [];
      if (j.ctNew) matches.push(CT_NEW);
      if (j.comment) matches.push(comment(j.comment));
      table.chains.get(j.src)!.rules.unshift(rule({ matches, target: jump(j.dst) }));
    }

    const mark = this.masqMark;
    nat.chains.get(N.KUBE_POSTROUTING)!.rules = [
      rule({ matches: [{ m: "mark", value: mark, mask: mark, invert: true }], target: T_RETURN }),
      rule({ target: { t: "MARK", op: "xor", value: mark } }),
      rule({
        matches: [comment("kubernetes service traffic requiring SNAT")],
        target: { t: "MASQUERADE", randomFully: this.opts.randomFully },
      }),
    ];
    nat.chains.get(N.KUBE_MARK_MASQ)!.rules = [rule({ target: { t: "MARK", op: "or", value: mark } })];

    if (this.localhostNodePorts) {
      // Mitigates the route_localnet hole (https://issue.k8s.io/90259); kubelet has the same rule.
      filter.chains.get(N.KUBE_FIREWALL)!.rules = [
        rule({
          dst: "127.0.0.0/8",
          src: "127.0.0.0/8",
          srcNeg: true,
          matches: [
            comment(FIREWALL_COMMENT),
            { m: "conntrack", ctstate: ["RELATED", "ESTABLISHED", "DNAT"], invert: true },
          ],
          target: T_DROP,
        }),
      ];
    }

    const fwd: Rule[] = [];
    if (!this.opts.conntrackTCPBeLiberal) {
      // INVALID packets would otherwise reset connections (kubernetes#74839, #117924).
      const m: Match[] = [{ m: "conntrack", ctstate: ["INVALID"], invert: false }];
      if (this.opts.nfacct) m.push({ m: "nfacct", name: CT_INVALID_NFACCT });
      fwd.push(rule({ matches: m, target: T_DROP }));
    }
    fwd.push(
      rule({
        matches: [comment("kubernetes forwarding rules"), { m: "mark", value: mark, mask: mark, invert: false }],
        target: T_ACCEPT,
      }),
      rule({
        matches: [
          comment("kubernetes forwarding conntrack rule"),
          { m: "conntrack", ctstate: ["RELATED", "ESTABLISHED"], invert: false },
        ],
        target: T_ACCEPT,
      }),
    );
    filter.chains.get(N.KUBE_FORWARD)!.rules = fwd;
  }

  /**
   * Replace the rules of a few service ports in the chains every service writes into, where
   * assembleShared would put them (keys ascending, so the rules before each are already final).
   */
  private spliceShared(changes: { key: string; old: ServiceRecord | undefined }[]): void {
    changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const lists: Rule[][] = SHARED_FIELDS.map((f) => (f.table === "nat" ? this.nat : this.filter).chains.get(f.chain)!.rules);
    const offsets = new Array<number>(SHARED_FIELDS.length).fill(0);
    let ki = 0;
    for (const { key, old } of changes) {
      // Rules of the keys before this one.
      for (; ki < this.keys.length && this.keys[ki] < key; ki++) {
        const r = this.records.get(this.keys[ki])!;
        for (let f = 0; f < SHARED_FIELDS.length; f++) offsets[f] += r[SHARED_FIELDS[f].field]?.length ?? 0;
      }
      const rec = this.records.get(key);
      for (let f = 0; f < SHARED_FIELDS.length; f++) {
        const field = SHARED_FIELDS[f].field;
        const was = old?.[field];
        const now = rec?.[field];
        if (was === now) continue;
        const n = was?.length ?? 0;
        if (now === undefined || now.length === 0) {
          if (n) lists[f].splice(offsets[f], n);
        } else {
          lists[f].splice(offsets[f], n, ...now);
        }
      }
    }
  }

  /** Rebuild the chains every service writes into, in service order. */
  private assembleShared(): void {
    const natServices: Rule[] = [];
    const natNodePorts: Rule[] = [];
    const fServices: Rule[] = [];
    const fExternal: Rule[] = [];
    const fNodePorts: Rule[] = [];
    const fFirewall: Rule[] = [];
    for (const key of this.keys) {
      const r = this.records.get(key)!;
      appendRules(natServices, r.natServices);
      appendRules(natNodePorts, r.natNodePorts);
      appendRules(fServices, r.filterServices);
      appendRules(fExternal, r.filterExternal);
      appendRules(fNodePorts, r.filterNodePorts);
      appendRules(fFirewall, r.filterFirewall);
    }
    // Finally, tail-call to the nodePorts chain. This must come after all other service rules.
    const tail = comment(NODEPORTS_TAIL_COMMENT);
    if (this.nodePortAddressesAll) {
      natServices.push(
        rule({
          matches: [tail, ADDRTYPE_DST_LOCAL],
          // Localhost NodePorts only work with route_localnet, which localhostNodePorts sets.
          dst: this.localhostNodePorts ? undefined : "127.0.0.0/8",
          dstNeg: !this.localhostNodePorts,
          target: jump(N.KUBE_NODEPORTS),
        }),
      );
    } else {
      for (const ip of this.nodePortIPs) {
        if (ip === "127.0.0.1" && !this.localhostNodePorts) continue;
        natServices.push(rule({ matches: [tail], dst: ip, target: jump(N.KUBE_NODEPORTS) }));
      }
    }
    this.nat.chains.get(N.KUBE_SERVICES)!.rules = natServices;
    this.nat.chains.get(N.KUBE_NODEPORTS)!.rules = natNodePorts;
    this.filter.chains.get(N.KUBE_SERVICES)!.rules = fServices;
    this.filter.chains.get(N.KUBE_EXTERNAL_SERVICES)!.rules = fExternal;
    this.filter.chains.get(N.KUBE_NODEPORTS)!.rules = fNodePorts;
    this.filter.chains.get(N.KUBE_PROXY_FIREWALL)!.rules = fFirewall;
  }

  /**
   * The endpoint list a service port's record is built from. Where isLocal cannot change the
   * rules (neither traffic policy is Local, no topology hints), that is the list every node
   * shares: a node hosting some of the endpoints builds the same chains as one hosting none, so
   * it can use the same shared record.
   */
  private endpointsFor(state: ProxyState, key: string, svc: ServicePortInfo): readonly EndpointInfo[] {
    // Decided on the shared list before asking for this node's: the node's list (isLocal set on
    // its own endpoints) is made and kept by the tracker's view on first read, and a node of a
    // cluster with many services would otherwise hold a copy of every list it has an endpoint in
    // without using them. The two lists differ only in isLocal (same hints, same length).
    const common = state.nodeIndependentEndpoints?.get(key);
    if (common !== undefined && !usesLocalEndpoints(svc) && !hasHints(common)) return common;
    return state.endpoints.get(key) ?? [];
  }

  /** buildService, or the identical record another node's proxier built from the same inputs. */
  private record(key: string, svc: ServicePortInfo, eps: readonly EndpointInfo[], old: ServiceRecord | undefined, rebuild: boolean): ServiceRecord {
    const shared = this.shared;
    if (!shared || rebuild || !nodeIndependent(svc, eps)) return this.buildService(svc, eps, old);
    const fp = `${this.fingerprint}|${this.largeCluster}`;
    let rec = shared.get(key, svc, eps, fp);
    if (!rec) {
      rec = this.buildService(svc, eps, old);
      shared.set(key, svc, eps, fp, rec);
    }
    return rec;
  }

  /** The per-service-port body of syncProxyRules. */
  private buildService(svc: ServicePortInfo, rawEndpoints: readonly EndpointInfo[], old: ServiceRecord | undefined): ServiceRecord {
    const rec: ServiceRecord = {
      natServices: undefined,
      natNodePorts: undefined,
      filterServices: undefined,
      filterExternal: undefined,
      filterNodePorts: undefined,
      filterFirewall: undefined,
      chains: [],
      endpoints: undefined,
      svc,
      eps: rawEndpoints,
      large: this.largeCluster,
      hash: undefined,
      endpointCount: rawEndpoints.length,
    };
    const spn = servicePortNameString(svc.name);
    const proto = L4_OF[svc.protocol];
    const endpoints = byEndpointString(rawEndpoints);
    const cat = categorizeEndpoints(endpoints, svc, {
      nodeName: this.node.name,
      zone: this.node.zone,
      preferSameNode: this.opts.preferSameTrafficDistribution,
    });
    const hasEndpoints = cat.hasAny;
    const large = this.largeCluster;

    // The record keeps only the hash, and only the names this service port can use are made.
    const hash = old?.hash ?? N.portProtoHash(spn, proto);
    rec.hash = hash;
    const clusterPolicyChain = N.chainName(N.SVC_PREFIX, hash);
    const externallyUsable = externallyAccessible(svc);
    const usesClusterPolicyChain = cat.cluster.length > 0 && usesClusterEndpoints(svc);
    const localPolicyChain = svc.internalPolicyLocal || svc.externalPolicyLocal ? N.chainName(N.SVL_PREFIX, hash) : "";
    const usesLocalPolicyChain = cat.local.length > 0 && usesLocalEndpoints(svc);

    let internalPolicyChain = clusterPolicyChain;
    let hasInternalEndpoints = hasEndpoints;
    if (svc.internalPolicyLocal) {
      internalPolicyChain = localPolicyChain;
      if (cat.local.length === 0) hasInternalEndpoints = false;
    }
    const internalTrafficChain = internalPolicyChain;

    const externalPolicyLocal = svc.externalPolicyLocal && externallyUsable;
    let externalPolicyChain = clusterPolicyChain;
    let hasExternalEndpoints = hasEndpoints;
    if (externalPolicyLocal) {
      externalPolicyChain = localPolicyChain;
      if (cat.local.length === 0) hasExternalEndpoints = false;
    }
    const externalTrafficChain = externallyUsable ? N.chainName(N.EXT_PREFIX, hash) : "";
    // The local-traffic short-circuit rules are needed even without externally usable endpoints.
    const usesExternalTrafficChain = hasEndpoints && externallyUsable;

    // The change tracker already validated the addresses; this proxier takes the IPv4 ones.
    const lbVIPs = svc.loadBalancerVIPs.length ? svc.loadBalancerVIPs.filter(isV4) : svc.loadBalancerVIPs;
    const extIPs = svc.externalIPs.length ? svc.externalIPs.filter(isV4) : svc.externalIPs;
    const sourceRanges: Prefix[] = [];
    for (const s of svc.loadBalancerSourceRanges) {
      const c = parsePrefix(s);
      if (c) sourceRanges.push(c);
    }
    const usesFWChain = hasEndpoints && lbVIPs.length > 0 && sourceRanges.length > 0;
    const fwChain = usesFWChain ? N.chainName(N.FW_PREFIX, hash) : "";
    const loadBalancerTrafficChain = usesFWChain ? fwChain : externalTrafficChain;

    let internalFilterTarget: Target | undefined;
    let internalFilterComment: Match | undefined;
    let externalFilterTarget: Target | undefined;
    let externalFilterComment: Match | undefined;
    if (!hasEndpoints) {
      internalFilterTarget = externalFilterTarget = T_REJECT;
      internalFilterComment = externalFilterComment = comment(`${spn} has no endpoints`);
    } else {
      if (!hasInternalEndpoints) {
        internalFilterTarget = T_DROP;
        internalFilterComment = comment(`${spn} has no local endpoints`);
      }
      if (!hasExternalEndpoints) {
        externalFilterTarget = T_DROP;
        externalFilterComment = comment(`${spn} has no local endpoints`);
      }
    }

    const portMatch: Match = { m: proto, dport: svc.port };
    // The clusterIP rule in KUBE-SERVICES and the masquerade rule share one (immutable) match list.
    const clusterIPMatches: readonly Match[] = [comment(`${spn} cluster IP`), portMatch];

    // Capture the clusterIP.
    if (hasInternalEndpoints) {
      rec.natServices = push(
        rec.natServices,
        rule({ matches: clusterIPMatches, proto, dst: svc.clusterIP, target: jump(internalTrafficChain) }),
      );
    } else {
      rec.filterServices = push(
        rec.filterServices,
        rule({ matches: [internalFilterComment!, portMatch], proto, dst: svc.clusterIP, target: internalFilterTarget! }),
      );
    }

    // Capture externalIPs.
    if (extIPs.length > 0) {
      const c = comment(`${spn} external IP`);
      for (const ip of extIPs) {
        if (hasEndpoints) {
          rec.natServices = push(rec.natServices, rule({ matches: [c, portMatch], proto, dst: ip, target: jump(externalTrafficChain) }));
        }
        if (!hasExternalEndpoints) {
          rec.filterExternal = push(
            rec.filterExternal,
            rule({ matches: [externalFilterComment!, portMatch], proto, dst: ip, target: externalFilterTarget! }),
          );
        }
      }
    }

    // Capture load-balancer ingress.
    if (lbVIPs.length > 0) {
      const c = comment(`${spn} loadbalancer IP`);
      const fwc = usesFWChain ? comment(`${spn} traffic not accepted by ${fwChain}`) : undefined;
      for (const ip of lbVIPs) {
        if (hasEndpoints) {
          rec.natServices = push(rec.natServices, rule({ matches: [c, portMatch], proto, dst: ip, target: jump(loadBalancerTrafficChain) }));
        }
        if (fwc) {
          rec.filterFirewall = push(rec.filterFirewall, rule({ matches: [fwc, portMatch], proto, dst: ip, target: T_DROP }));
        }
      }
      if (!hasExternalEndpoints) {
        for (const ip of lbVIPs) {
          rec.filterExternal = push(
            rec.filterExternal,
            rule({ matches: [externalFilterComment!, portMatch], proto, dst: ip, target: externalFilterTarget! }),
          );
        }
      }
    }

    // Capture nodeports.
    if (svc.nodePort !== 0) {
      const npMatch: Match = { m: proto, dport: svc.nodePort };
      if (hasEndpoints) {
        const c = comment(spn);
        if (this.localhostNodePorts && this.opts.nfacct) {
          rec.natNodePorts = push(
            rec.natNodePorts,
            rule({
              matches: [c, npMatch, { m: "nfacct", name: LOCALHOST_NPS_NFACCT }],
              proto,
              dst: "127.0.0.0/8",
              target: jump(externalTrafficChain),
            }),
          );
        }
        rec.natNodePorts = push(rec.natNodePorts, rule({ matches: [c, npMatch], proto, target: jump(externalTrafficChain) }));
      }
      if (!hasExternalEndpoints) {
        rec.filterExternal = push(
          rec.filterExternal,
          rule({ matches: [externalFilterComment!, ADDRTYPE_DST_LOCAL, npMatch], proto, target: externalFilterTarget! }),
        );
      }
    }

    // Capture healthCheckNodePorts, whether or not this node has local endpoints.
    if (svc.healthCheckNodePort !== 0) {
      rec.filterNodePorts = push(
        rec.filterNodePorts,
        rule({
          matches: [comment(`${spn} health check node port`), { m: "tcp", dport: svc.healthCheckNodePort }],
          proto: "tcp",
          target: T_ACCEPT,
        }),
      );
    }

    // From here on: the service's own nat chains. The internal traffic chain (SVC or SVL) starts
    // with the masquerade rule; the EXT and FW chains hold only rules of their own.
    let internalHead: readonly Rule[] = NO_RULES;
    if (hasInternalEndpoints) {
      // Masquerade off-cluster traffic to the service VIP (it may be routed here from outside).
      if (this.masqueradeAll) {
        internalHead = [rule({ matches: clusterIPMatches, proto, dst: svc.clusterIP, target: T_MARK_MASQ })];
      } else if (this.localCidr) {
        internalHead = [
          rule({
            matches: clusterIPMatches,
            proto,
            dst: svc.clusterIP,
            src: this.localCidr,
            srcNeg: true,
            target: T_MARK_MASQ,
          }),
        ];
      }
    }

    const chains: Chain[] = [];

    if (usesExternalTrafficChain) {
      const ext: Rule[] = [];
      if (!externalPolicyLocal) {
        // Non-local endpoints may be on another node: masquerade.
        ext.push(rule({ matches: [comment(`masquerade traffic for ${spn} external destinations`)], target: T_MARK_MASQ }));
      } else {
        if (this.localCidr) {
          // Pod -> external destination traffic is subject to neither traffic policy.
          ext.push(
            rule({
              matches: [comment(`pod traffic for ${spn} external destinations`)],
              src: this.localCidr,
              target: jump(clusterPolicyChain),
            }),
          );
        }
        // The host's own traffic to an LB IP has a local source address: masquerade it and
        // route it with the Cluster policy.
        ext.push(
          rule({
            matches: [comment(`masquerade LOCAL traffic for ${spn} external destinations`), ADDRTYPE_SRC_LOCAL],
            target: T_MARK_MASQ,
          }),
          rule({
            matches: [comment(`route LOCAL traffic for ${spn} external destinations`), ADDRTYPE_SRC_LOCAL],
            target: jump(clusterPolicyChain),
          }),
        );
      }
      if (hasExternalEndpoints) ext.push(rule({ target: jump(externalPolicyChain) }));
      chains.push(plainChain(externalTrafficChain, ext));
    }

    if (usesFWChain) {
      const fw: Rule[] = [];
      const c = comment(`${spn} loadbalancer IP`);
      let allowFromNode = false;
      for (const cidr of sourceRanges) {
        fw.push(rule({ matches: [c], src: formatPrefix(cidr), target: jump(externalTrafficChain) }));
        if (this.nodeIP !== undefined && prefixContains(cidr, this.nodeIP)) allowFromNode = true;
      }
      // A VIP bound locally loops requests from this node back with the VIP as source.
      if (allowFromNode) {
        for (const ip of lbVIPs) fw.push(rule({ matches: [c], src: ip, target: jump(externalTrafficChain) }));
      }
      // Not DNATed by now: KUBE-PROXY-FIREWALL in filter drops it.
      fw.push(rule({ matches: [comment(`other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`)], target: null }));
      chains.push(plainChain(fwChain, fw));
    }

    // One KUBE-SEP chain per reachable endpoint, what the SVC/SVL rules jump to. Names are reused
    // from the previous build of this service when possible.
    const ctx = new ServiceContext(spn, proto, svc.stickyMaxAgeSeconds, large, this.made);
    const reachable = cat.allReachable;
    const oldNames = old?.endpoints?.names.length ? new PreviousEndpointNames(old.endpoints) : undefined;
    const sepNames = new Array<string>(reachable.length);
    for (let i = 0; i < reachable.length; i++) {
      const info = reachable[i];
      sepNames[i] =
        oldNames?.get(i, info) ??
        (isV4(info.ip) ? N.servicePortEndpointChainNameV4(spn, proto, info.ip, info.port) : N.servicePortEndpointChainName(spn, proto, endpointString(info)));
    }
    const sepChains = reachable.length > 0 ? new ServiceEndpoints(ctx, reachable, sepNames) : undefined;
    // The policy chains' own rules (after the masquerade rule above) are made on first read.
    const sticky = ctx.sticky !== STICKY_NONE;
    if (usesClusterPolicyChain) {
      const head = clusterPolicyChain === internalTrafficChain ? internalHead : NO_RULES;
      chains.push(new PolicyChain(clusterPolicyChain, head, sepChains!, cat.cluster, sticky));
    }
    if (usesLocalPolicyChain) {
      const head = localPolicyChain === internalTrafficChain ? internalHead : NO_RULES;
      chains.push(new PolicyChain(localPolicyChain, head, sepChains!, cat.local, sticky));
    }

    rec.endpoints = sepChains;
    rec.chains = chains;
    return rec;
  }
}


/**
 * The KUBE-SEP names the previous build of the same service port gave its endpoints, by position
 * and IP:port (a name is a pure function of the service port and the endpoint, so reusing it
 * saves a sha256). Endpoint lists mostly keep their order: the same position is tried first, and
 * a Map of the old names is built only when that fails.
 */
class PreviousEndpointNames {
  private byEndpoint: Map<string, string> | undefined;
  constructor(private readonly old: ServiceEndpoints) {}

  get(i: number, info: EndpointInfo): string | undefined {
    const { infos, names } = this.old;
    const same = infos[i];
    if (same !== undefined && same.ip === info.ip && same.port === info.port) return names[i];
    if (this.byEndpoint === undefined) {
      this.byEndpoint = new Map();
      for (let j = 0; j < infos.length; j++) {
        const k = `${infos[j].ip}\u0000${infos[j].port}`;
        if (!this.byEndpoint.has(k)) this.byEndpoint.set(k, names[j]);
      }
    }
    return this.byEndpoint.get(`${info.ip}\u0000${info.port}`);
  }
}

const NO_RULES: readonly Rule[] = Object.freeze([]);

/** A chain written in the restore input with the rules given. */
function plainChain(name: string, rules: Rule[]): Chain {
  return { name, origin: "restore", policy: undefined, rules };
}

function isV4(ip: string): boolean {
  return ip.indexOf(":") < 0;
}

function lowerBound(a: readonly string[], x: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The same set of chain names (names reused from the previous build are usually in the same order). */
function sameNames(was: ChainNames | undefined, now: ChainNames): boolean {
  if (was === now) return true;
  if (was === undefined) return chainCount(now) === 0;
  if (chainCount(was) !== chainCount(now)) return false;
  const wasNames = chainNames(was);
  const nowNames = chainNames(now);
  let i = 0;
  while (i < wasNames.length && wasNames[i] === nowNames[i]) i++;
  if (i === wasNames.length) return true;
  const set = new Set(wasNames);
  return nowNames.every((n) => set.has(n));
}

function chainNames(rec: ChainNames): string[] {
  const out = rec.chains.map((c) => c.name);
  if (rec.endpoints) for (const n of rec.endpoints.names) out.push(n);
  return out;
}
