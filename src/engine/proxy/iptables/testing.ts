// Builders for proxier inputs, and the scenarios of kube-proxy's own iptables tests
// (K/pkg/proxy/iptables/proxier_test.go) and the kind-like node of the reference dumps.
// Pure (no I/O): usable from tests, benchmarks and the other proxy modes' tests.
import type { EndpointInfo, ProxyConfig, ProxyNode, ProxyState, Protocol, ServicePortInfo } from "../types.js";
import { servicePortKey } from "../types.js";

export const TEST_NODE: ProxyNode = { name: "test-node", ips: ["192.168.0.2"], podCIDR: "10.0.0.0/24", zone: "" };

export function testConfig(over: Partial<ProxyConfig> = {}): ProxyConfig {
  return {
    mode: "iptables",
    clusterCIDR: "10.0.0.0/8",
    masqueradeBit: 14,
    masqueradeAll: false,
    localhostNodePorts: true,
    nodePortAddresses: [],
    ipvs: { scheduler: "", strictARP: false, excludeCIDRs: [], tcpTimeoutSeconds: 0, tcpFinTimeoutSeconds: 0, udpTimeoutSeconds: 0 },
    ...over,
  };
}

export interface SvcSpec extends Partial<Omit<ServicePortInfo, "name">> {
  ns: string;
  name: string;
  portName?: string;
  protocol?: Protocol;
}

export function svc(s: SvcSpec): ServicePortInfo {
  const protocol = s.protocol ?? "TCP";
  return {
    name: { namespace: s.ns, name: s.name, port: s.portName ?? "", protocol },
    clusterIP: s.clusterIP ?? "",
    port: s.port ?? 80,
    protocol,
    nodePort: s.nodePort ?? 0,
    externalIPs: s.externalIPs ?? [],
    loadBalancerVIPs: s.loadBalancerVIPs ?? [],
    loadBalancerSourceRanges: s.loadBalancerSourceRanges ?? [],
    healthCheckNodePort: s.healthCheckNodePort ?? 0,
    externalPolicyLocal: s.externalPolicyLocal ?? false,
    internalPolicyLocal: s.internalPolicyLocal ?? false,
    stickyMaxAgeSeconds: s.stickyMaxAgeSeconds ?? 0,
    hintsEnabled: s.hintsEnabled ?? false,
  };
}

export function ep(ip: string, port: number, o: Partial<EndpointInfo> = {}): EndpointInfo {
  const ready = o.ready ?? true;
  return {
    ip,
    port,
    ready,
    serving: o.serving ?? ready,
    terminating: o.terminating ?? false,
    nodeName: o.nodeName ?? (o.isLocal ? TEST_NODE.name : "other-node"),
    zone: o.zone ?? "",
    zoneHints: o.zoneHints ?? [],
    nodeHints: o.nodeHints ?? [],
    isLocal: o.isLocal ?? false,
  };
}

/** A ProxyState from [service, endpoints] pairs. */
export function state(entries: ReadonlyArray<readonly [ServicePortInfo, readonly EndpointInfo[]]>): ProxyState {
  const services = new Map<string, ServicePortInfo>();
  const endpoints = new Map<string, readonly EndpointInfo[]>();
  for (const [s, eps] of entries) {
    const key = servicePortKey(s.name);
    services.set(key, s);
    if (eps.length > 0) endpoints.set(key, eps);
  }
  return { services, endpoints };
}

/** TestOverallIPTablesRules (facts section 1.9). */
export function overallState(): ProxyState {
  const p80 = { portName: "p80", port: 80 };
  return state([
    [svc({ ns: "ns1", name: "svc1", ...p80, clusterIP: "172.30.0.41" }), [ep("10.180.0.1", 80)]],
    [
      svc({
        ns: "ns2", name: "svc2", ...p80, clusterIP: "172.30.0.42", externalIPs: ["192.168.99.22"], nodePort: 3001,
        loadBalancerVIPs: ["1.2.3.4"], externalPolicyLocal: true, healthCheckNodePort: 30000,
      }),
      [ep("10.180.0.2", 80)],
    ],
    [svc({ ns: "ns3", name: "svc3", ...p80, clusterIP: "172.30.0.43", nodePort: 3003 }), [ep("10.180.0.3", 80)]],
    [
      svc({ ns: "ns4", name: "svc4", ...p80, clusterIP: "172.30.0.44", externalIPs: ["192.168.99.33"] }),
      [ep("10.180.0.4", 80), ep("10.180.0.5", 80, { isLocal: true })],
    ],
    [
      svc({
        ns: "ns5", name: "svc5", ...p80, clusterIP: "172.30.0.45", nodePort: 3002, loadBalancerVIPs: ["5.6.7.8"],
        loadBalancerSourceRanges: ["203.0.113.0/25"], stickyMaxAgeSeconds: 10800,
      }),
      [ep("10.180.0.3", 80)],
    ],
    [svc({ ns: "ns6", name: "svc6", ...p80, clusterIP: "172.30.0.46" }), []],
  ]);
}

/** TestInternalTrafficPolicyE2E (facts section 1.11): ns1/svc1, unnamed port, three endpoints. */
export function threeEndpointsState(o: { internalLocal?: boolean; localIPs?: readonly string[] } = {}): ProxyState {
  const local = new Set(o.localIPs ?? []);
  return state([
    [
      svc({ ns: "ns1", name: "svc1", clusterIP: "172.30.1.1", port: 80, internalPolicyLocal: o.internalLocal ?? false }),
      ["10.0.1.1", "10.0.1.2", "10.0.1.3"].map((ip) => ep(ip, 80, { isLocal: local.has(ip) })),
    ],
  ]);
}

/** TestTerminatingEndpointsTrafficPolicyLocal (facts section 1.12): LB, ETP Local, ClientIP affinity. */
export function lbLocalAffinityState(variant: "ready" | "onlyTerminating" | "remoteTerminating" = "ready"): ProxyState {
  const s = svc({
    ns: "ns1", name: "svc1", clusterIP: "172.30.1.1", port: 80, loadBalancerVIPs: ["1.2.3.4"],
    externalPolicyLocal: true, healthCheckNodePort: 30000, stickyMaxAgeSeconds: 10800,
  });
  const term = { ready: false, serving: true, terminating: true };
  let eps: EndpointInfo[];
  if (variant === "ready") {
    eps = [
      ep("10.0.1.1", 80, { isLocal: true }),
      ep("10.0.1.2", 80, { isLocal: true }),
      ep("10.0.1.3", 80, { isLocal: true, ...term }),
      ep("10.0.1.4", 80, { isLocal: true, ready: false, serving: false, terminating: true }),
      ep("10.0.1.5", 80),
    ];
  } else if (variant === "onlyTerminating") {
    eps = [
      ep("10.0.1.1", 80, { isLocal: true, ready: false, serving: false, terminating: true }),
      ep("10.0.1.2", 80, { isLocal: true, ...term }),
      ep("10.0.1.3", 80, { isLocal: true, ...term }),
      ep("10.0.1.4", 80, { isLocal: true, ready: false, serving: false, terminating: true }),
      ep("10.0.1.5", 80),
    ];
  } else {
    eps = [ep("10.0.1.5", 80, term)];
  }
  return state([[s, eps]]);
}

/** The kind-like node of dumps/iptables-kind-like.* (facts section 1.13); pod CIDR 10.244.0.0/16. */
export function kindLikeState(): ProxyState {
  const dns = (portName: string, protocol: Protocol, port: number) =>
    [
      svc({ ns: "kube-system", name: "kube-dns", portName, protocol, port, clusterIP: "10.96.0.10" }),
      [ep("10.244.0.2", port), ep("10.244.0.3", port)],
    ] as const;
  return state([
    [svc({ ns: "default", name: "kubernetes", portName: "https", port: 443, clusterIP: "10.96.0.1" }), [ep("172.18.0.2", 6443)]],
    dns("dns", "UDP", 53),
    dns("dns-tcp", "TCP", 53),
    dns("metrics", "TCP", 9153),
    [
      svc({ ns: "default", name: "web", portName: "http", port: 80, clusterIP: "10.96.100.10", nodePort: 30080 }),
      [ep("10.244.1.2", 8080), ep("10.244.1.3", 8080), ep("10.244.2.2", 8080)],
    ],
    [
      svc({ ns: "default", name: "sticky", port: 80, clusterIP: "10.96.100.20", stickyMaxAgeSeconds: 10800 }),
      [ep("10.244.1.4", 8080), ep("10.244.2.3", 8080)],
    ],
    [svc({ ns: "default", name: "empty", portName: "http", port: 80, clusterIP: "10.96.100.30" }), []],
  ]);
}

function ipFromInt(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/**
 * generateServiceEndpoints of kube-proxy's TestNumberIptablesRules: "namespace/svcN:8080",
 * ClusterIP 10.0.0.1+N, port 80+N, endpoints 172.16.0.1+j:8080 (the same IPs for every service).
 * With `distinctEndpoints`, each service gets its own endpoint IPs (for benchmarks).
 */
export function generatedState(nServices: number, nEndpoints: number, o: { distinctEndpoints?: boolean } = {}): ProxyState {
  const services = new Map<string, ServicePortInfo>();
  const endpoints = new Map<string, readonly EndpointInfo[]>();
  const base = 0x0a000001;
  const baseEp = 0xac100001;
  for (let i = 0; i < nServices; i++) {
    const s = svc({ ns: "namespace", name: `svc${i}`, portName: "8080", port: 80 + (i % 60000), clusterIP: ipFromInt(base + i) });
    const key = servicePortKey(s.name);
    services.set(key, s);
    if (nEndpoints > 0) {
      const eps: EndpointInfo[] = [];
      for (let j = 0; j < nEndpoints; j++) {
        eps.push(ep(ipFromInt(baseEp + (o.distinctEndpoints ? i * nEndpoints : 0) + j), 8080));
      }
      endpoints.set(key, eps);
    }
  }
  return { services, endpoints };
}
