import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { clusterRoutes } from "./contract.js";
import { harness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.s.close();
});

const isStatus = (body: any, code: number) => {
  expect(body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code });
  expect(typeof body.message).toBe("string");
};

describe("public contract", () => {
  it("healthz, create, exec, kubeconfig, delete", async () => {
    expect((await h.req("GET", "/healthz")).status).toBe(200);
    const c = await h.req("POST", "/v1/clusters");
    expect(c.status).toBe(201);
    expect(c.body.id).toMatch(/^c[a-z0-9]+$/);
    expect(c.body.token).toMatch(/^slc_/);
    const ex = await h.req("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: "echo hello" } });
    expect(ex.status).toBe(200);
    expect(ex.body).toMatchObject({ stdout: "hello\n", stderr: "", exitCode: 0 });
    const kc = await h.req("GET", `/v1/clusters/${c.body.id}/kubeconfig`, { token: c.body.token });
    expect(kc.text).toContain(`server: ${h.url}/k8s/${c.body.id}`);
    expect(kc.text).toContain(`token: ${c.body.token}`);
    const del = await h.req("DELETE", `/v1/clusters/${c.body.id}`, { token: c.body.token });
    expect(del.status).toBe(200);
    const after = await h.req("POST", `/v1/clusters/${c.body.id}/exec`, { token: c.body.token, body: { command: "echo" } });
    expect(after.status).toBe(404);
  });

  it("keeps an idle client connection open between commands (past node:http's 5 s)", async () => {
    const sock = connect(h.s.port, "127.0.0.1");
    let buf = "";
    let closed = false;
    sock.setEncoding("latin1");
    sock.on("data", (d: string) => (buf += d));
    sock.on("close", () => (closed = true));
    const ask = async () => {
      buf = "";
      sock.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      for (let i = 0; i < 200 && !/\r\n\r\n\{"ok":true\}$/.test(buf); i++) await new Promise((r) => setTimeout(r, 10));
      return buf;
    };
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 [^]*\r\nKeep-Alive: timeout=120\r\n/i);
    await new Promise((r) => setTimeout(r, 6000));
    expect(closed).toBe(false);
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    sock.destroy();
  }, 15_000);

  it("the shell's state persists between calls", async () => {
    const c = await h.cluster();
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "cd /tmp/x" } });
    const r = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "pwd" } });
    expect(r.body.stdout).toBe("/tmp/x\n");
  });

  it("a lab starts with its objects", async () => {
    const r = await h.req("POST", "/v1/clusters", { body: { lab: "clusterip-web" } });
    expect(r.status).toBe(201);
    expect(r.body.cluster.deployments).toContain("default/web");
    expect(r.body.cluster.pods.filter((p: { name: string }) => p.name.startsWith("default/web-"))).toHaveLength(3);
    const bad = await h.req("POST", "/v1/clusters", { body: { lab: "nope" } });
    expect(bad.status).toBe(400);
    isStatus(bad.body, 400);
  });

  it("CORS and security headers", async () => {
    const r = await h.req("OPTIONS", "/v1/clusters", { headers: { origin: "https://ui.example", "access-control-request-method": "POST" } });
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const g = await h.req("GET", "/healthz");
    expect(g.headers.get("x-content-type-options")).toBe("nosniff");
    expect(g.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  });
});

describe("bad input is never a 500", () => {
  it("answers 400, 404, 401, 413 as v1 Status", async () => {
    const c = await h.cluster();
    const p = `/v1/clusters/${c.id}/exec`;
    const cases: Array<[number, Promise<{ status: number; body: any }>]> = [
      [400, h.req("POST", p, { token: c.token, raw: "{not json" })],
      [400, h.req("POST", p, { token: c.token, raw: "[1,2]" })],
      [400, h.req("POST", p, { token: c.token, body: { command: 42 } })],
      [404, h.req("POST", "/v1/clusters/cnosuchcluster/exec", { token: c.token, body: { command: "echo" } })],
      [401, h.req("POST", p, { body: { command: "echo" } })],
      [401, h.req("POST", p, { token: "slc_" + c.id + ".forgedforgedforgedforgedforgedfo", body: { command: "echo" } })],
      [401, h.req("POST", p, { token: "garbage", body: { command: "echo" } })],
      [413, h.req("POST", p, { token: c.token, raw: JSON.stringify({ command: "x".repeat(2 * 1024 * 1024) }) })],
      [404, h.req("GET", "/no/such/route")],
      [400, h.req("POST", "/v1/clusters", { raw: "{" })],
    ];
    for (const [code, pr] of cases) {
      const r = await pr;
      expect(r.status, JSON.stringify(r.body)).toBe(code);
      isStatus(r.body, code);
    }
    expect((await h.req("POST", "/v1/clusters", { raw: "{" })).body.message).toMatch(/malformed JSON/);
  });
});

describe("tenants and isolation", () => {
  it("keys are stored hashed and tenants need the admin key", async () => {
    expect((await h.req("POST", "/v1/tenants", { body: { name: "x" } })).status).toBe(401);
    const t = await h.tenant("school");
    const rows = await h.s.db.execute("SELECT key_hash FROM tenants");
    expect(rows.rows.map((r) => String(r.key_hash))).not.toContain(t.apiKey);
    expect(rows.rows.every((r) => /^[0-9a-f]{64}$/.test(String(r.key_hash)))).toBe(true);
    const me = await h.req("GET", "/v1/tenant", { token: t.apiKey });
    expect(me.body.id).toBe(t.id);
  });

  it("foreign tokens reach no route of another cluster", async () => {
    const a = await h.tenant("a");
    const b = await h.tenant("b");
    const ca = await h.cluster(a.apiKey);
    const cb = await h.cluster(b.apiKey);
    for (const [m, p, body] of clusterRoutes(ca.id)) {
      for (const token of [b.apiKey, cb.token]) {
        const r = await h.req(m, p, { token, body });
        expect(r.status, `${m} ${p} with ${token.slice(0, 4)}`).toBe(403);
        isStatus(r.body, 403);
      }
      const anon = await h.req(m, p, { body });
      expect(anon.status, `${m} ${p} anonymous`).toBe(401);
    }
    // The owner's key and the cluster's own token do reach it.
    expect((await h.req("GET", `/v1/clusters/${ca.id}`, { token: a.apiKey })).status).toBe(200);
    expect((await h.req("GET", `/v1/clusters/${ca.id}`, { token: ca.token })).status).toBe(200);
    // Lists and usage are the tenant's own.
    const la = await h.req("GET", "/v1/clusters", { token: a.apiKey });
    expect(la.body.items.map((x: { id: string }) => x.id)).toEqual([ca.id]);
    expect((await h.req("GET", "/v1/clusters", { token: ca.token })).status).toBe(403);
    expect((await h.req("GET", "/v1/tenant/usage", { token: ca.token })).status).toBe(403);
  });
});

describe("quotas and rate limits", () => {
  it("clusters per tenant: 403 naming the limit", async () => {
    const t = await h.tenant("small", { clustersPerTenant: 2 });
    await h.cluster(t.apiKey);
    const c2 = await h.cluster(t.apiKey);
    const r = await h.req("POST", "/v1/clusters", { token: t.apiKey });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("clustersPerTenant");
    await h.req("DELETE", `/v1/clusters/${c2.id}`, { token: t.apiKey });
    expect((await h.req("POST", "/v1/clusters", { token: t.apiKey })).status).toBe(201);
  });

  it("objects, pods and output per cluster: 403, and the command's effects are discarded", async () => {
    const t = await h.tenant("tight", { podsPerCluster: 10, objectsPerCluster: 200, outputBytes: 1000, requestBytes: 200 });
    const c = await h.cluster(t.apiKey);
    // An empty cluster runs 9 system pods (coredns x2, kube-proxy x3, etcd, apiserver, ...).
    expect((await h.req("GET", `/v1/clusters/${c.id}`, { token: c.token })).body.counts.pods).toBe(9);
    const ex = (command: string) => h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command } });
    expect((await ex("create-pod p1")).status).toBe(200);
    const over = await ex("create-pod p2");
    expect(over.status).toBe(403);
    expect(over.body.message).toContain("podsPerCluster");
    expect((await ex("get-pods")).body.stdout).toBe("p1\n");
    const many = await ex("create-pods cm 200");
    expect(many.status).toBe(403);
    expect(many.body.message).toContain("objectsPerCluster");
    expect((await ex("get-cm")).body.stdout).not.toContain("cm-0");
    const big = await ex("big 5000");
    expect(big.status).toBe(403);
    expect(big.body.message).toContain("outputBytes");
    const req = await ex("echo " + "y".repeat(300));
    expect(req.status).toBe(413);
    expect(req.body.message).toContain("requestBytes");
  });

  it("requests per second: 429 naming the limit with Retry-After", async () => {
    // A refill too slow to matter however loaded the machine is.
    const t = await h.tenant("rl", { requestsPerSecond: 0.01, burst: 3 });
    const codes: number[] = [];
    let last: any;
    for (let i = 0; i < 6; i++) {
      const r = await h.req("GET", "/v1/clusters", { token: t.apiKey });
      codes.push(r.status);
      if (r.status === 429) last = r;
    }
    expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
    expect(codes).toContain(429);
    expect(last.body.message).toContain("requestsPerSecond");
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("history, usage, share links, expiry", () => {
  it("records API calls, commands and events, read back per cluster", async () => {
    const t = await h.tenant("hist");
    const c = await h.cluster(t.apiKey);
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "echo 1" } });
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "nosuch" } });
    await h.s.history.flush();
    const r = await h.req("GET", `/v1/clusters/${c.id}/history`, { token: c.token });
    expect(r.body.commands.map((x: any) => [x.command, x.exitCode])).toEqual([
      ["echo 1", 0],
      ["nosuch", 127],
    ]);
    expect(r.body.events[0].type).toBe("created");
    expect(r.body.apiCalls.some((a: any) => a.route === "/v1/clusters/:id/exec" && a.status === 200)).toBe(true);
    await h.s.history.flush();
    const u = await h.req("GET", "/v1/tenant/usage", { token: t.apiKey });
    expect(u.body.execs).toBe(2);
    const today = Object.values(u.body.callsByDay)[0] as Record<string, number>;
    expect(today["/v1/clusters/:id/exec"]).toBe(2);
    expect(u.body.liveClusters).toBe(1);
    expect(u.body.clusterHours).toBeGreaterThanOrEqual(0);
  });

  it("a share link shows the cluster read-only and forks it", async () => {
    const c = await h.cluster();
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "create-cm shared yes" } });
    const sh = await h.req("POST", `/v1/clusters/${c.id}/share`, { token: c.token });
    expect(sh.status).toBe(201);
    const path = new URL(sh.body.url).pathname;
    const view = await h.req("GET", path);
    expect(view.body.readOnly).toBe(true);
    expect(view.body.cluster.id).toBe(c.id);
    // The share token reads the workspace, and writes nothing.
    const denied = await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: sh.body.token, body: { command: "echo" } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain("read-only");
    const ws = await h.req("GET", `/v1/clusters/${c.id}/journal`, { token: sh.body.token });
    expect(ws.status).toBe(200);
    expect(ws.body.entries.map((e: { command: string }) => e.command)).toEqual(["create-cm shared yes"]);
    // ...and only its own cluster's.
    const other = await h.cluster();
    expect((await h.req("GET", `/v1/clusters/${other.id}/journal`, { token: sh.body.token })).status).toBe(403);
    const fork = await h.req("POST", `${path}/fork`);
    expect(fork.status).toBe(201);
    expect(fork.body.id).not.toBe(c.id);
    const r = await h.req("POST", `/v1/clusters/${fork.body.id}/exec`, { token: fork.body.token, body: { command: "get-cm" } });
    expect(r.body.stdout).toContain("shared");
    expect((await h.req("GET", "/s/sls_cxxxx.forged")).status).toBe(404);
  });

  it("idle clusters expire: all state removed, recorded in history", async () => {
    const c = await h.cluster();
    await h.s.db.execute({ sql: "UPDATE cluster_state SET updated_at = 0 WHERE cluster_id = ?", args: [c.id] });
    const gone = await h.s.sweep();
    expect(gone).toContain(c.id);
    expect((await h.req("GET", `/v1/clusters/${c.id}`, { token: c.token })).status).toBe(404);
    const left = await h.s.db.execute({ sql: "SELECT count(*) AS n FROM cluster_objects WHERE cluster_id = ?", args: [c.id] });
    expect(Number(left.rows[0].n)).toBe(0);
    await h.s.history.flush();
    const ev = await h.s.db.execute({ sql: "SELECT type FROM cluster_events WHERE cluster_id = ?", args: [c.id] });
    expect(ev.rows.map((r) => r.type)).toEqual(["created", "expired"]);
  });
});

describe("live channel", () => {
  const open = (c: { id: string; token: string }, since?: number) => {
    const ws = new WebSocket(`${h.url.replace("http", "ws")}/v1/clusters/${c.id}/live?token=${c.token}${since !== undefined ? `&since=${since}` : ""}`);
    const msgs: any[] = [];
    ws.on("message", (d) => msgs.push(JSON.parse(String(d))));
    return { ws, msgs, opened: new Promise((r, j) => (ws.on("open", r), ws.on("error", j))) };
  };
  const until = async (f: () => boolean) => {
    for (let i = 0; i < 1000 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(f()).toBe(true);
  };

  it("streams changes in order and resumes after a reconnect", async () => {
    const c = await h.cluster();
    const a = open(c);
    await a.opened;
    await until(() => a.msgs.some((m) => m.type === "reset"));
    const hello = a.msgs[0];
    expect(hello.type).toBe("hello");
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "create-cm one 1" } });
    await until(() => a.msgs.some((m) => m.type === "exec"));
    const rvSeen = Math.max(...a.msgs.filter((m) => m.type === "change").map((m) => m.rv));
    a.ws.close();
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "create-cm two 2" } });
    await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "create-cm three 3" } });
    const b = open(c, rvSeen);
    await b.opened;
    await until(() => b.msgs.filter((m) => m.type === "change").length >= 2);
    const changes = b.msgs.filter((m) => m.type === "change");
    expect(b.msgs.some((m) => m.type === "reset")).toBe(false);
    expect(changes.map((m) => m.object.metadata.name)).toEqual(["two", "three"]);
    const rvs = changes.map((m) => m.rv);
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    expect(rvs[0]).toBe(rvSeen + 1);
    b.ws.close();
  });
});
