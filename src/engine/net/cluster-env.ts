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
import { Dataplane, type IpvsHandle, type NetEnv, type NodeRules, type PodHost } from "./dataplane.js";
import { ipvsHandle } from "./ipvs-handle.js";
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

interface PodIndexEntry {
  pod: Pod;
  host: PodHost;
}

/** Pods by IP, rebuilt when the store changes. */
class PodIndex {
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


function clusterNetEnv(cluster: Cluster): NetEnv {
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
