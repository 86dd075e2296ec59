// kubectl apply --prune with the REAL kubectl 1.33 against our Kubernetes API, and the same lines
// in the web terminal: the same objects pruned, the same refusals and words. Each side works in a
// namespace of its own (-n), with the same files, so neither sees the other's objects.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL, type Out, requireTools, run, type TestCluster, TestServer } from "./harness.js";

const have = requireTools("the real-kubectl prune test", KUBECTL);

const APP = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.28}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-v1, labels: {app: web}}
data: {index.html: v1}
`;
const FILES: Record<string, string> = {
  "app.yaml": APP,
  "app-v2.yaml": APP.replace("web-v1", "web-v2").replace("v1}", "v2}"),
  "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {app: web}}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
};

/** klog's header carries the wall clock and kubectl's pid. */
const klog = (s: string) => s.replace(/^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ /gm, "W<time> <pid> ");

describe.skipIf(!have)("kubectl apply --prune, real and terminal", () => {
  let srv: TestServer;
  let cl: TestCluster;

  beforeAll(async () => {
    srv = await TestServer.start("prune");
    cl = await srv.cluster("prune");
    for (const [name, text] of Object.entries(FILES)) {
      writeFileSync(join(srv.dir, name), text);
      expect((await srv.terminal(cl, `cat > ${name} <<'EOF_YAML'\n${text}EOF_YAML`)).code).toBe(0);
    }
  }, 90_000);
  afterAll(() => srv?.stop());

  it("prunes what the files no longer hold, within the selector and the allowlist", { timeout: 180_000 }, async () => {
    const real = (args: string[]): Promise<Out> => run(KUBECTL, args, { env: srv.kubectlEnv(cl), timeout: 60_000, cwd: srv.dir });
    const term = (args: string[]): Promise<Out> => srv.terminal(cl, ["kubectl", ...args].map((a) => (/^[\w=/.,-]+$/.test(a) ? a : `'${a}'`)).join(" "));
    const lines = [
      ["create", "namespace", "NS"],
      ["apply", "-n", "NS", "-f", "app.yaml"],
      ["create", "configmap", "-n", "NS", "web-manual"],
      ["label", "configmap", "-n", "NS", "web-manual", "app=web"],
      ["apply", "-n", "NS", "--prune", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "--all", "-l", "app=web", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--force", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--server-side", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=v1/ConfigMap", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=core/v1/Widget", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "-l", "app in (", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "-l", "app=nothing", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=core/v1/ConfigMap", "-f", "app-v2.yaml", "--dry-run=client"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=core/v1/ConfigMap", "-f", "app-v2.yaml", "--dry-run=server"],
      // The default allowlist: every kind kubectl prunes by default must be served for it to run.
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "-f", "app-v2.yaml"],
      ["get", "configmaps", "-n", "NS", "-o", "name"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=core/v1/ConfigMap", "-f", "app-v2.yaml"],
      ["apply", "-n", "NS", "--prune", "-l", "app=web", "--prune-allowlist=apps/v1/Deployment", "--prune-allowlist=core/v1/Service", "-f", "svc.yaml", "-o", "name"],
      ["get", "deploy,svc,cm", "-n", "NS", "-o", "name"],
    ];
    for (const line of lines) {
      const a = await real(line.map((w) => w.replace("NS", "prune-real")));
      const b = await term(line.map((w) => w.replace("NS", "prune-term")));
      const norm = (o: Out) => ({ line: line.join(" "), stdout: o.stdout.replaceAll("prune-real", "NS"), stderr: klog(o.stderr).replaceAll("prune-real", "NS"), code: o.code });
      expect(norm({ ...b, stdout: b.stdout.replaceAll("prune-term", "prune-real"), stderr: b.stderr.replaceAll("prune-term", "prune-real") })).toEqual(norm(a));
    }
    // What is left: the Service of the last file, the manual ConfigMap, kube-root-ca.crt.
    expect((await real(["get", "deploy,svc,cm", "-n", "prune-real", "-o", "name"])).stdout).toBe("service/web\nconfigmap/kube-root-ca.crt\nconfigmap/web-manual\nconfigmap/web-v2\n");
  });
});
