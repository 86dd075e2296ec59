// Inputs of kube-proxy's nftables unit tests (K/pkg/proxy/nftables/proxier_test.go), in the
// proxier input model. Used by the tests and the benchmark; no I/O.
import type { EndpointInfo, ProxyConfig, ProxyNode, ProxyState, ServicePortInfo } from "../types.js";
import { servicePortKey } from "../types.js";

export const TEST_NODE: ProxyNode = { name: "test-node", ips: ["192.168.0.2"], podCIDR: "10.0.0.0/24", zone: "" };

export const TEST_CONFIG: ProxyConfig = {
  mode: "nftables",
  clusterCIDR: "10.0.0.0/8",
  masqueradeBit: 14,
  masqueradeAll: false,
  localhostNodePorts: true,
  // NewFakeProxier: "192.168.0.2/32" and an IPv6 /128 (ignored by the IPv4 proxier).
  nodePortAddresses: ["192.168.0.2/32", "2001:db8::1/128"],
  ipvs: { scheduler: "", strictARP: false, excludeCIDRs: [], tcpTimeoutSeconds: 0, tcpFinTimeoutSeconds: 0, udpTimeoutSeconds: 0 },
};

export const TEST_SERVICE_CIDRS = ["172.30.0.0/16"];

export function svcPort(ns: string, name: string, over: Partial<ServicePortInfo> = {}): ServicePortInfo {
  const port = over.name?.port ?? "p80";
  const protocol = over.protocol ?? "TCP";
  return {
    clusterIP: "",
    port: 80,
    nodePort: 0,
    externalIPs: [],
    loadBalancerVIPs: [],
    loadBalancerSourceRanges: [],
    healthCheckNodePort: 0,
    externalPolicyLocal: false,
    internalPolicyLocal: false,
    stickyMaxAgeSeconds: 0,
    hintsEnabled: false,
    ...over,
    protocol,
    name: { namespace: ns, name, port, protocol },
  };
}

export function ep(ip: string, port: number, over: Partial<EndpointInfo> = {}): EndpointInfo {
  const nodeName = over.nodeName ?? "";
  return {
    ip,
    port,
    ready: true,
    serving: true,
    terminating: false,
    zone: "",
    zoneHints: [],
    nodeHints: [],
    ...over,
    nodeName,
    isLocal: nodeName === TEST_NODE.name,
  };
}

export function makeState(entries: [ServicePortInfo, EndpointInfo[]][]): ProxyState {
  const services = new Map<string, ServicePortInfo>();
  const endpoints = new Map<string, EndpointInfo[]>();
  for (const [svc, eps] of entries) {
    const key = servicePortKey(svc.name);
    services.set(key, svc);
    if (eps.length) endpoints.set(key, eps);
  }
  return { services, endpoints };
}

/** TestOverallNFTablesRules (facts §1.9): the six services and their endpoints. */
export function overallState(): ProxyState {
  return makeState([
    [svcPort("ns1", "svc1", { clusterIP: "172.30.0.41" }), [ep("10.180.0.1", 80)]],
    [
      svcPort("ns2", "svc2", {
        clusterIP: "172.30.0.42",
        nodePort: 3001,
        loadBalancerVIPs: ["1.2.3.4"],
        externalIPs: ["192.168.99.22"],
        healthCheckNodePort: 30000,
        externalPolicyLocal: true,
      }),
      // No NodeName: counted as non-local, so Local policy has no endpoints.
      [ep("10.180.0.2", 80)],
    ],
    [svcPort("ns3", "svc3", { clusterIP: "172.30.0.43", nodePort: 3003 }), [ep("10.180.0.3", 80)]],
    [
      svcPort("ns4", "svc4", { clusterIP: "172.30.0.44", externalIPs: ["192.168.99.33"] }),
      [ep("10.180.0.4", 80), ep("10.180.0.5", 80, { nodeName: "test-node" })],
    ],
    [
      svcPort("ns5", "svc5", {
        clusterIP: "172.30.0.45",
        nodePort: 3002,
        loadBalancerVIPs: ["5.6.7.8"],
        // Extra whitespace on purpose, as in the upstream test.
        loadBalancerSourceRanges: [" 203.0.113.0/25"],
        stickyMaxAgeSeconds: 10800,
      }),
      [ep("10.180.0.3", 80)],
    ],
    [svcPort("ns6", "svc6", { clusterIP: "172.30.0.46" }), []],
  ]);
}

/** Small deterministic PRNG (mulberry32) for generated test and benchmark inputs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A service port with every feature chosen at random, and its endpoints. */
export function randomServicePort(rand: () => number, i: number, version = 0): [ServicePortInfo, EndpointInfo[]] {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const kind = pick(["ClusterIP", "ClusterIP", "NodePort", "LoadBalancer", "ExternalIP"] as const);
  const protocol = pick(["TCP", "TCP", "TCP", "UDP", "SCTP"] as const);
  const port = pick([80, 443, 53, 8080, 9376]);
  const b = (i >> 8) & 255;
  const c = i & 255;
  const lb = kind === "LoadBalancer";
  const svc = svcPort(`ns${i % 7}`, `svc${i}`, {
    name: { namespace: "", name: "", port: pick(["", "http", "p80", "dns-tcp"]), protocol },
    protocol,
    port,
    clusterIP: `172.30.${b}.${c}`,
    nodePort: kind === "NodePort" || lb ? 30000 + (i % 2768) : 0,
    loadBalancerVIPs: lb ? [`5.${b}.${c}.${1 + (version % 3)}`] : [],
    externalIPs: kind === "ExternalIP" ? [`192.168.99.${c}`] : [],
    loadBalancerSourceRanges: lb && rand() < 0.5 ? pick([["203.0.113.0/25"], ["192.168.0.0/24", "203.0.113.0/25"], ["10.0.0.0/8", "10.1.0.0/16"]]) : [],
    externalPolicyLocal: (lb || kind === "NodePort") && rand() < 0.4,
    internalPolicyLocal: rand() < 0.15,
    stickyMaxAgeSeconds: rand() < 0.2 ? pick([10800, 60, 3600]) : 0,
  });
  const n = pick([0, 1, 1, 2, 3, 7, 12]);
  const eps: EndpointInfo[] = [];
  for (let k = 0; k < n; k++) {
    const r = rand();
    eps.push(
      ep(`10.${1 + (b % 200)}.${c}.${k + 1 + (version % 5)}`, pick([80, 8080, 53]), {
        nodeName: rand() < 0.4 ? "test-node" : `node-${k % 3}`,
        ready: r < 0.8,
        serving: r < 0.9,
        terminating: r >= 0.8,
      }),
    );
  }
  return [svc, eps];
}
