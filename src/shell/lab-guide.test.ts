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

/** Binomial(n, p) count within 3 standard deviations of its mean. */
function nearShare(count: number, n: number, p: number) {
  expect(Math.abs(count - n * p)).toBeLessThan(3 * Math.sqrt(n * p * (1 - p)));
}

// The whole guide on ONE cluster, section after section, as a student types it: what one section
// leaves behind (a Service adopted by apply, its ClientIP affinity, pods of another section in the
// namespace, kube-proxy's mode) is what the next one meets, as on a real cluster.
describe("lab guide, whole, on one cluster", () => {
  it("lab-guide-whole", { timeout: 120_000 }, async () => {
    const name = "lab-guide-whole";
    const script = readFileSync(join(here, `${name}.sh`), "utf8");
    const session = new Session(Cluster.create({ seed: SEED }));
    const s = await runSteps(session, script);
    await expect(formatSteps(s)).toMatchFileSnapshot(join(here, `${name}.golden`));
    const already = (x: Step, what: string) => {
      expect(x.exitCode).toBe(1);
      expect(x.stderr).toContain(what);
    };

    // §3.1: three endpoints behind the ClusterIP, which serves httpd's page on 8080.
    expect(step(s, "grep -e Endpoints -e IP:").stdout).toMatch(/^IP: +10\.\d+\.\d+\.\d+\nEndpoints: +(10\.244\.\d+\.\d+:80,?){3}\n$/);
    expect(step(s, "curl $IP:8080").stdout).toBe("<html><body><h1>It works!</h1></body></html>\n");
    // §3.2: 100 requests over the 3 pods (each its own name); after the restart the 4 new pods.
    const lb = counts(step(s, "for i in {1..100}", 0));
    expect(sum(lb)).toBe(100);
    expect(lb.size).toBe(3);
    for (const [pod, n] of lb) {
      expect(pod).toMatch(/^web-[a-z0-9]+-[a-z0-9]{5}$/);
      nearShare(n, 100, 1 / 3);
    }
    expect(step(s, "get endpoints web", 0).stdout).toContain("+ 1 more...");
    expect(counts(step(s, "for i in {1..100}", 1)).get("<html><body><h1>It works!</h1></body></html>")).toBe(100);
    // §3.3: web exists; after deleting it, a selector no pod has gives no endpoints until labelled.
    already(step(s, "--selector=app2=web2", 0), 'Error from server (AlreadyExists): services "web" already exists');
    expect(step(s, "--selector=app2=web2", 1).stdout).toBe("service/web exposed\n");
    expect(step(s, "get endpoints web", 1).stdout).toMatch(/^web +<none> /m);
    expect(step(s, "get endpoints web", 2).stdout).toMatch(/(10\.244\.\d+\.\d+:80,?){3}/);
    const adopt = step(s, "apply -f svc-web.yml");
    expect(adopt.stdout).toBe("service/web configured\n");
    expect(adopt.stderr).toContain("is missing the kubectl.kubernetes.io/last-applied-configuration annotation");
    expect(step(s, "{.spec.selector}").stdout).toBe('{"app":"web","app2":"web2"}\n[{"name":"8080-80","port":8080,"protocol":"TCP","targetPort":80}]\n');
    expect(step(s, "ping -c 2 $(kubectl get svc").exitCode).toBe(1);
    expect(step(s, "ping -c 2 $(kubectl get pods").stdout).toContain("2 received, 0% packet loss");
    // §4.1: WordPress reaches its database by the Service's IP and sends the browser to its installer.
    expect(step(s, "curl -I").stdout).toMatch(/^HTTP\/1\.1 302 Found\r?\n[^]*Location: http:\/\/10\.\d+\.\d+\.\d+\/wp-admin\/install\.php/);
    // §4.2: the variables of the Services that existed when the pod started; $(VAR) expanded.
    const env = step(s, "env | grep MYSQL").stdout;
    const host = /^MYSQL_SERVICE_HOST=(.*)$/m.exec(env)![1];
    expect(steps(s, (c) => c === "kubectl get svc")[1].stdout).toMatch(new RegExp(`^mysql +ClusterIP +${host.replaceAll(".", "\\.")} +<none> +3306/TCP`, "m"));
    expect(env).toMatch(/^MYSQL_SERVICE_PORT=3306$/m);
    expect(step(s, "env | grep WORDPRESS_DB_HOST").stdout).toBe(`WORDPRESS_DB_HOST=${host}\n`);
    expect(step(s, "%{http_code}", 0).stdout).toBe("302\n");
    // §4.3: the short and the namespaced names resolve; busybox wget keeps the file it saved.
    expect(step(s, "wget wordpress:80").exitCode).toBe(0);
    expect(step(s, "wget wordpress.services:80").stderr).toContain("wget: can't open 'index.html': File exists");
    expect(step(s, "grep title index.html").stdout).toContain("WordPress &rsaquo; Installation");
    expect(step(s, "%{http_code}", 1).stdout).toBe("302\n");
    // §5.1: a ClusterIP outside the service CIDR is refused (422), one inside is kept.
    expect(step(s, "clusterip bad").stderr).toContain("is not in the valid range. The range of valid IPs is 10.96.0.0/12");
    expect(step(s, "kubectl get svc good").stdout).toMatch(/^good +ClusterIP +10\.96\.100\.100 /m);
    // §5.2: the Service web (adopted in §3.3) becomes a NodePort reached on every node.
    expect(step(s, "apply -f service-NodePort.yaml").stdout).toBe("service/web configured\n");
    for (const ip of ["10.1.8.30", "10.1.8.31", "10.1.8.32"]) expect(step(s, `curl http://${ip}:`).stdout).toContain("It works!");
    const np = /^web +NodePort +\S+ +<none> +8080:(\d+)\/TCP/m.exec(step(s, "kubectl get service", 0).stdout)![1];
    expect(step(s, "iptables-save | grep $NP").stdout).toBe(`-A KUBE-NODEPORTS -p tcp -m comment --comment "services/web" -m tcp --dport ${np} -j KUBE-EXT-7D76YWGERGEPC4GC\n`);
    expect(step(s, "iptables-save | grep KUBE-SVC-7D76YWGERGEPC4GC").stdout.match(/-j KUBE-SEP-/g)).toHaveLength(4);
    // §5.3: MetalLB runs (1 controller, a speaker per node) and gives the same Service 10.1.8.40:80.
    const all = step(s, "get all -n metallb-system").stdout;
    expect(all).toMatch(/^deployment\.apps\/controller +1\/1 /m);
    expect(all.match(/^pod\/speaker-\S+ +1\/1 +Running/gm)).toHaveLength(3);
    expect(step(s, "apply -f service-LoadBalancer.yaml").stdout).toBe("service/web configured\n");
    const lbSvc = step(s, "kubectl get service", 1).stdout;
    expect(lbSvc).toMatch(/^web +LoadBalancer +10\.\S+ +10\.1\.8\.40 +80:\d+\/TCP/m);
    expect(lbSvc).not.toContain("8080");
    expect(step(s, "curl http://10.1.8.40:80").stdout).toContain("It works!");
    // §5.4 and §5.5: a CNAME for the ExternalName; the headless name answers every app=web pod.
    expect(step(s, "nslookup www.services").stdout).toContain("www.services.svc.cluster.local\tcanonical name = www.laoma.cloud");
    const podIPs = step(s, "-l app=web -o jsonpath='{.items[*].status.podIP}").stdout.trim().split(" ").sort();
    const answers = [...step(s, "nslookup web-headless").stdout.matchAll(/^Address: (10\.244\.\S+)$/gm)].map((m) => m[1]).sort();
    expect(answers).toEqual(podIPs);
    expect(answers).toHaveLength(4);
    // §6.2: web exists from §3; re-created with 2 replicas, 20 requests split, then stick to one pod.
    already(step(s, "--image=hub.laoma.cloud/library/httpd --replicas=2", 0), 'deployments.apps "web" already exists');
    already(step(s, "expose deployment web --port 80", 0), 'services "web" already exists');
    // The other pods of the namespace (mysql, wordpress) have no htdocs: bash says so.
    expect(step(s, 'bash -c "echo $pod > htdocs/index.html"', 1).stderr).toBe("bash: htdocs/index.html: No such file or directory\ncommand terminated with exit code 1\n".repeat(2));
    const before = counts(step(s, "for i in {1..20}", 0));
    expect(sum(before)).toBe(20);
    expect(before.size).toBe(2);
    expect([...counts(step(s, "for i in {1..20}", 1)).values()]).toEqual([20]);
    // §7: the canary's Service is §6.2's web, adopted with its ClientIP affinity: one pod answers all
    // 50, until the student turns affinity off; then the split follows the replicas (8:2, 6:4).
    expect(step(s, "apply -f webapp-svc.yaml").stderr).toContain("missing the kubectl.kubernetes.io/last-applied-configuration");
    expect(counts(step(s, "for i in {1..50}", 0)).size).toBe(1);
    expect(step(s, "describe svc web | grep -i affinity").stdout).toBe("Session Affinity:         ClientIP\n");
    expect(step(s, "{.spec.sessionAffinity} {.spec.sessionAffinityConfig}").stdout).toBe("None \n");
    for (const [n, canary] of [[1, 0.2], [2, 0.4]] as const) {
      const c = counts(step(s, "for i in {1..50}", n));
      expect(sum(c)).toBe(50);
      expect([...c.keys()]).toEqual(["hello nginx 1.28", "hello nginx 1.29"]);
      nearShare(c.get("hello nginx 1.29")!, 50, canary);
    }
    // §8.3: iptables by default; kubectl edit through KUBE_EDITOR sets "ipvs"; the restarted pods use it.
    expect(step(s, "grep mode", 0).stdout).toBe('    mode: ""\n');
    expect(step(s, "$POD | grep Using").stdout).toContain('"Using iptables Proxier"');
    expect(step(s, "kubectl edit configmap -n kube-system kube-proxy").stdout).toBe("configmap/kube-proxy edited\n");
    expect(step(s, "grep mode", 1).stdout).toBe('    mode: "ipvs"\n');
    expect(step(s, "rollout status daemonset").stdout).toMatch(/daemon set "kube-proxy" successfully rolled out\n$/);
    expect(step(s, "$NEW | grep Using", 0).stdout).toContain('"Using ipvs Proxier"');
    expect(step(s, "ip addr show kube-ipvs0").stdout).toMatch(/^\d+: kube-ipvs0: <BROADCAST,NOARP>/);
    // §8.4: §7's pods are still there (their html is a read-only configMap volume); once cleared,
    // rr gives exactly 20/20/20, and so does wrr with equal weights.
    already(step(s, "create deployment web --image=nginx", 0), 'deployments.apps "web" already exists');
    expect(step(s, "/usr/share/nginx/html/index.html", 0).stderr).toContain("bash: /usr/share/nginx/html/index.html: Read-only file system\ncommand terminated with exit code 1\n");
    expect(step(s, "/usr/share/nginx/html/index.html", 1).stderr).toBe("");
    expect(step(s, "ipvsadm -Lnt", 0).stdout).toMatch(/^TCP  10\.\S+:80 rr$/m);
    expect(step(s, "ipvsadm -Lnt", 0).stdout.match(/^ {2}-> 10\.244\.\S+ +Masq +1 /gm)).toHaveLength(3);
    expect([...counts(step(s, "for i in {1..60}", 0)).values()]).toEqual([20, 20, 20]);
    expect(step(s, "grep -e scheduler -e mode").stdout).toBe('      scheduler: "wrr"\n    mode: "ipvs"\n');
    expect(step(s, "ipvsadm -Lnt", 1).stdout).toMatch(/^TCP  10\.\S+:80 wrr$/m);
    expect([...counts(step(s, "for i in {1..60}", 1)).values()]).toEqual([20, 20, 20]);
    // §8.5: back to iptables: the ClusterIP through KUBE-SERVICES, KUBE-SVC (1/3, 1/2, rest), KUBE-SEP DNAT.
    expect(step(s, "$NEW | grep Using", 1).stdout).toContain('"Using iptables Proxier"');
    expect(step(s, "grep KUBE-SVC-7D76YWGERGEPC4GC iptables.list").stdout).toMatch(/--probability 0\.33333333349 .*\n.*--probability 0\.50000000000 .*\n.*-j KUBE-SEP-\w+\n$/);
    const dnat = step(s, "grep DNAT").stdout.trim().split("\n");
    expect(dnat).toHaveLength(3);
    for (const l of dnat) expect(l).toMatch(/^-A KUBE-SEP-\w+ -p tcp -m comment --comment "services\/web" -m tcp -j DNAT --to-destination 10\.244\.\d+\.\d+:80$/);
    // §9: the namespace and every rule of its Services are gone.
    expect(step(s, "kubectl get ns").stdout).not.toContain("services");
    expect(step(s, "get all -n services").stderr).toBe("No resources found in services namespace.\n");
    expect(step(s, "iptables-save | grep -c services/").stdout).toBe("0\n");
  });
});
