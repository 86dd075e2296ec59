// The network commands on a real Cluster through the terminal: a curl loop over a ClusterIP,
// curl errors, ping, nslookup from a pod, conntrack and explain.
import { expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
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
