// Object names of the nftables proxier (K/pkg/proxy/nftables/proxier.go). Every fixed name is a
// constant here; per-service names come from hashAndTruncate so they stay unique and readable.
import { sha256Base32Prefix } from "../../util/hash.js";
import type { ServicePortName } from "../types.js";

export const KUBE_PROXY_TABLE = "kube-proxy";
export const TABLE_COMMENT = "rules for kube-proxy";

// base chains ("${type}-${hook}", v1.33 layout: filtering happens before DNAT)
export const FILTER_PREROUTING_PRE_DNAT = "filter-prerouting-pre-dnat";
export const FILTER_OUTPUT_PRE_DNAT = "filter-output-pre-dnat";
export const FILTER_FORWARD = "filter-forward";
export const FILTER_INPUT = "filter-input";
export const FILTER_OUTPUT = "filter-output";
export const NAT_PREROUTING = "nat-prerouting";
export const NAT_OUTPUT = "nat-output";
export const NAT_POSTROUTING = "nat-postrouting";

// service dispatch
export const SERVICES_CHAIN = "services";
export const SERVICE_IPS_MAP = "service-ips";
export const SERVICE_NODEPORTS_MAP = "service-nodeports";
export const NODEPORT_IPS_SET = "nodeport-ips";
export const CLUSTER_IPS_SET = "cluster-ips";

// services with no endpoints, unallocated ClusterIPs
export const SERVICE_ENDPOINTS_CHECK = "service-endpoints-check";
export const NODEPORT_ENDPOINTS_CHECK = "nodeport-endpoints-check";
export const NO_ENDPOINT_SERVICES_MAP = "no-endpoint-services";
export const NO_ENDPOINT_NODEPORTS_MAP = "no-endpoint-nodeports";
export const REJECT_CHAIN = "reject-chain";
export const CLUSTER_IPS_CHECK = "cluster-ips-check";

// LoadBalancerSourceRanges
export const FIREWALL_IPS_MAP = "firewall-ips";
export const FIREWALL_CHECK = "firewall-check";

// masquerading
export const MARK_MASQ_CHAIN = "mark-for-masquerade";
export const MASQUERADING_CHAIN = "masquerading";

export const SERVICE_CHAIN_PREFIX = "service-";
export const LOCAL_CHAIN_PREFIX = "local-";
export const EXTERNAL_CHAIN_PREFIX = "external-";
export const ENDPOINT_CHAIN_PREFIX = "endpoint-";
export const AFFINITY_SET_PREFIX = "affinity-";
export const FIREWALL_CHAIN_PREFIX = "firewall-";

/** knftables.NameLengthMax (256) minus the longest prefix (16). */
const CHAIN_NAME_BASE_LENGTH_MAX = 256 - 16;

/**
 * hashAndTruncate: 8 base32 characters of sha256(name), "-", name; truncated with "..."
 * past 240 characters so that the hash still keeps long names unique.
 */
export function hashAndTruncate(name: string): string {
  let out = `${sha256Base32Prefix(name, 8)}-${name}`;
  if (out.length > CHAIN_NAME_BASE_LENGTH_MAX) out = `${out.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)}...`;
  return out;
}

/**
 * prefix + base as one flat string. `+` builds a rope (ConsString) that keeps its parts alive;
 * join copies into one sequential string, about half the heap for the 100k names of a large
 * cluster.
 */
export function prefixed(prefix: string, base: string): string {
  return [prefix, base].join("");
}

/** "HASH-ns/svc/proto/portName", e.g. "ULMVA6XW-ns1/svc1/tcp/p80". */
export function servicePortChainNameBase(spn: ServicePortName): string {
  return hashAndTruncate(`${spn.namespace}/${spn.name}/${spn.protocol.toLowerCase()}/${spn.port}`);
}

/** "HASH-ns/svc/proto/portName__IP/port"; IPv6 colons become dots (not allowed in names). */
export function servicePortEndpointChainNameBase(spn: ServicePortName, ip: string, port: number): string {
  const epIP = ip.includes(":") ? ip.replaceAll(":", ".") : ip;
  return hashAndTruncate(`${spn.namespace}/${spn.name}/${spn.protocol.toLowerCase()}/${spn.port}__${epIP}/${port}`);
}

/** Service and endpoint chains always contain a "/"; none of the fixed chains do. */
export function isServiceChainName(name: string): boolean {
  return name.includes("/");
}
