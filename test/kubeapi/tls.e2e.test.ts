// The REAL kubectl (/usr/bin/kubectl, the version dispatcher) through the kubeconfig the server
// hands out, unchanged and with no flags: a tenant's cluster (a token is required), reached over
// the Node server's Kubernetes API port (TLS, verified with the installation's CA, the cluster
// chosen by the token); credentials that name no cluster refused as kube-apiserver refuses
// them; the plain port's /k8s/{id} still served; the same CA and kubeconfig after a restart.
// Without kubectl: skipped, or failed when CI=true.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL, KUBECTL_127, type Out, requireTools, run, type TestCluster, TestServer } from "./harness.js";

const have = requireTools("the real-kubectl TLS test", KUBECTL);

const ADMIN = "tls-e2e-admin";
let srv: TestServer;
let dir: string;
let origin: string;
let kubePort: number;
let tenantKey: string;

function kubectl(kubeconfig: string, args: string[], bin = KUBECTL): Promise<Out> {
  // No KUBECONFIG in the environment: --kubeconfig only, as a user would type it.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, "home") };
  delete env.KUBECONFIG;
  return run(bin, ["--kubeconfig", kubeconfig, ...args], { env, timeout: 60_000 });
}

const cluster = (name: string, key?: string): Promise<TestCluster> => srv.cluster(name, key);

describe.skipIf(!have)("real kubectl through the served kubeconfig (TLS port, the installation's CA)", () => {
  let a: TestCluster;
  let b: TestCluster;

  beforeAll(async () => {
    srv = await TestServer.start("kubectl-tls", { SERVICELAB_ADMIN_KEY: ADMIN });
    ({ dir, origin, kubePort } = srv);
    tenantKey = (await srv.post("/v1/tenants", ADMIN, { name: "tls-e2e" })).apiKey;
    a = await cluster("a", tenantKey);
    b = await cluster("b", tenantKey);
  }, 90_000);

  afterAll(() => srv?.stop());

  it("the kubeconfig: the TLS port, the CA, the cluster token", () => {
    expect(a.text).toContain(`    server: https://127.0.0.1:${kubePort}\n`);
    expect(a.text).toMatch(/^ {4}certificate-authority-data: [A-Za-z0-9+/=]+$/m);
    expect(Buffer.from(/certificate-authority-data: (\S+)/.exec(a.text)![1], "base64").toString()).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n?$/);
    expect(a.text).toContain(`    token: ${a.token}\n`);
    expect(a.text).not.toMatch(/insecure-skip-tls-verify/);
  });

  it("a tenant's cluster: get pods -A, get --raw /api/v1, create and delete (typed and --raw)", { timeout: 120_000 }, async () => {
    let r = await kubectl(a.kubeconfig, ["get", "pods", "-A"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAMESPACE +NAME +READY +STATUS/);
    expect(r.stdout).toContain("kube-proxy-");

    r = await kubectl(a.kubeconfig, ["get", "--raw", "/api/v1"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "APIResourceList", groupVersion: "v1" });

    r = await kubectl(a.kubeconfig, ["create", "configmap", "web", "--from-literal=k=v"]);
    expect(r).toMatchObject({ stdout: "configmap/web created\n", stderr: "", code: 0 });
    const file = join(dir, "raw.json");
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "raw" }, data: { a: "b" } }));
    r = await kubectl(a.kubeconfig, ["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", file]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "ConfigMap", metadata: { name: "raw", namespace: "default" }, data: { a: "b" } });
    r = await kubectl(a.kubeconfig, ["get", "configmaps", "-o", "name"]);
    expect(r.stdout).toBe("configmap/kube-root-ca.crt\nconfigmap/raw\nconfigmap/web\n");

    // B's kubeconfig is B's cluster: A's objects are not there.
    r = await kubectl(b.kubeconfig, ["get", "configmap", "web"]);
    expect(r).toMatchObject({ stdout: "", stderr: 'Error from server (NotFound): configmaps "web" not found\n', code: 1 });

    r = await kubectl(a.kubeconfig, ["delete", "configmap", "web"]);
    expect(r).toMatchObject({ stdout: 'configmap "web" deleted\n', code: 0 });
    r = await kubectl(a.kubeconfig, ["delete", "--raw", "/api/v1/namespaces/default/configmaps/raw"]);
    expect(r.code).toBe(0);
    r = await kubectl(a.kubeconfig, ["get", "configmaps", "-o", "name"]);
    expect(r.stdout).toBe("configmap/kube-root-ca.crt\n");
  });

  it("kubectl 1.27, the oldest supported, with the same kubeconfig", { timeout: 60_000 }, async () => {
    if (!existsSync(KUBECTL_127)) return;
    const r = await kubectl(a.kubeconfig, ["get", "nodes"], KUBECTL_127);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME +STATUS +ROLES +AGE +VERSION\nmaster +Ready/);
  });

  it("an anonymous cluster's kubeconfig works the same way", { timeout: 60_000 }, async () => {
    const c = await cluster("anon");
    expect(c.text).toContain(`    server: https://127.0.0.1:${kubePort}\n`);
    const r = await kubectl(c.kubeconfig, ["get", "ns", "default", "-o", "name"]);
    expect(r).toMatchObject({ stdout: "namespace/default\n", code: 0 });
  });

  it("credentials that name no cluster: kube-apiserver's 401, as kubectl words it", { timeout: 60_000 }, async () => {
    const bad = (name: string, token: string) => {
      const f = join(dir, `${name}.kubeconfig`);
      writeFileSync(f, a.text.replace(`    token: ${a.token}`, `    token: ${token}`));
      return f;
    };
    const forged = a.token.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    for (const f of [bad("forged", forged), bad("tenant-key", tenantKey), bad("admin", ADMIN)]) {
      const r = await kubectl(f, ["get", "pods"]);
      expect(r).toMatchObject({ stdout: "", stderr: "error: You must be logged in to the server (Unauthorized)\n", code: 1 });
    }
    // On the plain port's /k8s/{id}, A's token for B's cluster: 403, as before.
    const r = await fetch(`${origin}/k8s/${b.id}/api/v1/namespaces/default/pods`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(r.status).toBe(403);
  });

  it("the plain port's /k8s/{id} still serves existing links", { timeout: 60_000 }, async () => {
    // With the token (curl, scripts): the tenant's cluster.
    const r = await fetch(`${origin}/k8s/${a.id}/api/v1/namespaces/kube-system/pods`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    // A real kubectl on this machine, over plain http to an anonymous cluster (no token is sent).
    const c = await cluster("plain");
    const f = join(dir, "plain.kubeconfig");
    writeFileSync(f, c.text.replace(/^ {4}certificate-authority-data: .*\n/m, "").replace(/^ {4}server: .*$/m, `    server: ${origin}/k8s/${c.id}`));
    const k = await kubectl(f, ["get", "ns", "kube-system", "-o", "name"]);
    expect(k).toMatchObject({ stdout: "namespace/kube-system\n", code: 0 });
  });

  it("after a restart on the same data directory: the same CA, and the old kubeconfig still works", { timeout: 120_000 }, async () => {
    const port = kubePort;
    await srv.restart({ KUBE_PORT: String(port) });
    ({ origin, kubePort } = srv);
    expect(kubePort).toBe(port);
    const again = await (await fetch(`${origin}/v1/clusters/${a.id}/kubeconfig`, { headers: { authorization: `Bearer ${a.token}` } })).text();
    expect(/certificate-authority-data: (\S+)/.exec(again)![1]).toBe(/certificate-authority-data: (\S+)/.exec(a.text)![1]);
    const r = await kubectl(a.kubeconfig, ["get", "configmaps", "-o", "name"]);
    expect(r).toMatchObject({ stdout: "configmap/kube-root-ca.crt\n", stderr: "", code: 0 });
  });
});
