// Chain names of the iptables proxier, as K/pkg/proxy/iptables/proxier.go names them.
// Every chain kube-proxy (and the kubelet duplicate it maintains) touches is a constant here;
// per-service chain names come from portProtoHash / servicePortEndpointChainName below.
import { sha256Base32KeyName, sha256Base32Name } from "../../util/hash.js";

/** Built-in chains (utiliptables.Chain*). */
export const CHAIN_PREROUTING = "PREROUTING";
export const CHAIN_INPUT = "INPUT";
export const CHAIN_FORWARD = "FORWARD";
export const CHAIN_OUTPUT = "OUTPUT";
export const CHAIN_POSTROUTING = "POSTROUTING";

/** nat + filter: dispatch per service IP:port (nat), REJECT/DROP for unusable services (filter). */
export const KUBE_SERVICES = "KUBE-SERVICES";
/** filter: REJECT/DROP for externalIP/LB/NodePort traffic with no (local) endpoints. */
export const KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
/** nat: per-NodePort jumps to KUBE-EXT-*; filter: ACCEPT for health check node ports. */
export const KUBE_NODEPORTS = "KUBE-NODEPORTS";
/** nat: masquerades traffic that KUBE-MARK-MASQ marked. */
export const KUBE_POSTROUTING = "KUBE-POSTROUTING";
/** nat: sets the masquerade mark. */
export const KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
/** filter: accepts marked and established forwarded traffic, drops conntrack INVALID. */
export const KUBE_FORWARD = "KUBE-FORWARD";
/** filter: DROP for loadBalancerSourceRanges misses (the KUBE-FW-* chains fall through to it). */
export const KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
/** mangle, nat, filter: empty chain that kube-proxy's iptables Monitor watches to detect a flush. */
export const KUBE_PROXY_CANARY = "KUBE-PROXY-CANARY";
/** filter: duplicate of kubelet's chain with the anti-martian rule for route_localnet. */
export const KUBE_FIREWALL = "KUBE-FIREWALL";

export const SVC_PREFIX = "KUBE-SVC-";
export const SVL_PREFIX = "KUBE-SVL-";
export const FW_PREFIX = "KUBE-FW-";
export const EXT_PREFIX = "KUBE-EXT-";
const SEP_PREFIX = "KUBE-SEP-";

/** Above this many endpoints in total, per-endpoint comments are omitted ("large cluster mode"). */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

/**
 * portProtoHash: base32(sha256(spn + proto))[:16], proto lower-case, no separator. The proxier
 * keeps it in the service port's record and reuses it on the next build.
 */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return sha256Base32KeyName("", 16, servicePortName, protocol);
}

/** prefix + hash as one flat string (`+` would keep a two-part rope for as long as the chain lives). */
export function chainName(prefix: string, hash: string): string {
  return [prefix, hash].join("");
}

export function servicePortPolicyClusterChain(spn: string, protocol: string): string {
  return chainName(SVC_PREFIX, portProtoHash(spn, protocol));
}
export function servicePortPolicyLocalChainName(spn: string, protocol: string): string {
  return chainName(SVL_PREFIX, portProtoHash(spn, protocol));
}
export function serviceFirewallChainName(spn: string, protocol: string): string {
  return chainName(FW_PREFIX, portProtoHash(spn, protocol));
}
export function serviceExternalChainName(spn: string, protocol: string): string {
  return chainName(EXT_PREFIX, portProtoHash(spn, protocol));
}
/** KUBE-SEP- + base32(sha256(spn + proto + "IP:port"))[:16]. */
export function servicePortEndpointChainName(spn: string, protocol: string, endpoint: string): string {
  return sha256Base32Name(SEP_PREFIX, 16, spn, protocol, endpoint);
}

/** servicePortEndpointChainName of an IPv4 endpoint, without building "IP:port" first. */
export function servicePortEndpointChainNameV4(spn: string, protocol: string, ip: string, port: number): string {
  return sha256Base32KeyName(SEP_PREFIX, 16, spn, protocol, ip, port);
}

/** isServiceChainName: the per-service chains kube-proxy creates and garbage-collects. */
export function isServiceChainName(chain: string): boolean {
  return (
    chain.startsWith(SVC_PREFIX) ||
    chain.startsWith(SVL_PREFIX) ||
    chain.startsWith(SEP_PREFIX) ||
    chain.startsWith(FW_PREFIX) ||
    chain.startsWith(EXT_PREFIX)
  );
}
