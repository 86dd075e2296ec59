// Every lab of the catalog, in the order the catalog page lists them: the lab guide's sections in
// its order (Services, discovery, Service types, affinity, canary, kube-proxy), each principles
// document topic after the guide section it deepens, then the empty playground.
import canary from "./canary.js";
import clusteripWeb from "./clusterip-web.js";
import discoveryDns from "./discovery-dns.js";
import discoveryEnv from "./discovery-env.js";
import discoveryIp from "./discovery-ip.js";
import empty from "./empty.js";
import endpointsliceScale from "./endpointslice-scale.js";
import exposeSelectors from "./expose-selectors.js";
import externalTrafficPolicy from "./external-traffic-policy.js";
import externalname from "./externalname.js";
import headless from "./headless.js";
import iptablesChains from "./iptables-chains.js";
import kubeProxyIpvs from "./kube-proxy-ipvs.js";
import loadbalancerMetallb from "./loadbalancer-metallb.js";
import nftables from "./nftables.js";
import nodeport from "./nodeport.js";
import sessionAffinity from "./session-affinity.js";

export const CATALOG = [
  clusteripWeb, // §3.1–3.2
  exposeSelectors, // §3.3
  discoveryIp, // §4.1
  discoveryEnv, // §4.2
  discoveryDns, // §4.3
  nodeport, // §5.2
  externalTrafficPolicy, // principles ch. 7, after NodePort
  loadbalancerMetallb, // §5.3
  externalname, // §5.4
  headless, // §5.5
  sessionAffinity, // §6
  canary, // §7
  iptablesChains, // §8.5: the default mode first
  kubeProxyIpvs, // §8.3–8.4
  nftables, // principles ch. 4.4
  endpointsliceScale, // principles ch. 3
  empty,
];
