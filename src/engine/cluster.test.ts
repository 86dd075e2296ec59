import { describe, expect, it } from "vitest";
import { R } from "./api/resources.js";
import type { DaemonSet, Node, Pod, Service } from "./api/types.js";
import { Cluster } from "./cluster.js";
import { deploymentBody, podsOf, testCluster, waitRollout } from "./testing.js";

describe("a fresh cluster looks like kubeadm left it", () => {
  const c = testCluster();

  it("has the four namespaces and three Ready nodes", () => {
    expect(c.client.list(R.namespaces, undefined).items.map((n) => n.metadata.name)).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    const nodes = c.client.list(R.nodes, undefined).items as Node[];
    expect(nodes.map((n) => [n.metadata.name, n.status!.addresses![0].address, n.spec!.podCIDR])).toEqual([
      ["master", "10.1.8.30", "10.244.0.0/24"],
      ["node1", "10.1.8.31", "10.244.1.0/24"],
      ["node2", "10.1.8.32", "10.244.2.0/24"],
    ]);
    for (const n of nodes) expect(n.status!.conditions!.find((x) => x.type === "Ready")!.status).toBe("True");
    expect(nodes[0].spec!.taints).toEqual([{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]);
  });

  it("serves kubernetes at 10.96.0.1 and kube-dns at 10.96.0.10", () => {
    const k = c.client.get(R.services, "default", "kubernetes") as Service;
    expect(k.spec!.clusterIP).toBe("10.96.0.1");
    expect(k.spec!.ports).toEqual([{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }]);
    const dns = c.client.get(R.services, "kube-system", "kube-dns") as Service;
    expect(dns.spec!.clusterIP).toBe("10.96.0.10");
    expect(dns.spec!.ports!.map((p) => `${p.name}:${p.port}/${p.protocol}`)).toEqual(["dns:53/UDP", "dns-tcp:53/TCP", "metrics:9153/TCP"]);
  });

  it("runs CoreDNS, kube-proxy on every node and the control plane's static pods", () => {
    const pods = podsOf(c, "kube-system");
    const running = pods.filter((p) => p.status?.phase === "Running").map((p) => p.metadata.name!.replace(/^(coredns-)[a-z0-9]+-[a-z0-9]{5}$/, "$1*-*").replace(/^(kube-proxy-)[a-z0-9]{5}$/, "$1*"));
    expect(running.sort()).toEqual(
      ["coredns-*-*", "coredns-*-*", "etcd-master", "kube-apiserver-master", "kube-controller-manager-master", "kube-proxy-*", "kube-proxy-*", "kube-proxy-*", "kube-scheduler-master"].sort(),
    );
    const proxies = pods.filter((p) => p.metadata.labels?.["k8s-app"] === "kube-proxy");
    expect(proxies.map((p) => p.spec.nodeName).sort()).toEqual(["master", "node1", "node2"]);
    for (const p of proxies) expect(p.status!.podIP).toBe(c.config.nodes.find((n) => n.name === p.spec.nodeName)!.ip);
    const ds = c.client.get(R.daemonsets, "kube-system", "kube-proxy") as DaemonSet;
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3 });
    const cm = c.client.get(R.configmaps, "kube-system", "kube-proxy");
    expect((cm.data as Record<string, string>)["config.conf"]).toContain('\nmode: ""\n');
  });

  it("has the endpoints of kubernetes and kube-dns", () => {
    const ep = c.client.get(R.endpoints, "kube-system", "kube-dns");
    const subsets = ep.subsets as { addresses: { ip: string }[] }[];
    expect(subsets[0].addresses.map((a) => a.ip).sort()).toEqual(podsOf(c, "kube-system", "k8s-app=kube-dns").map((p) => p.status!.podIP).sort());
  });
});

describe("determinism", () => {
  function run(): string {
    const c = testCluster({ seed: 42 });
    c.client.create(R.deployments, "default", deploymentBody("web", "httpd:2.4.58", 3));
    c.client.create(R.services, "default", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 8080, targetPort: 80 }] } });
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 5 } });
    c.advance(30_000);
    c.client.delete(R.deployments, "default", "web");
    c.advance(60_000);
    return JSON.stringify(c.snapshot());
  }

  it("gives byte-identical state for the same seed and writes", () => {
    expect(run()).toBe(run());
  });

  it("restores a snapshot that continues exactly as the original", () => {
    const a = testCluster({ seed: 5 });
    a.client.create(R.deployments, "default", deploymentBody("web", "nginx", 2));
    a.advance(1000); // mid-start: timers pending
    const b = Cluster.restore(JSON.parse(JSON.stringify(a.snapshot())));
    for (const c of [a, b]) {
      c.advance(10_000);
      c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 4 } });
      c.advance(10_000);
    }
    expect(JSON.stringify(b.snapshot())).toBe(JSON.stringify(a.snapshot()));
    expect(podsOf(b, "default").filter((p) => p.status?.phase === "Running")).toHaveLength(4);
  });
});

describe("the lab guide's object operations", () => {
  it("deployment, service, scale, rollout restart, selector change and delete keep Endpoints and EndpointSlices right", () => {
    const c = testCluster();
    const readyIPs = () => podsOf(c, "default", "app=web").filter((p) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True")).map((p) => p.status!.podIP!).sort();
    const endpointIPs = () => {
      const ep = c.client.get(R.endpoints, "default", "web");
      return ((ep.subsets as { addresses?: { ip: string }[] }[] | undefined) ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();
    };
    const sliceReadyIPs = () =>
      c.client
        .list(R.endpointslices, "default", { labelSelector: "kubernetes.io/service-name=web" })
        .items.flatMap((s) => ((s.endpoints as { addresses: string[]; conditions: { ready: boolean } }[] | null) ?? []).filter((e) => e.conditions.ready).map((e) => e.addresses[0]))
        .sort();

    // kubectl create deployment web --image=httpd:2.4.58 --replicas=3
    c.client.create(R.deployments, "default", deploymentBody("web", "hub.laoma.cloud/library/httpd:2.4.58", 3));
    // kubectl create service clusterip web --tcp=8080:80
    const svc = c.client.create(R.services, "default", {
      metadata: { name: "web", labels: { app: "web" } },
      spec: { type: "ClusterIP", selector: { app: "web" }, ports: [{ name: "8080-80", port: 8080, protocol: "TCP", targetPort: 80 }] },
    }) as Service;
    expect(svc.spec!.clusterIP).toMatch(/^10\./);
    expect(endpointIPs()).toEqual([]);
    waitRollout(c, "default", "web");
    expect(readyIPs()).toHaveLength(3);
    expect(endpointIPs()).toEqual(readyIPs());
    expect(sliceReadyIPs()).toEqual(readyIPs());
    const ep = c.client.get(R.endpoints, "default", "web");
    expect((ep.subsets as { ports: unknown[] }[])[0].ports).toEqual([{ name: "8080-80", port: 80, protocol: "TCP" }]);

    // kubectl scale deployment web --replicas 5
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 5 } });
    waitRollout(c, "default", "web");
    expect(endpointIPs()).toHaveLength(5);
    expect(sliceReadyIPs()).toEqual(endpointIPs());

    // kubectl rollout restart deployment web: every pod is replaced, endpoints follow.
    const before = new Set(readyIPs());
    c.client.patch(R.deployments, "default", "web", "strategic", {
      spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:10:00Z" } } } },
    });
    waitRollout(c, "default", "web");
    c.advance(5_000);
    expect(readyIPs()).toHaveLength(5);
    expect(readyIPs().some((ip) => before.has(ip))).toBe(false);
    expect(endpointIPs()).toEqual(readyIPs());
    expect(sliceReadyIPs()).toEqual(readyIPs());
    const rss = c.client.list(R.replicasets, "default").items;
    expect(rss).toHaveLength(2);
    expect(rss.map((r) => r.metadata.annotations!["deployment.kubernetes.io/revision"]).sort()).toEqual(["1", "2"]);

    // The Service's selector no longer matches: no endpoints.
    c.client.patch(R.services, "default", "web", "merge", { spec: { selector: { app2: "web2" } } });
    expect(endpointIPs()).toEqual([]);
    expect(sliceReadyIPs()).toEqual([]);
    // Label the pods to match again: endpoints come back.
    for (const p of podsOf(c, "default", "app=web")) c.client.patch(R.pods, "default", p.metadata.name!, "merge", { metadata: { labels: { app2: "web2" } } });
    expect(endpointIPs()).toEqual(readyIPs());

    // kubectl delete deployment web: the ReplicaSets and pods go, endpoints empty.
    c.client.delete(R.deployments, "default", "web");
    expect(c.client.list(R.replicasets, "default").items).toHaveLength(0);
    c.advance(60_000);
    expect(podsOf(c, "default")).toHaveLength(0);
    expect(endpointIPs()).toEqual([]);
  });

  it("deleting a namespace removes everything in it", () => {
    const c = testCluster();
    c.client.create(R.namespaces, undefined, { metadata: { name: "services" } });
    c.client.create(R.deployments, "services", deploymentBody("web", "nginx", 2));
    c.client.create(R.services, "services", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } });
    waitRollout(c, "services", "web");
    c.client.delete(R.namespaces, undefined, "services");
    expect(c.client.get(R.namespaces, undefined, "services").status).toEqual({ phase: "Terminating" });
    expect(() => c.client.create(R.configmaps, "services", { metadata: { name: "x" } })).toThrow(
      'configmaps "x" is forbidden: unable to create new content in namespace services because it is being terminated',
    );
    c.advance(60_000);
    expect(() => c.client.get(R.namespaces, undefined, "services")).toThrow('namespaces "services" not found');
    expect(c.store.list("pods", "services")).toHaveLength(0);
    expect(c.store.list("services", "services")).toHaveLength(0);
  });

  it("gives a pod the kubelet's environment and resolv.conf", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", {
      metadata: { name: "mysql" },
      spec: { containers: [{ name: "mysql", image: "mysql", env: [{ name: "MYSQL_ROOT_PASSWORD", value: "redhat" }] }] },
    });
    c.advance(10_000);
    c.client.create(R.services, "default", { metadata: { name: "mysql" }, spec: { selector: { run: "mysql" }, ports: [{ port: 3306 }] } });
    const mysqlIP = (c.client.get(R.services, "default", "mysql") as Service).spec!.clusterIP!;
    // The mysql pod started before its Service existed: no MYSQL_ variables, as on a real node.
    const env1 = new Map(c.kubelet.environment(c.client.get(R.pods, "default", "mysql") as Pod));
    expect(env1.get("KUBERNETES_SERVICE_HOST")).toBe("10.96.0.1");
    expect(env1.get("KUBERNETES_PORT_443_TCP")).toBe("tcp://10.96.0.1:443");
    expect(env1.has("MYSQL_SERVICE_HOST")).toBe(false);
    c.client.create(R.pods, "default", {
      metadata: { name: "wordpress" },
      spec: { containers: [{ name: "wordpress", image: "wordpress", env: [{ name: "WORDPRESS_DB_HOST", value: "$(MYSQL_SERVICE_HOST)" }] }] },
    });
    c.advance(10_000);
    const wp = c.client.get(R.pods, "default", "wordpress") as Pod;
    const env2 = new Map(c.kubelet.environment(wp));
    expect(env2.get("MYSQL_SERVICE_HOST")).toBe(mysqlIP);
    expect(env2.get("MYSQL_SERVICE_PORT")).toBe("3306");
    expect(env2.get("MYSQL_PORT_3306_TCP_ADDR")).toBe(mysqlIP);
    expect(env2.get("WORDPRESS_DB_HOST")).toBe(mysqlIP);
    expect(c.kubelet.filesystem(wp)!.read("/etc/resolv.conf")).toBe(
      "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n",
    );
  });
});
