// The REAL kubectl (/usr/bin/kubectl: a dispatcher that asks /version, then runs kubectl 1.33)
// against the Node server (npx tsx src/runtime/node.ts on a random loopback port), through the
// kubeconfig it serves, unchanged: its Kubernetes API's TLS port, verified with the
// installation's CA (kubectl sends a kubeconfig's token only over TLS). Outputs are compared with what
// the in-browser terminal (src/shell Session, via POST /v1/clusters/{id}/exec) prints for the
// same command, ages masked. Without kubectl: skipped, or failed when CI=true.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL, type Out, requireTools, run, type TestCluster, TestServer } from "./harness.js";

const have = requireTools("the real-kubectl test", KUBECTL);

let srv: TestServer;
let cl: TestCluster;
let dir: string;

const kubectl = (args: string[], opts: { cwd?: string } = {}): Promise<Out> => run(KUBECTL, args, { env: srv.kubectlEnv(cl), timeout: 60_000, ...opts });
const terminal = (command: string): Promise<Out> => srv.terminal(cl, command);

/** AGE cells move between the two runs: mask them. */
// The padding after an age goes too: the two runs may straddle a second where an age grows a
// digit (99s, 100s), which moves its row's next column by one.
const ages = (s: string) => s.replace(/\b\d+(?:d\d*h?|h\d*m?|m\d*s?|s)\b */g, "<age> ");

/** A held lease's renewal time moves on every few seconds: the two runs may straddle a renewal. */
const renewals = (s: string) => s.replace(/^(\s*(?:RenewTime|Renew Time|renewTime):\s*).*$/gm, "$1<renewed>");

/** kubectl's arguments as the terminal's command line: quoted where the shell would split or expand. */
function commandLine(args: string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);
  return ["kubectl", ...args].map(quote).join(" ");
}

async function same(args: string[], norm: (s: string) => string = (s) => s): Promise<Out> {
  const real = await kubectl(args);
  const term = await terminal(commandLine(args));
  expect({ args, stdout: norm(ages(real.stdout)), stderr: real.stderr, code: real.code }).toEqual({ args, stdout: norm(ages(term.stdout)), stderr: term.stderr, code: term.code });
  return real;
}

describe.skipIf(!have)("real kubectl against /k8s/{id}", () => {
  beforeAll(async () => {
    srv = await TestServer.start("kubectl");
    dir = srv.dir;
    cl = await srv.cluster("kubeconfig");
    expect(cl.text).toMatch(/^ {4}server: https:\/\/127\.0\.0\.1:\d+$/m);
  }, 90_000);

  afterAll(() => srv?.stop());

  it("kubectl version reports the cluster's v1.33", { timeout: 120_000 }, async () => {
    const r = await kubectl(["version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Client Version: v1\.33\.\d+\nKustomize Version: v5\.6\.0\nServer Version: v1\.33\.5\n$/);
    // -o json / yaml: the terminal's serverVersion is what the real kubectl reads from /version;
    // its clientVersion is the node's kubectl (the cluster's release), so only its shape is shared.
    for (const out of ["json", "yaml"]) {
      const real = await kubectl(["version", "-o", out]);
      const term = await terminal(`kubectl version -o ${out}`);
      expect(term.code).toBe(0);
      if (out === "json") {
        const [a, b] = [JSON.parse(real.stdout), JSON.parse(term.stdout)];
        expect(b.serverVersion).toEqual(a.serverVersion);
        expect(Object.keys(b.clientVersion)).toEqual(Object.keys(a.clientVersion));
        expect(Object.keys(b)).toEqual(Object.keys(a));
      } else {
        expect(term.stdout.slice(term.stdout.indexOf("serverVersion:"))).toBe(real.stdout.slice(real.stdout.indexOf("serverVersion:")));
      }
    }
  });

  it("get nodes and get pods -A print as the terminal does", { timeout: 120_000 }, async () => {
    await same(["get", "nodes"]);
    const pods = await same(["get", "pods", "-A"]);
    expect(pods.stdout).toContain("kube-proxy-");
  });

  it("create deployment (protobuf body), create service, get svc,ep, describe, scale, patch, apply twice, delete", { timeout: 120_000 }, async () => {
    let r = await kubectl(["create", "deployment", "web", "--image=httpd", "--replicas=3"]);
    expect(r).toMatchObject({ stdout: "deployment.apps/web created\n", code: 0 });
    r = await kubectl(["create", "service", "clusterip", "web", "--tcp=8080:80"]);
    expect(r).toMatchObject({ stdout: "service/web created\n", code: 0 });
    // Pods start on the cluster's clock (image pull, container start): let it pass.
    await new Promise((res) => setTimeout(res, 5000));
    r = await same(["get", "svc,ep"]);
    expect(r.stderr).toBe("Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n");
    expect(r.stdout).toMatch(/endpoints\/web +(\d+\.\d+\.\d+\.\d+:80,?){3}/);
    await same(["describe", "svc", "web"]);
    await same(["get", "deploy", "-o", "wide"]);

    r = await kubectl(["scale", "deployment", "web", "--replicas=5"]);
    expect(r).toMatchObject({ stdout: "deployment.apps/web scaled\n", code: 0 });
    expect((await kubectl(["get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"])).stdout).toBe("5");

    r = await kubectl(["patch", "svc", "web", "-p", '{"spec":{"sessionAffinity":"ClientIP"}}']);
    expect(r).toMatchObject({ stdout: "service/web patched\n", code: 0 });
    expect((await kubectl(["get", "svc", "web", "-o", "jsonpath={.spec.sessionAffinity}"])).stdout).toBe("ClientIP");

    const manifest = join(dir, "api.yaml");
    writeFileSync(
      manifest,
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n      - name: api\n        image: nginx:1.27\n        ports:\n        - containerPort: 80\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  selector: {app: api}\n  ports:\n  - port: 80\n",
    );
    expect(await kubectl(["apply", "-f", manifest])).toMatchObject({ stdout: "deployment.apps/api created\nservice/api created\n", stderr: "", code: 0 });
    expect(await kubectl(["apply", "-f", manifest])).toMatchObject({ stdout: "deployment.apps/api unchanged\nservice/api unchanged\n", stderr: "", code: 0 });

    r = await kubectl(["delete", "deployment", "web"]);
    expect(r).toMatchObject({ stdout: 'deployment.apps "web" deleted\n', code: 0 });
    expect((await kubectl(["get", "deploy", "web"])).code).toBe(1);
  });

  it("get svc nope: the apiserver's NotFound, exit 1, as the terminal prints it", { timeout: 120_000 }, async () => {
    const r = await same(["get", "svc", "nope"]);
    expect(r).toEqual({ stdout: "", stderr: 'Error from server (NotFound): services "nope" not found\n', code: 1 });
  });

  it("rollout status follows a watch to the end; logs read pods/log", { timeout: 120_000 }, async () => {
    const r = await kubectl(["rollout", "status", "deployment/api", "--timeout=30s"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('deployment "api" successfully rolled out');
    const pod = (await kubectl(["get", "pods", "-l", "app=api", "-o", "jsonpath={.items[0].metadata.name}"])).stdout;
    const logs = await kubectl(["logs", pod]);
    expect(logs.code).toBe(0);
    expect(logs.stdout.length).toBeGreaterThan(0);
  });

  it("create job, wait --for=condition=complete, logs job/: a short script runs to the end; get and describe print as the terminal does", { timeout: 120_000 }, async () => {
    const c = await kubectl(["create", "job", "hello", "--image=busybox", "--", "sh", "-c", "echo hello from a job; sleep 2"]);
    expect(c).toMatchObject({ code: 0, stdout: "job.batch/hello created\n" });
    const w = await kubectl(["wait", "--for=condition=complete", "job/hello", "--timeout=60s"]);
    expect(w).toMatchObject({ code: 0, stdout: "job.batch/hello condition met\n" });
    expect(await kubectl(["logs", "job/hello"])).toMatchObject({ code: 0, stdout: "hello from a job\n" });
    await same(["get", "jobs", "-o", "wide"]);
    await same(["describe", "job", "hello"]);
    await same(["get", "job", "hello", "-o", "yaml"]);
  });

  it("describe of several objects, describe by name prefix, describe sa, rollout history and top print as the terminal does", { timeout: 120_000 }, async () => {
    expect((await kubectl(["create", "deployment", "hist", "--image=httpd"])).code).toBe(0);
    expect((await kubectl(["expose", "deployment", "hist", "--port=80"])).code).toBe(0);
    await same(["describe", "svc"]);
    await same(["describe", "endpointslices", "hist"]);
    await same(["describe", "serviceaccount", "default"]);
    await same(["rollout", "history", "deployment", "hist"]);
    await same(["rollout", "history", "deployment", "hist", "--revision=1"]);
    await same(["rollout", "history", "deployment", "hist", "--revision=9"]);
    await same(["get", "pods", "-A", "-L", "k8s-app,app", "-L", "nope"]);
    await same(["get", "deploy", "-L", "app", "--show-labels"]);
    expect(await same(["top", "pods"])).toEqual({ stdout: "", stderr: "error: Metrics API not available\n", code: 1 });
    // After a finished rollout the old ReplicaSet is listed with 0/0. The comparisons run once
    // the old pod is gone: the cluster runs on the wall clock, and a pod still terminating
    // between the real kubectl's call and the terminal's would differ by timing alone.
    expect((await kubectl(["set", "image", "deployment/hist", "httpd=httpd:2.4.58"])).code).toBe(0);
    expect((await kubectl(["rollout", "status", "deployment/hist", "--timeout=60s"])).code).toBe(0);
    for (let i = 0; i < 120 && (await kubectl(["get", "pods", "-l", "app=hist", "-o", "name"])).stdout.trim().split("\n").length > 1; i++) {
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await same(["describe", "deployment", "hist"])).stdout).toMatch(/^OldReplicaSets: +hist-[a-z0-9]+ \(0\/0 replicas created\)$/m);
    await same(["rollout", "history", "deployment", "hist", "--revision=2"]);
  });

  it("describe node sums its pods' requests and limits; leases are kubeadm's components' and read as renewed", { timeout: 120_000 }, async () => {
    const d = await same(["describe", "node", "master"], renewals);
    expect(d.stdout).toMatch(/kube-apiserver-master\s+250m \(12%\)/);
    expect(d.stdout).toMatch(/^\s+HolderIdentity:\s+master$/m);
    await same(["describe", "node", "node1"], renewals);
    const leases = await same(["get", "leases", "-A"]);
    expect(leases.stdout).toMatch(/^kube-system\s+apiserver-oodnacusc5bcuykzhczyk7a7zq\s/m);
    await same(["describe", "lease", "-n", "kube-system", "kube-scheduler"], renewals);
    await same(["get", "lease", "-n", "kube-node-lease", "node1", "-o", "yaml"], renewals);
    await same(["describe", "crd"]);
    await same(["api-versions"]);
    await same(["api-versions", "extra"]);
  });

  it("-o jsonpath-as-json, jsonpath-file and custom-columns-file print as kubectl does", { timeout: 120_000 }, async () => {
    for (const t of ["{.metadata.name}", "x{.metadata.name}y{.spec.type}", "{.spec.ports}", "{range .spec.ports[*]}{.port}{end}", "{.nope}"]) {
      await same(["get", "svc", "kubernetes", "-o", `jsonpath-as-json=${t}`]);
    }
    await same(["get", "svc", "-A", "-o", "jsonpath-as-json={.items[*].metadata.name}"]);
    // The same file on the machine running the real kubectl and in the terminal.
    const files: Record<string, string> = { "cc.txt": "NAME  TYPE\n.metadata.name .spec.type\n", "cc1.txt": "NAME\n", "cc2.txt": "A B\n.x\n", "jp.txt": "{.items[*].metadata.name}\n" };
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      expect((await terminal(`mkdir -p ${dir} && printf '${text.replace(/\n/g, "\\n")}' > ${join(dir, name)}`)).code).toBe(0);
    }
    await same(["get", "svc", "-A", "-o", `custom-columns-file=${join(dir, "cc.txt")}`]);
    await same(["get", "svc", "-A", "-o", `custom-columns-file=${join(dir, "cc1.txt")}`]);
    await same(["get", "svc", "-A", "-o", `custom-columns-file=${join(dir, "cc2.txt")}`]);
    await same(["get", "svc", "-A", "-o", `jsonpath-file=${join(dir, "jp.txt")}`]);
    await same(["get", "svc", "-A", "-o", `jsonpath-file=${join(dir, "nope.txt")}`]);
  });

  it("--sort-by orders as Go's sort.Sort leaves equal keys, and fails as kubectl does", { timeout: 120_000 }, async () => {
    // Events of the same second: the order among them is the unstable sort's.
    await same(["get", "events", "-A", "--sort-by=.metadata.creationTimestamp"]);
    await same(["get", "events", "-A", "--sort-by=.lastTimestamp", "-o", "name"]);
    await same(["get", "pods", "-A", "--sort-by=.spec.nodeName"]);
    await same(["get", "svc", "-A", "--sort-by=.spec.ports[0].port"]);
    // No object has the field: an empty table, or kubectl's error for other outputs.
    expect((await same(["get", "pods", "-A", "--sort-by=.foo"])).stderr).toBe("No resources found\n");
    expect((await same(["get", "pods", "-n", "kube-system", "--sort-by=.foo", "-o", "name"])).code).toBe(1);
    // A map is unsortable: klog's fatal line (its time and pid aside).
    const klog = (s: string) => s.replace(/^F\d{4} \d\d:\d\d:\d\d\.\d{6} {1,}\d+ /gm, "F<header> ");
    for (const out of [[], ["-o", "name"]]) {
      const args = ["get", "pods", "-n", "kube-system", "--sort-by=.metadata.labels", ...out];
      const real = await kubectl(args);
      const term = await terminal(["kubectl", ...args].join(" "));
      expect({ err: klog(term.stderr), code: term.code }).toEqual({ err: klog(real.stderr), code: real.code });
      expect(real.stderr).toMatch(/^F\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ sorter\.go:\d+\] Field \{\.metadata\.labels\}/);
    }
  });

  it("client-side dry runs print what kubectl builds: yaml sorted, json in Go struct order", { timeout: 120_000 }, async () => {
    const creates = [
      ["create", "deployment", "web", "--image=httpd", "--replicas=3", "--port=80"],
      ["create", "service", "clusterip", "web", "--tcp=8080:80"],
      ["create", "service", "nodeport", "np", "--tcp=80:80", "--node-port=30080"],
      ["create", "service", "externalname", "ex", "--external-name=www.example.com"],
      ["create", "configmap", "cm", "--from-literal=b=1", "--from-literal=a=2"],
      ["create", "namespace", "lab"],
      ["run", "bb", "--image=busybox", "--env=A=1", "--image-pull-policy=IfNotPresent"],
      // -n given: the built object carries the namespace (EnforceNamespace).
      ["create", "deployment", "web", "-n", "kube-public", "--image=httpd"],
      ["create", "configmap", "cm", "--namespace=default", "--from-literal=a=1"],
      ["run", "bb", "-n", "kube-public", "--image=busybox"],
      ["create", "namespace", "lab2", "-n", "kube-public"],
    ];
    for (const c of creates) {
      for (const out of ["yaml", "json"]) expect((await same([...c, "--dry-run=client", "-o", out])).code).toBe(0);
    }
  });

  it("a missing, mistyped or misplaced command: kubectl's help, suggestions and usage errors", { timeout: 120_000 }, async () => {
    const cases = [
      [],
      ["help"],
      ["-n", "default"],
      ["foo"],
      ["gett"],
      ["ps"],
      ["opt"],
      ["xyzzy"],
      ["-n", "default", "foo"],
      ["rollout"],
      ["set"],
      ["config"],
      ["rollout", "foo", "bar"],
      ["-n", "default", "set", "foo"],
      ["config", "foo"],
      ["rollout", "restart"],
      ["rollout", "status"],
      ["rollout", "pause"],
      ["create"],
      ["create", "foo", "bar"],
      ["apply"],
      ["apply", "-f", "x.yaml", "foo"],
      ["label"],
      ["label", "--all"],
      ["annotate", "pods"],
      ["logs", "a", "b", "c"],
      ["get", "pods", "-h"],
      ["rollout", "-h"],
      ["set", "foo", "-h"],
      ["config", "--help"],
      ["create", "deploy", "x", "--help"],
      ["delete", "deployment", "nope", "--help"],
      ["config", "use", "-h"],
      ["top", "pod", "-h"],
      ["cordon", "-h"],
      ["get", "--bogus", "-h"],
      ["help", "rollout", "status"],
      ["help", "nope"],
      ["options", "--help"],
    ];
    for (const c of cases) await same(c);
    // The terminal is root's shell on a node: kubectl's cache directory is under /root there.
    await same(["options"], (s) => s.replace(/--cache-dir='[^']*'/, "--cache-dir='/root/.kube/cache'"));
  });

  it("get by TYPE/NAME prints a table per run of one kind; logs of a Deployment names the pod it read; errors kubectl writes bare", { timeout: 120_000 }, async () => {
    expect((await kubectl(["create", "deployment", "two", "--image=httpd", "--replicas=2"])).code).toBe(0);
    expect((await kubectl(["rollout", "status", "deployment/two"])).code).toBe(0);
    await same(["get", "svc/kubernetes", "svc/kubernetes"]);
    await same(["-n", "kube-system", "get", "svc/kube-dns", "deploy/coredns", "svc/kube-dns"]);
    expect((await same(["logs", "deployment/two", "--tail=1"])).stderr).toMatch(/^Found 2 pods, using pod\/two-[a-z0-9]+-[a-z0-9]{5}\n$/);
    for (const c of [
      ["explain", "foo"],
      ["get", "-o", "yaml"],
      ["version", "--short"],
      ["patch", "svc", "kubernetes"],
      ["patch", "svc", "kubernetes", "-p", "{}", "--patch-file", "x.json"],
      ["patch", "svc", "kubernetes", "--patch-file", "/nonexistent.json"],
    ])
      await same(c);
  });

  it("rollout pause and resume: patched once, then kubectl's errors; not for a DaemonSet", { timeout: 120_000 }, async () => {
    expect((await kubectl(["create", "deployment", "paws", "--image=httpd"])).code).toBe(0);
    // The real run changes the object, so the terminal's same command meets the changed object:
    // run each step in the terminal first, then compare with what the real one says next.
    const step = async (args: string[]) => {
      const term = await terminal(commandLine(args));
      const real = await kubectl(args);
      return { term, real };
    };
    let r = await step(["rollout", "pause", "deployment/paws"]);
    expect(r.term).toEqual({ stdout: "deployment.apps/paws paused\n", stderr: "", code: 0 });
    expect(r.real).toEqual({ stdout: "", stderr: 'error: deployments.apps "paws" is already paused\n', code: 1 });
    expect((await same(["get", "deployment", "paws", "-o", "jsonpath={.spec.paused}"])).stdout).toBe("true");
    r = await step(["rollout", "resume", "deployment/paws"]);
    expect(r.term).toEqual({ stdout: "deployment.apps/paws resumed\n", stderr: "", code: 0 });
    expect(r.real).toEqual({ stdout: "", stderr: 'error: deployments.apps "paws" is not paused\n', code: 1 });
    await same(["get", "deployment", "paws", "-o", "jsonpath={.spec.paused}"]);
    await same(["-n", "kube-system", "rollout", "pause", "daemonset/kube-proxy"]);
    await same(["-n", "kube-system", "rollout", "resume", "daemonset/kube-proxy"]);
  });

  it("cordon and uncordon: the node patched once, SchedulingDisabled, the unschedulable taint, then kubectl's 'already'", { timeout: 120_000 }, async () => {
    // The terminal first; the real kubectl then meets the changed node.
    let term = await terminal("kubectl cordon node2");
    expect(term).toEqual({ stdout: "node/node2 cordoned\n", stderr: "", code: 0 });
    expect(await kubectl(["cordon", "node2"])).toEqual({ stdout: "node/node2 already cordoned\n", stderr: "", code: 0 });
    await same(["get", "nodes"]);
    expect((await same(["describe", "node", "node2"], renewals)).stdout).toMatch(/^Taints: +node\.kubernetes\.io\/unschedulable:NoSchedule\nUnschedulable: +true$/m);
    await same(["get", "node", "node2", "-o", "jsonpath={.spec.taints}"]);
    term = await terminal("kubectl uncordon node2");
    expect(term).toEqual({ stdout: "node/node2 uncordoned\n", stderr: "", code: 0 });
    expect(await kubectl(["uncordon", "node2"])).toEqual({ stdout: "node/node2 already uncordoned\n", stderr: "", code: 0 });
    await same(["get", "node", "node2", "-o", "jsonpath={.spec}"]);
    await same(["cordon"]);
    await same(["cordon", "nope"]);
    await same(["cordon", "node1", "--dry-run=client"]);
  });

  it("bad input and dry runs: kubectl's own words, exit codes, and nothing changed", { timeout: 120_000 }, async () => {
    expect((await kubectl(["create", "deployment", "bad", "--image=httpd"])).code).toBe(0);
    expect((await kubectl(["create", "service", "clusterip", "bad", "--tcp=80:80"])).code).toBe(0);
    const cases = [
      ["create", "deployment", "bad", "--image=httpd"],
      ["create", "service", "clusterip", "bad", "--tcp=80:80"],
      ["create", "service", "nodeport", "np", "--tcp=80:80", "--node-port=1"],
      ["create", "deployment", "x", "--image=y", "--replicas=-1"],
      ["create", "deployment"],
      ["run", "x"],
      ["scale", "deployment", "bad", "--replicas=-1"],
      ["label", "pods", "--all"],
      ["patch", "svc", "bad", "-p", "{bad"],
      ["patch", "svc", "bad", "--type=json", "-p", '[{"op":"replace","path":"/spec/nope/x","value":1}]'],
      ["patch", "svc", "bad", "--type=merge", "-p", '{"spec":{"type":"Bogus","sessionAffinity":"x"}}'],
      ["patch", "svc", "bad", "-p", "spec: {type: NodePort}", "--dry-run=server"],
      ["delete", "svc", "bad", "--dry-run=server"],
      ["delete", "svc", "bad", "--dry-run=client"],
      ["get", "pods", "-o", "jsonpath={.items[0"],
      ["scale", "deployment", "nope", "--replicas=1"],
      ["scale", "deployment", "nope", "other", "--replicas=1"],
      ["scale", "deployment", "bad", "--replicas=3", "--current-replicas=5"],
      ["logs", "nope"],
      ["logs", "deploy/nope"],
      ["edit", "svc", "nope"],
      ["autoscale", "deployment", "bad"],
      ["autoscale", "deployment", "bad", "--max=2", "--min=3"],
      ["autoscale", "deployment", "bad", "--max=3"],
      ["autoscale", "service", "bad", "--max=3"],
      ["get", "cm", "-n", "kube-system", "kube-proxy", "-o", "jsonpath={.data.config\\.conf}"],
      ["get", "nodes", "-o", "jsonpath={.items[0].metadata.labels.kubernetes\\.io/hostname}"],
      ["version", "-o", "xml"],
      ["get", "svc", "-o", "jsonpath={.items[?(@.metadata.name==)].metadata.name}"],
      ["get", "svc", "-o", "jsonpath={.items[?(@.metadata.name)].metadata.name}"],
      ["get", "svc", "-o", 'jsonpath={.items[?( @.metadata.name == "bad" )].spec.ports[0].port}'],
      ["get", "svc", "-o", "jsonpath={.items[?(@.spec.ports[0].port>=80)].metadata.name}"],
    ];
    for (const c of cases) await same(c);
    expect((await same(["get", "svc", "bad", "-o", "jsonpath={.spec.type}"])).stdout).toBe("ClusterIP");
  });

  it("-o yaml quotes as go-yaml does: double quotes for what would read as another type, single quotes for what cannot be plain", { timeout: 120_000 }, async () => {
    const values = ["on", "yes", "1.0", "null", "~", "x: y", "line1\nline2", "012", " lead", "#hash", "0x1F", "- dash", 'a"b', "it's", "", ".inf", "2026-01-01", "@at", "trail ", "*star", "{a}", "[1]", "!bang"];
    const r = await kubectl(["create", "configmap", "tricky", ...values.map((v, i) => `--from-literal=k${i}=${v}`)]);
    expect(r.code).toBe(0);
    expect((await kubectl(["label", "configmap", "tricky", "on=yes", "n=1.5", "y=Y"])).code).toBe(0);
    const y = await same(["get", "configmap", "tricky", "-o", "yaml"]);
    expect(y.stdout).toContain("  k5: 'x: y'\n");
    await same(["get", "configmap", "tricky", "-o", "json"]);
  });

  it("-o go-template / template / go-template-file / --template: Go's text/template over the object, errors and all", { timeout: 180_000 }, async () => {
    expect((await kubectl(["create", "deployment", "tpl", "--image=httpd", "--replicas=2"])).code).toBe(0);
    expect((await kubectl(["expose", "deployment", "tpl", "--port=80", "--target-port=8080"])).code).toBe(0);
    expect((await kubectl(["label", "svc", "tpl", "app.kubernetes.io/name=tpl", "tier=web"])).code).toBe(0);
    expect((await kubectl(["create", "configmap", "tplcm", "--from-literal=b64=czNjcjN0", "--from-literal=bad=czNjc!"])).code).toBe(0);
    const gt = (t: string) => `go-template=${t}`;
    const cases = [
      ["get", "svc", "tpl", "-o", gt("{{.metadata.name}} {{.spec.type}} {{.spec.sessionAffinity}}")],
      ["get", "svc", "-o", gt('{{range .items}}{{.metadata.name}}{{"\n"}}{{end}}')],
      ["get", "svc", "tpl", "-o", gt("{{.spec.ports}} {{.metadata.labels}} {{.status}}")],
      ["get", "svc", "tpl", "-o", "template={{.kind}}/{{.metadata.name}}"],
      ["get", "svc", "tpl", "--template={{.apiVersion}}"],
      ["get", "svc", "-o", gt("{{.kind}} {{len .items}} {{.metadata}}")],
      ["get", "pods", "-l", "app=tpl", "-o", gt('{{range .items}}{{.metadata.labels.app}}:{{range .spec.containers}} {{.name}}={{.image}}{{range .ports}}{{.containerPort}}{{end}}{{end}}{{"\n"}}{{end}}')],
      ["get", "svc", "tpl", "-o", gt("{{range $k, $v := .metadata.labels}}{{$k}}={{$v}};{{end}}")],
      ["get", "svc", "tpl", "-o", gt('{{range $i, $p := .spec.ports}}{{printf "%d: %d->%v %T %5s|%-4s|%q" $i $p.port $p.targetPort $p.port $p.protocol $p.protocol $p.protocol}}{{end}}')],
      ["get", "svc", "tpl", "-o", gt('{{printf "%s" (index .spec.ports 0).port}} {{printf "%d"}} {{printf "%x" 255}}')],
      ["get", "svc", "tpl", "-o", gt('{{index .metadata.labels "app.kubernetes.io/name"}} {{index .metadata.labels "nope"}} {{exists .metadata.labels "tier"}}')],
      ["get", "svc", "tpl", "-o", gt('{{if eq .spec.type "NodePort" "ClusterIP"}}{{.spec.clusterIP | printf "ip=%s"}}{{else}}other{{end}}')],
      ["get", "svc", "tpl", "-o", gt("{{with .spec.externalIPs}}{{.}}{{else}}none{{end}} {{if .spec.ports}}ports{{end}} {{- /* trimmed */ -}} !")],
      ["get", "deploy", "tpl", "-o", gt("{{.spec.replicas}} {{gt .spec.replicas 1}} {{and .spec.replicas .metadata.name}} {{.spec.nope}} {{.spec.nope.deeper}}")],
      ["get", "svc", "tpl", "-o", gt("{{.spec.nope}}"), "--allow-missing-template-keys=false"],
      ["get", "svc", "-o", gt("{{range .items}}{{.metadata.name}} {{.spec.nope}}{{end}}"), "--allow-missing-template-keys=false"],
      ["get", "svc", "tpl", "-o", gt("{{index .spec.ports 5}}")],
      ["get", "svc", "tpl", "-o", gt("{{.metadata.name}")],
      ["get", "svc", "tpl", "-o", gt("{{.metadata.name }")],
      ["get", "svc", "tpl", "-o", gt("{{if .kind}}x")],
      ["get", "svc", "tpl", "-o", gt("{{upper .kind}}")],
      ["get", "svc", "tpl", "-o", "go-template"],
      ["get", "svc", "tpl", "-o", "go-template-file=/nonexistent/t.tpl"],
      ["get", "configmap", "tplcm", "-o", gt("{{base64decode .data.b64}}")],
      ["get", "configmap", "tplcm", "-o", gt("{{base64decode .data.bad}}")],
      ["get", "svc", "tpl", "nope", "-o", gt("{{.metadata.name}}")],
    ];
    for (const c of cases) await same(c);
    expect((await same(["get", "svc", "tpl", "-o", gt('{{index .metadata.labels "app.kubernetes.io/name"}}')])).stdout).toBe("tpl");
    expect((await same(["get", "configmap", "tplcm", "-o", gt("{{base64decode .data.b64}}")])).stdout).toBe("s3cr3t");
    // A template file at the same path on both sides.
    const file = join(dir, "svc.tpl");
    const text = '{{range .items}}{{.metadata.name}}\t{{range .spec.ports}}{{.port}}/{{.protocol}} {{end}}\n{{end}}';
    writeFileSync(file, text);
    expect((await terminal(`mkdir -p ${dir} && printf '%s' '${text}' > ${file}`)).code).toBe(0);
    await same(["get", "svc", "-o", `go-template-file=${file}`]);
    await same(["get", "svc", "-o", `templatefile=${file}`]);
    await same(["get", "svc", "-o", "go-template-file", `--template=${file}`]);
  });

  it("explain reads the OpenAPI document as the terminal's explain does: fields, types, required, recursive", { timeout: 120_000 }, async () => {
    for (const path of ["svc", "svc.spec", "svc.spec.ports", "svc.spec.type", "deploy.spec", "deploy.spec.template.spec.containers", "endpointslices.endpoints", "pods.spec.containers.ports.containerPort", "cm"]) {
      const r = await same(["explain", path]);
      expect(r.code).toBe(0);
    }
    expect((await same(["explain", "svc.spec.ports", "--recursive"])).stdout).toContain("targetPort\t<IntOrString>");
    expect((await same(["explain", "pods", "--recursive"])).stdout).toContain("      containerPort\t<integer> -required-");
    expect(await same(["explain", "svc.spec.nope"])).toEqual({ stdout: "KIND:       Service\nVERSION:    v1\n\n", stderr: 'error: field "nope" does not exist\n', code: 1 });
  });
  it("YAML mistakes, duplicate keys, JSONPath ranges and flag values: kubectl 1.33's words (issue 19.8)", { timeout: 180_000 }, async () => {
    // Each file written where the real kubectl runs (cwd: dir) and on the terminal's node, same name.
    const files: Record<string, string> = {
      "tab.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n\tname: a\nspec:\n  ports:\n  - port: 80\n",
      "quote.yaml": 'apiVersion: v1\nkind: Service\nmetadata:\n  name: "a\nspec:\n  ports:\n  - port: 80\n',
      "squote.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: 'a\nspec:\n  ports:\n  - port: 80\n",
      "mapval.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a: b\nspec:\n  ports:\n  - port: 80\n",
      "deeper.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n   labels:\n    x: y\nspec:\n  ports:\n  - port: 80\n",
      "between.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n  - port: 80\n   targetPort: 80\n",
      "entry.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n  - port: 80\n    - port: 81\n  type: ClusterIP\n",
      "shallower.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n    name: a\n  labels:\n    x: y\n",
      "after-quote.yaml": 'apiVersion: v1\nkind: Service\nmetadata:\n  name: "a"b\n',
      "flow.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  selector: {app: web\n  ports:\n  - port: 80\n",
      "flowseq.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: [a\nspec:\n  type: ClusterIP\n",
      "continued.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n  - port: 80\n  - port 81\n    x: 1\n",
      "second-doc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: ok\nspec:\n  ports:\n  - port: 80\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n   x: 1\n",
      "dup.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: first\n  name: dup\nspec:\n  ports:\n  - port: 80\n  ports:\n  - port: 81\n",
      "nocolon.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name a\nspec:\n  ports:\n  - port: 80\n",
    };
    const inDir = (args: string[]): Promise<Out> => kubectl(args, { cwd: dir });
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      expect((await terminal(`cat > ${name} <<'EOF_YAML'\n${text}EOF_YAML`)).code).toBe(0);
      const args = name === "second-doc.yaml" ? ["apply", "-f", name, "--dry-run=server"] : ["apply", "-f", name, "--dry-run=client"];
      const real = await inDir(args);
      const term = await terminal(commandLine(args));
      // second-doc.yaml: a later document's mistake; the documents before it are applied first (both).
      expect({ name, stdout: real.stdout, stderr: real.stderr, code: real.code }).toEqual({ name, stdout: term.stdout, stderr: term.stderr, code: term.code });
    }
    // create, delete and replace visit the documents as they read them: the first is used, then the error.
    for (const verb of ["create", "delete", "replace"]) {
      const args = [verb, "-f", "second-doc.yaml", "--dry-run=server"];
      const real = await inDir(args);
      const term = await terminal(commandLine(args));
      expect({ verb, stdout: real.stdout, stderr: real.stderr, code: real.code }).toEqual({ verb, stdout: term.stdout, stderr: term.stderr, code: term.code });
    }
    expect((await inDir(["apply", "-f", "dup.yaml", "--dry-run=client", "-o", "jsonpath={.metadata.name} {.spec.ports[0].port}"])).stdout).toBe("dup 81");
    for (const c of [
      ["get", "ns", "-o", 'jsonpath={range.items[*]}{.metadata.name}{"\\n"}{end}'],
      ["get", "ns", "-o", "jsonpath={range .items[*]}{.metadata.name}"],
      ["get", "ns", "-o", "jsonpath={range .items[*]}[{.metadata.name}]{end}{.kind}"],
      ["get", "ns", "-o", "jsonpath={.items[*].metadata.name}"],
      ["get", "ns", "-o", 'jsonpath={.items[?(@.metadata.name=="default")].status.phase}'],
      ["get", "ns", "-o", "jsonpath={.items[x]}"],
      ["create", "deployment", "w", "--image=nginx", "--port=abc", "--dry-run=client"],
      ["create", "deployment", "w", "--image=nginx", "--replicas=x", "--dry-run=client"],
      ["scale", "deployment", "w", "--replicas=abc"],
    ])
      await same(c);
  });

  it("run --overrides patches the generated pod: merge by default, strategic or json when asked, kubectl's errors", { timeout: 180_000 }, async () => {
    const run = ["run", "ov", "--image=nginx", "--dry-run=client", "-o", "yaml"];
    for (const extra of [
      ["--overrides", '{"spec":{"nodeName":"node1","containers":[{"name":"ov","image":"busybox"}]}}'],
      ["--overrides", '{"spec":{"containers":[{"name":"ov","image":"busybox"}]}}', "--override-type=strategic"],
      ["--overrides", '{"spec":{"containers":[{"name":"side","image":"busybox"}]}}', "--override-type=strategic"],
      ["--overrides", '[{"op":"add","path":"/spec/hostNetwork","value":true}]', "--override-type=json"],
      ["--overrides", '{"metadata":{"labels":{"run":null,"app":"x"}}}'],
      ["--overrides", "{nope"],
      ["--overrides", "{nope", "--override-type=strategic"],
      ["--overrides", "{nope", "--override-type=json"],
      ["--overrides", '{"a":1}', "--override-type=json"],
      ["--overrides", '[{"op":"remove","path":"/spec/nothing"}]', "--override-type=json"],
      ["--overrides", "{}", "--override-type=other"],
      ["--overrides", "3"],
    ])
      await same([...run, ...extra]);
    // Not a dry run: the pod is made as overridden.
    expect((await kubectl(["run", "pinned", "--image=nginx", "--overrides", '{"spec":{"nodeName":"node2"}}'])).stdout).toBe("pod/pinned created\n");
    expect((await terminal(`kubectl run pinned-t --image=nginx --overrides='{"spec":{"nodeName":"node2"}}'`)).stdout).toBe("pod/pinned-t created\n");
    for (const pod of ["pinned", "pinned-t"]) expect((await kubectl(["get", "pod", pod, "-o", "jsonpath={.spec.nodeName}"])).stdout).toBe("node2");
  });
});
