// A cluster's shape: what kubeadm and the CNI would have been told. Every field has the default
// of a kubeadm v1.33 cluster with one control-plane node and two workers, as in the lab guide
// (nodes 10.1.8.30-32, pod network 10.244.0.0/16 with a /24 per node).

export interface NodeConfig {
  name: string;
  /** The node's InternalIP. */
  ip: string;
  /** spec.podCIDR: pod IPs of this node come from here. */
  podCIDR: string;
  /** topology.kubernetes.io/zone label; unset on bare metal. */
  zone?: string;
  controlPlane?: boolean;
}

export interface ClusterConfig {
  /** Seed of the cluster's Rng: the same seed and the same writes give byte-identical state. */
  seed: number | string;
  /** Clock time (ms since epoch) at which the cluster starts. */
  startTime: number;
  /** What /version and the nodes report. */
  kubernetesVersion: string;
  serviceCIDR: string;
  clusterCIDR: string;
  dnsDomain: string;
  dnsIP: string;
  nodePortRange: [number, number];
  nodes: NodeConfig[];
  /** kube-controller-manager --max-endpoints-per-slice (1..1000). */
  maxEndpointsPerSlice: number;
  /** How long a container takes from ContainerCreating to running, in ms. */
  containerStartMs: number;
  /** How long pulling an image that is not on the node takes, in ms. */
  imagePullMs: number;
  /** Deep-freeze stored objects (tests catch mutation outside the apiserver). */
  freeze: boolean;
}

const DEFAULT_NODES: NodeConfig[] = [
  { name: "master", ip: "10.1.8.30", podCIDR: "10.244.0.0/24", controlPlane: true },
  { name: "node1", ip: "10.1.8.31", podCIDR: "10.244.1.0/24" },
  { name: "node2", ip: "10.1.8.32", podCIDR: "10.244.2.0/24" },
];

/** 2026-01-01T00:00:00Z: tests and replays start here unless told otherwise. */
const DEFAULT_START = Date.UTC(2026, 0, 1, 0, 0, 0);

export function clusterConfig(partial: Partial<ClusterConfig> = {}): ClusterConfig {
  const cfg: ClusterConfig = {
    seed: 1,
    startTime: DEFAULT_START,
    kubernetesVersion: "v1.33.5",
    serviceCIDR: "10.96.0.0/12",
    clusterCIDR: "10.244.0.0/16",
    dnsDomain: "cluster.local",
    dnsIP: "10.96.0.10",
    nodePortRange: [30000, 32767],
    nodes: DEFAULT_NODES,
    maxEndpointsPerSlice: 100,
    containerStartMs: 1500,
    imagePullMs: 2500,
    freeze: false,
    ...partial,
  };
  if (cfg.maxEndpointsPerSlice < 1 || cfg.maxEndpointsPerSlice > 1000) {
    throw new Error(`max-endpoints-per-slice must not be more than 1000, but got ${cfg.maxEndpointsPerSlice}`);
  }
  if (!cfg.nodes.length) throw new Error("a cluster needs at least one node");
  return cfg;
}
