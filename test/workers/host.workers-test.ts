/// <reference types="@cloudflare/workers-types" />
/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { env, exports } from "cloudflare:workers";
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ClusterObject, Env } from "../../src/runtime/worker.js";
import { useShell } from "../../src/runtime/terminal.js";
import { testShell } from "../platform/runner.js";

useShell(testShell);

const E = env as unknown as Env;
const SELF = (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default;

async function call(method: string, path: string, o: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const r = await SELF.fetch(new Request(`https://lab.test${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) }));
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as any) : undefined };
}

/** Lets waitUntil'ed history writes land before objects are aborted. */
const drain = () => new Promise((r) => setTimeout(r, 50));

describe("Workers host", () => {
  it("creates, persists and answers as the Node server does", async () => {
    const c = await call("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
    expect(c.status).toBe(201);
    expect(c.body.cluster.deployments).toContain("default/web");
    const ex = await call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: "kubectl get svc" } });
    expect(ex.status).toBe(200);
    expect(typeof ex.body.exitCode).toBe("number");
    expect((await call("POST", `/v1/clusters/${c.body.id}/exec`, { body: { command: "x" } })).status).toBe(401);
    expect((await call("GET", "/v1/clusters/cnosuch", { token: c.body.token })).status).toBe(404);
  });

  it("a command line that would pass the object's 128 MB is refused in bash's voice, not evicted; the cluster answers", async () => {
    useShell(undefined);
    try {
      const c = await call("POST", "/v1/clusters", {});
      const ex = async (command: string) => (await call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command } })).body;
      // 2^30 bytes of one string: the line's memory budget stops it at 8 MiB.
      const a = await ex("x=aaaaaaaaaaaaaaaa; for i in $(seq 1 26); do x=$x$x; done; echo ${#x}");
      expect(a.stderr).toBe("bash: word expansion: string length limit exceeded (8388608 bytes)\n");
      // Files past the node's disk (1 MiB): ENOSPC, as a full disk.
      expect((await ex("printf '%*s' 500000 x > /tmp/a; echo $?")).stdout).toBe("0\n");
      const b = await ex("printf '%*s' 600000 x > /tmp/b");
      expect(b).toMatchObject({ stderr: "bash: /tmp/b: No space left on device\n", exitCode: 1 });
      // A loop that would grow an array past its bound.
      const d = await ex("a=(); for i in $(seq 1 99999); do a+=(x x); done; echo ${#a[@]}");
      expect(d.exitCode).not.toBe(0);
      expect(d.stderr).toMatch(/^bash: /);
      expect((await ex("rm /tmp/a; kubectl get svc")).stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP/);
    } finally {
      useShell(testShell);
    }
  });

  it("runs the real terminal inside workerd", async () => {
    useShell(undefined);
    try {
      const c = await call("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
      const ex = (command: string) => call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command } });
      expect((await ex("kubectl create service clusterip web --tcp=8080:80")).body).toMatchObject({ exitCode: 0, stdout: "service/web created\n" });
      const svc = await ex("kubectl get svc web");
      expect(svc.body.exitCode).toBe(0);
      expect(svc.body.stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP/);
      // A curl loop is a traffic run in the history: connections per pod.
      const ip = (await ex("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).body.stdout;
      expect((await ex(`for i in 1 2 3 4 5; do curl -s http://${ip}:8080/ > /dev/null; done`)).body.exitCode).toBe(0);
      await drain();
      const traffic = (await call("GET", `/v1/clusters/${c.body.id}/history`, { token: c.body.token })).body.traffic;
      expect(traffic).toHaveLength(1);
      expect(traffic[0].connections).toBe(5);
      expect(traffic[0].pods.reduce((a: number, p: { connections: number }) => a + p.connections, 0)).toBe(5);
      expect(traffic[0].pods[0].pod).toMatch(/^default\/web-/);
      await ex("cd /tmp");
      await drain();
      await abortAllDurableObjects();
      expect((await ex("pwd")).body.stdout).toBe("/tmp\n");
    } finally {
      useShell(testShell);
    }
  });

  it("state survives the object's restart", async () => {
    const c = await call("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
    const before = await call("GET", `/v1/clusters/${c.body.id}`, { token: c.body.token });
    await drain();
    await abortAllDurableObjects();
    const after = await call("GET", `/v1/clusters/${c.body.id}`, { token: c.body.token });
    expect(after.status).toBe(200);
    expect(after.body.pods).toEqual(before.body.pods);
    expect(after.body.revision).toBeGreaterThanOrEqual(before.body.revision);
  });

  it("alarms fire: timed transitions and idle expiry", async () => {
    const c = await call("POST", "/v1/clusters");
    const stubOf = () => E.CLUSTER.get(E.CLUSTER.idFromName(c.body.id)) as DurableObjectStub<ClusterObject>;
    let stub = stubOf();
    const alarm = await runInDurableObject(stub, async (_o, state) => await state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
    // Pretend the cluster has been idle for longer than IDLE_MINUTES.
    await runInDurableObject(stub, (_o, state) => {
      const row = state.storage.sql.exec<{ meta: string }>("SELECT meta FROM cluster_state").one();
      const meta = JSON.parse(row.meta);
      meta.lastActive = 0;
      state.storage.sql.exec("UPDATE cluster_state SET meta = ?", JSON.stringify(meta));
    });
    await drain();
    await abortAllDurableObjects();
    stub = stubOf();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const rows = await runInDurableObject(stub, (_o, state) => state.storage.sql.exec("SELECT count(*) AS n FROM cluster_state").one().n);
    expect(rows).toBe(0);
    expect((await call("GET", `/v1/clusters/${c.body.id}`, { token: c.body.token })).status).toBe(404);
  });

  it("an alarm runs the engine's timed transitions and persists them", async () => {
    const c = await call("POST", "/v1/clusters");
    const stub = E.CLUSTER.get(E.CLUSTER.idFromName(c.body.id)) as DurableObjectStub<ClusterObject>;
    const ex = await call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: "create-pod p1" } });
    expect(ex.status).toBe(200);
    const phase = () =>
      runInDurableObject(stub, (_o, state) => {
        const row = state.storage.sql.exec<{ body: string }>("SELECT body FROM cluster_objects WHERE key = ?", "pods|default/p1").one();
        return JSON.parse(row.body).status?.phase as string;
      });
    expect(await phase()).toBe("Pending");
    const alarm = await runInDurableObject(stub, async (_o, state) => await state.storage.getAlarm());
    // The next wake is the pod's start (image pull + container start), long before idle expiry.
    expect(alarm! - Date.now()).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, Math.max(0, alarm! - Date.now()) + 50));
    for (let i = 0; i < 5 && (await phase()) !== "Running"; i++) await runDurableObjectAlarm(stub);
    expect(await phase()).toBe("Running");
  });

  it("streams kubectl exec over a WebSocket (v5.channel.k8s.io): the pod's shell in the cluster's object, the exit Status, a followed log", async () => {
    useShell(undefined);
    try {
      const c = await call("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
      const auth = { authorization: `Bearer ${c.body.token}` };
      const base = `https://lab.test/k8s/${c.body.id}/api/v1/namespaces/default/pods`;
      const pods = (await (await SELF.fetch(new Request(base, { headers: auth }))).json()) as { items: Array<{ metadata: { name: string }; status: { phase: string; podIP: string } }> };
      const pod = pods.items.find((p) => p.status.phase === "Running")!;
      const r = await SELF.fetch(
        new Request(`${base}/${pod.metadata.name}/exec?command=sh&command=-c&command=${encodeURIComponent("hostname; echo oops >&2; exit 3")}&stdout=true&stderr=true`, {
          headers: { ...auth, Upgrade: "websocket", "Sec-WebSocket-Protocol": "v5.channel.k8s.io" },
        }),
      );
      expect(r.status).toBe(101);
      expect(r.headers.get("Sec-WebSocket-Protocol")).toBe("v5.channel.k8s.io");
      const ws = r.webSocket!;
      const frames: Uint8Array[] = [];
      const closed = new Promise<number>((res) => ws.addEventListener("close", (e) => res(e.code)));
      // workerd hands a client binary messages as Blobs.
      const reads: Array<Promise<Uint8Array>> = [];
      ws.addEventListener("message", (e) => reads.push((e.data as Blob).arrayBuffer().then((b) => new Uint8Array(b))));
      ws.accept();
      expect(await closed).toBe(1000);
      frames.push(...(await Promise.all(reads)));
      const text = (ch: number) => frames.filter((f) => f[0] === ch).map((f) => new TextDecoder().decode(f.subarray(1))).join("");
      expect(text(1)).toBe(`${pod.metadata.name}\n`);
      expect(text(2)).toBe("oops\n");
      expect(JSON.parse(text(3))).toMatchObject({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "3" }] } });
      // SPDY (kubectl before 1.30): the same checks, then a Status kubectl prints.
      const spdy = await SELF.fetch(new Request(`${base}/${pod.metadata.name}/exec?command=true&stdout=true`, { method: "POST", headers: { ...auth, Upgrade: "SPDY/3.1", Connection: "Upgrade" } }));
      expect(spdy.status).toBe(400);
      expect(((await spdy.json()) as { message: string }).message).toMatch(/not SPDY/);
      // logs -f: the access log's new line arrives while the stream is open.
      const follow = await SELF.fetch(new Request(`${base}/${pod.metadata.name}/log?follow=true&tailLines=0`, { headers: auth }));
      expect(follow.status).toBe(200);
      const reader = follow.body!.getReader();
      await call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: `curl -s ${pod.status.podIP}/followed > /dev/null` } });
      let got = "";
      while (!got.includes("/followed")) {
        const { value, done } = await reader.read();
        if (done) break;
        got += new TextDecoder().decode(value);
      }
      expect(got).toContain("GET /followed");
      await reader.cancel();
    } finally {
      useShell(testShell);
    }
  });

  it('streams a line\'s output as NDJSON while it runs ("stream": true), as the Node host does', async () => {
    useShell(undefined);
    try {
    const c = await call("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
    type Message = { out?: string; screen?: boolean; result?: { stdout: string; exitCode: number; stopped?: string; streamed: number }; error?: unknown };
    const streamed = async (body: unknown) => {
      const t0 = Date.now();
      const r = await SELF.fetch(new Request(`https://lab.test/v1/clusters/${c.body.id}/exec`, { method: "POST", headers: { authorization: `Bearer ${c.body.token}` }, body: JSON.stringify(body) }));
      expect(r.headers.get("content-type")).toBe("application/x-ndjson");
      const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
      const got: Array<{ at: number; m: Message }> = [];
      let buf = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += value;
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          got.push({ at: Date.now() - t0, m: JSON.parse(buf.slice(0, nl)) as Message });
          buf = buf.slice(nl + 1);
        }
      }
      expect(buf).toBe("");
      return got;
    };
    // A loop writes each command's output when it ends: one line a second, each its own message.
    const loop = await streamed({ command: "for i in 1 2 3; do echo $i; sleep 1; done", stream: true });
    const outs = loop.filter((g) => g.m.out !== undefined);
    expect(outs.map((g) => g.m.out)).toEqual(["1\n", "2\n", "3\n"]);
    expect(outs[0].at).toBeLessThan(900);
    expect(outs[1].at - outs[0].at).toBeGreaterThanOrEqual(900);
    expect(loop.at(-1)!.m.result).toMatchObject({ stdout: "", exitCode: 0, streamed: 6 });
    expect(loop.at(-1)!.at).toBeGreaterThanOrEqual(2_900);
    expect(loop.filter((g) => g.m.result)).toHaveLength(1);

    // kubectl get -w: the table comes at once, the time limit ends the watch with 124.
    const watch = await streamed({ command: "kubectl get pods -w", stream: true, timeLimitMs: 1_500 });
    const first = watch[0];
    expect(first.m.out).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb-/);
    expect(first.at).toBeLessThan(1_000);
    const last = watch.at(-1)!;
    expect(last.m.result).toMatchObject({ exitCode: 124, stopped: "timeout" });
    expect(last.at).toBeGreaterThanOrEqual(1_400);
    expect(last.m.result!.streamed).toBe(watch.reduce((n, g) => n + (g.m.out?.length ?? 0), 0));
    // The terminal takes the next line, answered whole as before.
    expect((await call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: "echo ok" } })).body.stdout).toBe("ok\n");
    } finally {
      useShell(testShell);
    }
  });

  it("the live channel delivers in order and resumes after a reconnect", async () => {
    const c = await call("POST", "/v1/clusters");
    const open = async (since?: number) => {
      const r = await SELF.fetch(
        new Request(`https://lab.test/v1/clusters/${c.body.id}/live?token=${c.body.token}${since !== undefined ? `&since=${since}` : ""}`, { headers: { Upgrade: "websocket" } }),
      );
      expect(r.status).toBe(101);
      const ws = r.webSocket!;
      const msgs: any[] = [];
      ws.addEventListener("message", (e) => msgs.push(JSON.parse(String(e.data))));
      ws.accept();
      return { ws, msgs };
    };
    const until = async (f: () => boolean) => {
      for (let i = 0; i < 1000 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(f()).toBe(true);
    };
    const a = await open();
    await until(() => a.msgs.some((m) => m.type === "reset"));
    const ex = (command: string) => call("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command } });
    expect((await ex("create-cm one 1")).status).toBe(200);
    await until(() => a.msgs.some((m) => m.type === "exec"));
    const first = a.msgs.filter((m) => m.type === "change");
    expect(first.map((m) => m.object.metadata.name)).toEqual(["one"]);
    const seen = first[0].rv;
    a.ws.close();
    await ex("create-cm two 2");
    await ex("create-cm three 3");
    const b = await open(seen);
    await until(() => b.msgs.filter((m) => m.type === "change").length >= 2);
    expect(b.msgs[0]).toMatchObject({ type: "hello" });
    expect(b.msgs.some((m) => m.type === "reset")).toBe(false);
    const changes = b.msgs.filter((m) => m.type === "change");
    expect(changes.map((m) => m.object.metadata.name)).toEqual(["two", "three"]);
    expect(changes.map((m) => m.rv)).toEqual([seen + 1, seen + 2]);
    // A write while connected arrives live, after what came before.
    await ex("create-cm four 4");
    await until(() => b.msgs.filter((m) => m.type === "change").length >= 3);
    expect(b.msgs.filter((m) => m.type === "change").map((m) => m.rv)).toEqual([seen + 1, seen + 2, seen + 3]);
    b.ws.close();
  });

  it("serves the Kubernetes API at /k8s/{id} through the cluster's object: reads, writes, limits, watches", async () => {
    const t = await call("POST", "/v1/tenants", { token: "admin-test-key", body: { name: "k8s", limits: { objectsPerCluster: 130 } } });
    const c = await call("POST", "/v1/clusters", { token: t.body.apiKey, body: { lab: "clusterip-web" } });
    const k8s = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      SELF.fetch(
        new Request(`https://lab.test/k8s/${c.body.id}${path}`, {
          method,
          headers: { authorization: `Bearer ${c.body.token}`, "content-type": "application/json", ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    const deps = await k8s("GET", "/apis/apps/v1/namespaces/default/deployments");
    expect(deps.status).toBe(200);
    expect(((await deps.json()) as any).items.map((d: any) => d.metadata.name)).toEqual(["web"]);
    expect((await k8s("GET", "/api/v1/namespaces/default/services", undefined, { authorization: "" })).status).toBe(401);

    // A watch from now on: the write below arrives as ADDED, and the watch ends at its timeout.
    const w = await k8s("GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + (((await (await k8s("GET", "/api/v1/namespaces/default/configmaps")).json()) as any).metadata.resourceVersion) + "&timeoutSeconds=2");
    expect(w.status).toBe(200);
    const created = await k8s("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-kubectl" }, data: { a: "b" } });
    expect(created.status).toBe(201);
    const lines = (await w.text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.object.metadata.name])).toEqual([["ADDED", "from-kubectl"]]);

    // Persisted in the object: it survives a restart and the terminal sees it.
    await drain();
    await abortAllDurableObjects();
    const again = await k8s("GET", "/api/v1/namespaces/default/configmaps/from-kubectl");
    expect(((await again.json()) as any).data).toEqual({ a: "b" });

    // An invalid object is the apiserver's 422; the tenant's limit is the apiserver's quota.
    const bad = await k8s("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name" } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).reason).toBe("Invalid");
    const many = await k8s("POST", "/apis/apps/v1/namespaces/default/deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "big" },
      spec: { replicas: 80, selector: { matchLabels: { app: "big" } }, template: { metadata: { labels: { app: "big" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    // The Deployment itself is admitted; its ReplicaSet creates pods at its client's rate (30
    // at once, then 20 a second, on the cluster's clock, which follows the wall clock) and stops
    // at the limit with the controller's FailedCreate event, as under a ResourceQuota.
    expect(many.status).toBe(201);
    const failedCreate = async () =>
      ((await (await k8s("GET", "/api/v1/namespaces/default/events")).json()) as any).items.some(
        (e: any) => e.reason === "FailedCreate" && e.message.includes("exceeded quota: objectsPerCluster"),
      );
    let refused = await failedCreate();
    for (let i = 0; i < 40 && !refused; i++) {
      await new Promise((r) => setTimeout(r, 250));
      refused = await failedCreate();
    }
    expect(refused).toBe(true);
    const over = await k8s("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over" } });
    expect(over.status).toBe(403);
    expect(((await over.json()) as any).message).toMatch(/^configmaps "over" is forbidden: exceeded quota: objectsPerCluster, requested: objects=1, used: objects=130, limited: objects=130$/);
    expect((await k8s("GET", "/api/v1/namespaces/default/configmaps/over")).status).toBe(404);
  });

  it("serves the API at the origin's root too, the cluster chosen by the token, and the kubeconfig says so", async () => {
    const t = await call("POST", "/v1/tenants", { token: "admin-test-key", body: { name: "root" } });
    const c = await call("POST", "/v1/clusters", { token: t.body.apiKey, body: { lab: "clusterip-web" } });
    const other = await call("POST", "/v1/clusters", { token: t.body.apiKey });
    const root = (path: string, token: string | undefined, init: RequestInit = {}) =>
      SELF.fetch(new Request(`https://lab.test${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" } }));
    const kc = await SELF.fetch(new Request(`https://lab.test/v1/clusters/${c.body.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.body.token}` } }));
    const text = await kc.text();
    expect(text).toContain("    server: https://lab.test\n");
    expect(text).not.toContain("certificate-authority-data");
    expect(((await (await root("/api/v1", c.body.token)).json()) as any).kind).toBe("APIResourceList");
    const deps = await root("/apis/apps/v1/namespaces/default/deployments", c.body.token);
    expect(((await deps.json()) as any).items.map((d: any) => d.metadata.name)).toEqual(["web"]);
    // Another cluster's token is that cluster: the lab's Deployment is not there.
    expect(((await (await root("/apis/apps/v1/namespaces/default/deployments", other.body.token)).json()) as any).items).toEqual([]);
    const created = await root("/api/v1/namespaces/default/configmaps", c.body.token, { method: "POST", body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "at-root" } }) });
    expect(created.status).toBe(201);
    for (const token of [undefined, c.body.token.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), t.body.apiKey]) {
      const r = await root("/api/v1/namespaces/default/configmaps", token);
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    }
    expect((await root("/version", undefined)).status).toBe(200);
  });
});
