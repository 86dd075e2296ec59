// kubectl apply's three-way merge against the REAL kubectl 1.33 (/usr/bin/kubectl, as in
// kubectl.e2e.test.ts: the Node server on a loopback port, through the kubeconfig it serves). Two clusters of
// the same server: the real kubectl applies a sequence of files on one, the terminal the same
// files on the other. At each step:
//   - the patch: the real kubectl's `apply --dry-run=server -v=8` request body is compared,
//     byte for byte, with the patch ServiceLab's kubectl computes (src/kubectl/apply-patch.ts)
//     from the same live object and file;
//   - what each kubectl prints, and the resulting objects (server-assigned fields masked),
//     the last-applied-configuration annotation included.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlApplyPatch, withLastApplied } from "../../src/kubectl/apply-patch.js";
import { goCompactJson } from "../../src/kubectl/output.js";
import type { JsonObject } from "../../src/engine/api/patch/json.js";
import { KUBECTL, type Out, requireTools, run, type TestCluster, TestServer } from "./harness.js";

const have = requireTools("the real-kubectl apply test", KUBECTL);

let srv: TestServer;
let dir: string;
/** The cluster the real kubectl applies to, and the one the terminal's kubectl does. */
let real: TestCluster;
let term: TestCluster;

const kubectl = (args: string[]): Promise<Out> => run(KUBECTL, args, { env: srv.kubectlEnv(real), timeout: 60_000 });
const terminal = (c: TestCluster, command: string): Promise<Out> => srv.terminal(c, command);

/** Writes a file on the host (for the real kubectl) and on the terminal's node. */
async function file(name: string, text: string): Promise<string> {
  writeFileSync(join(dir, name), text);
  const r = await terminal(term, `cat > ${name} <<'EOF_APPLY'\n${text}EOF_APPLY`);
  expect(r.code).toBe(0);
  return name;
}

/** What the server assigns differently in the two clusters. */
function masked(obj: JsonObject): JsonObject {
  const o = structuredClone(obj) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) delete o.metadata?.[k];
  delete o.status;
  if (o.kind === "Service") {
    delete o.spec.clusterIP;
    delete o.spec.clusterIPs;
    for (const p of o.spec.ports ?? []) if (p.nodePort) p.nodePort = "<nodePort>";
  }
  if (o.metadata?.annotations) delete o.metadata.annotations["deployment.kubernetes.io/revision"];
  return o;
}

/** The PATCH body the real kubectl logged at -v=8. */
function patchBody(log: string): string | undefined {
  const bodies = [...log.matchAll(/helper\.go:\d+\] "Request Body" body=("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string);
  return bodies.find((b) => b.startsWith("{"));
}

/** Applies `name` with both kubectls and checks the patch, the output and the object. */
async function applyBoth(name: string, resource: string, ns = "default"): Promise<void> {
  const doc = parseAllDocuments(await (await import("node:fs/promises")).readFile(join(dir, name), "utf8"));
  const fileObj = (Array.isArray(doc) ? doc[0] : doc).toJS() as JsonObject;
  const before = await kubectl(["get", resource, "-n", ns, "-o", "json"]);
  if (before.code === 0) {
    const live = JSON.parse(before.stdout) as JsonObject;
    const dry = await kubectl(["apply", "-n", ns, "-f", join(dir, name), "--dry-run=server", "-v=9"]);
    const info = { kind: fileObj.kind as string, crd: (fileObj.apiVersion as string).includes("metallb.io") };
    const ours = kubectlApplyPatch(info, live, withLastApplied(fileObj, ns)).patch;
    const theirs = patchBody(dry.stderr);
    expect(Object.keys(ours).length === 0 ? undefined : goCompactJson(ours), `${name}: the patch`).toBe(theirs);
  }
  const r = await kubectl(["apply", "-n", ns, "-f", join(dir, name)]);
  const t = await terminal(term, `kubectl apply -n ${ns} -f ${name}`);
  expect(t, `${name}: kubectl apply`).toEqual(r);
  const a = await kubectl(["get", resource, "-n", ns, "-o", "json"]);
  const b = await terminal(term, `kubectl get ${resource} -n ${ns} -o json`);
  expect(masked(JSON.parse(b.stdout)), `${name}: the object`).toEqual(masked(JSON.parse(a.stdout)));
}

describe.skipIf(!have)("kubectl apply: the real kubectl's three-way merge", () => {
  beforeAll(async () => {
    srv = await TestServer.start("apply");
    dir = srv.dir;
    real = await srv.cluster("real");
    term = await srv.cluster("term");
  }, 90_000);

  afterAll(() => srv?.stop());

  it("lab guide 5.2 -> 5.3: the NodePort Service's file, then the LoadBalancer one, on one Service", { timeout: 120_000 }, async () => {
    const svc = (type: string, port: number) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  creationTimestamp: null\n  labels:\n    app: web\n  name: web\nspec:\n  ports:\n  - port: ${port}\n    protocol: TCP\n    targetPort: 80\n  selector:\n    app: web\n  type: ${type}\nstatus:\n  loadBalancer: {}\n`;
    await applyBoth(await file("service-NodePort.yaml", svc("NodePort", 8080)), "service/web");
    await applyBoth(await file("service-LoadBalancer.yaml", svc("LoadBalancer", 80)), "service/web");
    await applyBoth("service-LoadBalancer.yaml", "service/web");
  });

  it("a Deployment: env, ports, volumes and mounts dropped, lists reordered, fields removed", { timeout: 120_000 }, async () => {
    const v1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels: {app: api, tier: back}
  annotations: {team: blue}
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      volumes:
      - name: conf
        configMap: {name: conf}
      - name: cache
        emptyDir: {}
      containers:
      - name: api
        image: nginx:1.27
        args: ["-g", "daemon off;"]
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
        - {name: C, value: "3"}
        ports:
        - {containerPort: 80, name: http}
        - {containerPort: 443, name: https}
        volumeMounts:
        - {name: conf, mountPath: /etc/conf}
        - {name: cache, mountPath: /cache}
      - name: side
        image: busybox
        command: [sleep, "3600"]
`;
    const v2 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels: {app: api}
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      volumes:
      - name: conf
        configMap: {name: conf2}
      containers:
      - name: side
        image: busybox:1.36
        command: [sleep, "7200"]
      - name: api
        image: nginx:1.27
        env:
        - {name: C, value: "3"}
        - {name: A, value: "10"}
        ports:
        - {containerPort: 80, name: http}
        volumeMounts:
        - {name: conf, mountPath: /etc/conf}
`;
    await applyBoth(await file("api-v1.yaml", v1), "deployment/api");
    await applyBoth(await file("api-v2.yaml", v2), "deployment/api");
    await applyBoth("api-v1.yaml", "deployment/api");
  });

  it("a ConfigMap: data dropped, finalizers (a merging list of strings) changed and reordered", { timeout: 120_000 }, async () => {
    const cm = (data: string, fin: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  finalizers: [${fin}]\ndata:\n${data}`;
    await applyBoth(await file("cm-1.yaml", cm("  a: \"1\"\n  b: \"2\"\n", "example.com/a, example.com/b")), "configmap/conf");
    await applyBoth(await file("cm-2.yaml", cm("  b: \"3\"\n  c: <&>\n", "example.com/c, example.com/b")), "configmap/conf");
    await applyBoth(await file("cm-3.yaml", cm("  c: x\n", "example.com/b")), "configmap/conf");
    for (const k of [["patch", "cm", "conf", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']]) expect((await kubectl(k)).code).toBe(0);
    expect((await terminal(term, `kubectl patch cm conf --type=merge -p '{"metadata":{"finalizers":null}}'`)).code).toBe(0);
  });

  it("an object made by kubectl create, then applied: the warning, and the annotation patched in", { timeout: 120_000 }, async () => {
    expect((await kubectl(["create", "configmap", "made", "--from-literal=a=1"])).code).toBe(0);
    expect((await terminal(term, "kubectl create configmap made --from-literal=a=1")).code).toBe(0);
    await applyBoth(await file("made.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: made\ndata:\n  b: \"2\"\n"), "configmap/made");
  });

  it("MetalLB's IPAddressPool (a custom resource): a three-way JSON merge patch", { timeout: 180_000 }, async () => {
    // Both clusters install MetalLB's CRDs from the lab's archive (through the terminal).
    for (const c of [real, term]) {
      const r = await terminal(c, "wget -q https://laoma.cloud/.../metallb-0.14.8.tar.gz && tar -xf metallb-0.14.8.tar.gz && kubectl apply -f metallb-0.14.8/config/manifests/metallb-native.yaml >/dev/null");
      expect(r.code, r.stderr).toBe(0);
    }
    const pool = (spec: string) => `apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: first-pool\n  namespace: metallb-system\nspec:\n${spec}`;
    await applyBoth(await file("pool-1.yaml", pool("  addresses:\n  - 10.1.8.40-10.1.8.80\n  autoAssign: false\n  avoidBuggyIPs: true\n")), "ipaddresspool/first-pool", "metallb-system");
    await applyBoth(await file("pool-2.yaml", pool("  addresses:\n  - 10.1.8.40-10.1.8.60\n  - 10.1.8.90/32\n  autoAssign: true\n")), "ipaddresspool/first-pool", "metallb-system");
  });
});
