// Endpoint selection as K/pkg/proxy/topology.go CategorizeEndpoints does it (v1.33).
// Shared semantics with the iptables proxier; kept here until a common proxy helper exists.
import type { EndpointInfo, ServicePortInfo } from "../types.js";

export function externallyAccessible(svc: ServicePortInfo): boolean {
  return svc.nodePort !== 0 || svc.loadBalancerVIPs.length > 0 || svc.externalIPs.length > 0;
}

/**
 * Some traffic to this service port uses Cluster endpoints: internal traffic with Cluster
 * policy, or any external traffic (even with external policy Local, the short-circuit for
 * pod and node traffic goes to the Cluster endpoints).
 */
export function usesClusterEndpoints(svc: ServicePortInfo): boolean {
  return !svc.internalPolicyLocal || externallyAccessible(svc);
}

/** Some traffic to this service port uses Local policy. */
export function usesLocalEndpoints(svc: ServicePortInfo): boolean {
  return svc.internalPolicyLocal || (externallyAccessible(svc) && svc.externalPolicyLocal);
}

export interface Categorized {
  clusterEndpoints: EndpointInfo[];
  localEndpoints: EndpointInfo[];
  /** Endpoints any traffic from this node can reach: the union of the two lists. */
  allReachable: EndpointInfo[];
  /** The service has usable endpoints on some node. */
  hasAnyEndpoints: boolean;
}

/**
 * Zone hints are used only when every ready endpoint carries one and some endpoint is hinted
 * for this node's zone. (v1.33: same-node hints belong to the alpha PreferSameTrafficDistribution
 * gate, off by default, so node hints are ignored; the EndpointSlice controller only writes
 * zone hints when the service asks for them, so hintsEnabled needs no second check here.)
 */
function useZoneHints(endpoints: readonly EndpointInfo[], zone: string): boolean {
  let all = true;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    if (ep.zoneHints.length === 0) all = false;
    else if (ep.zoneHints.includes(zone)) forZone = true;
  }
  return all && forZone;
}

/**
 * Cluster policy: ready endpoints (narrowed by topology hints when usable), else
 * serving+terminating ones. Local policy: this node's ready endpoints, else its
 * serving+terminating ones. `endpoints` must already be in kube-proxy's order (by "IP:port").
 */
export function categorizeEndpoints(endpoints: readonly EndpointInfo[], svc: ServicePortInfo, nodeZone: string): Categorized {
  let clusterEndpoints: EndpointInfo[] = [];
  let localEndpoints: EndpointInfo[] = [];
  let hasAnyEndpoints = false;

  if (usesClusterEndpoints(svc)) {
    const zoned = useZoneHints(endpoints, nodeZone);
    const topoOK = (ep: EndpointInfo) => !zoned || ep.zoneHints.includes(nodeZone);
    clusterEndpoints = endpoints.filter((ep) => ep.ready && topoOK(ep));
    if (clusterEndpoints.length === 0) clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating && topoOK(ep));
    if (clusterEndpoints.length > 0) hasAnyEndpoints = true;
  }
  if (!usesLocalEndpoints(svc)) return { clusterEndpoints, localEndpoints, allReachable: clusterEndpoints, hasAnyEndpoints };

  let localReady = false;
  let localServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAnyEndpoints = true;
      if (ep.isLocal) localReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAnyEndpoints = true;
      if (ep.isLocal) localServingTerminating = true;
    }
  }
  if (localReady) localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
  else if (localServingTerminating) localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);

  if (!usesClusterEndpoints(svc)) return { clusterEndpoints, localEndpoints, allReachable: localEndpoints, hasAnyEndpoints };

  // Union by "IP:port" (kube-proxy builds a map; order does not matter to callers, which sort).
  const seen = new Set<string>();
  const allReachable: EndpointInfo[] = [];
  for (const ep of [...clusterEndpoints, ...localEndpoints]) {
    const k = `${ep.ip}:${ep.port}`;
    if (!seen.has(k)) {
      seen.add(k);
      allReachable.push(ep);
    }
  }
  return { clusterEndpoints, localEndpoints, allReachable, hasAnyEndpoints };
}
