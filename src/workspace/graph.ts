// The cluster view's data: nodes with their pods, Services with their EndpointSlices'
// endpoints, Deployments. Read from the store as it is; the UI draws it.
import type { Cluster } from "../engine/cluster.js";
import type { KObject } from "../engine/api/types.js";

interface GraphPod {
  namespace: string;
  name: string;
  node: string;
  ip: string;
  phase: string;
  ready: boolean;
  restarts: number;
  terminating: boolean;
  /** The Deployment (or other owner) it belongs to, and its pod-template-hash: the colour. */
  owner: string;
  hash: string;
  labels: Record<string, string>;
}

interface GraphEndpoint {
  ip: string;
  pod?: string;
  node?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

export interface GraphService {
  namespace: string;
  name: string;
  type: string;
  clusterIP: string;
  externalIPs: string[];
  ports: Array<{ name?: string; port: number; targetPort: string; nodePort?: number; protocol: string }>;
  selector: Record<string, string> | null;
  sessionAffinity: string;
  externalTrafficPolicy?: string;
  endpoints: GraphEndpoint[];
}

export interface Graph {
  nodes: Array<{ name: string; ready: boolean; mode: string; unschedulable: boolean }>;
  pods: GraphPod[];
  services: GraphService[];
  deployments: Array<{ namespace: string; name: string; replicas: number; ready: number; updated: number }>;
}

type Any = Record<string, any>;

export function clusterGraph(cluster: Cluster): Graph {
  const store = cluster.store;
  const replicaSetOwner = new Map<string, string>();
  for (const rs of store.list("replicasets.apps")) {
    const dep = rs.metadata.ownerReferences?.find((o) => o.kind === "Deployment");
    if (dep) replicaSetOwner.set(`${rs.metadata.namespace}/${rs.metadata.name}`, dep.name);
  }
  const pods = store.list("pods").map((p: KObject): GraphPod => {
    const o = p as Any;
    const ref = p.metadata.ownerReferences?.[0];
    const owner = ref ? (ref.kind === "ReplicaSet" ? (replicaSetOwner.get(`${p.metadata.namespace}/${ref.name}`) ?? ref.name) : ref.name) : p.metadata.name!;
    const statuses: Any[] = o.status?.containerStatuses ?? [];
    return {
      namespace: p.metadata.namespace!,
      name: p.metadata.name!,
      node: o.spec?.nodeName ?? "",
      ip: o.status?.podIP ?? "",
      phase: o.status?.phase ?? "Pending",
      ready: (o.status?.conditions ?? []).some((c: Any) => c.type === "Ready" && c.status === "True"),
      restarts: statuses.reduce((s, c) => s + (c.restartCount ?? 0), 0),
      terminating: !!p.metadata.deletionTimestamp,
      owner,
      hash: p.metadata.labels?.["pod-template-hash"] ?? p.metadata.labels?.["controller-revision-hash"] ?? "",
      labels: { ...(p.metadata.labels ?? {}) },
    };
  });
  const podByIP = new Map(pods.filter((p) => p.ip).map((p) => [`${p.namespace}/${p.ip}`, p]));
  const services = store.list("services").map((s: KObject): GraphService => {
    const o = s as Any;
    const ns = s.metadata.namespace!;
    const endpoints: GraphEndpoint[] = [];
    for (const slice of store.list("endpointslices.discovery.k8s.io", ns)) {
      if (slice.metadata.labels?.["kubernetes.io/service-name"] !== s.metadata.name) continue;
      for (const e of ((slice as Any).endpoints ?? []) as Any[]) {
        const ip = e.addresses?.[0] ?? "";
        const pod = e.targetRef?.kind === "Pod" ? e.targetRef.name : podByIP.get(`${ns}/${ip}`)?.name;
        endpoints.push({ ip, pod, node: e.nodeName, ready: e.conditions?.ready !== false, serving: e.conditions?.serving !== false, terminating: e.conditions?.terminating === true });
      }
    }
    return {
      namespace: ns,
      name: s.metadata.name!,
      type: o.spec?.type ?? "ClusterIP",
      clusterIP: o.spec?.clusterIP ?? "",
      externalIPs: [...(o.status?.loadBalancer?.ingress ?? []).map((i: Any) => i.ip ?? i.hostname), ...(o.spec?.externalIPs ?? []), ...(o.spec?.externalName ? [o.spec.externalName] : [])],
      ports: ((o.spec?.ports ?? []) as Any[]).map((p) => ({ name: p.name, port: p.port, targetPort: String(p.targetPort ?? p.port), nodePort: p.nodePort, protocol: p.protocol ?? "TCP" })),
      selector: o.spec?.selector ?? null,
      sessionAffinity: o.spec?.sessionAffinity ?? "None",
      externalTrafficPolicy: o.spec?.externalTrafficPolicy,
      endpoints,
    };
  });
  const nodes = store.list("nodes").map((n: KObject) => {
    const o = n as Any;
    return {
      name: n.metadata.name!,
      ready: (o.status?.conditions ?? []).some((c: Any) => c.type === "Ready" && c.status === "True"),
      mode: cluster.proxies.node(n.metadata.name!).mode ?? "",
      unschedulable: !!o.spec?.unschedulable,
    };
  });
  const deployments = store.list("deployments.apps").map((d: KObject) => {
    const o = d as Any;
    return { namespace: d.metadata.namespace!, name: d.metadata.name!, replicas: o.spec?.replicas ?? 0, ready: o.status?.readyReplicas ?? 0, updated: o.status?.updatedReplicas ?? 0 };
  });
  return { nodes, pods, services, deployments };
}
