import { describe, expect, it } from "vitest";
import { applyDefaults, imageTag } from "./defaults";

const d = (kind: string, obj: any, old?: any) => {
  applyDefaults(kind, obj, old);
  return obj;
};

describe("imageTag (parsers.ParseImageName)", () => {
  it("resolves latest, explicit tags, registry ports and digests", () => {
    expect(imageTag("nginx")).toBe("latest");
    expect(imageTag("nginx:latest")).toBe("latest");
    expect(imageTag("nginx:1.27")).toBe("1.27");
    expect(imageTag("localhost:5000/nginx")).toBe("latest");
    expect(imageTag("registry.k8s.io/pause:3.10")).toBe("3.10");
    expect(imageTag("nginx@sha256:abcd")).toBe("");
  });
});

describe("Pod defaults", () => {
  const pod = () =>
    d("Pod", {
      metadata: { name: "p", namespace: "default" },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            readinessProbe: { httpGet: { port: 80 } },
          },
          { name: "d", image: "busybox:1.36" },
        ],
        volumes: [{ name: "cfg", configMap: { name: "x" } }, { name: "tmp" }],
      },
    });

  it("fills the PodSpec, container, probe and volume defaults", () => {
    const p = pod();
    expect(p.spec).toMatchObject({
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      securityContext: {},
      enableServiceLinks: true,
      serviceAccountName: "default",
      serviceAccount: "default",
      priority: 0,
      preemptionPolicy: "PreemptLowerPriority",
    });
    const [c, c2] = p.spec.containers;
    expect(c).toMatchObject({
      imagePullPolicy: "Always",
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      resources: {},
      ports: [{ containerPort: 80, protocol: "TCP" }],
      readinessProbe: { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, httpGet: { path: "/", scheme: "HTTP", port: 80 } },
    });
    expect(c2.imagePullPolicy).toBe("IfNotPresent");
    expect(p.spec.volumes[0].configMap.defaultMode).toBe(420);
    expect(p.spec.volumes[1].emptyDir).toEqual({});
  });

  it("adds the DefaultTolerationSeconds tolerations", () => {
    expect(pod().spec.tolerations).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    const tolerAll = d("Pod", { metadata: { name: "p" }, spec: { containers: [], tolerations: [{ operator: "Exists" }] } });
    expect(tolerAll.spec.tolerations).toEqual([{ operator: "Exists" }]);
  });

  it("defaults hostPort to containerPort for hostNetwork pods only", () => {
    const p = d("Pod", { metadata: { name: "p" }, spec: { hostNetwork: true, containers: [{ name: "c", image: "x", ports: [{ containerPort: 53 }] }] } });
    expect(p.spec.containers[0].ports[0].hostPort).toBe(53);
    const dep = d("Deployment", {
      metadata: { name: "x" },
      spec: { template: { spec: { hostNetwork: true, containers: [{ name: "c", image: "x", ports: [{ containerPort: 53 }] }] } } },
    });
    expect(dep.spec.template.spec.containers[0].ports[0].hostPort).toBeUndefined();
  });
});

describe("Service defaults", () => {
  it("defaults a ClusterIP service", () => {
    const s = d("Service", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } });
    expect(s.spec).toEqual({
      selector: { app: "web" },
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilyPolicy: "SingleStack",
      ipFamilies: ["IPv4"],
    });
  });

  it("defaults ClientIP affinity, NodePort and LoadBalancer fields", () => {
    const s = d("Service", { metadata: { name: "web" }, spec: { type: "LoadBalancer", sessionAffinity: "ClientIP", ports: [{ port: 80, targetPort: "http" }] } });
    expect(s.spec.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    expect(s.spec.externalTrafficPolicy).toBe("Cluster");
    expect(s.spec.allocateLoadBalancerNodePorts).toBe(true);
    expect(s.spec.ports[0].targetPort).toBe("http");
    const np = d("Service", { metadata: { name: "web" }, spec: { type: "NodePort", ports: [{ port: 80 }] } });
    expect(np.spec.externalTrafficPolicy).toBe("Cluster");
    expect(np.spec.allocateLoadBalancerNodePorts).toBeUndefined();
  });

  it("drops sessionAffinityConfig when affinity is None", () => {
    const s = d("Service", { metadata: { name: "web" }, spec: { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } } });
    expect(s.spec.sessionAffinityConfig).toBeUndefined();
  });

  it("headless services: selectorless ones become RequireDualStack with both families", () => {
    const sel = d("Service", { metadata: { name: "h" }, spec: { clusterIP: "None", selector: { app: "x" } } });
    expect(sel.spec).toMatchObject({ clusterIPs: ["None"], ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] });
    const nosel = d("Service", { metadata: { name: "h" }, spec: { clusterIP: "None" } });
    expect(nosel.spec).toMatchObject({ ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv4", "IPv6"] });
  });

  it("ExternalName services get no family fields nor internalTrafficPolicy", () => {
    const s = d("Service", { metadata: { name: "e" }, spec: { type: "ExternalName", externalName: "example.com" } });
    expect(s.spec.ipFamilies).toBeUndefined();
    expect(s.spec.ipFamilyPolicy).toBeUndefined();
    expect(s.spec.internalTrafficPolicy).toBeUndefined();
  });

  it("keeps allocated clusterIPs on update", () => {
    const old = { metadata: { name: "web" }, spec: { type: "ClusterIP", clusterIP: "10.96.0.20", clusterIPs: ["10.96.0.20"], ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] } };
    const s = d("Service", { metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } }, old);
    expect(s.spec.clusterIP).toBe("10.96.0.20");
    expect(s.spec.clusterIPs).toEqual(["10.96.0.20"]);
  });
});

describe("apps/v1 defaults", () => {
  const tmpl = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } };
  it("Deployment", () => {
    const x = d("Deployment", { metadata: { name: "web" }, spec: { selector: { matchLabels: { app: "web" } }, template: structuredClone(tmpl) } });
    expect(x.spec).toMatchObject({
      replicas: 1,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: "web" } },
    });
    expect(x.spec.template.spec).toMatchObject({ restartPolicy: "Always", dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler" });
    expect(x.spec.template.spec.enableServiceLinks).toBeUndefined();
    expect(x.spec.template.spec.tolerations).toBeUndefined();
    const noSel = d("Deployment", { metadata: { name: "web" }, spec: { template: structuredClone(tmpl) } });
    expect(noSel.spec.selector).toBeUndefined();
  });
  it("Recreate strategy gets no rollingUpdate", () => {
    const x = d("Deployment", { metadata: { name: "web" }, spec: { strategy: { type: "Recreate" }, template: structuredClone(tmpl) } });
    expect(x.spec.strategy).toEqual({ type: "Recreate" });
  });
  it("ReplicaSet, DaemonSet, StatefulSet", () => {
    expect(d("ReplicaSet", { metadata: {}, spec: { template: structuredClone(tmpl) } }).spec.replicas).toBe(1);
    expect(d("DaemonSet", { metadata: {}, spec: { template: structuredClone(tmpl) } }).spec).toMatchObject({
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
    expect(d("StatefulSet", { metadata: {}, spec: { template: structuredClone(tmpl) } }).spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
  });
});

describe("other kinds", () => {
  it("Namespace", () => {
    expect(d("Namespace", { metadata: { name: "dev" } })).toEqual({
      metadata: { name: "dev", labels: { "kubernetes.io/metadata.name": "dev" } },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
  });
  it("EndpointSlice and Endpoints ports", () => {
    expect(d("EndpointSlice", { metadata: {}, addressType: "IPv4", endpoints: [], ports: [{ port: 80 }] }).ports).toEqual([{ port: 80, name: "", protocol: "TCP" }]);
    expect(d("Endpoints", { metadata: {}, subsets: [{ ports: [{ port: 80 }] }] }).subsets[0].ports[0].protocol).toBe("TCP");
  });
  it("IPAddressPool", () => {
    expect(d("IPAddressPool", { metadata: {}, spec: { addresses: ["10.0.0.0/24"] } }).spec).toEqual({ addresses: ["10.0.0.0/24"], autoAssign: true, avoidBuggyIPs: false });
  });
});

describe("Pod resource defaults (SetDefaults_Pod)", () => {
  it("requests a container's limits where it requests nothing, in pods but not in templates", () => {
    const c = () => ({ name: "c", image: "nginx", resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m" } } });
    const pod = d("Pod", { metadata: { name: "p", namespace: "default" }, spec: { containers: [c()], initContainers: [{ name: "i", image: "busybox", resources: { limits: { memory: "1Gi" } } }] } });
    expect(pod.spec.containers[0].resources).toEqual({ limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(pod.spec.initContainers[0].resources).toEqual({ limits: { memory: "1Gi" }, requests: { memory: "1Gi" } });
    const deploy = d("Deployment", { metadata: { name: "d", namespace: "default" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [c()] } } } });
    expect(deploy.spec.template.spec.containers[0].resources.requests).toEqual({ cpu: "100m" });
  });
});
