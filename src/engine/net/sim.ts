// A small network without the rest of the cluster: the lab guide's three nodes, a list of
// service ports with endpoints (each on a node), pods with their listeners, one proxier per node
// in the chosen mode, and a Dataplane over them. Packet-flow tests and benchmarks use it; the
// cluster's own adapter (cluster-env.ts) builds the same NetEnv from the store and kube-proxy.
import { IptablesProxier } from "../proxy/iptables/proxier.js";
import { IpvsProxier } from "../proxy/ipvs/proxier.js";
import { NftablesProxier } from "../proxy/nftables/proxier.js";
import type { EndpointInfo, ProxyConfig, ProxyMode, ProxyState, ServicePortInfo } from "../proxy/types.js";
import { servicePortKey } from "../proxy/types.js";
import { Rng } from "../rng.js";
import { Dataplane, type NetEnv, type NodeNet, type NodeRules, type PodHost } from "./dataplane.js";
import { ipvsHandle } from "./ipvs-handle.js";
import type { L4 } from "./packet.js";

const SIM_NODES: readonly NodeNet[] = [
  { name: "master", ip: "10.1.8.30", podCIDR: "10.244.0.0/24" },
  { name: "node1", ip: "10.1.8.31", podCIDR: "10.244.1.0/24" },
  { name: "node2", ip: "10.1.8.32", podCIDR: "10.244.2.0/24" },
];

function simConfig(mode: ProxyMode, over: Partial<ProxyConfig> = {}): ProxyConfig {
  return {
    mode,
    clusterCIDR: "10.244.0.0/16",
    masqueradeBit: 14,
    masqueradeAll: false,
    localhostNodePorts: true,
    nodePortAddresses: [],
    ipvs: { scheduler: "", strictARP: false, excludeCIDRs: [], tcpTimeoutSeconds: 0, tcpFinTimeoutSeconds: 0, udpTimeoutSeconds: 0 },
    ...over,
  };
}

export interface SimPod {
  key: string;
  ip: string;
  node: string;
  running?: boolean;
  /** TCP ports with a listener (default [80]). */
  tcp?: number[];
  udp?: number[];
}

export interface SimOptions {
  mode: ProxyMode;
  nodes?: readonly NodeNet[];
  services: ReadonlyArray<readonly [ServicePortInfo, readonly Omit<EndpointInfo, "isLocal">[]]>;
  pods: readonly SimPod[];
  seed?: number;
  config?: Partial<ProxyConfig>;
  /** MetalLB layer 2: address -> announcing node. */
  announce?: Record<string, string>;
}

class SimPodHost implements PodHost {
  constructor(
    readonly key: string,
    readonly node: string,
    readonly running: boolean,
    private readonly tcp: ReadonlySet<number>,
    private readonly udp: ReadonlySet<number>,
  ) {}

  listens(proto: L4, port: number): boolean {
    return proto === "tcp" ? this.tcp.has(port) : proto === "udp" ? this.udp.has(port) : false;
  }
}

export class SimNet {
  readonly dp: Dataplane;
  readonly env: NetEnv;
  readonly rng: Rng;
  now = 0;
  readonly rules = new Map<string, NodeRules>();
  private readonly syncs = new Map<string, (s: ProxyState) => void>();
  private readonly pods = new Map<string, PodHost>();

  constructor(readonly opts: SimOptions) {
    const nodes = opts.nodes ?? SIM_NODES;
    this.rng = new Rng(opts.seed ?? 1);
    // Pods with the same listeners share their port sets (most listen on 80 alone).
    const portSets = new Map<string, ReadonlySet<number>>();
    const ports = (list: readonly number[]) => {
      const k = list.join(",");
      let set = portSets.get(k);
      if (set === undefined) portSets.set(k, (set = new Set(list)));
      return set;
    };
    for (const p of opts.pods) this.pods.set(p.ip, new SimPodHost(p.key, p.node, p.running ?? true, ports(p.tcp ?? [80]), ports(p.udp ?? [])));
    const config = simConfig(opts.mode, opts.config);
    for (const n of nodes) {
      const pn = { name: n.name, ips: [n.ip], podCIDR: n.podCIDR, zone: "" };
      if (opts.mode === "iptables") {
        const p = new IptablesProxier(pn, config);
        this.rules.set(n.name, { mode: "iptables", ruleset: p.ruleset });
        this.syncs.set(n.name, (s) => p.sync(s));
      } else if (opts.mode === "nftables") {
        const p = new NftablesProxier(pn, config);
        this.rules.set(n.name, { mode: "nftables", table: p.table });
        this.syncs.set(n.name, (s) => p.sync(s));
      } else {
        const p = new IpvsProxier(pn, config);
        this.rules.set(n.name, { mode: "ipvs", ruleset: p.iptables, ipvs: ipvsHandle(p) });
        this.syncs.set(n.name, (s) => void p.sync(s));
      }
    }
    this.sync(opts.services);
    const announce = opts.announce ?? {};
    this.env = {
      nodes,
      rules: (n) => this.rules.get(n),
      podByIP: (ip) => this.pods.get(ip),
      l2Announcer: (ip) => announce[ip],
      now: () => this.now,
      rng: this.rng,
    };
    this.dp = new Dataplane(this.env);
  }

  /** Re-syncs every node's proxier from a new list of service ports and endpoints. */
  sync(services: SimOptions["services"]): void {
    for (const [node, sync] of this.syncs) sync(nodeState(services, node));
  }
}

/** The ProxyState one node's kube-proxy sees: endpoints on that node are local. */
function nodeState(services: SimOptions["services"], node: string): ProxyState {
  const s = new Map<string, ServicePortInfo>();
  const e = new Map<string, readonly EndpointInfo[]>();
  for (const [svc, eps] of services) {
    const key = servicePortKey(svc.name);
    s.set(key, svc);
    if (eps.length) e.set(key, eps.map((x) => ({ ...x, isLocal: x.nodeName === node })));
  }
  return { services: s, endpoints: e };
}
