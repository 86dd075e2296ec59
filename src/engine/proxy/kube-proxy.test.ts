import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { ConfigMap, Pod } from "../api/types.js";
import type { Cluster } from "../cluster.js";
import { deploymentBody, testCluster, waitRollout } from "../testing.js";
import { IptablesProxier } from "./iptables/proxier.js";
import { iptablesSave, toOutput } from "./iptables/render.js";
import { IpvsProxier } from "./ipvs/proxier.js";
import { ipAddrShowDummy, ipvsadmList } from "./ipvs/render.js";
import { NftablesProxier } from "./nftables/proxier.js";

function proxyPods(c: Cluster): Pod[] {
  return c.client.list(R.pods, "kube-system", { labelSelector: "k8s-app=kube-proxy" }).items as Pod[];
}

function logs(c: Cluster, pod: Pod): string[] {
  return (c.kubelet.logs(pod, "kube-proxy") ?? []).map((l) => l.line);
}

function natSave(c: Cluster, node: string): string {
  return toOutput(iptablesSave(c.proxies.node(node).iptables()!, { date: "x", table: "nat" })).stdout;
}

/** kubectl edit cm kube-proxy -n kube-system: replace a line of config.conf. */
function editConfig(c: Cluster, from: RegExp, to: string): void {
  const cm = c.client.get(R.configmaps, "kube-system", "kube-proxy") as ConfigMap;
  const conf = cm.data!["config.conf"];
  expect(conf).toMatch(from);
  c.client.patch(R.configmaps, "kube-system", "kube-proxy", "merge", { data: { "config.conf": conf.replace(from, to) } });
}

/** kubectl rollout restart daemonset kube-proxy -n kube-system, then wait for it. */
let restarts = 0;
function restartProxies(c: Cluster): void {
  c.client.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", {
    spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": `2026-01-01T01:00:${String(restarts++ % 60).padStart(2, "0")}Z` } } } },
  });
  c.runUntilIdle(600_000);
}

describe("kube-proxy in a cluster", () => {
  it("runs in iptables mode on every node of a fresh cluster, with the kubernetes and kube-dns services", () => {
    const c = testCluster();
    for (const node of ["master", "node1", "node2"]) {
      const n = c.proxies.node(node);
      expect(n.mode).toBe("iptables");
      expect(n.running).toBe(true);
      expect(n.proxier).toBeInstanceOf(IptablesProxier);
      const save = natSave(c, node);
      expect(save).toContain('-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y');
      expect(save).toContain('-m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp --dport 53 -j KUBE-SVC-TCOU7JCQXEZGVUNU');
      expect(save).toContain("-j DNAT --to-destination 10.1.8.30:6443");
    }
  });

  it("writes kube-proxy v1.33's start-up lines to the pod's log (kubectl logs)", () => {
    const c = testCluster();
    const pod = proxyPods(c).find((p) => p.spec.nodeName === "node1")!;
    const lines = logs(c, pod);
    expect(lines[0]).toMatch(/^I0101 00:00:\d\d\.\d{6}       1 server_linux\.go:63\] "Using iptables proxy"$/);
    expect(lines.map((l) => l.replace(/^.*?\] /, ""))).toEqual([
      '"Using iptables proxy"',
      '"Successfully retrieved node IP(s)" IPs=["10.1.8.31"]',
      '"Setting nf_conntrack_max" nfConntrackMax=131072',
      '"Kube-proxy configuration may be incomplete or incorrect" err="nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`"',
      '"kube-proxy running in dual-stack mode" primary ipFamily="IPv4"',
      '"Using iptables Proxier"',
      '"Setting route_localnet=1 to allow node-ports on localhost; to change this either disable iptables.localhostNodePorts (--iptables-localhost-nodeports) or set nodePortAddresses (--nodeport-addresses) to filter loopback addresses" ipFamily="IPv4"',
      '"Version info" version="v1.33.5"',
      '"Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""',
      '"Starting service config controller"',
      '"Waiting for caches to sync" controller="service config"',
      '"Starting endpoint slice config controller"',
      '"Waiting for caches to sync" controller="endpoint slice config"',
      '"Starting serviceCIDR config controller"',
      '"Waiting for caches to sync" controller="serviceCIDR config"',
      '"Starting node config controller"',
      '"Waiting for caches to sync" controller="node config"',
      '"Caches are synced" controller="service config"',
      '"Caches are synced" controller="endpoint slice config"',
      '"Caches are synced" controller="serviceCIDR config"',
      '"Caches are synced" controller="node config"',
    ]);
  });

  it("syncs a new service and its endpoints incrementally", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "httpd", 3));
    waitRollout(c, "default", "web");
    c.client.create(R.services, "default", { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } });
    const save = natSave(c, "node2");
    expect(save).toContain('"default/web cluster IP"');
    expect((save.match(/-j DNAT --to-destination 10\.244\.\d+\.\d+:80/g) ?? []).length).toBe(3);
  });

  it("switches every node to IPVS after a ConfigMap edit and a DaemonSet restart", () => {
    const c = testCluster();
    const oldPods = new Set(proxyPods(c).map((p) => p.metadata.name));
    editConfig(c, /^mode: ""$/m, "mode: ipvs");
    // Editing the ConfigMap alone changes nothing: kube-proxy read it at start.
    expect(c.proxies.node("node1").mode).toBe("iptables");
    restartProxies(c);
    const pods = proxyPods(c);
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(oldPods.has(pod.metadata.name)).toBe(false);
      const n = c.proxies.node(pod.spec.nodeName!);
      expect(n.mode).toBe("ipvs");
      expect(n.proxier).toBeInstanceOf(IpvsProxier);
      const body = logs(c, pod).map((l) => l.replace(/^.*?\] /, ""));
      expect(body).toContain('"Using ipvs Proxier"');
      expect(body.filter((l) => l === '"IPVS scheduler not specified, use rr by default"')).toHaveLength(2);
      expect(body).not.toContain('"Using iptables Proxier"');
      expect(body.join("\n")).not.toMatch(/deprecated/);
      expect(logs(c, pod).find((l) => l.includes("Using ipvs Proxier"))).toMatch(/ server_linux\.go:206\] "Using ipvs Proxier"$/);
    }
    const n1 = c.proxies.node("node1");
    const ipvs = n1.ipvs()!;
    const list = ipvsadmList(ipvs)!;
    expect(list).toContain("TCP  10.96.0.1:443 rr\n  -> 10.1.8.30:6443               Masq    1      0          0         \n");
    expect(list).toContain("UDP  10.96.0.10:53 rr\n");
    expect(ipAddrShowDummy(ipvs)).toContain("    inet 10.96.0.10/32 scope global kube-ipvs0\n");
    // iptables -> ipvs: platformCleanup leaves the iptables mode's per-service chains behind.
    const save = natSave(c, "node1");
    expect(save).toContain(":KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]");
    expect(save).toContain("-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT");
    expect(save).not.toContain("-j KUBE-SVC-NPX46M4PTMTKRN6Y\n-A KUBE-SERVICES"); // KUBE-SERVICES is IPVS mode's now
  });

  it("nftables removes iptables and IPVS leftovers; iptables after IPVS keeps kube-ipvs0", () => {
    const c = testCluster();
    editConfig(c, /^mode: ""$/m, "mode: ipvs");
    restartProxies(c);
    editConfig(c, /^mode: ipvs$/m, "mode: iptables");
    restartProxies(c);
    const n = c.proxies.node("node2");
    expect(n.mode).toBe("iptables");
    expect(n.ipvs()).toBeDefined(); // the IPVS state stays on the node
    expect(natSave(c, "node2")).toContain(":KUBE-NODE-PORT - [0:0]");
    editConfig(c, /^mode: iptables$/m, "mode: nftables");
    restartProxies(c);
    const m = c.proxies.node("node2");
    expect(m.proxier).toBeInstanceOf(NftablesProxier);
    expect(m.ipvs()).toBeUndefined();
    expect(m.iptables()).toBeUndefined();
    const pod = proxyPods(c).find((p) => p.spec.nodeName === "node2")!;
    expect(logs(c, pod).join("\n")).toContain('server_linux.go:267] "Using nftables Proxier"');
    expect(logs(c, pod).join("\n")).not.toContain("nodePortAddresses is unset");
  });

  it("refuses an unknown mode (userspace) the way kube-proxy does: the container exits, CrashLoopBackOff", () => {
    const c = testCluster();
    editConfig(c, /^mode: ""$/m, "mode: userspace");
    c.client.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", {
      spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T01:00:00Z" } } } },
    });
    c.advance(30_000);
    const crashed = proxyPods(c).find((p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0 || p.status?.containerStatuses?.[0]?.state?.waiting);
    expect(crashed).toBeDefined();
    const st = crashed!.status!.containerStatuses![0];
    expect(st.state?.waiting?.reason ?? st.state?.terminated?.reason).toMatch(/CrashLoopBackOff|Error/);
    const lines = (c.kubelet.logs(crashed!, "kube-proxy", (st.restartCount ?? 0) > 0) ?? []).map((l) => l.line);
    expect(lines.join("\n")).toMatch(
      /^E0101 \d\d:\d\d:\d\d\.\d{6}       1 run\.go:72\] "command failed" err="failed validate: KubeProxyConfiguration\.ProxyMode: Invalid value: \\"userspace\\": must be iptables,ipvs,nftables or blank \(blank means the best-available proxy \[currently iptables\]\)"$/m,
    );
    // The node whose pod is crashing keeps the rules its last kube-proxy wrote.
    expect(c.proxies.node(crashed!.spec.nodeName!).running).toBe(false);
    expect(c.proxies.node(crashed!.spec.nodeName!).mode).toBe("iptables");
  });

  it("refuses an IPVS scheduler the kernel does not have", () => {
    const c = testCluster();
    editConfig(c, /^mode: ""$/m, "mode: ipvs");
    editConfig(c, /^  scheduler: ""$/m, "  scheduler: bogus");
    c.client.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", {
      spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T01:00:00Z" } } } },
    });
    c.advance(30_000);
    const all = proxyPods(c).flatMap((p) => [...(c.kubelet.logs(p, "kube-proxy", true) ?? []), ...(c.kubelet.logs(p, "kube-proxy") ?? [])].map((l) => l.line));
    expect(all.join("\n")).toContain('"Could not create dummy VS" err="no such file or directory" scheduler="bogus"');
    expect(all.join("\n")).toContain('run.go:72] "command failed" err="can\'t use the IPVS proxier: no such file or directory"');
  });

  it("gives every node the rules an unshared proxier builds from that node's own view", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "httpd", 4));
    waitRollout(c, "default", "web");
    const svc = (name: string, spec: object) =>
      c.client.create(R.services, "default", { metadata: { name }, spec: { selector: { app: "web" }, ports: [{ port: 80 }], ...spec } });
    svc("web", {});
    svc("web-itp", { internalTrafficPolicy: "Local" });
    svc("web-etp", { type: "NodePort", externalTrafficPolicy: "Local" });
    svc("web-sticky", { sessionAffinity: "ClientIP" });
    // Incremental syncs on top of the full ones.
    for (const replicas of [7, 2]) {
      c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas } });
      waitRollout(c, "default", "web");
    }
    for (const n of c.config.nodes) {
      const mine = c.proxies.node(n.name);
      const view = c.proxies.tracker.view(n.name).state;
      const alone = new IptablesProxier({ name: n.name, ips: [n.ip], podCIDR: n.podCIDR, zone: n.zone ?? "" }, mine.config!);
      alone.sync({ services: view.services, endpoints: view.endpoints });
      for (const table of ["nat", "filter"]) {
        const save = (rs: Parameters<typeof iptablesSave>[0]) => toOutput(iptablesSave(rs, { date: "x", table })).stdout;
        expect(save(mine.iptables()!)).toBe(save(alone.ruleset));
      }
    }
  });

  it("survives snapshot and restore with the same proxier mode and rules", () => {
    const c = testCluster();
    editConfig(c, /^mode: ""$/m, "mode: ipvs");
    restartProxies(c);
    const before = ipvsadmList(c.proxies.node("node1").ipvs()!);
    const r = (c.constructor as typeof Cluster).restore(JSON.parse(JSON.stringify(c.snapshot())));
    expect(r.proxies.node("node1").mode).toBe("ipvs");
    expect(ipvsadmList(r.proxies.node("node1").ipvs()!)).toBe(before);
  });
});
