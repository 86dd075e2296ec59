// The network commands on a real Cluster through the terminal: a curl loop over a ClusterIP,
// curl errors, ping, nslookup from a pod, conntrack and explain.
import { expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { dataplaneOf } from "../../engine/net/cluster-env.js";
import { Session } from "../session.js";
import "./index.js";

it("curl loop, ping, nslookup, conntrack and explain on a kubeadm cluster (iptables mode)", async () => {
  const c = Cluster.create();
  const s = new Session(c);
  const run = async (l: string) => {
    const r = await s.run(l);
    c.runUntilIdle(60000);
    return r;
  };
  await run("kubectl create deployment web --image=httpd --replicas=3");
  await run("kubectl expose deployment web --port=80");
  const ip = (await run("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).stdout.trim();
  await run(`for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do kubectl exec $pod -- bash -c "echo $pod > htdocs/index.html"; done`);
  const loop = await run(`for i in {1..60}; do curl -s ${ip}; done | sort | uniq -c`);
  const counts = loop.stdout.trim().split("\n").map((l) => Number(l.trim().split(/\s+/)[0]));
  expect(counts.length).toBe(3);
  expect(counts.reduce((a, b) => a + b, 0)).toBe(60);

  const refused = await run(`curl ${ip}:81`);
  expect(refused.exitCode).toBe(28); // iptables: no rule for port 81, the packet leaves by the default route
  expect((await run(`curl -m 2 ${ip}:81`)).stderr).toBe("curl: (28) Connection timed out after 2001 milliseconds\n");
  expect((await run("curl -s nosuch")).exitCode).toBe(6);
  expect((await run("curl nosuch")).stderr).toBe("curl: (6) Could not resolve host: nosuch\n");

  const ping = await run(`ping -c 2 ${ip}`);
  expect(ping.stdout).toContain("2 packets transmitted, 0 received, 100% packet loss");
  expect(ping.exitCode).toBe(1);

  expect((await run("conntrack -L")).stdout).toMatch(/^tcp {6}6 120 TIME_WAIT src=10\.1\.8\.30 dst=/m);
  const ex = await run(`explain ${ip}`);
  expect(ex.stdout).toContain("KUBE-SERVICES");
  expect(ex.stdout).toMatch(/rules evaluated: \d+/);

  await run("kubectl run bb --image=busybox -- sleep 3600");
  const ns = await run("kubectl exec bb -- nslookup web");
  // BusyBox sends A then AAAA under each search domain and prints every reply as it comes.
  const nx = (n: string) => `** server can't find ${n}: NXDOMAIN\n\n`;
  expect(ns.stdout).toBe(`Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${ip}\n\n${nx("web.svc.cluster.local")}${nx("web.cluster.local")}\n${nx("web.svc.cluster.local")}${nx("web.cluster.local")}`);
  expect(ns.exitCode).toBe(1);
  expect((await run("kubectl exec bb -- nslookup nosuch")).stdout).toContain("** server can't find nosuch.default.svc.cluster.local: NXDOMAIN");
});

it("a full conntrack table drops new connections: curl times out and the node's dmesg says why", async () => {
  const c = Cluster.create();
  const s = new Session(c);
  const run = async (l: string) => {
    const r = await s.run(l);
    c.runUntilIdle(60000);
    return r;
  };
  await run("kubectl create deployment web --image=httpd --replicas=1");
  await run("kubectl expose deployment web --port=80");
  const ip = (await run("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).stdout.trim();
  const node = (await run("hostname")).stdout.trim();
  const dp = dataplaneOf(c);
  const table = dp.conntrack(node);
  // A table of three flows, full of long-lived connections (assured, ESTABLISHED): nothing the
  // kernel may drop early, and the gc worker's early drop spares them too.
  table.flush();
  table.max = 3;
  expect((await run(`curl -s -o /dev/null -w '%{http_code}' ${ip}`)).stdout).toBe("200");
  table.flush();
  for (let i = 0; i < 3; i++) expect(dp.connect({ kind: "node", node }, ip, 80, { keepOpen: true }).verdict).toBe("established");
  const dropped = await run(`curl -m 2 ${ip}`);
  expect(dropped.exitCode).toBe(28);
  expect(dropped.stderr).toBe("curl: (28) Connection timed out after 2001 milliseconds\n");
  expect((await run("dmesg")).stdout).toMatch(/^\[ *\d+\.\d{6}\] nf_conntrack: nf_conntrack: table full, dropping packet\n$/);
  // net_ratelimit: ten messages in five seconds, then the rest are counted and said later.
  await run(`for i in $(seq 1 12); do curl -s -m 1 ${ip}; done`);
  c.advance(6000);
  await run(`curl -s -m 1 ${ip}`);
  const log = (await run("dmesg")).stdout.split("\n").filter(Boolean);
  expect(log.filter((l) => l.endsWith("table full, dropping packet")).length).toBe(11);
  expect(log[log.length - 2]).toMatch(/\] net_ratelimit: 3 callbacks suppressed$/);
  expect((await run("conntrack -C")).stdout).toBe("3\n");
  // Flushed (conntrack -F), the table has room again.
  await run("conntrack -F");
  expect((await run(`curl -s -o /dev/null -w '%{http_code}' ${ip}`)).stdout).toBe("200");
  // A table full of a curl loop's TIME_WAIT flows drops one connection; a second later the gc
  // worker has dropped closing flows down to 95% and the loop goes on.
  table.flush();
  table.max = 100;
  // (s.run alone: the cluster's clock moves by the second advanced here only, not to the flows' expiry.)
  const loop = await s.run(`for i in $(seq 1 102); do curl -s -m 1 -o /dev/null -w '%{http_code} ' ${ip} || printf 'exit=%s ' $?; done`);
  expect(loop.stdout).toBe(`${"200 ".repeat(100)}exit=28 exit=28 `);
  c.advance(1000);
  expect((await s.run(`curl -s -o /dev/null -w '%{http_code}' ${ip}`)).stdout).toBe("200");
  // (nf_conntrack_max / 100 * 95, in the kernel's integer arithmetic.)
  expect((await s.run("conntrack -C")).stdout).toBe("96\n");
});
