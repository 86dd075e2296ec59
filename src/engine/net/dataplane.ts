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
import { EvalContext, type HookName, type HookOutcome, NodeKernelState, type Pkt, type RandomSource, addrMatches, ipNum } from "./context.js";
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
   * The virtual server at (proto, ip, port), if any, schedules a new connection from `client`.
   * `conn`, handed to `close`, ends the connection (curl closed it: active -> inactive,
   * TIME_WAIT). `service` describes the virtual server for the trace (only when `steps` is given).
   */
  schedule(
    proto: L4,
    ip: string,
    port: number,
    client: { ip: string; port: number },
    now: number,
    steps: ((text: string) => void) | undefined,
  ): { found: false } | { found: true; service: string; real: { readonly ip: string; readonly port: number } | undefined; conn?: unknown };
  /** Closes a connection `schedule` returned (at `now`). */
  close(conn: unknown, now: number): void;
}

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
}

/** The node network's gateway: the node's own resolver lives there; beyond it, nothing. */
export const NODE_GATEWAY = "10.1.8.2";

const MAX_HOPS = 8;

/** One connection's walk through the nodes. */
interface Walk {
  res: ConnectResult;
  pkt: Pkt;
  opts: ConnectOptions;
  now: number;
  visited: { node: string; orig: Tuple }[];
  /** The current node's evaluation context and rules. */
  ctx: EvalContext;
  rules: NodeRules | undefined;
  /** IPVS connection to close when the walk ends (curl closes its connection), and its handle. */
  close: unknown;
  closeVia: IpvsHandle | undefined;
}

const STOPPED = "\u0000stopped";
const POD = "\u0000pod";

function resetPerNode(pkt: Pkt): void {
  pkt.mark = 0;
  pkt.dnat = false;
  pkt.masquerade = false;
}

interface NodeInfo {
  net: NodeNet;
  ipNum: number;
  cidrBase: number;
  cidrMask: number;
  cni0: string;
  flannel: string;
}

export class Dataplane {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly kernels = new Map<string, NodeKernelState>();
  private readonly conntracks = new Map<string, ConntrackTable>();
  private readonly ports = new Map<string, number>();
  private readonly quietCtxs = new Map<string, EvalContext>();
  private readonly observers = new Set<(res: ConnectResult) => void>();

  constructor(readonly env: NetEnv) {
    for (const n of env.nodes) {
      const [base, len] = n.podCIDR.split("/");
      const mask = Number(len) === 0 ? 0 : (0xffffffff << (32 - Number(len))) >>> 0;
      const b = (ipNum(base) & mask) >>> 0;
      this.nodes.set(n.name, {
        net: n,
        ipNum: ipNum(n.ip),
        cidrBase: b,
        cidrMask: mask,
        cni0: fmt(b + 1),
        flannel: fmt(b),
      });
    }
  }

  /** The node's trace-less evaluation context, reset for a new packet (no allocation per hop). */
  private quietContext(node: string, now: number): EvalContext {
    let c = this.quietCtxs.get(node);
    if (!c) {
      const n = node;
      this.quietCtxs.set(node, (c = new EvalContext(node, (ip) => this.isLocal(n, ip), now, this.env.rng, this.kernel(node), undefined)));
    }
    c.now = now;
    c.rng = this.env.rng;
    c.rules = 0;
    c.ipvs = undefined;
    return c;
  }

  conntrack(node: string): ConntrackTable {
    let t = this.conntracks.get(node);
    if (!t) this.conntracks.set(node, (t = new ConntrackTable()));
    return t;
  }

  kernel(node: string): NodeKernelState {
    let k = this.kernels.get(node);
    if (!k) this.kernels.set(node, (k = new NodeKernelState()));
    return k;
  }

  nodeNet(name: string): NodeNet | undefined {
    return this.nodes.get(name)?.net;
  }

  /** The node whose InternalIP is `ip`. */
  nodeByIP(ip: string): NodeNet | undefined {
    for (const n of this.nodes.values()) if (n.net.ip === ip) return n.net;
    return undefined;
  }

  /** The node whose pod CIDR holds `ip`. */
  nodeOfPodIP(ip: string): NodeNet | undefined {
    const v = ipNum(ip);
    for (const n of this.nodes.values()) if (((v & n.cidrMask) >>> 0) === n.cidrBase) return n.net;
    return undefined;
  }

  /** Is `ip` an address of `node` (eth0, lo, cni0, flannel.1, kube-ipvs0 in IPVS mode)? */
  isLocal(node: string, ip: string): boolean {
    const n = this.nodes.get(node);
    if (!n) return false;
    if (ip === n.net.ip || ip === n.cni0 || ip === n.flannel || ip.startsWith("127.")) return true;
    const r = this.env.rules(node);
    return r?.mode === "ipvs" && r.ipvs.isBound(ip);
  }

  /** The next ephemeral port of `ip` (net.ipv4.ip_local_port_range 32768-60999). */
  ephemeralPort(ip: string): number {
    let p = this.ports.get(ip);
    if (p === undefined) p = 32768 + (ipNum(ip) % 28232);
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
  connect(source: Source, dst: string, dport: number, opts: ConnectOptions = {}): ConnectResult {
    const res = this.open(source, dst, dport, opts);
    for (const fn of this.observers) fn(res);
    return res;
  }

  private open(source: Source, dst: string, dport: number, opts: ConnectOptions): ConnectResult {
    const proto = opts.proto ?? "tcp";
    const trace: TraceStep[] | undefined = opts.trace ? [] : undefined;
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
    if (!this.nodes.has(node)) throw new Error(`data plane: unknown node ${node}`);
    const sport = proto === "icmp" ? (opts.sport ?? 0) : (opts.sport ?? this.ephemeralPort(srcIP));
    const tuple: Tuple = { proto, src: srcIP, sport, dst, dport };
    const res: ConnectResult = { verdict: "timeout", tuple, masqueraded: false, path: [], rules: 0, reason: "" };
    if (trace) res.trace = trace;
    const pkt: Pkt = { proto, src: srcIP, sport, dst, dport, mark: 0, ctNew: true, dnat: false, masquerade: false };

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
      const table = this.conntracks.get(node);
      const ct = table === undefined ? -1 : table.lookupFlow(proto, srcIP, sport, dst, dport, now);
      if (ct >= 0) return this.established(table!, ct, node, res, now);
    }

    const w: Walk = { res, pkt, opts, now, visited: [], ctx: undefined as unknown as EvalContext, rules: undefined, close: undefined, closeVia: undefined };
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      res.path.push(node);
      const info = this.nodes.get(node)!;
      w.rules = this.env.rules(node);
      w.ctx = trace ? new EvalContext(node, (ip) => this.isLocal(node, ip), now, this.env.rng, this.kernel(node), trace) : this.quietContext(node, now);
      if (w.rules?.mode === "ipvs") w.ctx.ipvs = w.rules.ipvs;
      w.visited.push({ node, orig: { proto, src: pkt.src, sport: pkt.sport, dst: pkt.dst, dport: pkt.dport } });

      if (this.run(w, from === "local" ? "output" : "prerouting")) return res;

      if (this.isLocal(node, pkt.dst)) {
        if (from === "in" && this.run(w, "input")) return res;
        const rules = w.rules;
        // IPVS: virtual servers (ClusterIPs on kube-ipvs0, NodePorts on node IPs) take the packet at LOCAL_IN.
        if (rules?.mode === "ipvs" && pkt.proto !== "icmp") {
          const vs = rules.ipvs.schedule(
            pkt.proto,
            pkt.dst,
            pkt.dport,
            { ip: pkt.src, port: pkt.sport },
            now,
            trace ? (t) => trace.push({ node, kind: "scheduler", text: t }) : undefined,
          );
          w.ctx.rules++;
          if (trace) trace.push({ node, kind: "lookup", table: "ipvs", text: `IPVS virtual server ${pkt.proto.toUpperCase()} ${pkt.dst}:${pkt.dport}: ${vs.found ? vs.service : "none"}` });
          if (vs.found) {
            if (!vs.real) return this.end(w, "refused", `IPVS virtual server ${pkt.dst}:${pkt.dport} has no real servers`);
            if (trace) trace.push({ node, kind: "nat", table: "ipvs", text: `IPVS Masq ${pkt.dst}:${pkt.dport} -> ${vs.real.ip}:${vs.real.port}` });
            if (vs.conn !== undefined && !opts.keepOpen) (w.close = vs.conn), (w.closeVia = rules.ipvs);
            pkt.dst = vs.real.ip;
            pkt.dport = vs.real.port;
            pkt.dnat = true;
            // IPVS sends the packet on through the output path: POSTROUTING (masquerade) follows.
            const next = this.routeAndLeave(w, info, "local");
            if (next === STOPPED) return res;
            if (next === POD) return this.deliver(w, node);
            res.rules += w.ctx.rules;
            node = next;
            from = "in";
            resetPerNode(pkt);
            continue;
          }
        }
        return this.hostAnswer(w, node);
      }
      const next = this.routeAndLeave(w, info, from);
      if (next === STOPPED) return res;
      if (next === POD) return this.deliver(w, node);
      res.rules += w.ctx.rules;
      node = next;
      from = "in";
      resetPerNode(pkt);
    }
    res.verdict = "timeout";
    res.reason = "routing loop";
    return res;
  }

  /** Ends the walk: counts the node's rules, writes the verdict. */
  private end(w: Walk, v: Verdict, reason: string): ConnectResult {
    const res = w.res;
    res.rules += w.ctx.rules;
    w.ctx.rules = 0;
    res.verdict = v;
    res.reason = reason;
    w.ctx.step({ kind: "verdict", text: `${v}: ${reason}` });
    if (w.closeVia !== undefined) {
      w.closeVia.close(w.close, w.now);
      w.close = w.closeVia = undefined;
    }
    return res;
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

  /**
   * Routing for a packet that is not for this node: FORWARD (if it arrived), POSTROUTING, and
   * where it goes next: POD (a pod on this node), a node name, or STOPPED (the walk ended).
   */
  private routeAndLeave(w: Walk, info: NodeInfo, from: "local" | "in"): string {
    const pkt = w.pkt;
    const node = info.net.name;
    const trace = w.ctx.trace;
    const d = ipNum(pkt.dst);
    let via: "cni0" | "flannel.1" | "eth0";
    let nextNode: string | undefined;
    if (((d & info.cidrMask) >>> 0) === info.cidrBase) {
      via = "cni0";
    } else {
      const podNode = this.nodeOfPodIP(pkt.dst);
      if (podNode) {
        via = "flannel.1";
        nextNode = podNode.name;
      } else {
        via = "eth0";
        nextNode = this.nodeByIP(pkt.dst)?.name ?? this.env.l2Announcer?.(pkt.dst);
        if (nextNode === node) nextNode = undefined;
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
              ? `route ${pkt.dst} via ${via === "flannel.1" ? `${this.nodes.get(nextNode)!.flannel} dev flannel.1 (${nextNode}'s pod network)` : `dev eth0 to ${nextNode}`}`
              : `route ${pkt.dst} via ${NODE_GATEWAY} dev eth0 (default route)`,
      });
    }
    if (from === "in" && this.run(w, "forward")) return STOPPED;
    if (this.run(w, "postrouting")) return STOPPED;
    if (pkt.masquerade) {
      const addr = via === "cni0" ? info.cni0 : via === "flannel.1" ? info.flannel : info.net.ip;
      const port = pkt.proto === "icmp" ? pkt.sport : 1024 + (this.env.rng.uint32() % 64512);
      if (trace) trace.push({ node, kind: "nat", text: `MASQUERADE ${pkt.src}:${pkt.sport} -> ${addr}:${port} (${via} address, fully-random port)` });
      pkt.src = addr;
      pkt.sport = port;
      pkt.masquerade = false;
      w.res.masqueraded = true;
    }
    if (via === "cni0") return POD;
    if (nextNode) {
      if (trace) trace.push({ node, kind: "hop", text: `-> ${nextNode} via ${via}` });
      return nextNode;
    }
    this.end(w, "timeout", `${pkt.dst} is outside the cluster: the gateway ${NODE_GATEWAY} routes nowhere (no internet)`);
    return STOPPED;
  }

  private deliver(w: Walk, node: string): ConnectResult {
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

  private hostAnswer(w: Walk, node: string): ConnectResult {
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
    res.path.push(node);
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
    const { visited, pkt: last, now, opts } = w;
    const proto = last.proto;
    for (let i = 0; i < visited.length; i++) {
      const v = visited[i];
      // What this node rewrote: its exit tuple is the next node's entry (or the final packet).
      const exit = i + 1 < visited.length ? visited[i + 1].orig : last;
      let state: TcpState | undefined;
      let timeout: number;
      if (proto === "tcp") {
        if (outcome === "refused") (state = "CLOSE"), (timeout = CT_TIMEOUTS.tcpClose);
        else if (opts.keepOpen) (state = "ESTABLISHED"), (timeout = CT_TIMEOUTS.tcpEstablished);
        else (state = "TIME_WAIT"), (timeout = CT_TIMEOUTS.tcpTimeWait);
      } else if (proto === "icmp") timeout = CT_TIMEOUTS.icmp;
      else timeout = CT_TIMEOUTS.udp;
      const o = v.orig;
      // The reply direction: from the final destination back to this node's exit source.
      const f = flow;
      f.proto = proto;
      f.src = o.src;
      f.sport = o.sport;
      f.dst = o.dst;
      f.dport = o.dport;
      f.rsrc = last.dst;
      f.rsport = last.dport;
      f.rdst = exit.src;
      f.rdport = exit.sport;
      f.state = state;
      f.expires = now + timeout * 1000;
      f.assured = proto === "tcp" && outcome === "established";
      f.unreplied = proto !== "tcp" && proto !== "icmp" && outcome !== "established";
      f.mark = 0;
      f.dnat = o.dst !== last.dst || o.dport !== last.dport;
      f.snat = exit.src !== o.src;
      this.conntrack(v.node).addFlow(f, now);
    }
    flow.src = flow.dst = flow.rsrc = flow.rdst = "";
  }
}

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

function fmt(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export { addrMatches };
