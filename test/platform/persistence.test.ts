// kill -9 while writing: every write the server acknowledged (a 2xx answer) must be there
// after a restart. The server is a child process; the writes are many concurrent creates and
// execs that add objects, and SIGKILL lands while they are in flight.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

function start(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/platform/server-main.ts"], {
    cwd: root,
    env: { ...process.env, SERVICELAB_DATA_DIR: dataDir, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((res, rej) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += String(d);
      const m = /ready (\d+)/.exec(out);
      if (m) res({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.on("exit", (code) => rej(new Error(`server exited ${code}: ${out}`)));
  });
}

async function post(url: string, path: string, body: unknown, token?: string) {
  const r = await fetch(url + path, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {}, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

describe("persistence (Node host)", () => {
  it("every acknowledged write survives kill -9", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "servicelab-kill-"));
    const first = await start(dataDir);
    const clusters: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < 4; i++) clusters.push((await post(first.url, "/v1/clusters", {})).body);
    // Acknowledged: cluster id -> configmap names answered 200.
    const acked = new Map<string, string[]>(clusters.map((c) => [c.id, []]));
    const ackedClusters: Array<{ id: string; token: string }> = [...clusters];
    let stop = false;
    const writer = async (c: { id: string; token: string }, w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        try {
          const r = await post(first.url, `/v1/clusters/${c.id}/exec`, { command: `create-cm ${name} v` }, c.token);
          if (r.status === 200) acked.get(c.id)!.push(name);
        } catch {
          return; // the connection died with the server: not acknowledged
        }
      }
    };
    const creator = async () => {
      while (!stop) {
        try {
          const r = await post(first.url, "/v1/clusters", {});
          if (r.status === 201) ackedClusters.push(r.body);
        } catch {
          return;
        }
      }
    };
    const running = [...clusters.flatMap((c, i) => [writer(c, 2 * i), writer(c, 2 * i + 1)]), creator()];
    // Kill once enough writes were acknowledged (how long that takes depends on the machine's
    // load), while the writers still have requests in flight.
    const count = () => [...acked.values()].reduce((n, l) => n + l.length, 0);
    for (let waited = 0; count() < 80 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(running);
    const total = [...acked.values()].reduce((n, l) => n + l.length, 0);
    expect(total).toBeGreaterThan(50);

    const second = await start(dataDir);
    try {
      for (const c of clusters) {
        const r = await post(second.url, `/v1/clusters/${c.id}/exec`, { command: "get-cm" }, c.token);
        expect(r.status).toBe(200);
        const have = new Set(r.body.stdout.split("\n"));
        const missing = acked.get(c.id)!.filter((n) => !have.has(n));
        expect(missing, `cluster ${c.id}`).toEqual([]);
      }
      for (const c of ackedClusters) {
        const r = await post(second.url, `/v1/clusters/${c.id}/exec`, { command: "echo alive" }, c.token);
        expect(r.status, c.id).toBe(200);
      }
    } finally {
      second.child.kill("SIGKILL");
    }
  }, 90_000);
});
