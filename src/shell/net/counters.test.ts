// Counters that move: traffic through a node counts on the rules it matched (iptables -nvL,
// iptables-save -c, nft list ruleset in iptables mode) and on IPVS's virtual and real servers
// (ipvsadm -Ln --stats); diagnostic probes (explain) count nothing.
import { describe, expect, it } from "vitest";
import { R } from "../../engine/api/resources.js";
import type { ConfigMap } from "../../engine/api/types.js";
import type { Cluster } from "../../engine/cluster.js";
import { testCluster } from "../../engine/testing.js";
import { Session } from "../session.js";
import "./index.js";

async function webService(c: Cluster, s: Session): Promise<string> {
  const run = async (l: string) => {
    const r = await s.run(l);
    c.runUntilIdle(60_000);
    return r;
  };
  await run("kubectl create deployment web --image=nginx --replicas=2");
  await run("kubectl expose deployment web --port=80");
  return (await run("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).stdout.trim();
}

/** The packets column of the KUBE-SERVICES rule for the web service, from `iptables -t nat -nvL KUBE-SERVICES`. */
function webPackets(listing: string): number {
  const line = listing.split("\n").find((l) => l.includes("default/web cluster IP"));
  expect(line).toBeDefined();
  return Number(line!.trim().split(/\s+/)[0]);
}

describe("counters that move", () => {
  it("iptables mode: the rules a connection matched count its first packet", async () => {
    const c = testCluster();
    const s = new Session(c);
    const ip = await webService(c, s);
    const before = webPackets((await s.run("iptables -t nat -nvL KUBE-SERVICES")).stdout);
    expect(before).toBe(0);
    await s.run(`for i in 1 2 3 4 5; do curl -s ${ip} >/dev/null; done`);
    const list = (await s.run("iptables -t nat -nvL KUBE-SERVICES")).stdout;
    expect(webPackets(list)).toBe(5);
    // 5 SYNs of 60 bytes.
    expect(list).toMatch(/^ {4}5 {3}300 KUBE-SVC-\S+ +6 +-- +\* +\* +0\.0\.0\.0\/0 +10\.\d+\.\d+\.\d+ +\/\* default\/web cluster IP \*\//m);
    expect((await s.run("iptables -t nat -L KUBE-SERVICES -v -x -n")).stdout).toMatch(/^ {7}5 {6}300 KUBE-SVC-/m);
    // The nat OUTPUT chain's policy: the connections left it by KUBE-SERVICES' DNAT (ACCEPT), not by the policy.
    const save = (await s.run("iptables-save -c -t nat")).stdout;
    expect(save).toMatch(/^\[5:300\] -A KUBE-SERVICES -d \S+ -p tcp -m comment --comment "default\/web cluster IP" -m tcp --dport 80 -j KUBE-SVC-\S+$/m);
    expect(save).toMatch(/^\[0:0\] -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports/m);
    // Without -c, rules carry no counters; the chains' policy counters are always there.
    expect((await s.run("iptables-save -t nat")).stdout).not.toMatch(/^\[\d+:\d+\] -A/m);
    expect((await s.run("iptables-save -t nat")).stdout).toMatch(/^:POSTROUTING ACCEPT \[\d+:\d+\]$/m);
    // iptables -S -v: "-c PACKETS BYTES" before the target, and on the policies.
    const spec = (await s.run("iptables -t nat -S -v")).stdout;
    expect(spec).toMatch(/^-A KUBE-SERVICES -d \S+ -p tcp -m comment --comment "default\/web cluster IP" -m tcp --dport 80 -c 5 300 -j KUBE-SVC-\S+$/m);
    expect(spec).toMatch(/^-P PREROUTING ACCEPT -c \d+ \d+$/m);
    const nft = (await s.run("nft list chain ip nat KUBE-SERVICES")).stdout;
    expect(nft).toMatch(/ip daddr 10\.\d+\.\d+\.\d+  tcp dport 80 counter packets 5 bytes 300 jump KUBE-SVC-/);
    // explain routes a probe: nothing counted.
    await s.run(`explain ${ip}`);
    expect(webPackets((await s.run("iptables -t nat -nvL KUBE-SERVICES")).stdout)).toBe(5);
  });

  it("IPVS mode: ipvsadm --stats counts connections, packets and bytes of each virtual and real server", async () => {
    const c = testCluster();
    const cm = c.client.get(R.configmaps, "kube-system", "kube-proxy") as ConfigMap;
    c.client.patch(R.configmaps, "kube-system", "kube-proxy", "merge", { data: { "config.conf": cm.data!["config.conf"].replace(/^mode: ""$/m, "mode: ipvs") } });
    c.client.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T01:00:00Z" } } } } });
    c.runUntilIdle(600_000);
    const s = new Session(c);
    const ip = await webService(c, s);
    const stats = async () => (await s.run(`ipvsadm -Ln --stats -t ${ip}:80`)).stdout.split("\n")[3]!.trim().split(/\s+/);
    expect(await stats()).toEqual(["TCP", `${ip}:80`, "0", "0", "0", "0", "0"]);
    await s.run(`for i in 1 2 3 4; do curl -s ${ip} >/dev/null; done`);
    const [, , conns, inPkts, outPkts, inBytes, outBytes] = await stats();
    expect(conns).toBe("4");
    // Per request: SYN, ACK, the request, an ACK of the answer, FIN, ACK in; SYN-ACK, the answer, FIN-ACK out.
    expect(inPkts).toBe("24");
    expect(outPkts).toBe("12");
    expect(Number(inBytes)).toBeGreaterThan(4 * 6 * 52);
    expect(Number(outBytes)).toBeGreaterThan(4 * 615); // nginx's welcome page, four times
    const reals = (await s.run(`ipvsadm -Ln --stats -t ${ip}:80`)).stdout.split("\n").slice(4).filter((l) => l.includes("->"));
    expect(reals.reduce((n, l) => n + Number(l.trim().split(/\s+/)[2]), 0)).toBe(4);

    // --rate: the kernel's estimator samples every 2 s and moves a quarter of the way each time.
    const rate = async () => (await s.run(`ipvsadm -Ln --rate -t ${ip}:80`)).stdout.split("\n")[3]!.trim().split(/\s+/).slice(2).map(Number);
    c.advance(2_000);
    const [cps, inPPS, outPPS, inBPS, outBPS] = await rate();
    expect([cps, inPPS, outPPS]).toEqual([0, 3, 1]); // (24 << 9 >> 2 + 0x1FF) >> 10, (12 << 9 >> 2 + 0x1FF) >> 10
    expect(inBPS).toBe((((Number(inBytes) << 4) >> 2) + 0xf) >> 5);
    expect(outBPS).toBe((((Number(outBytes) << 4) >> 2) + 0xf) >> 5);
    c.advance(120_000);
    expect(await rate()).toEqual([0, 0, 0, 0, 0]);
  });
});
