// The Node server's Kubernetes API port (TLS, the installation's CA, the cluster chosen by the
// token), in process with node:https as the client; the real kubectl's view is tls.e2e.test.ts.
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { isIP } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodeServer, type NodeServer } from "../../src/runtime/node-server.js";
import { ADMIN } from "../platform/harness.js";
import { testShell } from "../platform/runner.js";

interface Answer {
  status: number;
  text: string;
  body: any;
  peer: string;
}

/** The name a client checks the certificate for (an IP address is checked as the host, not sent as SNI). */
const name = (n: string) => (isIP(n) ? { host: n } : { servername: n });

/** One request to the TLS port, verified with the CA (`ca`) for the name `servername`. */
function kube(s: NodeServer, path: string, o: { token?: string; method?: string; body?: unknown; servername?: string; ca?: string } = {}): Promise<Answer> {
  return new Promise((res, rej) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const data = o.body === undefined ? undefined : JSON.stringify(o.body);
    if (data) headers["content-type"] = "application/json";
    const req = https.request({ host: "127.0.0.1", port: s.kubePort, path, method: o.method ?? "GET", headers, ca: o.ca ?? s.kubeCa, ...name(o.servername ?? "localhost"), agent: false }, (r) => {
      const peer = (r.socket as TLSSocket).getPeerCertificate().fingerprint256;
      let text = "";
      r.setEncoding("utf8");
      r.on("data", (d: string) => (text += d));
      r.on("end", () => {
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        res({ status: r.statusCode ?? 0, text, body, peer });
      });
    });
    req.on("error", rej);
    req.end(data);
  });
}

async function plain(s: NodeServer, method: string, path: string, token?: string, body?: unknown, host = "127.0.0.1"): Promise<{ status: number; text: string; body: any }> {
  const r = await fetch(`http://${host}:${s.port}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {}, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, text, body: parsed };
}

const UNAUTHORIZED = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 };

let dataDir: string;
let s: NodeServer;
let tenantKey: string;
let a: { id: string; token: string };
let b: { id: string; token: string };

const start = (dir: string) => startNodeServer({ port: 0, kubePort: 0, dataDir: dir, allowAnonymous: true, adminKey: ADMIN, idleMs: 3_600_000, shell: testShell, historyDelayMs: 20 });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "servicelab-tls-"));
  s = await start(dataDir);
  tenantKey = (await plain(s, "POST", "/v1/tenants", ADMIN, { name: "tls" })).body.apiKey;
  a = (await plain(s, "POST", "/v1/clusters", tenantKey)).body;
  b = (await plain(s, "POST", "/v1/clusters", tenantKey)).body;
}, 60_000);

afterAll(async () => {
  await s?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the Kubernetes API's TLS port", () => {
  it("the kubeconfig points at it, with the installation's CA and the cluster token", async () => {
    const kc = (await plain(s, "GET", `/v1/clusters/${a.id}/kubeconfig`, a.token)).text;
    expect(kc).toContain(`    server: https://127.0.0.1:${s.kubePort}\n`);
    expect(kc).toContain(`    certificate-authority-data: ${Buffer.from(s.kubeCa!).toString("base64")}\n`);
    expect(kc).toContain(`    token: ${a.token}\n`);
    // Reached as localhost, the kubeconfig says localhost (the certificate covers it).
    expect((await plain(s, "GET", `/v1/clusters/${a.id}/kubeconfig`, a.token, undefined, "localhost")).text).toContain(`    server: https://localhost:${s.kubePort}\n`);
  });

  it("serves a certificate of the CA for 127.0.0.1, ::1 and localhost", async () => {
    const ca = new X509Certificate(s.kubeCa!);
    expect(ca.ca).toBe(true);
    for (const servername of ["localhost", "127.0.0.1"]) expect((await kube(s, "/version", { servername })).status).toBe(200);
    // Another CA's client refuses it.
    const other = (await import("../../src/runtime/kube-tls.js")).makeCa();
    await expect(kube(s, "/version", { ca: (await other).cert })).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    const leaf = await new Promise<X509Certificate>((res, rej) => {
      const req = https.request({ host: "127.0.0.1", port: s.kubePort, path: "/version", ca: s.kubeCa, servername: "localhost", agent: false }, (r) => {
        res(new X509Certificate((r.socket as TLSSocket).getPeerCertificate().raw));
        r.resume();
      });
      req.on("error", rej);
      req.end();
    });
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subjectAltName).toContain("IP Address:127.0.0.1");
    expect(leaf.subjectAltName).toContain("IP Address:0:0:0:0:0:0:0:1");
    expect(leaf.subjectAltName).toContain("DNS:localhost");
  });

  it("serves the API at the root, the cluster chosen by the token", async () => {
    const api = await kube(s, "/api/v1", { token: a.token });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ kind: "APIResourceList", groupVersion: "v1" });
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "only-in-a" }, data: { k: "v" } };
    expect((await kube(s, "/api/v1/namespaces/default/configmaps", { token: a.token, method: "POST", body: cm })).status).toBe(201);
    expect((await kube(s, "/api/v1/namespaces/default/configmaps/only-in-a", { token: a.token })).body.data).toEqual({ k: "v" });
    // B's token is B's cluster: A's object is not there.
    expect((await kube(s, "/api/v1/namespaces/default/configmaps/only-in-a", { token: b.token })).status).toBe(404);
    // The same object through the plain port's /k8s/{id}, for existing links.
    expect((await plain(s, "GET", `/k8s/${a.id}/api/v1/namespaces/default/configmaps/only-in-a`, a.token)).body.data).toEqual({ k: "v" });
    expect((await plain(s, "GET", `/k8s/${b.id}/api/v1/namespaces/default/configmaps`, a.token)).status).toBe(403);
    expect((await kube(s, "/api/v1/namespaces/default/configmaps/only-in-a", { token: a.token, method: "DELETE" })).status).toBe(200);
    // A discovery document's links stay at the root (no /k8s/{id} prefix).
    const v3 = await kube(s, "/openapi/v3", { token: a.token });
    expect(v3.status).toBe(200);
    expect(JSON.stringify(v3.body)).toContain('"serverRelativeURL":"/openapi/v3/api/v1?hash=');
  });

  it("refuses credentials that name no live cluster with the apiserver's 401, saying nothing more", async () => {
    const forged = a.token.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    const share = (await plain(s, "POST", `/v1/clusters/${a.id}/share`, a.token)).body.token as string;
    const gone = (await plain(s, "POST", "/v1/clusters", tenantKey)).body as { id: string; token: string };
    expect((await plain(s, "DELETE", `/v1/clusters/${gone.id}`, gone.token)).status).toBe(200);
    for (const token of [undefined, forged, share, tenantKey, ADMIN, gone.token, "slc_cnothere.x"]) {
      const r = await kube(s, "/api/v1/namespaces/default/pods", { token });
      expect({ token, status: r.status, body: r.body }).toEqual({ token, status: 401, body: UNAUTHORIZED });
    }
    // What anyone may read, as on kube-apiserver.
    expect((await kube(s, "/version")).body).toMatchObject({ major: "1", minor: "33" });
    expect((await kube(s, "/healthz")).text).toBe("ok");
    // The platform's routes are not on this port.
    expect((await kube(s, "/v1/labs", { token: a.token })).status).toBe(404);
  });

  it("keeps the CA and the serving certificate across a restart of the same data directory", async () => {
    const before = { ca: s.kubeCa, peer: (await kube(s, "/version")).peer };
    await s.close();
    s = await start(dataDir);
    expect(s.kubeCa).toBe(before.ca);
    expect((await kube(s, "/version")).peer).toBe(before.peer);
    // The old token still opens its cluster over the new listener.
    expect((await kube(s, "/api/v1/namespaces/default/configmaps", { token: a.token })).status).toBe(200);
  }, 60_000);
});
