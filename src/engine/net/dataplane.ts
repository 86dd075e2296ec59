// The packet path. A connection's first packet is routed by evaluating the rules of the node it
// enters, in netfilter order:
//
//   locally generated:  OUTPUT (nat, filter) -> routing -> POSTROUTING (nat)
//   arriving:           PREROUTING (nat) -> routing -> INPUT (filter)            (local address)
//                                                   -> FORWARD (filter) -> POSTROUTING (nat)
//
// Routing: a local address goes to the node's host; the node's own pod CIDR goes out of cni0 to
// the pod; another node's pod CIDR goes over flannel.1 (VXLAN) to that node, and another node's
// IP (or an address that node announces, e.g. a MetalLB IP) over eth0, where the packet enters
// that node's PREROUTING. Everything else goes to the default gateway 10.1.8.2, beyond which
// there is no internet. Masquerade takes the address of the interface the packet leaves by
// (cni0 10.244.N.1, flannel.1 10.244.N.0, eth0 the node IP), as on a flannel node.
//
// Every random choice (statistic, numgen, --random-fully ports) draws from the cluster's Rng, and
// the per-node kernel state (conntrack, recent tables, nft dynamic sets) lives here, so the same
// calls on the same cluster route the same way.
import type { Ruleset } from "../proxy/iptables/model.js";
import type { NftTable } from "../proxy/nftables/model.js";
import { CT_TIMEOUTS, ConntrackTable, type FlowFields, type TcpState } from "./conntrack.js";
import { EvalContext, type HookName, type HookOutcome, NodeKernelState, type Pkt, type RandomSource, SpecCache, setDst, setSrc } from "./context.js";
import { formatIPv4, ipv4Unchecked } from "../util/ip.js";
import { dataPackets, firstPacketBytes, handshakePackets } from "./counters.js";
import { iptablesHook } from "./iptables-eval.js";
import { nftablesHook } from "./nftables-eval.js";
import type { ConnectResult, L4, Source, TraceStep, Tuple, Verdict } from "./packet.js";

export interface NodeNet {
  name: string;
  /** InternalIP (eth0). */
  ip: string;
  /** spec.podCIDR; cni0 is its .1, flannel.1 its .0. */
  podCIDR: string;
}

/**
 * IPVS as the data plane needs it: the virtual servers bound to kube-ipvs0 and the proxier's
 * scheduler. Filled in by the IPVS proxier's adapter.
 */
export interface IpvsHandle {
  /** Is `ip` bound to kube-ipvs0 (a local address in IPVS mode)? */
  isBound(ip: string): boolean;
  /** ipset lookups for `-m set --match-set` (type and entries as `ipset list` prints them). */
  ipset(name: string): { type: string; entries: ReadonlyMap<string, unknown> } | undefined;
  /**
   * The virtual server at (proto, ip, port), if any, schedules a new connection from
   * clientIP:clientPort. `conn`, handed to `close`, ends the connection (curl closed it: active
   * -> inactive, TIME_WAIT). `service` describes the virtual server for the trace (only when
   * `steps` is given). The answer may be an object the handle reuses: read it before the next call.
   */
  schedule(
    proto: L4,
    ip: string,
    port: number,
    clientIP: string,
    clientPort: number,
    now: number,
    steps: ((text: string) => void) | undefined,
  ): IpvsScheduled;
  /** Closes a connection `schedule` returned (at `now`). */
  close(conn: unknown, now: number): void;
  /** Packets through a connection `schedule` returned, client to server (in) and back (out): ipvsadm --stats. */
  count?(conn: unknown, inPkts: number, inBytes: number, outPkts: number, outBytes: number, now: number): void;
}

/** What IpvsHandle.schedule found at a destination. */
type IpvsScheduled =
  | { readonly found: false }
  | { readonly found: true; readonly service: string; readonly real: { readonly ip: string; readonly port: number } | undefined; readonly conn?: unknown };

export type NodeRules =
  | { mode: "iptables"; ruleset: Ruleset }
  /** `iptables`: what earlier modes left in iptables (evaluated too, as the kernel does). */
  | { mode: "nftables"; table: NftTable; iptables?: Ruleset }
  | { mode: "ipvs"; ruleset: Ruleset; ipvs: IpvsHandle };

export interface PodHost {
  /** "namespace/name". */
  key: string;
  node: string;
  /** A container is running (a pod that is not Running refuses). */
  running: boolean;
  /** Something listens on proto/port in the pod. */
  listens(proto: L4, port: number): boolean;
}

/** What the data plane reads from the cluster. */
export interface NetEnv {
  nodes: readonly NodeNet[];
  /** The node's kube-proxy rules (undefined: kube-proxy not running there: no service rules). */
  rules(node: string): NodeRules | undefined;
  podByIP(ip: string): PodHost | undefined;
  /** A host process of `node` listens on proto/port (kubelet, the apiserver, hostNetwork pods). */
  hostListens?(node: string, proto: L4, port: number): boolean;
  /** The node answering ARP for an address on the node network (MetalLB layer 2). */
  l2Announcer?(ip: string): string | undefined;
  now(): number;
  rng: RandomSource;
}

export interface ConnectOptions {
  proto?: L4;
  /** Client port; default: the next ephemeral port of the source. */
  sport?: number;
  /** Record every chain, rule and lookup. */
  trace?: boolean;
  /** Leave the connection open (ESTABLISHED in conntrack) instead of closing it (TIME_WAIT). */
  keepOpen?: boolean;
  /** For external sources: the node the client's packets reach first. */
  entryNode?: string;
  /** A diagnostic connection (`explain`): routed like any, but no traffic the student sent. */
  probe?: boolean;
}

/** The node network's gateway: the node's own resolver lives there; beyond it, nothing. */
const NODE_GATEWAY = "10.1.8.2";

const MAX_HOPS = 8;

/** connect's options when none are given. */
const NO_OPTS: ConnectOptions = Object.freeze({});

/** The path of a result while its walk runs (the walk writes the real one when it ends). */
const NO_PATH: string[] = Object.freeze([]) as unknown as string[];

interface NodeInfo {
  net: NodeNet;
  cidrBase: number;
  cidrMask: number;
  cni0: string;
  flannel: string;
  /** The node's conntrack table, kernel state and trace-less context, once used. */
  conntrack: ConntrackTable | undefined;
  kernel: NodeKernelState | undefined;
  quiet: EvalContext | undefined;
  /** The node's rules while a walk is on it (read by its contexts' isLocal). */
  hopRules: NodeRules | undefined;
}

/**
 * One connection's walk through the nodes. The data plane keeps one and reuses it for the next
 * connection (a connection is a few microseconds of work: the walk's objects and its per-node
 * tuples were a good part of what each one allocated).
 */
class Walk {
  res: ConnectResult = undefined as unknown as ConnectResult;
  /** The connection's first packet, rewritten as it goes. */
  readonly pkt: Pkt = { proto: "tcp", src: "", sport: 0, srcNum: -1, dst: "", dport: 0, dstNum: -1, mark: 0, ctNew: true, dnat: false, masquerade: false };
  opts: ConnectOptions = NO_OPTS;
  now = 0;
  /** The nodes crossed, with the packet's tuple as it entered each one (columns by hop). */
  hops = 0;
  readonly hopNode: NodeInfo[] = [];
  readonly hopSrc: string[] = [];
  readonly hopSport: number[] = [];
  readonly hopDst: string[] = [];
  readonly hopDport: number[] = [];
  /** The current node's evaluation context and rules. */
  ctx: EvalContext = undefined as unknown as EvalContext;
  rules: NodeRules | undefined = undefined;
  /** IPVS connection to close when the walk ends (curl closes its connection), and its handle. */
  close: unknown = undefined;
  closeVia: IpvsHandle | undefined = undefined;

  /** Enters `node` with the packet as it is now. */
  enter(node: NodeInfo): void {
    const h = this.hops++;
    const pkt = this.pkt;
    this.hopNode[h] = node;
    this.hopSrc[h] = pkt.src;
    this.hopSport[h] = pkt.sport;
    this.hopDst[h] = pkt.dst;
    this.hopDport[h] = pkt.dport;
  }

  /** The names of the nodes crossed, in order. */
  path(): string[] {
    const n = this.hops;
    const nodes = this.hopNode;
    if (n === 1) return [nodes[0].net.name];
    if (n === 2) return [nodes[0].net.name, nodes[1].net.name];
    const path: string[] = [];
    for (let i = 0; i < n; i++) path.push(nodes[i].net.name);
    return path;
  }

  /** Drops what the walk holds of the connection it walked. */
  reset(): void {
    this.res = undefined as unknown as ConnectResult;
    this.opts = NO_OPTS;
    this.ctx = undefined as unknown as EvalContext;
    this.rules = undefined;
    this.close = this.closeVia = undefined;
    for (let i = 0; i < this.hops; i++) {
      this.hopSrc[i] = this.hopDst[i] = "";
      this.hopNode[i].hopRules = undefined;
    }
    this.hops = 0;
  }
}

/** Where routing sends a packet that leaves a node: a node, a pod of this node, or nowhere. */
const STOPPED = 0;
const POD = 1;
type Next = NodeInfo | typeof STOPPED | typeof POD;

/** What IPVS did at LOCAL_IN: no virtual server there, ended the walk, or DNATed the packet. */
const VS_NONE = 0;
const VS_ENDED = 1;
const VS_DNAT = 2;

function resetPerNode(pkt: Pkt): void {
  pkt.mark = 0;
  pkt.dnat = false;
  pkt.masquerade = false;
}

export class Dataplane {
  private readonly nodes = new Map<string, NodeInfo>();
  /** The same nodes, in env.nodes order. */
  private readonly nodeList: NodeInfo[] = [];
  private readonly kernels = new Map<string, NodeKernelState>();
  private readonly conntracks = new Map<string, ConntrackTable>();
  private readonly ports = new Map<string, number>();
  /** The last connection IPVS load-balanced, for transfer() (its caller sends right after connect). */
  private carriedRes: ConnectResult | undefined = undefined;
  private carriedVia: IpvsHandle | undefined = undefined;
  private carriedConn: unknown = undefined;
  private readonly observers = new Set<(res: ConnectResult) => void>();
  /** The rules' address specs, parsed (this data plane's own cache: no other cluster reads it). */
  readonly specs = new SpecCache();
  /** The walk the next connection uses (undefined while one runs: a nested connect makes its own). */
  private spare: Walk | undefined = new Walk();
  /**
   * How many of the next connections are traced even when their caller did not ask (the host
   * sets it around a command line, so the workspace can show one request's path; 0 otherwise).
   */
  traceBudget = 0;

  constructor(readonly env: NetEnv) {
    for (const n of env.nodes) {
      const [base, len] = n.podCIDR.split("/");
      const mask = Number(len) === 0 ? 0 : (0xffffffff << (32 - Number(len))) >>> 0;
      const b = (ipv4Unchecked(base) & mask) >>> 0;
      const info: NodeInfo = {
        net: n,
        cidrBase: b,
        cidrMask: mask,
        cni0: formatIPv4(b + 1),
        flannel: formatIPv4(b),
        conntrack: undefined,
        kernel: undefined,
        quiet: undefined,
        hopRules: undefined,
      };
      this.nodes.set(n.name, info);
      this.nodeList.push(info);
    }
  }

  /** The node's evaluation context for a packet: a new one when tracing, else its trace-less one, reset. */
  private context(info: NodeInfo, now: number, trace: TraceStep[] | undefined): EvalContext {
    // A context is used only while the walk is on its node, where info.hopRules are the node's rules.
    if (trace) return this.newContext(info, now, trace);
    let c = info.quiet;
    if (c === undefined) info.quiet = c = this.newContext(info, now, undefined);
    c.now = now;
    c.rng = this.env.rng;
    c.rules = 0;
    c.ipvs = undefined;
    return c;
  }

  /**
   * A new evaluation context on `info`. Apart from context(): a function that makes a closure
   * allocates the context of the variables it captures on every call, on whichever path.
   */
  private newContext(info: NodeInfo, now: number, trace: TraceStep[] | undefined): EvalContext {
    return new EvalContext(info.net.name, (ip) => this.isLocalTo(info, info.hopRules, ip), now, this.env.rng, this.kernelOf(info), this.specs, trace);
  }

  conntrack(node: string): ConntrackTable {
    let t = this.conntracks.get(node);
    if (!t) this.conntracks.set(node, (t = new ConntrackTable()));
    return t;
  }

  private conntrackOf(info: NodeInfo): ConntrackTable {
    return (info.conntrack ??= this.conntrack(info.net.name));
  }

  kernel(node: string): NodeKernelState {
    let k = this.kernels.get(node);
    if (!k) this.kernels.set(node, (k = new NodeKernelState()));
    return k;
  }

  private kernelOf(info: NodeInfo): NodeKernelState {
    return (info.kernel ??= this.kernel(info.net.name));
  }

  nodeNet(name: string): NodeNet | undefined {
    return this.nodes.get(name)?.net;
  }

  /** The node whose InternalIP is `ip`. */
  nodeByIP(ip: string): NodeNet | undefined {
    return this.infoByIP(ip)?.net;
  }

  private infoByIP(ip: string): NodeInfo | undefined {
    const list = this.nodeList;
    for (let i = 0; i < list.length; i++) if (list[i].net.ip === ip) return list[i];
    return undefined;
  }

  /** The node whose pod CIDR holds `ip`. */
  nodeOfPodIP(ip: string): NodeNet | undefined {
    return this.infoOfPodIP(ipv4Unchecked(ip))?.net;
  }

  private infoOfPodIP(v: number): NodeInfo | undefined {
    const list = this.nodeList;
    for (let i = 0; i < list.length; i++) if (((v & list[i].cidrMask) >>> 0) === list[i].cidrBase) return list[i];
    return undefined;
  }

  /** Is `ip` an address of `node` (eth0, lo, cni0, flannel.1, kube-ipvs0 in IPVS mode)? */
  isLocal(node: string, ip: string): boolean {
    const n = this.nodes.get(node);
    return n !== undefined && this.isLocalTo(n, this.env.rules(node), ip);
  }

  /** isLocal, for a node whose rules are `rules`. */
  private isLocalTo(n: NodeInfo, rules: NodeRules | undefined, ip: string): boolean {
    if (ip === n.net.ip || ip === n.cni0 || ip === n.flannel || ip.startsWith("127.")) return true;
    return rules?.mode === "ipvs" && rules.ipvs.isBound(ip);
  }

  /** The next ephemeral port of `ip` (net.ipv4.ip_local_port_range 32768-60999). */
  ephemeralPort(ip: string): number {
    let p = this.ports.get(ip);
    if (p === undefined) p = 32768 + (ipv4Unchecked(ip) % 28232);
    p = p >= 60999 ? 32768 : p + 1;
    this.ports.set(ip, p);
    return p;
  }

  /** Called with every connection's result (a host counts traffic per pod with it). */
  observe(fn: (res: ConnectResult) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  /** Opens a connection (its first packet), following it through every node it crosses. */
  connect(source: Source, dst: string, dport: number, opts: ConnectOptions = NO_OPTS): ConnectResult {
    const w = this.spare ?? new Walk();
    this.spare = undefined;
    let res: ConnectResult;
    try {
      res = this.open(w, source, dst, dport, opts);
    } finally {
      w.reset();
      this.spare = w;
    }
    if (opts.probe) res.probe = true;
    if (this.observers.size !== 0) for (const fn of this.observers) fn(res);
    return res;
  }

  private open(w: Walk, source: Source, dst: string, dport: number, opts: ConnectOptions): ConnectResult {
    const proto = opts.proto ?? "tcp";
    const traced = opts.trace || this.traceBudget > 0;
    if (!opts.trace && traced) this.traceBudget--;
    const trace: TraceStep[] | undefined = traced ? [] : undefined;
    const now = this.env.now();
    let node: string;
    let from: "local" | "in";
    let srcIP: string;
    if (source.kind === "pod") {
      node = source.node;
      from = "in";
      srcIP = source.ip;
    } else if (source.kind === "node") {
      node = source.node;
      from = "local";
      srcIP = this.nodes.get(node)?.net.ip ?? "";
    } else {
      srcIP = source.ip;
      from = "in";
      node = opts.entryNode ?? this.nodeByIP(dst)?.name ?? this.env.l2Announcer?.(dst) ?? this.env.nodes[0]!.name;
    }
    let info = this.nodes.get(node);
    if (info === undefined) throw new Error(`data plane: unknown node ${node}`);
    const sport = proto === "icmp" ? (opts.sport ?? 0) : (opts.sport ?? this.ephemeralPort(srcIP));
    const tuple: Tuple = { proto, src: srcIP, sport, dst, dport };
    // Every field from the start (undefined until set): fields added later went to a property
    // array allocated per connection.
    const res: ConnectResult = {
      verdict: "timeout",
      tuple,
      dst: undefined,
      pod: undefined,
      host: undefined,
      seenSrc: undefined,
      masqueraded: false,
      path: NO_PATH,
      rules: 0,
      reason: "",
      trace,
      established: undefined,
    };

    if (trace) {
      const what = `${proto} ${srcIP}:${sport} -> ${dst}:${dport}`;
      const text =
        source.kind === "pod"
          ? `${what} leaves pod ${source.ip} into ${node} (veth)`
          : source.kind === "node"
            ? `${what} from a process on ${node}`
            : `${what} from outside enters ${node} (eth0)`;
      trace.push({ node, kind: "hop", text });
    }

    // An established flow keeps the destination its first packet got (conntrack), no nat rules.
    if (proto !== "icmp") {
      const table = info.conntrack ?? this.conntracks.get(node);
      const ct = table === undefined ? -1 : table.lookupFlow(proto, srcIP, sport, dst, dport, now);
      if (ct >= 0) return this.established(table!, ct, node, res, now);
    }

    const pkt = w.pkt;
    pkt.proto = proto;
    setSrc(pkt, srcIP, sport);
    setDst(pkt, dst, dport);
    pkt.mark = 0;
    pkt.ctNew = true;
    pkt.dnat = false;
    pkt.masquerade = false;
    w.res = res;
    w.opts = opts;
    w.now = now;
    try {
      this.walk(w, info, from);
    } finally {
      res.path = w.path();
    }
    return res;
  }

  /** Routes the packet from node to node until it is delivered, answered or lost. */
  private walk(w: Walk, info: NodeInfo, from: "local" | "in"): void {
    const { res, pkt, now } = w;
    const trace = res.trace;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      w.enter(info);
      const rules = (w.rules = info.hopRules = this.env.rules(info.net.name));
      const ctx = (w.ctx = this.context(info, now, trace));
      if (rules?.mode === "ipvs") ctx.ipvs = rules.ipvs;
      ctx.counting = w.opts.probe !== true;
      ctx.pktBytes = firstPacketBytes(pkt.proto);
      // A new flow gets its conntrack entry on each node before any rule sees it: a full table
      // with nothing to drop early drops the packet (nf_conntrack_in), and the client times out.
      if (!this.conntrackOf(info).admit(now)) {
        this.kernelOf(info).log.warnRatelimited(now, TABLE_FULL);
        return this.end(w, "timeout", `the conntrack table of ${info.net.name} is full (nf_conntrack_max ${this.conntrackOf(info).max}, no flow to drop early): the kernel dropped the packet`);
      }

      if (this.run(w, from === "local" ? "output" : "prerouting")) return;

      let next: Next;
      if (this.isLocalTo(info, rules, pkt.dst)) {
        if (from === "in" && this.run(w, "input")) return;
        // IPVS: virtual servers (ClusterIPs on kube-ipvs0, NodePorts on node IPs) take the packet at LOCAL_IN.
        const vs = rules?.mode === "ipvs" && pkt.proto !== "icmp" ? this.ipvsLocalIn(w, info, rules.ipvs) : VS_NONE;
        if (vs === VS_ENDED) return;
        if (vs === VS_NONE) {
          this.hostAnswer(w, info.net.name);
          return;
        }
        // IPVS sends the packet on through the output path: POSTROUTING (masquerade) follows.
        next = this.routeAndLeave(w, info, "local");
      } else next = this.routeAndLeave(w, info, from);
      if (next === STOPPED) return;
      if (next === POD) {
        this.deliver(w, info.net.name);
        return;
      }
      res.rules += ctx.rules;
      info = next;
      from = "in";
      resetPerNode(pkt);
    }
    res.verdict = "timeout";
    res.reason = "routing loop";
  }

  /** Ends the walk: counts the node's rules, writes the verdict. */
  private end(w: Walk, v: Verdict, reason: string): void {
    const res = w.res;
    res.rules += w.ctx.rules;
    w.ctx.rules = 0;
    res.verdict = v;
    res.reason = reason;
    if (w.ctx.trace) w.ctx.step({ kind: "verdict", text: `${v}: ${reason}` });
    if (w.closeVia !== undefined) {
      if (v === "established") {
        // The connection's handshake and close went through the virtual server (data: transfer).
        const ex = handshakePackets(res.tuple.proto);
        w.closeVia.count?.(w.close, ex.inPkts, ex.inBytes, ex.outPkts, ex.outBytes, w.now);
        this.carriedRes = res;
        this.carriedVia = w.closeVia;
        this.carriedConn = w.close;
      }
      w.closeVia.close(w.close, w.now);
      w.close = w.closeVia = undefined;
    }
  }

  /**
   * Data a client sent and received on a connection `connect` returned (an HTTP request and its
   * answer): the segments it takes are counted where the connection was load-balanced (IPVS).
   */
  transfer(res: ConnectResult, sentBytes: number, receivedBytes: number): void {
    if (res !== this.carriedRes || this.carriedVia?.count === undefined) return;
    const ex = dataPackets(sentBytes, receivedBytes);
    this.carriedVia.count(this.carriedConn, ex.inPkts, ex.inBytes, ex.outPkts, ex.outBytes, this.env.now());
  }

  /** Runs one hook on the current node; true when the packet was dropped or rejected there. */
  private run(w: Walk, hook: HookName): boolean {
    const rules = w.rules;
    const ctx = w.ctx;
    if (ctx.trace) ctx.step({ kind: "hook", text: `${hook.toUpperCase()} on ${ctx.node}${rules ? ` (${rules.mode})` : " (no kube-proxy rules)"}` });
    if (!rules) return false;
    let o: HookOutcome;
    if (rules.mode === "nftables") {
      o = nftablesHook(rules.table, hook, w.pkt, ctx);
      if (o.t === "accept" && rules.iptables) o = iptablesHook(rules.iptables, hook, w.pkt, ctx);
    } else o = iptablesHook(rules.ruleset, hook, w.pkt, ctx);
    if (o.t === "accept") return false;
    this.end(w, o.t === "drop" ? "timeout" : "refused", o.reason);
    return true;
  }

  /** The virtual server at the packet's destination on this node, if any, schedules it. */
  private ipvsLocalIn(w: Walk, info: NodeInfo, ipvs: IpvsHandle): typeof VS_NONE | typeof VS_ENDED | typeof VS_DNAT {
    const { pkt, ctx } = w;
    const trace = ctx.trace;
    const node = info.net.name;
    const vs = ipvs.schedule(pkt.proto, pkt.dst, pkt.dport, pkt.src, pkt.sport, w.now, trace ? schedulerSteps(trace, node) : undefined);
    ctx.rules++;
    if (trace) trace.push({ node, kind: "lookup", table: "ipvs", text: `IPVS virtual server ${pkt.proto.toUpperCase()} ${pkt.dst}:${pkt.dport}: ${vs.found ? vs.service : "none"}` });
    if (!vs.found) return VS_NONE;
    if (!vs.real) {
      this.end(w, "refused", `IPVS virtual server ${pkt.dst}:${pkt.dport} has no real servers`);
      return VS_ENDED;
    }
    if (trace) trace.push({ node, kind: "nat", table: "ipvs", text: `IPVS Masq ${pkt.dst}:${pkt.dport} -> ${vs.real.ip}:${vs.real.port}` });
    if (vs.conn !== undefined && !w.opts.keepOpen) (w.close = vs.conn), (w.closeVia = ipvs);
    setDst(pkt, vs.real.ip, vs.real.port);
    pkt.dnat = true;
    return VS_DNAT;
  }

  /**
   * Routing for a packet that is not for this node: FORWARD (if it arrived), POSTROUTING, and
   * where it goes next: POD (a pod on this node), a node, or STOPPED (the walk ended).
   */
  private routeAndLeave(w: Walk, info: NodeInfo, from: "local" | "in"): Next {
    const pkt = w.pkt;
    const node = info.net.name;
    const trace = w.ctx.trace;
    const d = pkt.dstNum >= 0 ? pkt.dstNum : ipv4Unchecked(pkt.dst);
    let via: "cni0" | "flannel.1" | "eth0";
    let nextNode: NodeInfo | undefined;
    if (((d & info.cidrMask) >>> 0) === info.cidrBase) {
      via = "cni0";
    } else {
      const podNode = this.infoOfPodIP(d);
      if (podNode) {
        via = "flannel.1";
        nextNode = podNode;
      } else {
        via = "eth0";
        nextNode = this.infoByIP(pkt.dst);
        if (nextNode === undefined) {
          const announcer = this.env.l2Announcer?.(pkt.dst);
          if (announcer !== undefined) nextNode = this.nodes.get(announcer);
        }
        if (nextNode === info) nextNode = undefined;
      }
    }
    if (trace) {
      trace.push({
        node,
        kind: "route",
        text:
          via === "cni0"
            ? `route ${pkt.dst} dev cni0 (local pod network ${info.net.podCIDR})`
            : nextNode
              ? `route ${pkt.dst} via ${via === "flannel.1" ? `${nextNode.flannel} dev flannel.1 (${nextNode.net.name}'s pod network)` : `dev eth0 to ${nextNode.net.name}`}`
              : `route ${pkt.dst} via ${NODE_GATEWAY} dev eth0 (default route)`,
      });
    }
    if (from === "in" && this.run(w, "forward")) return STOPPED;
    if (this.run(w, "postrouting")) return STOPPED;
    if (pkt.masquerade) {
      const addr = via === "cni0" ? info.cni0 : via === "flannel.1" ? info.flannel : info.net.ip;
      const port = pkt.proto === "icmp" ? pkt.sport : 1024 + (this.env.rng.uint32() % 64512);
      if (trace) trace.push({ node, kind: "nat", text: `MASQUERADE ${pkt.src}:${pkt.sport} -> ${addr}:${port} (${via} address, fully-random port)` });
      setSrc(pkt, addr, port);
      pkt.masquerade = false;
      w.res.masqueraded = true;
    }
    if (via === "cni0") return POD;
    if (nextNode) {
      if (trace) trace.push({ node, kind: "hop", text: `-> ${nextNode.net.name} via ${via}` });
      return nextNode;
    }
    this.end(w, "timeout", `${pkt.dst} is outside the cluster: the gateway ${NODE_GATEWAY} routes nowhere (no internet)`);
    return STOPPED;
  }

  private deliver(w: Walk, node: string): void {
    const { pkt, res } = w;
    res.dst = { ip: pkt.dst, port: pkt.dport };
    res.seenSrc = { ip: pkt.src, port: pkt.sport };
    const pod = this.env.podByIP(pkt.dst);
    if (!pod || pod.node !== node) return this.end(w, "unreachable", `no pod has ${pkt.dst} on ${node} (ARP: no answer, host unreachable)`);
    res.pod = pod.key;
    if (w.ctx.trace) w.ctx.step({ kind: "app", text: `pod ${pod.key} (${pkt.dst}) receives ${pkt.proto} from ${pkt.src}:${pkt.sport}` });
    if (pkt.proto === "icmp") {
      this.record(w, "established");
      return this.end(w, "established", `echo reply from pod ${pod.key}`);
    }
    if (!pod.running || !pod.listens(pkt.proto, pkt.dport)) {
      this.record(w, "refused");
      return this.end(w, "refused", `pod ${pod.key}: nothing listens on ${pkt.proto} port ${pkt.dport}${pod.running ? "" : " (container not running)"}`);
    }
    this.record(w, "established");
    return this.end(w, "established", `pod ${pod.key} accepted on ${pkt.dst}:${pkt.dport}`);
  }

  private hostAnswer(w: Walk, node: string): void {
    const { pkt, res } = w;
    res.dst = { ip: pkt.dst, port: pkt.dport };
    res.seenSrc = { ip: pkt.src, port: pkt.sport };
    res.host = node;
    if (pkt.proto === "icmp") {
      this.record(w, "established");
      return this.end(w, "established", `echo reply from ${node} (${pkt.dst} is local)`);
    }
    if (this.env.hostListens?.(node, pkt.proto, pkt.dport)) {
      this.record(w, "established");
      return this.end(w, "established", `a process on ${node} listens on ${pkt.proto} ${pkt.dst}:${pkt.dport}`);
    }
    this.record(w, "refused");
    return this.end(w, "refused", `nothing on ${node} listens on ${pkt.proto} port ${pkt.dport} (${pkt.dst} is local)`);
  }

  private established(table: ConntrackTable, ct: number, node: string, res: ConnectResult, now: number): ConnectResult {
    const rsrc = table.replySrc(ct);
    const rsport = table.replySport(ct);
    res.established = true;
    res.path = [node];
    res.dst = { ip: rsrc, port: rsport };
    res.seenSrc = { ip: table.replyDst(ct), port: table.replyDport(ct) };
    res.masqueraded = table.snatOf(ct);
    res.trace?.push({ node, kind: "conntrack", text: `conntrack: established flow, destination stays ${rsrc}:${rsport} (no nat rules run)` });
    const pod = this.env.podByIP(rsrc);
    if (pod) res.pod = pod.key;
    const alive = pod ? pod.running && (res.tuple.proto === "icmp" || pod.listens(res.tuple.proto, rsport)) : false;
    res.verdict = alive ? "established" : "refused";
    res.reason = alive ? `established flow to ${rsrc}:${rsport}` : `established flow to ${rsrc}:${rsport}, which no longer answers`;
    table.extend(ct, now + (table.protoOf(ct) === "tcp" ? CT_TIMEOUTS.tcpEstablished : CT_TIMEOUTS.udpStream) * 1000);
    return res;
  }

  /** Writes the connection into the conntrack table of every node it crossed. */
  private record(w: Walk, outcome: "established" | "refused"): void {
    const { pkt: last, now, opts } = w;
    const proto = last.proto;
    let state: TcpState | undefined;
    let timeout: number;
    if (proto === "tcp") {
      if (outcome === "refused") (state = "CLOSE"), (timeout = CT_TIMEOUTS.tcpClose);
      else if (opts.keepOpen) (state = "ESTABLISHED"), (timeout = CT_TIMEOUTS.tcpEstablished);
      else (state = "TIME_WAIT"), (timeout = CT_TIMEOUTS.tcpTimeWait);
    } else if (proto === "icmp") timeout = CT_TIMEOUTS.icmp;
    else timeout = CT_TIMEOUTS.udp;
    const f = flow;
    f.proto = proto;
    f.rsrc = last.dst;
    f.rsport = last.dport;
    f.state = state;
    f.expires = now + timeout * 1000;
    f.assured = proto === "tcp" && outcome === "established";
    f.unreplied = proto !== "tcp" && proto !== "icmp" && outcome !== "established";
    f.mark = 0;
    const n = w.hops;
    for (let i = 0; i < n; i++) {
      // What this node rewrote: its exit tuple is the next node's entry (or the final packet).
      const last_ = i + 1 === n;
      const exitSrc = last_ ? last.src : w.hopSrc[i + 1];
      f.src = w.hopSrc[i];
      f.sport = w.hopSport[i];
      f.dst = w.hopDst[i];
      f.dport = w.hopDport[i];
      // The reply direction: from the final destination back to this node's exit source.
      f.rdst = exitSrc;
      f.rdport = last_ ? last.sport : w.hopSport[i + 1];
      f.dnat = f.dst !== last.dst || f.dport !== last.dport;
      f.snat = exitSrc !== f.src;
      this.conntrackOf(w.hopNode[i]).addFlow(f, now);
    }
    flow.src = flow.dst = flow.rsrc = flow.rdst = "";
  }
}

/** The scheduler's steps into `trace` (apart from ipvsLocalIn, which then makes no closure context per call). */
function schedulerSteps(trace: TraceStep[], node: string): (text: string) => void {
  return (text) => trace.push({ node, kind: "scheduler", text });
}

/** What the kernel logs when a new flow finds no room (net_warn_ratelimited, pr_fmt prefix included). */
const TABLE_FULL = "nf_conntrack: nf_conntrack: table full, dropping packet";

/** The flow `record` fills for each node (the table copies it). */
const flow: FlowFields = {
  proto: "tcp",
  src: "",
  sport: 0,
  dst: "",
  dport: 0,
  rsrc: "",
  rsport: 0,
  rdst: "",
  rdport: 0,
  state: undefined,
  expires: 0,
  assured: false,
  unreplied: false,
  mark: 0,
  dnat: false,
  snat: false,
};
