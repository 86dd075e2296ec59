// The REAL kubectl 1.33 runs every line of src/shell/kubectl/cmd/testdata/create.golden.txt
// (client-side dry runs and flag errors: no request reaches a server, whose address is a closed
// port) and must print exactly what the golden file holds, which create.test.ts checks the
// terminal against. Without kubectl: skipped, or failed when CI=true.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readGolden } from "../../src/shell/kubectl/cmd/golden.js";

/** kubectl 1.33 itself where the dispatcher's versions are installed, else the dispatcher. */
const KUBECTL = ["/usr/lib/google-cloud-sdk/bin/kubectl.1.33", "/usr/bin/kubectl"].find((p) => existsSync(p));
if (!KUBECTL && process.env.CI === "true") throw new Error("kubectl is missing: the real-kubectl test cannot run (CI=true makes this a failure)");
if (!KUBECTL) console.warn("skipping the real-kubectl create test: kubectl is not installed");

const GOLDEN = fileURLToPath(new URL("../../src/shell/kubectl/cmd/testdata/create.golden.txt", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sl-create-"));
const kubeconfig = join(dir, "config");
writeFileSync(kubeconfig, `apiVersion: v1
clusters:
- cluster:
    server: https://127.0.0.1:1
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
preferences: {}
users:
- name: kubernetes-admin
  user:
    token: unused
`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!KUBECTL)("the real kubectl prints the create goldens", () => {
  for (const c of readGolden(GOLDEN)) {
    it(c.line, () => {
      // The golden's line is a shell line (quotes): bash runs it with kubectl as its first word.
      const r = spawnSync("bash", ["-c", `kubectl() { ${JSON.stringify(KUBECTL)} "$@"; }; ${c.line}`], { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: join(dir, "home") }, encoding: "utf8", timeout: 60_000 });
      expect({ stdout: r.stdout, stderr: r.stderr, exitCode: r.status }).toEqual({ stdout: c.stdout, stderr: c.stderr, exitCode: c.exitCode });
    });
  }
});
