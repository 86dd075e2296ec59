// The lab guide (../shared/seeds/service-kube-proxy-lab-guide.zh.txt), one transcript per section,
// run as typed in one terminal on a fresh cluster with a fixed seed, so random splits replay
// exactly. Each transcript's output is golden (testdata/<name>.golden), and the properties the
// guide teaches are asserted on top: a regenerated golden cannot quietly lose them.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { Session } from "./session.js";
import { formatSteps, runSteps, scriptedEditor, type Step } from "./transcript.js";

const here = join(dirname(fileURLToPath(import.meta.url)), "testdata");
const SEED = 1;

/** The n-th step (0-based) whose command contains `part`. */
function step(steps: Step[], part: string, n = 0): Step {
  const s = steps.filter((x) => x.cmd.includes(part))[n];
  if (!s) throw new Error(`no step #${n} with ${JSON.stringify(part)}`);
  return s;
}

const steps = (s: Step[], f: (cmd: string) => boolean) => s.filter((x) => f(x.cmd));

/** `... | sort | uniq -c` output as name -> count. */
function counts(s: Step): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of s.stdout.split("\n")) {
    const x = /^\s*(\d+) (.*)$/.exec(line);
    if (x) m.set(x[2], Number(x[1]));
  }
  return m;
}
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Pod names printed by a step (kubectl get pods -o wide / -o name). */
const podNames = (s: Step) => [...s.stdout.matchAll(/^(?:pod\/)?(web-[a-z0-9-]+)/gm)].map((m) => m[1]);

const checks: Record<string, (steps: Step[]) => void> = {
  "lab-3.1-create": (s) => {
    expect(step(s, "grep -e Endpoints -e IP:").stdout).toMatch(/^IP: +10\.\d+\.\d+\.\d+\nEndpoints: +(10\.244\.\d+\.\d+:80,?){3}\n$/);
    expect(step(s, "curl $IP:8080").stdout).toBe("<html><body><h1>It works!</h1></body></html>\n");
  },
  "lab-3.2-loadbalance": (s) => {
    const c = counts(step(s, "for i in {1..100}"));
    expect(sum(c)).toBe(100);
    expect([...c.keys()].sort()).toEqual(podNames(step(s, "get pods -o wide")).sort());
    // After the rollout restart the Service found the 4 new pods (default pages again).
    expect(sum(counts(step(s, "for i in {1..100}", 1)))).toBe(100);
    expect(step(s, "get endpoints web").stdout).toContain("+ 1 more...");
  },
  "lab-3.3-expose": (s) => {
    expect(step(s, "get endpoints web", 0).stdout).toContain("<none>");
    expect(step(s, "get endpoints web", 1).stdout).toMatch(/(10\.244\.\d+\.\d+:80,?){3}/);
    expect(step(s, "ping -c 2 $(kubectl get svc").exitCode).toBe(1);
    expect(step(s, "ping -c 2 $(kubectl get pods").stdout).toContain("2 received, 0% packet loss");
  },
  "lab-4.1-by-ip": (s) => {
    const head = step(s, "curl -I").stdout;
    expect(head).toMatch(/^HTTP\/1\.1 302 Found\r?\n/);
    expect(head).toMatch(/Location: http:\/\/10\.\d+\.\d+\.\d+\/wp-admin\/install\.php/);
    expect(step(s, "http://10.1.8.31:").stdout).toBe("302\n");
    expect(step(s, "wp-broken -o jsonpath").stdout).toContain("Error establishing a database connection");
  },
  "lab-4.2-env": (s) => {
    const env = step(s, "env | grep MYSQL").stdout;
    expect(env).toMatch(/^MYSQL_SERVICE_HOST=10\.\d+\.\d+\.\d+$/m);
    expect(env).toMatch(/^MYSQL_SERVICE_PORT=3306$/m);
    const host = /^MYSQL_SERVICE_HOST=(.*)$/m.exec(env)![1];
    expect(step(s, "env | grep WORDPRESS_DB_HOST").stdout).toBe(`WORDPRESS_DB_HOST=${host}\n`);
    expect(step(s, "%{http_code}").stdout).toBe("302\n");
  },
  "lab-4.3-dns": (s) => {
    expect(step(s, "wget wordpress:80").exitCode).toBe(0);
    expect(step(s, "grep title index.html").stdout).toContain("WordPress &rsaquo; Installation");
    expect(step(s, "wget -O - wordpress:80").stderr).toBe("wget: bad address 'wordpress'\n");
    expect(step(s, "wget -O - wordpress.services:80").stdout).toContain("Installation");
  },
  "lab-5.2-nodeport": (s) => {
    for (const ip of ["10.1.8.30", "10.1.8.31", "10.1.8.32"]) expect(step(s, `curl http://${ip}:`).stdout).toContain("It works!");
    expect(step(s, "iptables-save | grep $NP").stdout).toMatch(/^-A KUBE-NODEPORTS .* --dport \d+ -j KUBE-EXT-7D76YWGERGEPC4GC$/m);
    expect(step(s, "grep KUBE-SVC-7D76YWGERGEPC4GC").stdout.match(/-j KUBE-SEP-/g)).toHaveLength(3);
  },
  "lab-5.3-metallb": (s) => {
    const all = step(s, "get all -n metallb-system").stdout;
    expect(all).toMatch(/^deployment\.apps\/controller +1\/1 /m);
    expect(all).toMatch(/^daemonset\.apps\/speaker +3 +3 +3 /m);
    expect(all.match(/^pod\/speaker-\S+ +1\/1 +Running/gm)).toHaveLength(3);
    expect(step(s, "kubectl get service").stdout).toMatch(/^web +LoadBalancer +10\.\S+ +10\.1\.8\.40 +80:\d+\/TCP/m);
    expect(step(s, "curl http://10.1.8.40:80").stdout).toContain("It works!");
    // github.com resolves through the lab network's resolver; a tag that does not exist is a 404.
    expect(step(s, "v0.15.0").exitCode).toBe(8);
    expect(step(s, "v0.15.0").stderr).toContain("ERROR 404: Not Found.");
  },
  "lab-5.2-5.3-one-service": (s) => {
    expect(step(s, "apply -f service-LoadBalancer.yaml").stdout).toBe("service/web configured\n");
    const svc = step(s, "kubectl get service", 1).stdout;
    expect(svc).toMatch(/^web +LoadBalancer +10\.\S+ +10\.1\.8\.40 +80:\d+\/TCP/m);
    expect(svc).not.toContain("8080");
    expect(step(s, "last-applied-configuration").stdout).toContain('"spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":80}]');
    expect(step(s, "curl http://10.1.8.40:80").stdout).toContain("It works!");
  },
  "lab-5.4-externalname": (s) => {
    expect(step(s, "nslookup www.services").stdout).toContain("www.services.svc.cluster.local\tcanonical name = www.laoma.cloud");
    // The short name through the pod's search list.
    expect(steps(s, (c) => c === "nslookup www")[0].stdout).toContain("canonical name = www.laoma.cloud");
  },
  "lab-5.5-headless": (s) => {
    const ips = [...step(s, "get pods -o wide").stdout.matchAll(/ (10\.244\.\d+\.\d+) /g)].map((m) => m[1]).sort();
    const answers = [...step(s, "nslookup web-headless").stdout.matchAll(/^Address: (10\.244\.\S+)$/gm)].map((m) => m[1]).sort();
    expect(answers).toEqual(ips);
    expect(answers).toHaveLength(3);
  },
  "lab-6.2-affinity": (s) => {
    const before = counts(step(s, "for i in {1..20}", 0));
    expect(sum(before)).toBe(20);
    expect(before.size).toBe(2);
    const after = counts(step(s, "for i in {1..20}", 1));
    expect([...after.values()]).toEqual([20]);
  },
  "lab-7-canary": (s) => {
    for (const [n, replicas] of [[0, [8, 2]], [1, [6, 4]]] as const) {
      const c = counts(step(s, "for i in {1..50}", n));
      expect(sum(c)).toBe(50);
      expect([...c.keys()]).toEqual(["hello nginx 1.28", "hello nginx 1.29"]);
      // Binomial(50, p): within 3 standard deviations of the replica ratio.
      const p = replicas[1] / 10;
      expect(Math.abs(c.get("hello nginx 1.29")! - 50 * p)).toBeLessThan(3 * Math.sqrt(50 * p * (1 - p)));
    }
  },
  "lab-8.3-mode": (s) => {
    expect(step(s, "grep mode", 0).stdout).toBe('    mode: ""\n');
    expect(step(s, "grep mode", 1).stdout).toBe('    mode: "ipvs"\n');
    expect(step(s, "$POD | grep Using").stdout).toContain('"Using iptables Proxier"');
    expect(step(s, "$NEW | grep Using").stdout).toContain('"Using ipvs Proxier"');
  },
  "lab-8.4-ipvs": (s) => {
    expect(step(s, "ipvsadm -Lnt", 0).stdout).toMatch(/^TCP  10\.\S+:80 rr$/m);
    expect([...counts(step(s, "for i in {1..60}", 0)).values()]).toEqual([20, 20, 20]);
    expect(step(s, "ipvsadm -Lnt", 2).stdout).toMatch(/^TCP  10\.\S+:80 wrr$/m);
    expect([...counts(step(s, "for i in {1..60}", 1)).values()]).toEqual([20, 20, 20]);
  },
  "lab-8.5-iptables": (s) => {
    const dnat = step(s, "grep DNAT").stdout.trim().split("\n");
    expect(dnat).toHaveLength(3);
    for (const l of dnat) expect(l).toMatch(/^-A KUBE-SEP-\w+ -p tcp -m comment --comment "services\/web" -m tcp -j DNAT --to-destination 10\.244\.\d+\.\d+:80$/);
    expect(step(s, "grep KUBE-SVC-7D76YWGERGEPC4GC iptables.list").stdout).toMatch(/--probability 0\.33333333349 .*\n.*--probability 0\.50000000000 /);
  },
  "lab-9-cleanup": (s) => {
    expect(step(s, "kubectl get ns").stdout).not.toContain("services");
    expect(step(s, "get all -n services").stderr).toBe("No resources found in services namespace.\n");
    expect(step(s, "grep -c services/web").stdout).toBe("0\n");
  },
};

describe("lab guide, section by section", () => {
  for (const [name, check] of Object.entries(checks)) {
    it(name, async () => {
      const script = readFileSync(join(here, `${name}.sh`), "utf8");
      const session = new Session(Cluster.create({ seed: SEED }), { editor: scriptedEditor(script) });
      const steps = await runSteps(session, script);
      await expect(formatSteps(steps)).toMatchFileSnapshot(join(here, `${name}.golden`));
      check(steps);
    });
  }
});
