// What `kubeadm init` + `kubeadm join` + a CNI leave in a new cluster: the four namespaces, Ready
// nodes, the kubernetes Service, CoreDNS behind kube-dns, kube-proxy as a DaemonSet with its
// ConfigMap, and the control plane's static pods. All of it is written through the apiserver.

import type { ResourceInfo } from "./api/resources.js";
import { lookupResource, R } from "./api/resources.js";
import type { KObject } from "./api/types.js";
import { decode } from "./apiserver/decode.js";
import { rfc3339, rfc3339Micro } from "./clock.js";
import type { Cluster } from "./cluster.js";
import type { NodeConfig } from "./config.js";
import { defaultPolicyBodies } from "./rbac/policy-objects.js";
import { rootCAConfigMap } from "./controllers/rootca-publisher.js";
import { base32, sha256 } from "./util/hash.js";

const KUBE_PROXY_IMAGE_REPO = "registry.k8s.io/kube-proxy";
const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.12.0";
const ETCD_IMAGE = "registry.k8s.io/etcd:3.5.21-0";
/** The nodes' kernel (Rocky Linux 9.4's): what the kubelet reports and `uname -r` prints. */
export const KERNEL_RELEASE = "5.14.0-427.13.1.el9_4.x86_64";

/**
 * A bootstrap body decoded (zod, which also puts the fields in the Go struct order the apiserver
 * serves) and then written in the trusted scope, as the controllers' writes are (no second
 * decode; validation still runs in paranoid mode, i.e. in tests). Not remembered across clusters:
 * each cluster's clock and configuration make its own bodies, and no tenant's may linger in a
 * cache another's creation reads.
 */
function decodeBody(info: ResourceInfo, body: unknown): KObject {
  return decode(info, body).object;
}

function trusted<T>(c: Cluster, write: () => T): T {
  const was = c.api.trusted;
  c.api.trusted = true;
  try {
    return write();
  } finally {
    c.api.trusted = was;
  }
}

/** The apiserver's create for a bootstrap body (see decodeBody). */
function trustedCreator(c: Cluster): {
  create(info: ResourceInfo, ns: string | undefined, body: unknown): KObject;
} {
  return {
    create(info, ns, body) {
      return trusted(c, () => c.api.create(info, ns, decodeBody(info, body)));
    },
  };
}

export function bootstrap(c: Cluster): void {
  const api = trustedCreator(c);
  for (const ns of ["default", "kube-node-lease", "kube-public", "kube-system"]) {
    api.create(R.namespaces, undefined, {
      metadata: { name: ns, labels: { "kubernetes.io/metadata.name": ns } },
    });
  }
  createDefaultPolicy(c);
  for (const n of c.config.nodes) registerNode(c, n);
  const master = c.config.nodes.find((n) => n.controlPlane) ?? c.config.nodes[0];

  // The kubernetes Service and the endpoint the apiserver keeps for itself.
  api.create(R.services, "default", {
    metadata: { name: "kubernetes", labels: { component: "apiserver", provider: "kubernetes" } },
    spec: {
      clusterIP: firstServiceIP(c.config.serviceCIDR),
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }],
      sessionAffinity: "None",
      type: "ClusterIP",
    },
  });
  api.create(R.endpoints, "default", {
    metadata: { name: "kubernetes", labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
    subsets: [{ addresses: [{ ip: master.ip }], ports: [{ name: "https", port: 6443, protocol: "TCP" }] }],
  });
  api.create(R.endpointslices, "default", {
    metadata: { name: "kubernetes", labels: { "kubernetes.io/service-name": "kubernetes" } },
    addressType: "IPv4",
    endpoints: [{ addresses: [master.ip], conditions: { ready: true } }],
    ports: [{ name: "https", port: 6443, protocol: "TCP" }],
  });

  for (const comp of ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    createStaticPod(c, master, comp);
  }

  for (const sa of ["coredns", "kube-proxy"]) api.create(R.serviceaccounts, "kube-system", { metadata: { name: sa } });

  // kube-proxy (kubeadm's addon/proxy manifests).
  api.create(R.configmaps, "kube-system", {
    metadata: { name: "kube-proxy", labels: { app: "kube-proxy" } },
    data: { "config.conf": kubeProxyConfig(c.config.clusterCIDR), "kubeconfig.conf": kubeProxyKubeconfig(master.ip) },
  });
  const version = c.config.kubernetesVersion;
  api.create(R.daemonsets, "kube-system", kubeProxyDaemonSet(version));

  // CoreDNS (kubeadm's addon/dns manifests).
  api.create(R.configmaps, "kube-system", {
    metadata: { name: "coredns" },
    data: { Corefile: corefile(c.config.dnsDomain) },
  });
  api.create(R.deployments, "kube-system", coreDNSDeployment());
  api.create(R.services, "kube-system", {
    metadata: {
      name: "kube-dns",
      labels: { "k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS" },
      annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" },
    },
    spec: {
      clusterIP: c.config.dnsIP,
      ports: [
        { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
        { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
      ],
      selector: { "k8s-app": "kube-dns" },
    },
  });

  api.create(R.configmaps, "kube-public", {
    metadata: { name: "cluster-info" },
    data: { kubeconfig: clusterInfoKubeconfig(master.ip) },
  });
  for (const ns of ["default", "kube-node-lease", "kube-public", "kube-system"]) {
    api.create(R.configmaps, ns, rootCAConfigMap(FAKE_CA));
  }
  createLeases(c, master);
}

const POLICY_RESOURCES = {
  ClusterRole: lookupResource("rbac.authorization.k8s.io", "clusterroles")!,
  ClusterRoleBinding: lookupResource("rbac.authorization.k8s.io", "clusterrolebindings")!,
  Role: lookupResource("rbac.authorization.k8s.io", "roles")!,
  RoleBinding: lookupResource("rbac.authorization.k8s.io", "rolebindings")!,
};

/**
 * The RBAC objects the apiserver's bootstrap policy and kubeadm create (rbac/bootstrap-policy.ts).
 * Their bodies are made once per process and frozen; the apiserver stores its own copy of each.
 */
function createDefaultPolicy(c: Cluster): void {
  trusted(c, () => {
    for (const b of defaultPolicyBodies()) c.api.create(POLICY_RESOURCES[b.kind], b.metadata.namespace, b, { sharedDefinition: true });
  });
}

/**
 * The Leases a kubeadm cluster's components hold: each kubelet's node lease in kube-node-lease,
 * the controller-manager's and scheduler's leader-election leases and the apiserver's identity
 * lease in kube-system. Their renewals are not stored as writes: the apiserver presents a held
 * lease's renewTime as its holder's latest renewal (see Apiserver.presentLease).
 */
function createLeases(c: Cluster, master: NodeConfig): void {
  const api = trustedCreator(c);
  const rng = c.rng.get("leases");
  const now = rfc3339Micro(c.clock.now());
  for (const n of c.config.nodes) {
    const node = c.api.peek(R.nodes, undefined, n.name)!;
    api.create(R.leases, "kube-node-lease", {
      metadata: { name: n.name, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: n.name, uid: node.metadata.uid! }] },
      spec: { holderIdentity: n.name, leaseDurationSeconds: 40, renewTime: now },
    });
  }
  for (const name of ["kube-controller-manager", "kube-scheduler"]) {
    api.create(R.leases, "kube-system", {
      metadata: { name },
      spec: { acquireTime: now, holderIdentity: `${master.name}_${rng.uuid()}`, leaseDurationSeconds: 15, leaseTransitions: 0, renewTime: now },
    });
  }
  const id = apiserverIdentity(master.name);
  api.create(R.leases, "kube-system", {
    metadata: { name: id, labels: { "apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": master.name } },
    spec: { holderIdentity: `${id}_${rng.uuid()}`, leaseDurationSeconds: 3600, renewTime: now },
  });
}

/**
 * The apiserver's identity lease name: base32 of a hash of its hostname, as genericapiserver
 * derives it (once per cluster: not worth a memo shared by every tenant).
 */
function apiserverIdentity(hostname: string): string {
  const enc = new TextEncoder();
  const hash = sha256(new Uint8Array([...lengthPrefixed(enc.encode(hostname)), ...lengthPrefixed(enc.encode("kube-apiserver"))]));
  return "apiserver-" + base32(hash.slice(0, 16)).replace(/=+$/, "").toLowerCase();
}

/** A field of the identity hash's input: two bytes of length, then the bytes. */
function lengthPrefixed(b: Uint8Array): number[] {
  return [b.length >> 8, b.length & 255, ...b];
}

function firstServiceIP(cidr: string): string {
  const [base] = cidr.split("/");
  const parts = base.split(".").map(Number);
  parts[3] += 1;
  return parts.join(".");
}

function nodeLabels(n: NodeConfig): Record<string, string> {
  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "kubernetes.io/hostname": n.name,
    "kubernetes.io/os": "linux",
  };
  if (n.controlPlane) {
    labels["node-role.kubernetes.io/control-plane"] = "";
    labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
  }
  if (n.zone) labels["topology.kubernetes.io/zone"] = n.zone;
  return labels;
}

function nodeCondition(now: string, type: string, status: string, reason: string, message: string) {
  return { type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message };
}

function registerNode(c: Cluster, n: NodeConfig): void {
  const api = c.api;
  trustedCreator(c).create(R.nodes, undefined, {
    metadata: {
      name: n.name,
      labels: nodeLabels(n),
      annotations: {
        "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    spec: {
      podCIDR: n.podCIDR,
      podCIDRs: [n.podCIDR],
      ...(n.controlPlane ? { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {}),
    },
  });
  const now = rfc3339(c.clock.now());
  const rng = c.rng.get("bootstrap");
  const { status } = decodeBody(R.nodes, {
    metadata: { name: n.name },
    status: {
      capacity: { cpu: "2", "ephemeral-storage": "51175Mi", "hugepages-1Gi": "0", "hugepages-2Mi": "0", memory: "3969876Ki", pods: "110" },
      allocatable: { cpu: "2", "ephemeral-storage": "48294789041", "hugepages-1Gi": "0", "hugepages-2Mi": "0", memory: "3867476Ki", pods: "110" },
      conditions: [
        nodeCondition(now, "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        nodeCondition(now, "DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        nodeCondition(now, "PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        nodeCondition(now, "Ready", "True", "KubeletReady", "kubelet is posting ready status"),
      ],
      addresses: [
        { type: "InternalIP", address: n.ip },
        { type: "Hostname", address: n.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: rng.uuid().replace(/-/g, ""),
        systemUUID: rng.uuid(),
        bootID: rng.uuid(),
        kernelVersion: KERNEL_RELEASE,
        osImage: "Rocky Linux 9.4 (Blue Onyx)",
        containerRuntimeVersion: "containerd://1.7.27",
        kubeletVersion: c.config.kubernetesVersion,
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  });
  trusted(c, () => api.update(R.nodes, undefined, n.name, { ...api.peek(R.nodes, undefined, n.name)!, status }, { subresource: "status" }));
}

/** The requests kubeadm writes into its static pod manifests (what `kubectl describe node` sums). */
const STATIC_POD_REQUESTS: Record<string, Record<string, string>> = {
  etcd: { cpu: "100m", memory: "100Mi" },
  "kube-apiserver": { cpu: "250m" },
  "kube-controller-manager": { cpu: "200m" },
  "kube-scheduler": { cpu: "100m" },
};

function createStaticPod(c: Cluster, node: NodeConfig, component: string): void {
  const version = c.config.kubernetesVersion;
  const image = component === "etcd" ? ETCD_IMAGE : `registry.k8s.io/${component}:${version}`;
  const nodeObj = c.api.peek(R.nodes, undefined, node.name)!;
  const rng = c.rng.get("bootstrap");
  const pod = decodeBody(R.pods, {
    metadata: {
      name: `${component}-${node.name}`,
      namespace: "kube-system",
      labels: { component, tier: "control-plane" },
      annotations: {
        "kubernetes.io/config.hash": rng.string(32, "0123456789abcdef"),
        "kubernetes.io/config.mirror": rng.string(32, "0123456789abcdef"),
        "kubernetes.io/config.seen": rfc3339(c.clock.now()).replace("Z", ".000000000Z"),
        "kubernetes.io/config.source": "file",
      },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: node.name, uid: nodeObj.metadata.uid!, controller: true }],
    },
    spec: {
      containers: [{ name: component, image, command: [component], imagePullPolicy: "IfNotPresent", resources: { requests: STATIC_POD_REQUESTS[component] } }],
      hostNetwork: true,
      nodeName: node.name,
      priorityClassName: "system-node-critical",
      priority: 2000001000,
      tolerations: [{ operator: "Exists", effect: "NoExecute" }],
    },
  });
  trusted(c, () => c.api.create(R.pods, "kube-system", pod));
}

function kubeProxyDaemonSet(version: string): KObject {
  return {
    metadata: { name: "kube-proxy", labels: { "k8s-app": "kube-proxy" } },
    spec: {
      selector: { matchLabels: { "k8s-app": "kube-proxy" } },
      template: {
        metadata: { labels: { "k8s-app": "kube-proxy" } },
        spec: {
          containers: [
            {
              name: "kube-proxy",
              image: `${KUBE_PROXY_IMAGE_REPO}:${version}`,
              imagePullPolicy: "IfNotPresent",
              command: ["/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf", "--hostname-override=$(NODE_NAME)"],
              env: [{ name: "NODE_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.nodeName" } } }],
              securityContext: { privileged: true },
              volumeMounts: [
                { mountPath: "/var/lib/kube-proxy", name: "kube-proxy" },
                { mountPath: "/run/xtables.lock", name: "xtables-lock" },
                { mountPath: "/lib/modules", name: "lib-modules", readOnly: true },
              ],
            },
          ],
          hostNetwork: true,
          nodeSelector: { "kubernetes.io/os": "linux" },
          priorityClassName: "system-node-critical",
          serviceAccountName: "kube-proxy",
          tolerations: [{ operator: "Exists" }],
          volumes: [
            { name: "kube-proxy", configMap: { name: "kube-proxy" } },
            { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
            { name: "lib-modules", hostPath: { path: "/lib/modules", type: "" } },
          ],
        },
      },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    },
  };
}

function coreDNSDeployment(): KObject {
  return {
    metadata: { name: "coredns", labels: { "k8s-app": "kube-dns" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { "k8s-app": "kube-dns" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
      template: {
        metadata: { labels: { "k8s-app": "kube-dns" } },
        spec: {
          containers: [
            {
              name: "coredns",
              image: COREDNS_IMAGE,
              imagePullPolicy: "IfNotPresent",
              args: ["-conf", "/etc/coredns/Corefile"],
              ports: [
                { containerPort: 53, name: "dns", protocol: "UDP" },
                { containerPort: 53, name: "dns-tcp", protocol: "TCP" },
                { containerPort: 9153, name: "metrics", protocol: "TCP" },
              ],
              resources: { limits: { memory: "170Mi" }, requests: { cpu: "100m", memory: "70Mi" } },
              livenessProbe: { httpGet: { path: "/health", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5 },
              readinessProbe: { httpGet: { path: "/ready", port: 8181, scheme: "HTTP" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
                readOnlyRootFilesystem: true,
              },
              volumeMounts: [{ mountPath: "/etc/coredns", name: "config-volume", readOnly: true }],
            },
          ],
          dnsPolicy: "Default",
          nodeSelector: { "kubernetes.io/os": "linux" },
          priorityClassName: "system-cluster-critical",
          serviceAccountName: "coredns",
          tolerations: [
            { key: "CriticalAddonsOnly", operator: "Exists" },
            { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
          ],
          volumes: [{ name: "config-volume", configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] } }],
        },
      },
    },
  };
}

function corefile(domain: string): string {
  return `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${domain} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${domain}
       disable denial ${domain}
    }
    loop
    reload
    loadbalance
}
`;
}

/** The KubeProxyConfiguration kubeadm writes (mode "" means iptables on Linux). */
function kubeProxyConfig(clusterCIDR: string): string {
  return `apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
bindAddressHardFail: false
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
  qps: 0
clusterCIDR: ${clusterCIDR}
configSyncPeriod: 0s
conntrack:
  maxPerCore: null
  min: null
  tcpBeLiberal: false
  tcpCloseWaitTimeout: null
  tcpEstablishedTimeout: null
  udpStreamTimeout: 0s
  udpTimeout: 0s
detectLocal:
  bridgeInterface: ""
  interfaceNamePrefix: ""
detectLocalMode: ""
enableProfiling: false
healthzBindAddress: ""
hostnameOverride: ""
iptables:
  localhostNodePorts: null
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
ipvs:
  excludeCIDRs: null
  minSyncPeriod: 0s
  scheduler: ""
  strictARP: false
  syncPeriod: 0s
  tcpFinTimeout: 0s
  tcpTimeout: 0s
  udpTimeout: 0s
kind: KubeProxyConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
metricsBindAddress: ""
mode: ""
nftables:
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
nodePortAddresses: null
oomScoreAdj: null
portRange: ""
showHiddenMetricsForVersion: ""
winkernel:
  enableDSR: false
  forwardHealthCheckVip: false
  networkName: ""
  rootHnsEndpointName: ""
  sourceVip: ""
`;
}

function kubeProxyKubeconfig(masterIP: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
    server: https://${masterIP}:6443
  name: default
contexts:
- context:
    cluster: default
    namespace: default
    user: default
  name: default
current-context: default
users:
- name: default
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
`;
}

function clusterInfoKubeconfig(masterIP: string): string {
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${btoaAscii(FAKE_CA)}
    server: https://${masterIP}:6443
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`;
}

function btoaAscii(s: string): string {
  return btoa(s);
}

/** A placeholder CA: the sandbox has no TLS, but kubeadm's ConfigMaps carry one. */
export const FAKE_CA = `-----BEGIN CERTIFICATE-----
MIIDBTCCAe2gAwIBAgIIServiceLabSandboxCAwDQYJKoZIhvcNAQELBQAwFTET
MBEGA1UEAxMKa3ViZXJuZXRlczAeFw0yNjAxMDEwMDAwMDBaFw0zNjAxMDEwMDAw
MDBaMBUxEzARBgNVBAMTCmt1YmVybmV0ZXMwggEiMA0GCSqGSIb3DQEBAQUAA4IB
-----END CERTIFICATE-----
`;
