// Commands that wait, on the Node server with the real time source: they really wait, the rest of
// the cluster's API keeps answering meanwhile, another command line is told one is running,
// Ctrl-C (the interrupt route) stops them at once, and the exec API's time limit stops them too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionShell } from "../../src/runtime/terminal.js";
import { harness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await harness({ shell: sessionShell });
});
afterAll(async () => {
  await h.s.close();
});

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("commands that wait, on the Node server", () => {
  it("sleep waits in real time, lets the cluster's other requests through, and stops on interrupt", async () => {
    const c = await h.cluster();
    const t0 = Date.now();
    const running = h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "sleep 30" } });
    await sleepMs(400);
    // The Kubernetes API and the views are not held by a sleeping terminal.
    const t1 = Date.now();
    expect((await h.req("GET", `/v1/clusters/${c.id}`, { token: c.token })).status).toBe(200);
    expect((await h.req("GET", `/k8s/${c.id}/api/v1/namespaces/default/pods`, { token: c.token })).status).toBe(200);
    expect(Date.now() - t1).toBeLessThan(3_000);
    // A second command line gets a clear answer.
    const second = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "echo hi" } });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain("a command is still running in this terminal (sleep 30)");
    // Ctrl-C.
    expect((await h.req("POST", `/v1/clusters/${c.id}/interrupt`, { token: c.token })).body).toEqual({ interrupted: true });
    const r = await running;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stdout: "^C\n", stderr: "", exitCode: 130, stopped: "interrupt" });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(10_000);
    // Nothing runs now: the interrupt says so, and the terminal takes the next line.
    expect((await h.req("POST", `/v1/clusters/${c.id}/interrupt`, { token: c.token })).body).toEqual({ interrupted: false });
    expect((await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "echo ok" } })).body.stdout).toBe("ok\n");
  }, 60_000);

  it("kubectl get -w streams its rows as they come, then ^C; the time limit stops a line with 124", async () => {
    const c = await h.cluster();
    const res = await fetch(`${h.url}/v1/clusters/${c.id}/exec`, {
      method: "POST",
      headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
      body: JSON.stringify({ command: "kubectl get pods -A -w", stream: true }),
    });
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    const messages: Array<{ out?: string; result?: { stdout: string; exitCode: number; stopped?: string; streamed: number } }> = [];
    const next = async () => {
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const m = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          messages.push(m);
          return m;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buf += value;
      }
    };
    const first = await next();
    expect(first.out).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nkube-system\s+coredns-/);
    await h.req("POST", `/v1/clusters/${c.id}/interrupt`, { token: c.token });
    let last;
    while ((last = await next()) && !last.result);
    expect(last.result).toMatchObject({ stdout: "^C\n", exitCode: 130, stopped: "interrupt" });
    expect(last.result.streamed).toBe(messages.filter((m) => m.out).reduce((n, m) => n + m.out!.length, 0));

    const t0 = Date.now();
    const limited = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "sleep 20; echo never", timeLimitMs: 300 } });
    expect(limited.body).toMatchObject({ stdout: "", exitCode: 124, stopped: "timeout" });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const bad = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "true", timeLimitMs: "soon" } });
    expect(bad.status).toBe(400);
  }, 60_000);

  it("a loop streams each line as it is printed (NDJSON), not all at the end", async () => {
    const c = await h.cluster();
    const t0 = Date.now();
    const res = await fetch(`${h.url}/v1/clusters/${c.id}/exec`, {
      method: "POST",
      headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
      body: JSON.stringify({ command: "for i in $(seq 3); do echo $i; sleep 1; done", stream: true }),
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    const got: Array<{ at: number; m: { out?: string; result?: { stdout: string; streamed: number } } }> = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += value;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        got.push({ at: Date.now() - t0, m: JSON.parse(buf.slice(0, nl)) });
        buf = buf.slice(nl + 1);
      }
    }
    const outs = got.filter((g) => g.m.out !== undefined);
    expect(outs.map((g) => g.m.out)).toEqual(["1\n", "2\n", "3\n"]);
    // "1" comes before the first sleep ends; the result after the last.
    expect(outs[0].at).toBeLessThan(900);
    // The result holds what was not streamed yet (nothing), and how much was.
    expect(got.at(-1)!.m.result).toMatchObject({ stdout: "", streamed: 6 });
    expect(got.at(-1)!.at).toBeGreaterThanOrEqual(2_900);
  }, 60_000);

  it("a compound line stopped keeps what it printed: Ctrl-C after the first iteration, the time limit in the second", async () => {
    const c = await h.cluster();
    const running = h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "for i in 1 2 3; do echo $i; sleep 10; done" } });
    await sleepMs(500);
    expect((await h.req("POST", `/v1/clusters/${c.id}/interrupt`, { token: c.token })).body).toEqual({ interrupted: true });
    expect((await running).body).toMatchObject({ stdout: "1\n^C\n", stderr: "", exitCode: 130, stopped: "interrupt" });
    const limited = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "echo a; sleep 1; echo b; sleep 20; echo never", timeLimitMs: 2_000 } });
    expect(limited.body).toMatchObject({ stdout: "a\nb\n", exitCode: 124, stopped: "timeout" });
  }, 60_000);
});
