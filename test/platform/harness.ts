// Starts the Node server in process on a free port with a fresh data directory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNodeServer, type NodeServer, type NodeServerOptions } from "../../src/runtime/node-server.js";
import { testShell } from "./runner.js";

export const ADMIN = "admin-test-key";

export interface Harness {
  s: NodeServer;
  url: string;
  req(method: string, path: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  tenant(name: string, limits?: Record<string, number>): Promise<{ id: string; apiKey: string }>;
  cluster(token?: string, lab?: string): Promise<{ id: string; token: string }>;
}

export async function harness(opts: Partial<NodeServerOptions> = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), "servicelab-test-"));
  const s = await startNodeServer({ port: 0, dataDir, allowAnonymous: true, adminKey: ADMIN, idleMs: 3_600_000, shell: testShell, historyDelayMs: 20, ...opts });
  const url = `http://127.0.0.1:${s.port}`;
  const req: Harness["req"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const r = await fetch(url + path, { method, headers, body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) });
    const text = await r.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: r.status, body, text, headers: r.headers };
  };
  return {
    s,
    url,
    req,
    async tenant(name, limits) {
      const r = await req("POST", "/v1/tenants", { token: ADMIN, body: { name, limits } });
      if (r.status !== 201) throw new Error(r.text);
      return r.body;
    },
    async cluster(token, lab) {
      const r = await req("POST", "/v1/clusters", { token, body: lab ? { lab } : undefined });
      if (r.status !== 201) throw new Error(r.text);
      return r.body;
    },
  };
}
