// Endpoint selection per K/pkg/proxy/topology.go CategorizeEndpoints (v1.33): Ready endpoints
// (narrowed by topology hints when usable), else Serving+Terminating ones, independently for the
// Cluster and the Local traffic policy. One copy for the iptables, IPVS and nftables proxiers.
//
// UsesClusterEndpoints is true for every externally accessible port, even with both traffic
// policies Local: the short-circuit for pod and node traffic to an external address goes to the
// Cluster endpoints (serviceport.go). The nftables proxier's randomized incremental-vs-full tests
// found a missing service- chain when this was computed from the external policy.
import type { EndpointInfo, ServicePortInfo } from "./types.js";

interface TopologyOptions {
  nodeName: string;
  /** The node's topology.kubernetes.io/zone label ("" when unset). */
  zone: string;
  /** Feature gate PreferSameTrafficDistribution (alpha and off by default in v1.33): node hints. */
  preferSameNode: boolean;
}

export function externallyAccessible(svc: ServicePortInfo): boolean {
  return svc.nodePort !== 0 || svc.loadBalancerVIPs.length !== 0 || svc.externalIPs.length !== 0;
}

/** Cluster endpoints are needed for Cluster internal policy, and for short-circuiting external traffic. */
export function usesClusterEndpoints(svc: ServicePortInfo): boolean {
  return !svc.internalPolicyLocal || externallyAccessible(svc);
}

export function usesLocalEndpoints(svc: ServicePortInfo): boolean {
  return svc.internalPolicyLocal || (svc.externalPolicyLocal && externallyAccessible(svc));
}

interface Categorized {
  /** Empty when the service never uses the Cluster policy. */
  cluster: readonly EndpointInfo[];
  /** Empty when the service never uses the Local policy. */
  local: readonly EndpointInfo[];
  /** Union of both: the endpoints that get a KUBE-SEP chain on this node. */
  allReachable: readonly EndpointInfo[];
  /** True when any usable endpoint exists anywhere in the cluster. */
  hasAny: boolean;
}

type Mode = "" | "PreferSameNode" | "PreferSameZone";

function topologyModeFromHints(svc: ServicePortInfo, eps: readonly EndpointInfo[], o: TopologyOptions): Mode {
  if (!svc.hintsEnabled) return "";
  let hasForNode = false;
  let allNodeHints = true;
  let hasForZone = false;
  let allZoneHints = true;
  for (const ep of eps) {
    if (!ep.ready) continue;
    if (ep.nodeHints.length === 0) allNodeHints = false;
    else if (ep.nodeHints.includes(o.nodeName)) hasForNode = true;
    if (ep.zoneHints.length === 0) allZoneHints = false;
    else if (ep.zoneHints.includes(o.zone)) hasForZone = true;
  }
  if (o.preferSameNode && allNodeHints && hasForNode) return "PreferSameNode";
  if (allZoneHints && hasForZone) return "PreferSameZone";
  return "";
}

function availableForTopology(ep: EndpointInfo, mode: Mode, o: TopologyOptions): boolean {
  if (mode === "") return true;
  if (mode === "PreferSameNode") return ep.nodeHints.includes(o.nodeName);
  return ep.zoneHints.includes(o.zone);
}

const NONE: readonly EndpointInfo[] = Object.freeze([]);

/** The ready endpoints: `eps` itself when all are (the usual case; no copy per service port). */
function readyEndpoints(eps: readonly EndpointInfo[]): readonly EndpointInfo[] {
  let i = 0;
  while (i < eps.length && eps[i].ready) i++;
  if (i === eps.length) return eps;
  const out = eps.slice(0, i);
  for (i++; i < eps.length; i++) if (eps[i].ready) out.push(eps[i]);
  return out;
}

export function categorizeEndpoints(
  eps: readonly EndpointInfo[],
  svc: ServicePortInfo,
  o: TopologyOptions,
): Categorized {
  let cluster: readonly EndpointInfo[] = NONE;
  let local: readonly EndpointInfo[] = NONE;
  let hasAny = false;
  let mode: Mode = "";
  let useServingTerminating = false;

  const usesCluster = usesClusterEndpoints(svc);
  if (usesCluster) {
    mode = topologyModeFromHints(svc, eps, o);
    cluster = mode === "" ? readyEndpoints(eps) : eps.filter((ep) => ep.ready && availableForTopology(ep, mode, o));
    // No ready endpoints anywhere (topology was already dropped if it selected none):
    // fall back to endpoints that are still serving while terminating.
    if (cluster.length === 0) cluster = eps.filter((ep) => ep.serving && ep.terminating);
    if (cluster.length > 0) hasAny = true;
  }

  if (!usesLocalEndpoints(svc)) return { cluster, local, allReachable: cluster, hasAny };

  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of eps) {
    if (ep.ready) {
      hasAny = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAny = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  if (hasLocalReady) {
    local = eps.filter((ep) => ep.isLocal && ep.ready);
  } else if (hasLocalServingTerminating) {
    useServingTerminating = true;
    local = eps.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  }

  if (!usesCluster) return { cluster, local, allReachable: local, hasAny };
  // Local holds only Ready endpoints and Cluster holds every Ready one: Cluster is a superset.
  if (mode === "" && !useServingTerminating) return { cluster, local, allReachable: cluster, hasAny };

  // Merge (kube-proxy uses a map here, so its order is random; only the set matters).
  const seen = new Set<EndpointInfo>(cluster);
  const all = cluster.slice();
  for (const ep of local) if (!seen.has(ep)) all.push(ep);
  return { cluster, local, allReachable: all, hasAny };
}
