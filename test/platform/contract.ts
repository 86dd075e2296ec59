// One conformance suite for every host: the Node server (test/platform/contract.test.ts) and
// the Worker inside workerd (test/workers/contract.workers-test.ts) run these same cases.
// The runner must be the test runner (test/platform/runner.ts), with the admin key ADMIN.
import { expect, it } from "vitest";

export interface Call {
  (method: string, path: string, o?: { token?: string; body?: unknown; raw?: string }): Promise<{ status: number; body: any }>;
}

export const ADMIN = "admin-test-key";

/** Every route of one cluster, with a body where it takes one: isolation tests walk them all. */
export function clusterRoutes(id: string): Array<[string, string, unknown?]> {
  return [
    ["GET", `/v1/clusters/${id}`],
    ["POST", `/v1/clusters/${id}/exec`, { command: "echo" }],
    ["GET", `/v1/clusters/${id}/kubeconfig`],
    ["GET", `/v1/clusters/${id}/history`],
    ["POST", `/v1/clusters/${id}/share`],
    ["POST", `/v1/clusters/${id}/snapshots`],
    ["GET", `/v1/clusters/${id}/live`],
    ["GET", `/v1/clusters/${id}/workspace`],
    ["GET", `/v1/clusters/${id}/journal`],
    ["GET", `/v1/clusters/${id}/rules?node=master`],
    ["GET", `/v1/clusters/${id}/trace?key=x`],
    ["GET", `/v1/clusters/${id}/past?seq=0`],
    ["POST", `/v1/clusters/${id}/fork`, { seq: 0 }],
    ["DELETE", `/v1/clusters/${id}`],
  ];
}

export function contractCases(call: Call, origin: () => string): void {
  const status = (b: any, code: number) => expect(b).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code });
  const tenant = async (name: string, limits?: object) => {
    const r = await call("POST", "/v1/tenants", { token: ADMIN, body: { name, limits } });
    expect(r.status).toBe(201);
    return r.body as { id: string; apiKey: string };
  };
  const cluster = async (key: string) => {
    const r = await call("POST", "/v1/clusters", { token: key });
    expect(r.status).toBe(201);
    return r.body as { id: string; token: string };
  };

  it("contract: create, exec with state, kubeconfig, delete", async () => {
    const t = await tenant("contract");
    const c = await cluster(t.apiKey);
    const ex = (command: string) => call("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command } });
    const hi = (await ex("echo hi")).body;
    expect(hi).toMatchObject({ stdout: "hi\n", stderr: "", exitCode: 0 });
    // Beside the contract's three fields: the journal's place of the line (src/runtime/journal.ts).
    expect(typeof hi.seq).toBe("number");
    await ex("cd /srv");
    expect((await ex("pwd")).body.stdout).toBe("/srv\n");
    expect((await ex("nosuch")).body.exitCode).toBe(127);
    const kc = await call("GET", `/v1/clusters/${c.id}/kubeconfig`, { token: c.token });
    expect(kc.status).toBe(200);
    const list = await call("GET", "/v1/clusters", { token: t.apiKey });
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await call("DELETE", `/v1/clusters/${c.id}`, { token: c.token })).status).toBe(200);
    expect((await ex("echo")).status).toBe(404);
    expect((await call("GET", "/v1/clusters", { token: t.apiKey })).body.items).toEqual([]);
    void origin;
  });

  it("contract: bad input is a v1 Status, never a 500", async () => {
    const t = await tenant("bad");
    const c = await cluster(t.apiKey);
    const p = `/v1/clusters/${c.id}/exec`;
    const cases: Array<[number, ReturnType<Call>]> = [
      [400, call("POST", p, { token: c.token, raw: "{oops" })],
      [400, call("POST", p, { token: c.token, body: { command: ["x"] } })],
      [404, call("POST", "/v1/clusters/cmissing/exec", { token: c.token, body: { command: "echo" } })],
      [401, call("POST", p, { body: { command: "echo" } })],
      [401, call("POST", p, { token: `slc_${c.id}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`, body: { command: "echo" } })],
      [413, call("POST", p, { token: c.token, raw: JSON.stringify({ command: "x".repeat(300 * 1024) }) })],
    ];
    for (const [code, pr] of cases) {
      const r = await pr;
      expect(r.status).toBe(code);
      status(r.body, code);
    }
  });

  it("contract: foreign tokens and keys are refused on every cluster route", async () => {
    const a = await tenant("a");
    const b = await tenant("b");
    const ca = await cluster(a.apiKey);
    const cb = await cluster(b.apiKey);
    const cbShare = (await call("POST", `/v1/clusters/${cb.id}/share`, { token: cb.token })).body.token as string;
    for (const [m, path, body] of clusterRoutes(ca.id)) {
      for (const token of [b.apiKey, cb.token, cbShare]) {
        const r = await call(m, path, { token, body });
        expect(r.status, `${m} ${path}`).toBe(403);
        status(r.body, 403);
      }
    }
    expect((await call("GET", `/v1/clusters/${ca.id}`, { token: ca.token })).status).toBe(200);
  });

  it("contract: quotas answer 403 naming the limit and discard the command", async () => {
    const t = await tenant("q", { clustersPerTenant: 1, outputBytes: 100 });
    const c = await cluster(t.apiKey);
    const second = await call("POST", "/v1/clusters", { token: t.apiKey });
    expect(second.status).toBe(403);
    expect(second.body.message).toContain("clustersPerTenant");
    const big = await call("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "big 500" } });
    expect(big.status).toBe(403);
    expect(big.body.message).toContain("outputBytes");
  });

  it("contract: concurrent creates never exceed clustersPerTenant", async () => {
    const t = await tenant("race", { clustersPerTenant: 3 });
    const rs = await Promise.all(Array.from({ length: 8 }, () => call("POST", "/v1/clusters", { token: t.apiKey })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = rs.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.message).toContain("limit clustersPerTenant exceeded");
    }
    expect((await call("GET", "/v1/clusters", { token: t.apiKey })).body.items).toHaveLength(3);
  });

  it("contract: share link view and fork", async () => {
    const t = await tenant("share");
    const c = await cluster(t.apiKey);
    await call("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command: "create-cm marker x" } });
    const sh = await call("POST", `/v1/clusters/${c.id}/share`, { token: c.token });
    const path = new URL(sh.body.url).pathname;
    expect((await call("GET", path)).body.readOnly).toBe(true);
    const fork = await call("POST", `${path}/fork`, { token: t.apiKey });
    expect(fork.status).toBe(201);
    const r = await call("POST", `/v1/clusters/${fork.body.id}/exec`, { token: fork.body.token, body: { command: "get-cm" } });
    expect(r.body.stdout).toContain("marker");
  });
}
