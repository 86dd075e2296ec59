// kube-proxy's IPVS mode (K/pkg/proxy/ipvs/proxier.go, ipset.go, graceful_termination.go, v1.33)
// as data: the kube-ipvs0 dummy interface and its addresses, IPVS virtual and real servers with
// their scheduler state and connection counters, the ipsets, and the iptables rules of IPVS mode
// (in the iptables proxier's typed model, so iptables-save prints them).
//
// Data-plane API (for src/engine/net): a connection to a virtual server is
//   const d = p.open(vs, ip, port, now)      // scheduler decision + ActiveConn++ (or undefined: no destination);
//                                            // p.lastConnection is the entry's id
//   p.close(id, now)                         // ESTABLISHED -> TIME_WAIT: ActiveConn--, InActConn++
//   p.expire(now)                                // drops entries whose timer ran out: InActConn--
// `p.virtualServer(proto, ip, port)` finds the VS a packet hits; `p.schedule(vs, clientIP, now)`
// is the bare decision (persistence honoured) without touching counters. Everything is
// deterministic: IPVS schedulers use no randomness.
//
// Differences from the real thing, on purpose:
// - IPv4 only (one family of the dual-stack pair).
// - NodePort virtual servers are made for the node's InternalIPs only (a real node also has
//   them on its CNI bridge and tunnel addresses).
// - Gracefully terminating real servers are deleted on the next sync or expire() once their
//   counters are 0 (kube-proxy checks every minute).
// - The externalIP "physdev ! --physdev-is-in" ACCEPT rule is not written (no physdev match
//   in the model); the dst-type LOCAL ACCEPT rule is.


import { formatIPv4, parseIPv4Sloppy, parsePrefix, prefixContains, ipv4Num } from "../../util/ip.js";
import { BUILTIN_CHAINS, rule, type Chain, type Match, type Rule, type Ruleset, type Table, type Target } from "../iptables/model.js";
import { categorizeEndpoints } from "../topology.js";
import type { EndpointInfo, ProxyConfig, ProxyNode, ProxyState, Proxier, ServicePortInfo, SyncResult } from "../types.js";
import { endpointString, servicePortNameString } from "../types.js";
import { AddrMap, IpsetEntries, VirtualServerMap } from "./index.js";
import { estimate, type Counted } from "./estimator.js";
import { pick, type RealServer, type SchedState, type Scheduler } from "./scheduler.js";

export const DUMMY_DEVICE = "kube-ipvs0";
const DEFAULT_SCHEDULER = "rr";
/** Schedulers simulated here; others are refused as a kernel without the module refuses them. */
export const KNOWN_SCHEDULERS: ReadonlySet<string> = new Set(["rr", "wrr", "lc", "wlc", "sh", "dh", "sed", "nq"]);

// iptables chains of IPVS mode.
const KUBE_SERVICES = "KUBE-SERVICES";
const KUBE_POSTROUTING = "KUBE-POSTROUTING";
const KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
const KUBE_NODE_PORT = "KUBE-NODE-PORT";
const KUBE_LOAD_BALANCER = "KUBE-LOAD-BALANCER";
const KUBE_FORWARD = "KUBE-FORWARD";
const KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
const KUBE_SOURCE_RANGES_FIREWALL = "KUBE-SOURCE-RANGES-FIREWALL";
const KUBE_IPVS_FILTER = "KUBE-IPVS-FILTER";
const KUBE_IPVS_OUT_FILTER = "KUBE-IPVS-OUT-FILTER";
const KUBE_FIREWALL = "KUBE-FIREWALL";

// ipsets (ipset.go): name, type, comment, in the proxier's ipsetInfo order.
const SET = {
  LOOP_BACK: "KUBE-LOOP-BACK",
  CLUSTER_IP: "KUBE-CLUSTER-IP",
  EXTERNAL_IP: "KUBE-EXTERNAL-IP",
  EXTERNAL_IP_LOCAL: "KUBE-EXTERNAL-IP-LOCAL",
  LOAD_BALANCER: "KUBE-LOAD-BALANCER",
  LOAD_BALANCER_FW: "KUBE-LOAD-BALANCER-FW",
  LOAD_BALANCER_LOCAL: "KUBE-LOAD-BALANCER-LOCAL",
  LOAD_BALANCER_SOURCE_IP: "KUBE-LOAD-BALANCER-SOURCE-IP",
  LOAD_BALANCER_SOURCE_CIDR: "KUBE-LOAD-BALANCER-SOURCE-CIDR",
  NODE_PORT_TCP: "KUBE-NODE-PORT-TCP",
  NODE_PORT_LOCAL_TCP: "KUBE-NODE-PORT-LOCAL-TCP",
  NODE_PORT_UDP: "KUBE-NODE-PORT-UDP",
  NODE_PORT_LOCAL_UDP: "KUBE-NODE-PORT-LOCAL-UDP",
  NODE_PORT_SCTP: "KUBE-NODE-PORT-SCTP-HASH",
  NODE_PORT_LOCAL_SCTP: "KUBE-NODE-PORT-LOCAL-SCTP-HASH",
  HEALTH_CHECK_NODE_PORT: "KUBE-HEALTH-CHECK-NODE-PORT",
  IPVS_IPS: "KUBE-IPVS-IPS",
} as const;

type SetType = "hash:ip" | "hash:ip,port" | "hash:ip,port,ip" | "hash:ip,port,net" | "bitmap:port";

const IPSET_INFO: ReadonlyArray<{ name: string; type: SetType; comment: string }> = [
  { name: SET.LOOP_BACK, type: "hash:ip,port,ip", comment: "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" },
  { name: SET.CLUSTER_IP, type: "hash:ip,port", comment: "Kubernetes service cluster ip + port for masquerade purpose" },
  { name: SET.EXTERNAL_IP, type: "hash:ip,port", comment: "Kubernetes service external ip + port for masquerade and filter purpose" },
  { name: SET.EXTERNAL_IP_LOCAL, type: "hash:ip,port", comment: "Kubernetes service external ip + port with externalTrafficPolicy=local" },
  { name: SET.LOAD_BALANCER, type: "hash:ip,port", comment: "Kubernetes service lb portal" },
  { name: SET.LOAD_BALANCER_FW, type: "hash:ip,port", comment: "Kubernetes service load balancer ip + port for load balancer with sourceRange" },
  { name: SET.LOAD_BALANCER_LOCAL, type: "hash:ip,port", comment: "Kubernetes service load balancer ip + port with externalTrafficPolicy=local" },
  { name: SET.LOAD_BALANCER_SOURCE_IP, type: "hash:ip,port,ip", comment: "Kubernetes service load balancer ip + port + source IP for packet filter purpose" },
  { name: SET.LOAD_BALANCER_SOURCE_CIDR, type: "hash:ip,port,net", comment: "Kubernetes service load balancer ip + port + source cidr for packet filter purpose" },
  { name: SET.NODE_PORT_TCP, type: "bitmap:port", comment: "Kubernetes nodeport TCP port for masquerade purpose" },
  { name: SET.NODE_PORT_LOCAL_TCP, type: "bitmap:port", comment: "Kubernetes nodeport TCP port with externalTrafficPolicy=local" },
  { name: SET.NODE_PORT_UDP, type: "bitmap:port", comment: "Kubernetes nodeport UDP port for masquerade purpose" },
  { name: SET.NODE_PORT_LOCAL_UDP, type: "bitmap:port", comment: "Kubernetes nodeport UDP port with externalTrafficPolicy=local" },
  { name: SET.NODE_PORT_SCTP, type: "hash:ip,port", comment: "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'" },
  { name: SET.NODE_PORT_LOCAL_SCTP, type: "hash:ip,port", comment: "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'" },
  { name: SET.HEALTH_CHECK_NODE_PORT, type: "bitmap:port", comment: "Kubernetes health check node port" },
  { name: SET.IPVS_IPS, type: "hash:ip", comment: "Addresses on the ipvs interface" },
];

export interface IpSet {
  readonly name: string;
  readonly type: SetType;
  readonly comment: string;
  /** Entry text as `ipset list` prints it -> how many service ports contributed it. */
  readonly entries: Map<string, number>;
}

type Protocol = "TCP" | "UDP" | "SCTP";

/**
 * A virtual server. Its scheduler state (the kernel's svc->sched_data) is kept on it, not in an
 * object of its own: a connection reads it, and at 10k virtual servers each object on a
 * connection's way is a cache miss.
 */
export interface VirtualServer extends SchedState {
  /** "TCP:10.96.0.1:443" */
  readonly key: string;
  readonly protocol: Protocol;
  readonly ip: string;
  readonly port: number;
  scheduler: Scheduler;
  /** sessionAffinity ClientIP timeout in seconds (ipvsadm "persistent N"); 0 = not persistent. */
  persistent: number;
  /** Real servers in the kernel's list order (the order they were added). */
  readonly dests: RealServer[];
  /** Persistence templates: client IP -> server, until `until` (ms). */
  readonly templates: Map<string, { dest: RealServer; until: number }>;
  conns: number;
  inPkts: number;
  outPkts: number;
  inBytes: number;
  outBytes: number;
  /** The rate estimator's state (estimator.ts). */
  est?: Counted["est"];
}

type ConnState = "ESTABLISHED" | "TIME_WAIT" | "CLOSE" | "NONE";

/** An IPVS connection entry (ipvsadm -Lnc), as `connectionEntries` and `connect` copy it out. */
interface IpvsConnection {
  /** The entry's id (for `close`). */
  readonly id: number;
  readonly vs: VirtualServer;
  readonly dest: RealServer;
  readonly client: { ip: string; port: number };
  state: ConnState;
  /** Clock time (ms) at which the entry expires. */
  expires: number;
}

// Kernel defaults (ipvsadm --set): tcp 900 s, tcpfin 120 s, udp 300 s.
const TCP_TIMEOUT_S = 900;
const TCP_FIN_TIMEOUT_S = 120;
const UDP_TIMEOUT_S = 300;

const NONE = 0;
const ESTABLISHED = 1;
const TIME_WAIT = 2;
const CONN_STATES: readonly ConnState[] = ["NONE", "ESTABLISHED", "TIME_WAIT", "CLOSE"];

/** Entries per chunk of the connection table (see ConnectionTable). */
const CHUNK_BITS = 10;
const CHUNK = 1 << CHUNK_BITS;
const IN_CHUNK = CHUNK - 1;

/** 1024 connection entries as columns, in one buffer (the references beside it). */
class ConnChunk {
  readonly ids: Float64Array;
  readonly clientPort: Float64Array;
  readonly expires: Float64Array;
  readonly clientAddr: Int32Array;
  readonly state: Uint8Array;
  readonly vs: VirtualServer[] = new Array<VirtualServer>(CHUNK);
  readonly dest: RealServer[] = new Array<RealServer>(CHUNK);

  constructor() {
    const buf = new ArrayBuffer(CHUNK * (3 * 8 + 4 + 1));
    this.ids = new Float64Array(buf, 0, CHUNK);
    this.clientPort = new Float64Array(buf, CHUNK * 8, CHUNK);
    this.expires = new Float64Array(buf, CHUNK * 16, CHUNK);
    this.clientAddr = new Int32Array(buf, CHUNK * 24, CHUNK);
    this.state = new Uint8Array(buf, CHUNK * 28, CHUNK);
  }
}

/**
 * IPVS connection entries in the order they were made, as columns in chunks of 1024: references
 * to the virtual and real server, and numbers for the rest (the client's address as a uint32).
 * Entries live 15 minutes of cluster time (2 once closed), long enough to be promoted as objects
 * and die in the old generation; here an entry allocates nothing. Ids grow with each entry and
 * expiry keeps the order, so an entry's index is found by binary search over the ids.
 *
 * A busy node makes 100k+ entries in those 15 minutes. In chunks, the table grows without
 * copying what it holds (doubling columns copied every entry again, into fresh memory, and
 * the copies were a tenth of a connection's cost in a long run), and the client's address is a
 * number: a canonical dotted quad gives its text back exactly; any other text is kept by entry
 * id in `oddClients`.
 */
class ConnectionTable {
  length = 0;
  private nextId = 0;
  private chunks: ConnChunk[] = [];
  private readonly oddClients = new Map<number, string>();

  add(vs: VirtualServer, dest: RealServer, clientIP: string, clientPort: number, state: number, expires: number): number {
    const i = this.length;
    if (i >> CHUNK_BITS === this.chunks.length) this.chunks.push(new ConnChunk());
    const c = this.chunks[i >> CHUNK_BITS];
    const j = i & IN_CHUNK;
    const id = this.nextId++;
    c.ids[j] = id;
    c.vs[j] = vs;
    c.dest[j] = dest;
    const a = ipv4Num(clientIP);
    c.clientAddr[j] = a;
    if (a < 0) this.oddClients.set(id, clientIP);
    c.clientPort[j] = clientPort;
    c.state[j] = state;
    c.expires[j] = expires;
    this.length = i + 1;
    return id;
  }

  private id(i: number): number {
    return this.chunks[i >> CHUNK_BITS].ids[i & IN_CHUNK];
  }

  /** The index of entry `id`, or -1 (expired). The newest entry is the usual one. */
  indexOf(id: number): number {
    let hi = this.length - 1;
    if (hi >= 0 && this.id(hi) === id) return hi;
    let lo = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.id(mid);
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  vs(i: number): VirtualServer {
    return this.chunks[i >> CHUNK_BITS].vs[i & IN_CHUNK];
  }

  dest(i: number): RealServer {
    return this.chunks[i >> CHUNK_BITS].dest[i & IN_CHUNK];
  }

  state(i: number): number {
    return this.chunks[i >> CHUNK_BITS].state[i & IN_CHUNK];
  }

  expires(i: number): number {
    return this.chunks[i >> CHUNK_BITS].expires[i & IN_CHUNK];
  }

  /** Entry i turns `state` until `expires`. */
  update(i: number, state: number, expires: number): void {
    const c = this.chunks[i >> CHUNK_BITS];
    c.state[i & IN_CHUNK] = state;
    c.expires[i & IN_CHUNK] = expires;
  }

  entry(i: number): IpvsConnection {
    const c = this.chunks[i >> CHUNK_BITS];
    const j = i & IN_CHUNK;
    const odd = this.oddClients.size === 0 ? undefined : this.oddClients.get(c.ids[j]);
    return {
      id: c.ids[j],
      vs: c.vs[j],
      dest: c.dest[j],
      client: { ip: odd ?? formatIPv4(c.clientAddr[j] >>> 0), port: c.clientPort[j] },
      state: CONN_STATES[c.state[j]],
      expires: c.expires[j],
    };
  }

  /** Entry i to index w (< i), for compaction. */
  move(i: number, w: number): void {
    const a = this.chunks[i >> CHUNK_BITS];
    const b = this.chunks[w >> CHUNK_BITS];
    const x = i & IN_CHUNK;
    const y = w & IN_CHUNK;
    b.ids[y] = a.ids[x];
    b.vs[y] = a.vs[x];
    b.dest[y] = a.dest[x];
    b.clientAddr[y] = a.clientAddr[x];
    b.clientPort[y] = a.clientPort[x];
    b.state[y] = a.state[x];
    b.expires[y] = a.expires[x];
  }

  /** Entry i is dropped (compaction will write over it). */
  forget(i: number): void {
    if (this.oddClients.size !== 0) this.oddClients.delete(this.id(i));
  }

  truncate(n: number): void {
    const had = this.length;
    this.length = n;
    // The references go with the entries: chunks past the end are dropped, the last one cleared past it.
    const chunks = (n + CHUNK - 1) >> CHUNK_BITS;
    this.chunks.length = chunks;
    if (chunks > 0) {
      const c = this.chunks[chunks - 1];
      const end = Math.min(CHUNK, had - ((chunks - 1) << CHUNK_BITS));
      for (let j = n - ((chunks - 1) << CHUNK_BITS); j < end; j++) c.vs[j] = c.dest[j] = undefined as never;
    }
  }
}

interface PortRecord {
  svc: ServicePortInfo;
  eps: readonly EndpointInfo[];
  vss: string[];
  sets: [string, string][];
  bound: string[];
}

function vsKey(protocol: string, ip: string, port: number): string {
  return `${protocol}:${ip}:${port}`;
}

export class IpvsProxier implements Proxier {
  readonly mode = "ipvs" as const;
  readonly scheduler: Scheduler;
  /** Virtual servers by key (indexed by address for the data plane: virtualServer()). */
  readonly services = new VirtualServerMap<VirtualServer>();
  /** Addresses bound to kube-ipvs0 -> number of virtual servers using each. */
  readonly bound = new AddrMap<number>();
  /** Every set of IPSET_INFO, made with the proxier: entries change, the sets are never replaced (IpvsHandle.ipset). */
  readonly ipsets = new Map<string, IpSet>();
  /** The iptables rules of IPVS mode. */
  readonly iptables: Ruleset;
  /** Connection entries (ipvsadm -Lnc). */
  private readonly conns = new ConnectionTable();
  /** The id of the entry the last successful `open` made. */
  lastConnection = -1;
  readonly tcpTimeout: number;
  readonly tcpFinTimeout: number;
  readonly udpTimeout: number;
  private readonly records = new Map<string, PortRecord>();
  private readonly graceful = new Set<{ vs: VirtualServer; dest: RealServer }>();
  private readonly nodeIPs: string[];
  private readonly masqMark: number;
  private readonly localCidr: string | undefined;
  private readonly masqueradeAll: boolean;
  private readonly excluded: ReturnType<typeof parsePrefix>[];
  private synced = false;
  private tainted = false;

  /** Something outside changed the IPVS state (ipvsadm -C in a shell): the next full sync rebuilds all. */
  invalidate(): void {
    this.tainted = true;
  }

  constructor(
    readonly node: ProxyNode,
    config: ProxyConfig,
  ) {
    const s = config.ipvs.scheduler || DEFAULT_SCHEDULER;
    if (!KNOWN_SCHEDULERS.has(s)) throw new Error(`can't use the IPVS proxier: no such file or directory (scheduler ${s})`);
    this.scheduler = s as Scheduler;
    this.tcpTimeout = config.ipvs.tcpTimeoutSeconds || TCP_TIMEOUT_S;
    this.tcpFinTimeout = config.ipvs.tcpFinTimeoutSeconds || TCP_FIN_TIMEOUT_S;
    this.udpTimeout = config.ipvs.udpTimeoutSeconds || UDP_TIMEOUT_S;
    this.masqMark = (1 << config.masqueradeBit) >>> 0;
    this.masqueradeAll = config.masqueradeAll;
    const cc = config.clusterCIDR ? parsePrefix(config.clusterCIDR) : undefined;
    this.localCidr = cc ? `${config.clusterCIDR.split("/")[0].trim()}/${cc.len}` : undefined;
    this.excluded = config.ipvs.excludeCIDRs.map((c) => parsePrefix(c));
    const ips = node.ips.filter((ip) => parseIPv4Sloppy(ip) !== undefined);
    const np = config.nodePortAddresses.filter((a) => a !== "primary").map((a) => parsePrefix(a));
    const primary = config.nodePortAddresses.includes("primary");
    this.nodeIPs =
      config.nodePortAddresses.length === 0
        ? ips
        : ips.filter((ip, i) => (primary && i === 0) || np.some((p) => p !== undefined && prefixContains(p, parseIPv4Sloppy(ip)!)));
    for (const info of IPSET_INFO) this.ipsets.set(info.name, { ...info, entries: new IpsetEntries() });
    const tables: Table[] = (["filter", "nat"] as const).map((name) => {
      const chains = new Map<string, Chain>();
      for (const b of BUILTIN_CHAINS[name]) chains.set(b, { name: b, origin: "builtin", policy: "ACCEPT", rules: [] });
      return { name, chains, chainSetVersion: 0 };
    });
    this.iptables = { tables };
    this.installStatic();
  }

  // -------------------------------------------------------------------------------------------
  // Sync

  sync(state: ProxyState, changed?: ReadonlySet<string>): SyncResult {
    const full = changed === undefined || !this.synced;
    const keys = full ? new Set([...this.records.keys(), ...state.services.keys()]) : changed;
    let n = 0;
    for (const key of keys) {
      const svc = state.services.get(key);
      const eps = state.endpoints.get(key) ?? [];
      const old = this.records.get(key);
      // Same inputs (the tracker hands out the same objects while nothing changed): same state.
      if (old && svc && old.svc === svc && old.eps === eps && !this.tainted) continue;
      if (!svc || parseIPv4Sloppy(svc.clusterIP) === undefined) {
        if (old) this.remove(key, old, new Set());
        continue;
      }
      this.apply(key, svc, eps, old);
      n++;
    }
    this.processGraceful();
    this.writeIptables();
    this.synced = true;
    this.tainted = false;
    return { full, servicesSynced: n };
  }

  private addEntry(rec: PortRecord, set: string, entry: string): void {
    const m = this.ipsets.get(set)!.entries;
    m.set(entry, (m.get(entry) ?? 0) + 1);
    rec.sets.push([set, entry]);
  }

  private remove(key: string, rec: PortRecord, keepVS: Set<string>): void {
    for (const [set, entry] of rec.sets) {
      const m = this.ipsets.get(set)!.entries;
      const c = (m.get(entry) ?? 1) - 1;
      if (c <= 0) m.delete(entry);
      else m.set(entry, c);
    }
    for (const k of rec.vss) if (!keepVS.has(k)) this.services.delete(k);
    for (const ip of rec.bound) {
      const c = (this.bound.get(ip) ?? 1) - 1;
      if (c <= 0) {
        this.bound.delete(ip);
        this.ipsets.get(SET.IPVS_IPS)!.entries.delete(ip);
      } else this.bound.set(ip, c);
    }
    this.records.delete(key);
  }

  /** syncProxyRules' body for one service port. */
  private apply(key: string, svc: ServicePortInfo, eps: readonly EndpointInfo[], old: PortRecord | undefined): void {
    const rec: PortRecord = { svc, eps, vss: [], sets: [], bound: [] };
    const proto = svc.protocol.toLowerCase();
    const cat = categorizeEndpoints(eps, svc, { nodeName: this.node.name, zone: this.node.zone, preferSameNode: false });
    // As syncEndpoint: a policy-Local virtual server gets the local endpoints only, none if there are none
    // (IPVS then answers ICMP port unreachable), never the cluster-wide ones.
    const forVS = (local: boolean): readonly EndpointInfo[] => (local ? cat.local : cat.cluster);
    const entry = (ip: string) => `${ip},${proto}:${svc.port}`;

    // Hairpin: local endpoints get masqueraded when they reach themselves.
    for (const ep of eps) {
      if (ep.isLocal) this.addEntry(rec, SET.LOOP_BACK, `${ep.ip},${proto}:${ep.port},${ep.ip}`);
    }
    const wanted: { ip: string; bind: boolean; eps: readonly EndpointInfo[] }[] = [];
    this.addEntry(rec, SET.CLUSTER_IP, entry(svc.clusterIP));
    wanted.push({ ip: svc.clusterIP, bind: true, eps: forVS(svc.internalPolicyLocal) });
    for (const ip of svc.externalIPs) {
      this.addEntry(rec, svc.externalPolicyLocal ? SET.EXTERNAL_IP_LOCAL : SET.EXTERNAL_IP, entry(ip));
      wanted.push({ ip, bind: !this.nodeIPs.includes(ip), eps: forVS(svc.externalPolicyLocal) });
    }
    for (const ip of svc.loadBalancerVIPs) {
      this.addEntry(rec, SET.LOAD_BALANCER, entry(ip));
      if (svc.externalPolicyLocal) this.addEntry(rec, SET.LOAD_BALANCER_LOCAL, entry(ip));
      if (svc.loadBalancerSourceRanges.length) {
        this.addEntry(rec, SET.LOAD_BALANCER_FW, entry(ip));
        for (const r of svc.loadBalancerSourceRanges) {
          const p = parsePrefix(r);
          if (p) this.addEntry(rec, SET.LOAD_BALANCER_SOURCE_CIDR, `${entry(ip)},${r.trim()}`);
        }
      }
      wanted.push({ ip, bind: true, eps: forVS(svc.externalPolicyLocal) });
    }
    if (svc.nodePort) {
      const [all, local] =
        svc.protocol === "TCP" ? [SET.NODE_PORT_TCP, SET.NODE_PORT_LOCAL_TCP] : svc.protocol === "UDP" ? [SET.NODE_PORT_UDP, SET.NODE_PORT_LOCAL_UDP] : [SET.NODE_PORT_SCTP, SET.NODE_PORT_LOCAL_SCTP];
      if (svc.protocol === "SCTP") {
        for (const ip of this.nodeIPs) {
          this.addEntry(rec, all, `${ip},${proto}:${svc.nodePort}`);
          if (svc.externalPolicyLocal) this.addEntry(rec, local, `${ip},${proto}:${svc.nodePort}`);
        }
      } else {
        this.addEntry(rec, all, String(svc.nodePort));
        if (svc.externalPolicyLocal) this.addEntry(rec, local, String(svc.nodePort));
      }
      for (const ip of this.nodeIPs) wanted.push({ ip, bind: false, eps: forVS(svc.externalPolicyLocal), nodePort: true } as never);
    }
    if (svc.healthCheckNodePort) this.addEntry(rec, SET.HEALTH_CHECK_NODE_PORT, String(svc.healthCheckNodePort));

    const keep = new Set<string>();
    for (const w of wanted) {
      const port = (w as { nodePort?: boolean }).nodePort ? svc.nodePort : svc.port;
      const k = vsKey(svc.protocol, w.ip, port);
      keep.add(k);
      let vs = this.services.get(k);
      if (!vs) {
        vs = {
          // What a connection reads and writes first, within the object's first cache line.
          scheduler: this.scheduler,
          persistent: 0,
          rrLast: -1,
          protocol: svc.protocol,
          conns: 0,
          key: k,
          ip: w.ip,
          port,
          dests: [],
          wrrIndex: -1,
          wrrCw: 0,
          table: undefined,
          templates: new Map(),
          inPkts: 0,
          outPkts: 0,
          inBytes: 0,
          outBytes: 0,
        };
        this.services.set(k, vs);
      }
      vs.persistent = svc.stickyMaxAgeSeconds;
      this.syncEndpoints(vs, w.eps);
      rec.vss.push(k);
      if (w.bind) {
        rec.bound.push(w.ip);
        this.bound.set(w.ip, (this.bound.get(w.ip) ?? 0) + 1);
        // KUBE-IPVS-IPS holds every address bound to kube-ipvs0.
        this.ipsets.get(SET.IPVS_IPS)!.entries.set(w.ip, 1);
      }
    }
    if (old) this.remove(key, old, keep);
    this.records.set(key, rec);
  }

  /** syncEndpoint: add new real servers (sorted "IP:port"), gracefully delete the gone ones. */
  private syncEndpoints(vs: VirtualServer, eps: readonly EndpointInfo[]): void {
    // Fast path: the same servers in the same order, none draining (the common resync).
    if (vs.dests.length === eps.length) {
      let same = true;
      for (let i = 0; i < eps.length; i++) {
        const d = vs.dests[i];
        if (d.ip !== eps[i].ip || d.port !== eps[i].port || d.weight === 0) {
          same = false;
          break;
        }
      }
      if (same) return;
    }
    if (vs.dests.length === 0) {
      // A new virtual server: every endpoint is added, in sorted "IP:port" order.
      let sorted = true;
      for (let i = 1; i < eps.length && sorted; i++) sorted = endpointString(eps[i - 1]) < endpointString(eps[i]);
      const list = sorted ? eps : [...eps].sort((a, b) => (endpointString(a) < endpointString(b) ? -1 : 1));
      for (const ep of list) this.addDest(vs, ep);
      return;
    }
    const want = new Map<string, EndpointInfo>();
    for (const ep of eps) want.set(endpointString(ep), ep);
    const have = new Map<string, RealServer>(vs.dests.map((d) => [`${d.ip}:${d.port}`, d]));
    let changed = false;
    // sets.List(newEndpoints): added in sorted string order (the tracker's order already).
    let keys = [...want.keys()];
    for (let i = 1; i < keys.length; i++) {
      if (keys[i - 1] > keys[i]) {
        keys = keys.sort();
        break;
      }
    }
    for (const s of keys) {
      const d = have.get(s);
      if (d) {
        if (d.weight === 0) {
          // Back before its graceful deletion finished: deleted and added again.
          this.dropDest(vs, d);
          this.addDest(vs, want.get(s)!);
          changed = true;
        }
        continue;
      }
      this.addDest(vs, want.get(s)!);
      changed = true;
    }
    for (const [s, d] of have) {
      if (want.has(s) || d.weight === 0) continue;
      // GracefulDeleteRS: UDP/SCTP and idle TCP servers go at once, busy TCP ones drain at weight 0.
      if (vs.protocol === "TCP" && d.activeConns + d.inactiveConns > 0) {
        d.weight = 0;
        this.graceful.add({ vs, dest: d });
      } else {
        this.dropDest(vs, d);
      }
      changed = true;
    }
    if (changed) {
      vs.table = undefined;
      vs.wrrIndex = -1;
      vs.wrrCw = 0;
      if (vs.rrLast >= vs.dests.length) vs.rrLast = -1;
    }
  }

  private addDest(vs: VirtualServer, ep: EndpointInfo): void {
    // What a connection reads and writes first, within the object's first cache line.
    vs.dests.push({ weight: 1, activeConns: 0, inactiveConns: 0, conns: 0, addr: ipv4Num(ep.ip), port: ep.port, ip: ep.ip, inPkts: 0, outPkts: 0, inBytes: 0, outBytes: 0 });
  }

  private dropDest(vs: VirtualServer, d: RealServer): void {
    const i = vs.dests.indexOf(d);
    if (i < 0) return;
    vs.dests.splice(i, 1);
    if (vs.rrLast >= i) vs.rrLast--;
    vs.table = undefined;
    for (const [ip, t] of vs.templates) if (t.dest === d) vs.templates.delete(ip);
  }

  /** The graceful termination list: servers whose connections are all gone are deleted. */
  private processGraceful(): void {
    for (const g of this.graceful) {
      if (g.dest.activeConns + g.dest.inactiveConns > 0 && this.services.get(g.vs.key) === g.vs) continue;
      this.dropDest(g.vs, g.dest);
      this.graceful.delete(g);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Data plane

  virtualServer(protocol: Protocol, ip: string, port: number): VirtualServer | undefined {
    // services.get(vsKey(protocol, ip, port)) without building the key: every server is keyed
    // by exactly its protocol, ip and port.
    return this.services.find(protocol, ip, port);
  }

  /**
   * The real server a new connection from `clientIP` gets: the persistence template's server
   * while it lives (and has weight), else the scheduler's pick. No counters change.
   */
  schedule(vs: VirtualServer, clientIP: string, now: number): RealServer | undefined {
    if (vs.persistent) {
      const t = vs.templates.get(clientIP);
      // expire_quiescent_template=1: a template to a weight-0 server is not used.
      if (t && t.until > now && t.dest.weight > 0 && vs.dests.includes(t.dest)) return t.dest;
    }
    return pick(vs.scheduler, vs, vs.dests, clientIP, vs.ip);
  }

  /**
   * A new connection: schedule it, count it active, keep its entry (ipvsadm -Lnc). The entry's
   * id is `lastConnection`. Nothing is allocated: a node's table holds every connection of the
   * last 15 minutes of cluster time.
   */
  open(vs: VirtualServer, clientIP: string, clientPort: number, now: number): RealServer | undefined {
    const dest = this.schedule(vs, clientIP, now);
    if (!dest) return undefined;
    if (vs.persistent) vs.templates.set(clientIP, { dest, until: now + vs.persistent * 1000 });
    const tcp = vs.protocol === "TCP";
    if (tcp) dest.activeConns++;
    else dest.inactiveConns++; // UDP entries count as inactive in the kernel
    estimate(vs, now);
    estimate(dest, now);
    dest.conns++;
    vs.conns++;
    this.lastConnection = this.conns.add(vs, dest, clientIP, clientPort, tcp ? ESTABLISHED : NONE, now + (tcp ? this.tcpTimeout : this.udpTimeout) * 1000);
    return dest;
  }

  /** `open`, with the entry copied out. */
  connect(vs: VirtualServer, client: { ip: string; port: number }, now: number): IpvsConnection | undefined {
    return this.open(vs, client.ip, client.port, now) ? this.conns.entry(this.conns.indexOf(this.lastConnection)) : undefined;
  }

  /** The connection entries, oldest first (copies). */
  connectionEntries(): IpvsConnection[] {
    const out: IpvsConnection[] = [];
    for (let i = 0; i < this.conns.length; i++) out.push(this.conns.entry(i));
    return out;
  }

  /**
   * Packets through connection `id` (the dataplane holds ids), client -> server in, for --stats
   * and --rate: on its virtual and its real server. Nothing once its entry has gone.
   */
  countConnection(id: number, inPkts: number, inBytes: number, outPkts: number, outBytes: number, now: number): void {
    const i = this.conns.indexOf(id);
    if (i < 0) return;
    for (const s of [this.conns.vs(i), this.conns.dest(i)] as const) {
      estimate(s, now);
      s.inPkts += inPkts;
      s.inBytes += inBytes;
      s.outPkts += outPkts;
      s.outBytes += outBytes;
    }
  }

  /** The connection closed (FIN): it turns inactive and lingers in TIME_WAIT. */
  close(c: IpvsConnection | number, now: number): void {
    const t = this.conns;
    const i = t.indexOf(typeof c === "number" ? c : c.id);
    if (i < 0 || t.state(i) !== ESTABLISHED) return;
    const d = t.dest(i);
    d.activeConns--;
    d.inactiveConns++;
    t.update(i, TIME_WAIT, now + this.tcpFinTimeout * 1000);
  }

  /** Drops connection entries whose timer ran out, then finishes graceful deletions. */
  expire(now: number): void {
    const t = this.conns;
    let w = 0;
    for (let i = 0; i < t.length; i++) {
      if (t.expires(i) > now) {
        if (w !== i) t.move(i, w);
        w++;
        continue;
      }
      if (t.state(i) === ESTABLISHED) t.dest(i).activeConns--;
      else t.dest(i).inactiveConns--;
      t.forget(i);
    }
    t.truncate(w);
    for (const vs of this.services.values()) for (const [ip, tm] of vs.templates) if (tm.until <= now) vs.templates.delete(ip);
    this.processGraceful();
  }

  // -------------------------------------------------------------------------------------------
  // iptables rules of IPVS mode

  private installStatic(): void {
    const [filter, nat] = this.iptables.tables;
    for (const name of [KUBE_SERVICES, KUBE_POSTROUTING, KUBE_NODE_PORT, KUBE_LOAD_BALANCER, KUBE_MARK_MASQ]) {
      nat.chains.set(name, { name, origin: "restore", policy: undefined, rules: [] });
    }
    for (const name of [KUBE_FORWARD, KUBE_NODE_PORT, KUBE_PROXY_FIREWALL, KUBE_SOURCE_RANGES_FIREWALL, KUBE_IPVS_FILTER, KUBE_IPVS_OUT_FILTER]) {
      filter.chains.set(name, { name, origin: "restore", policy: undefined, rules: [] });
    }
    // The kubelet's KUBE-FIREWALL (block incoming localnet connections) is on every node.
    filter.chains.set(KUBE_FIREWALL, {
      name: KUBE_FIREWALL,
      origin: "ensure",
      policy: undefined,
      rules: [
        rule({
          dst: "127.0.0.0/8",
          src: "127.0.0.0/8",
          srcNeg: true,
          matches: [comment("block incoming localnet connections"), { m: "conntrack", ctstate: ["RELATED", "ESTABLISHED", "DNAT"], invert: true }],
          target: { t: "DROP" },
        }),
      ],
    });
    // iptablesJumpChain of proxier.go, each EnsureRule(Prepend): later entries end up first.
    const jumps: [Table, string, string, string][] = [
      [nat, "OUTPUT", KUBE_SERVICES, "kubernetes service portals"],
      [nat, "PREROUTING", KUBE_SERVICES, "kubernetes service portals"],
      [nat, "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules"],
      [filter, "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules"],
      [filter, "INPUT", KUBE_NODE_PORT, "kubernetes health check rules"],
      [filter, "INPUT", KUBE_PROXY_FIREWALL, "kube-proxy firewall rules"],
      [filter, "FORWARD", KUBE_PROXY_FIREWALL, "kube-proxy firewall rules"],
      [filter, "INPUT", KUBE_IPVS_FILTER, "kubernetes ipvs access filter"],
      [filter, "OUTPUT", KUBE_IPVS_OUT_FILTER, "kubernetes ipvs access filter"],
      [filter, "INPUT", KUBE_FIREWALL, ""],
      [filter, "OUTPUT", KUBE_FIREWALL, ""],
    ];
    for (const [t, from, to, c] of jumps) {
      t.chains.get(from)!.rules.unshift(rule({ matches: c ? [comment(c)] : [], target: { t: "jump", chain: to } }));
    }
    // Rules arrays are never changed once written (syncs write new ones): frozen, so that
    // nothing else changes them.
    for (const t of this.iptables.tables) for (const ch of t.chains.values()) Object.freeze(ch.rules);
  }

  private nonEmpty(set: string): boolean {
    return this.ipsets.get(set)!.entries.size > 0;
  }

  private setMatch(set: string, flags: string): Match {
    return { m: "set", name: set, flags };
  }

  /** writeIptablesRules: the rules that hang off the ipsets, rebuilt on every sync. */
  private writeIptables(): void {
    const [filter, nat] = this.iptables.tables;
    const natR = new Map<string, Rule[]>([KUBE_SERVICES, KUBE_POSTROUTING, KUBE_NODE_PORT, KUBE_LOAD_BALANCER, KUBE_MARK_MASQ].map((c) => [c, []]));
    const filR = new Map<string, Rule[]>([KUBE_FORWARD, KUBE_NODE_PORT, KUBE_PROXY_FIREWALL, KUBE_SOURCE_RANGES_FIREWALL, KUBE_IPVS_FILTER, KUBE_IPVS_OUT_FILTER].map((c) => [c, []]));
    const info = (name: string) => this.ipsets.get(name)!;
    const jumpOr = (to: string): Target => (to === "MASQUERADE" ? { t: "MASQUERADE", randomFully: false } : to === "RETURN" ? { t: "RETURN" } : { t: "jump", chain: to });

    // Dismiss connects to localhost early in the service chain.
    natR.get(KUBE_SERVICES)!.push(rule({ src: "127.0.0.0/8", target: { t: "RETURN" } }));
    const withChain: [string, "nat" | "filter", string, string, string, string][] = [
      [SET.LOOP_BACK, "nat", KUBE_POSTROUTING, "MASQUERADE", "dst,dst,src", ""],
      [SET.LOAD_BALANCER, "nat", KUBE_SERVICES, KUBE_LOAD_BALANCER, "dst,dst", ""],
      [SET.LOAD_BALANCER_LOCAL, "nat", KUBE_LOAD_BALANCER, "RETURN", "dst,dst", ""],
      [SET.NODE_PORT_LOCAL_TCP, "nat", KUBE_NODE_PORT, "RETURN", "dst", "tcp"],
      [SET.NODE_PORT_TCP, "nat", KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst", "tcp"],
      [SET.NODE_PORT_LOCAL_UDP, "nat", KUBE_NODE_PORT, "RETURN", "dst", "udp"],
      [SET.NODE_PORT_UDP, "nat", KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst", "udp"],
      [SET.NODE_PORT_LOCAL_SCTP, "nat", KUBE_NODE_PORT, "RETURN", "dst,dst", "sctp"],
      [SET.NODE_PORT_SCTP, "nat", KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst,dst", "sctp"],
      [SET.LOAD_BALANCER_FW, "filter", KUBE_PROXY_FIREWALL, KUBE_SOURCE_RANGES_FIREWALL, "dst,dst", ""],
      [SET.LOAD_BALANCER_SOURCE_CIDR, "filter", KUBE_SOURCE_RANGES_FIREWALL, "RETURN", "dst,dst,src", ""],
      [SET.LOAD_BALANCER_SOURCE_IP, "filter", KUBE_SOURCE_RANGES_FIREWALL, "RETURN", "dst,dst,src", ""],
    ];
    for (const [set, table, from, to, flags, proto] of withChain) {
      if (!this.nonEmpty(set)) continue;
      const r = rule({
        proto: proto ? (proto as "tcp") : undefined,
        matches: [comment(info(set).comment), this.setMatch(set, flags)],
        target: jumpOr(to),
      });
      (table === "nat" ? natR : filR).get(from)!.push(r);
    }
    const svcRules = natR.get(KUBE_SERVICES)!;
    if (this.nonEmpty(SET.CLUSTER_IP)) {
      const m = [comment(info(SET.CLUSTER_IP).comment), this.setMatch(SET.CLUSTER_IP, "dst,dst")];
      if (this.masqueradeAll) svcRules.push(rule({ matches: m, target: { t: "jump", chain: KUBE_MARK_MASQ } }));
      else if (this.localCidr) svcRules.push(rule({ src: this.localCidr, srcNeg: true, matches: m, target: { t: "jump", chain: KUBE_MARK_MASQ } }));
      else svcRules.push(rule({ matches: [m[0], this.setMatch(SET.CLUSTER_IP, "src,dst")], target: { t: "jump", chain: KUBE_MARK_MASQ } }));
    }
    const localAccept = (set: string) =>
      svcRules.push(rule({ matches: [comment(info(set).comment), this.setMatch(set, "dst,dst"), { m: "addrtype", srcType: undefined, dstType: "LOCAL" }], target: { t: "ACCEPT" } }));
    if (this.nonEmpty(SET.EXTERNAL_IP)) {
      svcRules.push(rule({ matches: [comment(info(SET.EXTERNAL_IP).comment), this.setMatch(SET.EXTERNAL_IP, "dst,dst")], target: { t: "jump", chain: KUBE_MARK_MASQ } }));
      localAccept(SET.EXTERNAL_IP);
    }
    if (this.nonEmpty(SET.EXTERNAL_IP_LOCAL)) localAccept(SET.EXTERNAL_IP_LOCAL);
    svcRules.push(rule({ matches: [{ m: "addrtype", srcType: undefined, dstType: "LOCAL" }], target: { t: "jump", chain: KUBE_NODE_PORT } }));
    natR.get(KUBE_LOAD_BALANCER)!.push(rule({ target: { t: "jump", chain: KUBE_MARK_MASQ } }));
    filR.get(KUBE_SOURCE_RANGES_FIREWALL)!.push(rule({ target: { t: "DROP" } }));
    // acceptIPVSTraffic: must be the end of KUBE-SERVICES.
    for (const set of [SET.CLUSTER_IP, SET.LOAD_BALANCER]) {
      if (this.nonEmpty(set)) svcRules.push(rule({ matches: [this.setMatch(set, "dst,dst")], target: { t: "ACCEPT" } }));
    }
    const mark = this.masqMark;
    filR.get(KUBE_FORWARD)!.push(
      rule({ matches: [comment("kubernetes forwarding rules"), { m: "mark", value: mark, mask: mark, invert: false }], target: { t: "ACCEPT" } }),
      rule({ matches: [comment("kubernetes forwarding conntrack rule"), { m: "conntrack", ctstate: ["RELATED", "ESTABLISHED"], invert: false }], target: { t: "ACCEPT" } }),
    );
    filR.get(KUBE_NODE_PORT)!.push(rule({ matches: [comment(info(SET.HEALTH_CHECK_NODE_PORT).comment), this.setMatch(SET.HEALTH_CHECK_NODE_PORT, "dst")], target: { t: "ACCEPT" } }));
    // Prevent access to host ports through VIP addresses (kubernetes#72236).
    const ipvsFilter = filR.get(KUBE_IPVS_FILTER)!;
    for (const [set, flags] of [
      [SET.LOAD_BALANCER, "dst,dst"],
      [SET.CLUSTER_IP, "dst,dst"],
      [SET.EXTERNAL_IP, "dst,dst"],
      [SET.EXTERNAL_IP_LOCAL, "dst,dst"],
      [SET.HEALTH_CHECK_NODE_PORT, "dst"],
    ] as const) {
      ipvsFilter.push(rule({ matches: [this.setMatch(set, flags)], target: { t: "RETURN" } }));
    }
    ipvsFilter.push(rule({ matches: [{ m: "conntrack", ctstate: ["NEW"], invert: false }, this.setMatch(SET.IPVS_IPS, "dst")], target: { t: "REJECT" } }));
    const post = natR.get(KUBE_POSTROUTING)!;
    post.push(
      rule({ matches: [{ m: "mark", value: mark, mask: mark, invert: true }], target: { t: "RETURN" } }),
      rule({ target: { t: "MARK", op: "xor", value: mark } }),
      rule({ matches: [comment("kubernetes service traffic requiring SNAT")], target: { t: "MASQUERADE", randomFully: true } }),
    );
    natR.get(KUBE_MARK_MASQ)!.push(rule({ target: { t: "MARK", op: "or", value: mark } }));
    for (const [name, rules] of natR) nat.chains.get(name)!.rules = Object.freeze(rules) as Rule[];
    for (const [name, rules] of filR) filter.chains.get(name)!.rules = Object.freeze(rules) as Rule[];
  }

  /** True when `ip` is excluded from cleanup (ipvs.excludeCIDRs). */
  excludedAddress(ip: string): boolean {
    const v = parseIPv4Sloppy(ip);
    return v !== undefined && this.excluded.some((p) => p !== undefined && prefixContains(p, v));
  }

  /** Service-port name of a virtual server (for explain traces). */
  serviceOf(vs: VirtualServer): string | undefined {
    for (const rec of this.records.values()) if (rec.vss.includes(vs.key)) return servicePortNameString(rec.svc.name);
    return undefined;
  }
}

function comment(text: string): Match {
  return { m: "comment", text };
}
