// The data plane of a Cluster: nodes from its config, each node's kube-proxy rules from
// cluster.proxies, pods and their listeners from the store and the kubelet, MetalLB's layer-2
// announcer, the cluster's clock and Rng. One Dataplane per Cluster (conntrack, recent tables
// and nft dynamic sets are node kernel state, kept for the cluster's lifetime; a snapshot does
// not carry them, as a node reboot would not).
import { key as rkey } from "../apiserver/apiserver.js";
import { R } from "../api/resources.js";
import type { Pod, Service } from "../api/types.js";
import type { Cluster } from "../cluster.js";
import { MetalLBController } from "../controllers/metallb.js";
import { listenerApp } from "../kubelet/apps.js";
import type { IpvsProxier, RealServer } from "../proxy/ipvs/proxier.js";
import { addrNum, addrText, noteAddrNum } from "./addr-index.js";
import { Dataplane, type IpvsHandle, type IpvsScheduled, type NetEnv, type NodeRules, type PodHost } from "./dataplane.js";
import type { L4 } from "./packet.js";

const PODS = rkey(R.pods);
const SERVICES = rkey(R.services);

/** Host processes of a kubeadm node: kubelet, kube-proxy healthz; the apiserver and etcd on the control plane. */
const HOST_TCP = [10250, 10256];
const CONTROL_PLANE_TCP = [6443, 2379, 2380, 10257, 10259];

const planes = new WeakMap<Cluster, Dataplane>();

/** The cluster's data plane (created on first use). */
export function dataplaneOf(cluster: Cluster): Dataplane {
  let dp = planes.get(cluster);
  if (!dp) planes.set(cluster, (dp = new Dataplane(clusterNetEnv(cluster))));
  return dp;
}

export interface PodIndexEntry {
  pod: Pod;
  host: PodHost;
}

/** Pods by IP, rebuilt when the store changes. */
export class PodIndex {
  private rev = -1;
  private byIP = new Map<string, PodIndexEntry>();
  constructor(private readonly cluster: Cluster) {}

  get(ip: string): PodIndexEntry | undefined {
    const rev = this.cluster.store.revision();
    if (rev !== this.rev) this.rebuild(rev);
    return this.byIP.get(ip);
  }

  private rebuild(rev: number): void {
    this.rev = rev;
    this.byIP = new Map();
    const kubelet = this.cluster.kubelet;
    for (const o of this.cluster.store.list(PODS)) {
      const pod = o as unknown as Pod;
      const ip = pod.status?.podIP;
      if (!ip || pod.spec.hostNetwork) continue;
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") continue;
      const names = pod.spec.containers.map((c) => c.name);
      const host: PodHost = {
        key: `${pod.metadata.namespace}/${pod.metadata.name}`,
        node: pod.spec.nodeName ?? "",
        get running() {
          return pod.status?.phase === "Running" && names.some((n) => kubelet.containerState(pod, n) === "running");
        },
        listens(proto: L4, port: number): boolean {
          if (proto === "icmp" || proto === "sctp") return false;
          for (const n of names) {
            if (kubelet.containerState(pod, n) !== "running") continue;
            const p = kubelet.profile(pod, n);
            if (p && listenerApp(p, port, proto === "udp" ? "UDP" : "TCP") !== undefined) return true;
          }
          return false;
        },
      };
      this.byIP.set(ip, { pod, host });
    }
  }
}

const podIndexes = new WeakMap<Cluster, PodIndex>();
export function podIndexOf(cluster: Cluster): PodIndex {
  let p = podIndexes.get(cluster);
  if (!p) podIndexes.set(cluster, (p = new PodIndex(cluster)));
  return p;
}

/** The data plane's view of one node's IPVS proxier (exported for SimNet's packet-flow table). */
export function ipvsHandle(p: IpvsProxier): IpvsHandle {
  // p.expire walks every connection entry and every virtual server's templates. Nothing can
  // expire between two calls at the same instant (entries, templates and FIN timers are all set
  // to now + a positive timeout, and syncs finish graceful deletions themselves), so it runs
  // once per clock value instead of once per packet.
  let expiredAt = Number.NaN;
  const expireOnce = (now: number): void => {
    if (now !== expiredAt) (p.expire(now), (expiredAt = now));
  };
  // No closure per packet: under tsx every inner arrow also costs a __name (defineProperty) call.
  // The answer to a schedule call is one object per handle, rewritten by the next call.
  // The real server's address is its number's text from addrText (one string per address,
  // noted for addrNum), not the server's own string: one object less to read per connection.
  const real = { ip: "", port: 0 };
  const found = { found: true as const, service: "", real: undefined as typeof real | undefined, conn: undefined as unknown };
  const answer = (service: string, dest: RealServer | undefined): IpvsScheduled => {
    found.service = service;
    if (dest !== undefined) {
      const a = dest.addr;
      if (a >= 0) {
        real.ip = addrText(a);
        noteAddrNum(real.ip, a);
      } else real.ip = dest.ip;
      real.port = dest.port;
    }
    found.real = dest === undefined ? undefined : real;
    found.conn = dest ? p.lastConnection : undefined;
    return found;
  };
  return {
    isBound: (ip) => p.bound.hasAddr(ip),
    ipset: (name) => p.ipsets.get(name),
    schedule(proto, ip, port, clientIP, clientPort, now, steps) {
      if (proto === "icmp") return NOT_FOUND;
      const protocol = proto === "tcp" ? "TCP" : proto === "udp" ? "UDP" : "SCTP";
      // Without a trace, the virtual server's record (see VsRecords) when it can take the connection.
      const a = steps === undefined ? addrNum(ip) : -1;
      const o = a >= 0 ? p.recordOf(protocol, ip, a, port) : -1;
      if (o >= 0) {
        expireOnce(now);
        const dest = p.openRecord(o, clientIP, clientPort, now);
        if (dest !== undefined) return answer("", dest);
      }
      const vs = p.virtualServer(protocol, ip, port);
      if (!vs) return NOT_FOUND;
      expireOnce(now);
      const dest = p.open(vs, clientIP, clientPort, now);
      // The ipvsadm line of the virtual server, for the trace only.
      let service = "";
      if (steps) {
        service = `${vs.protocol}  ${vs.ip}:${vs.port} ${vs.scheduler}${vs.persistent ? ` persistent ${vs.persistent}` : ""}`;
        const t = vs.persistent ? vs.templates.get(clientIP) : undefined;
        steps(
          dest
            ? `scheduler ${vs.scheduler}${t ? ` (persistence template for ${clientIP})` : ""}: -> ${dest.ip}:${dest.port} (weight ${dest.weight}, active ${dest.activeConns}, inactive ${dest.inactiveConns})`
            : `scheduler ${vs.scheduler}: no real server with weight > 0`,
        );
      }
      return answer(service, dest);
    },
    close: (conn, now) => p.close(conn as number, now),
  };
}

const NOT_FOUND = Object.freeze({ found: false as const });

export function clusterNetEnv(cluster: Cluster): NetEnv {
  const nodes = cluster.config.nodes.map((n) => ({ name: n.name, ip: n.ip, podCIDR: n.podCIDR }));
  const controlPlane = new Set(cluster.config.nodes.filter((n) => n.controlPlane).map((n) => n.name));
  const pods = podIndexOf(cluster);
  const handles = new WeakMap<object, IpvsHandle>();
  const metallb = cluster.controllers.find((c): c is MetalLBController => c instanceof MetalLBController);
  return {
    nodes,
    rules(node: string): NodeRules | undefined {
      const np = cluster.proxies.node(node);
      const ipt = np.iptables();
      if (np.mode === "nftables") {
        const nft = np.nftables();
        if (nft) return { mode: "nftables", table: nft.table, iptables: ipt };
      }
      if (np.mode === "ipvs") {
        const ipvs = np.ipvs();
        if (ipvs && ipt) {
          let h = handles.get(ipvs);
          if (!h) handles.set(ipvs, (h = ipvsHandle(ipvs)));
          return { mode: "ipvs", ruleset: ipt, ipvs: h };
        }
      }
      return ipt ? { mode: "iptables", ruleset: ipt } : undefined;
    },
    podByIP: (ip) => pods.get(ip)?.host,
    hostListens(node, proto, port) {
      if (proto !== "tcp") return false;
      return HOST_TCP.includes(port) || (controlPlane.has(node) && CONTROL_PLANE_TCP.includes(port));
    },
    l2Announcer(ip) {
      if (!metallb) return undefined;
      for (const o of cluster.store.list(SERVICES)) {
        const svc = o as unknown as Service;
        if (svc.status?.loadBalancer?.ingress?.some((i) => i.ip === ip)) {
          const n = metallb.announcingNode(`${svc.metadata.namespace}/${svc.metadata.name}`);
          if (n) return n;
        }
      }
      return undefined;
    },
    now: () => cluster.now(),
    rng: cluster.rng.get("traffic"),
  };
}
