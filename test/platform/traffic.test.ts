// Traffic runs in history: a command that sends traffic (a curl loop) is recorded with its
// connections per pod, read back through GET /v1/clusters/{id}/history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionShell } from "../../src/runtime/terminal.js";
import { type Harness, harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await harness({ shell: sessionShell });
});
afterAll(() => h.s.close());

describe("traffic runs", () => {
  it("a curl loop is recorded as connections per pod; commands without traffic are not", async () => {
    const c = await h.cluster(undefined, "clusterip-web");
    const ex = async (command: string) => {
      const r = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command } });
      expect(r.status).toBe(200);
      return r.body as { stdout: string; exitCode: number };
    };
    expect((await ex("kubectl expose deployment web --port=80")).exitCode).toBe(0);
    const ip = (await ex("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).stdout;
    const loop = `for i in $(seq 1 30); do curl -s http://${ip}/ > /dev/null; done`;
    expect((await ex(loop)).exitCode).toBe(0);
    await ex("curl -s --connect-timeout 1 http://10.96.0.1:81/ > /dev/null");
    await h.s.history.flush();
    const hist = (await h.req("GET", `/v1/clusters/${c.id}/history`, { token: c.token })).body;
    expect(hist.traffic.map((t: { command: string }) => t.command)).toEqual([loop, "curl -s --connect-timeout 1 http://10.96.0.1:81/ > /dev/null"]);
    const run = hist.traffic[0];
    expect(run.connections).toBe(30);
    const pods = (await ex("kubectl get pods -l app=web -o name")).stdout.trim().split("\n").map((p) => `default/${p.replace("pod/", "")}`);
    expect(run.pods.map((p: { pod: string }) => p.pod).every((p: string) => pods.includes(p))).toBe(true);
    expect(run.pods.reduce((a: number, p: { connections: number }) => a + p.connections, 0)).toBe(30);
    for (const p of run.pods) expect(p).toMatchObject({ proto: "tcp", port: 80 });
    expect(run.other).toEqual({});
    expect(hist.traffic[1].pods).toEqual([]);
    expect(hist.traffic[1].connections).toBe(1);
    expect(Object.keys(hist.traffic[1].other)).toHaveLength(1);

    // Another tenant's history shows none of it.
    const other = await h.cluster();
    expect((await h.req("GET", `/v1/clusters/${other.id}/history`, { token: other.token })).body.traffic).toEqual([]);
  });
});
