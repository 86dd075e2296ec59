// The proxier's view of the cluster, as kube-proxy's change trackers hand it to each mode
// (K/pkg/proxy/serviceport.go, endpoint.go, servicechangetracker.go, endpointschangetracker.go).
// One change tracker builds this from Services, EndpointSlices and the Node; the iptables,
// IPVS and nftables proxiers each turn it into their own native ruleset.

export type Protocol = "TCP" | "UDP" | "SCTP";

/** proxy.ServicePortName: namespace, service name, port name (may be ""), protocol. */
export interface ServicePortName {
  namespace: string;
  name: string;
  port: string;
  protocol: Protocol;
}

/** ServicePortName.String(): "<ns>/<name>" + (":" + portName if portName != ""). */
export function servicePortNameString(spn: ServicePortName): string {
  const base = `${spn.namespace}/${spn.name}`;
  return spn.port ? `${base}:${spn.port}` : base;
}

/** A service port as kube-proxy sees it (BaseServicePortInfo). */
export interface ServicePortInfo {
  name: ServicePortName;
  /** The primary cluster IP of the service's IPv4 family. Services without one are not proxied. */
  clusterIP: string;
  port: number;
  protocol: Protocol;
  /** 0 when the service has no node port. */
  nodePort: number;
  externalIPs: string[];
  /** status.loadBalancer.ingress[].ip with ipMode VIP (or unset). */
  loadBalancerVIPs: string[];
  loadBalancerSourceRanges: string[];
  /** 0 unless type LoadBalancer with externalTrafficPolicy Local. */
  healthCheckNodePort: number;
  externalPolicyLocal: boolean;
  internalPolicyLocal: boolean;
  /** sessionAffinity ClientIP: the stickiness timeout in seconds, 0 when affinity is None. */
  stickyMaxAgeSeconds: number;
  /** True when topology hints may be used (topology-mode Auto or trafficDistribution PreferClose). */
  hintsEnabled: boolean;
}

/** One endpoint of a service port (BaseEndpointInfo). */
export interface EndpointInfo {
  ip: string;
  port: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName: string;
  zone: string;
  /** Zone hints from the EndpointSlice (hints.forZones[].name); empty when none. */
  zoneHints: string[];
  /** Node hints (hints.forNodes[].name); empty when none. */
  nodeHints: string[];
  /** nodeName equals the node this proxier runs on. */
  isLocal: boolean;
}

/** "IP:port", with IPv6 addresses in brackets (net.JoinHostPort). */
export function endpointString(ep: { ip: string; port: number }): string {
  return ep.ip.includes(":") ? `[${ep.ip}]:${ep.port}` : `${ep.ip}:${ep.port}`;
}

/** The node a proxier runs on. */
export interface ProxyNode {
  name: string;
  /** The node's InternalIP addresses (the first is the primary one). */
  ips: string[];
  /** spec.podCIDR of the node. */
  podCIDR: string;
  /** topology.kubernetes.io/zone label of the node, "" when unset. */
  zone: string;
}

export type ProxyMode = "iptables" | "ipvs" | "nftables";

/** The parts of KubeProxyConfiguration the proxiers read (kube-proxy/config/v1alpha1/types.go). */
export interface ProxyConfig {
  mode: ProxyMode;
  /** Cluster CIDR for the local-traffic detector (detectLocalMode ClusterCIDR); "" disables it. */
  clusterCIDR: string;
  masqueradeBit: number;
  masqueradeAll: boolean;
  localhostNodePorts: boolean;
  /** nodePortAddresses; empty means all local addresses. */
  nodePortAddresses: string[];
  ipvs: {
    scheduler: string;
    strictARP: boolean;
    excludeCIDRs: string[];
    tcpTimeoutSeconds: number;
    tcpFinTimeoutSeconds: number;
    udpTimeoutSeconds: number;
  };
}

/** Everything a proxier syncs from. Both maps are keyed by servicePortKey(spn). */
export interface ProxyState {
  services: ReadonlyMap<string, ServicePortInfo>;
  endpoints: ReadonlyMap<string, readonly EndpointInfo[]>;
  /**
   * The same endpoint lists with isLocal false everywhere, when the state is one node's view of
   * lists every node shares (the change tracker's): what a proxier may build from when the node's
   * own endpoints make no difference to a service port.
   */
  nodeIndependentEndpoints?: ReadonlyMap<string, readonly EndpointInfo[]>;
}

/** Map key for a service port: "<ns>/<name>:<port>/<proto>" is unique even for unnamed ports. */
export function servicePortKey(spn: ServicePortName): string {
  return `${spn.namespace}/${spn.name}:${spn.port}/${spn.protocol}`;
}

/** What one sync did, for metrics, logs and benchmarks. */
export interface SyncResult {
  /** True when the whole ruleset was rebuilt; false for a partial (incremental) sync. */
  full: boolean;
  /** Service ports whose rules were (re)written in this sync. */
  servicesSynced: number;
}

/**
 * One interface, three implementations (iptables, ipvs, nftables). A proxier owns its native
 * ruleset; rendering (iptables-save, ipvsadm, nft list) and routing both read that ruleset.
 */
export interface Proxier {
  readonly mode: ProxyMode;
  /**
   * Bring the ruleset in line with `state`. `changed` names the service-port keys whose service
   * or endpoints changed since the previous sync; undefined asks for a full sync.
   */
  sync(state: ProxyState, changed?: ReadonlySet<string>): SyncResult;
}

// ---------------------------------------------------------------------------------------------
// Equality of the model's values, for trackers and proxiers deciding what changed.

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function sameServicePort(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a === b ||
    (a.clusterIP === b.clusterIP &&
      a.port === b.port &&
      a.protocol === b.protocol &&
      a.nodePort === b.nodePort &&
      a.healthCheckNodePort === b.healthCheckNodePort &&
      a.externalPolicyLocal === b.externalPolicyLocal &&
      a.internalPolicyLocal === b.internalPolicyLocal &&
      a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
      a.hintsEnabled === b.hintsEnabled &&
      a.name.namespace === b.name.namespace &&
      a.name.name === b.name.name &&
      a.name.port === b.name.port &&
      a.name.protocol === b.name.protocol &&
      sameStrings(a.externalIPs, b.externalIPs) &&
      sameStrings(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
      sameStrings(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges))
  );
}

export function sameEndpoint(a: EndpointInfo, b: EndpointInfo): boolean {
  return (
    a === b ||
    (a.ip === b.ip &&
      a.port === b.port &&
      a.ready === b.ready &&
      a.serving === b.serving &&
      a.terminating === b.terminating &&
      a.isLocal === b.isLocal &&
      a.nodeName === b.nodeName &&
      a.zone === b.zone &&
      sameStrings(a.zoneHints, b.zoneHints) &&
      sameStrings(a.nodeHints, b.nodeHints))
  );
}

export function sameEndpointList(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameEndpoint(a[i], b[i])) return false;
  return true;
}
