// The REAL kubectl (/usr/bin/kubectl, the version dispatcher) through the kubeconfig the server
// hands out, unchanged and with no flags: a tenant's cluster (a token is required), reached over
// the Node server's Kubernetes API port (TLS, verified with the installation's CA, the cluster
// chosen by the token); credentials that name no cluster refused as kube-apiserver refuses
// them; the plain port's /k8s/{id} still served; the same CA and kubeconfig after a restart.
// Without kubectl: skipped, or failed when CI=true.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KUBECTL = "/usr/bin/kubectl";
/** The oldest kubectl the dispatcher carries, run directly (the dispatcher picks 1.33 for our server). */
const KUBECTL_127 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.27";
const have = existsSync(KUBECTL);
if (!have && process.env.CI === "true") throw new Error(`${KUBECTL} is missing: the real-kubectl TLS test cannot run (CI=true makes this a failure)`);
if (!have) console.warn(`skipping the real-kubectl TLS test: ${KUBECTL} is not installed`);

const ADMIN = "tls-e2e-admin";
let dir: string;
let server: ChildProcess | undefined;
let origin: string;
let kubePort: number;
let tenantKey: string;

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}
interface Cl {
  id: string;
  token: string;
  kubeconfig: string;
  text: string;
}

function kubectl(kubeconfig: string, args: string[], bin = KUBECTL): Promise<Out> {
  return new Promise((res) => {
    // No KUBECONFIG in the environment: --kubeconfig only, as a user would type it.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, "home") };
    delete env.KUBECONFIG;
    execFile(bin, ["--kubeconfig", kubeconfig, ...args], { env, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      res({ stdout, stderr, code });
    });
  });
}

async function start(extraEnv: Record<string, string> = {}): Promise<void> {
  const s = spawn("npx", ["tsx", "src/runtime/node.ts"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SERVICELAB_DATA_DIR: join(dir, "data"), SERVICELAB_ADMIN_KEY: ADMIN, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  server = s;
  await new Promise<void>((res, rej) => {
    let buf = "";
    const t = setTimeout(() => rej(new Error(`server did not start: ${buf}`)), 60_000);
    s.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const plain = /listening on http:\/\/[\d.]+:(\d+)/.exec(buf);
      const kube = /Kubernetes API on https:\/\/[\d.]+:(\d+)/.exec(buf);
      if (plain && kube) {
        clearTimeout(t);
        origin = `http://127.0.0.1:${plain[1]}`;
        kubePort = Number(kube[1]);
        res();
      }
    });
    s.on("exit", (code) => rej(new Error(`server exited ${code}: ${buf}`)));
  });
}

async function stop(): Promise<void> {
  const s = server;
  server = undefined;
  if (!s?.pid) return;
  const gone = new Promise<void>((r) => s.on("exit", () => r()));
  try {
    process.kill(-s.pid, "SIGTERM");
  } catch {
    return;
  }
  await gone;
}

async function post(path: string, token?: string, body?: unknown): Promise<any> {
  const r = await fetch(origin + path, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {}, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function cluster(name: string, key?: string): Promise<Cl> {
  const c = (await post("/v1/clusters", key)) as { id: string; token: string };
  const text = await (await fetch(`${origin}/v1/clusters/${c.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.token}` } })).text();
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfig, text);
  return { ...c, kubeconfig, text };
}

describe.skipIf(!have)("real kubectl through the served kubeconfig (TLS port, the installation's CA)", () => {
  let a: Cl;
  let b: Cl;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sl-kubectl-tls-"));
    await start();
    tenantKey = (await post("/v1/tenants", ADMIN, { name: "tls-e2e" })).apiKey;
    a = await cluster("a", tenantKey);
    b = await cluster("b", tenantKey);
  }, 90_000);

  afterAll(async () => {
    await stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

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
    await stop();
    await start({ KUBE_PORT: String(port) });
    expect(kubePort).toBe(port);
    const again = await (await fetch(`${origin}/v1/clusters/${a.id}/kubeconfig`, { headers: { authorization: `Bearer ${a.token}` } })).text();
    expect(/certificate-authority-data: (\S+)/.exec(again)![1]).toBe(/certificate-authority-data: (\S+)/.exec(a.text)![1]);
    const r = await kubectl(a.kubeconfig, ["get", "configmaps", "-o", "name"]);
    expect(r).toMatchObject({ stdout: "configmap/kube-root-ca.crt\n", stderr: "", code: 0 });
  });
});
