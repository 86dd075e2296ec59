// A cluster's routes: list, create, read, Ctrl-C, the workspace's read-only views, fork (time
// travel's "fork from here"), kubeconfig, history, snapshots, share links, the live channel,
// delete. Running a command line is routes/exec.ts.
import type { Context, Hono } from "hono";
import { lab as findLab } from "../../labs/index.js";
import { byteLength } from "../../runtime/core.js";
import { InspectQuery } from "../../workspace/inspect.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { bad, notFoundMsg } from "../errors.js";
import { json, readJson } from "../json.js";
import { kubeconfig } from "../kubeconfig.js";
import { mintToken } from "../tokens.js";
import { execRoute } from "./exec.js";

export function clusterRoutes(app: Hono<Env>, x: AppContext): void {
  app.get("/v1/clusters", async (c) => {
    const t = await x.tenantOnly(c);
    const list = await x.deps.platform.clusters(t.id);
    return json({ items: list.map((r) => ({ id: r.id, lab: r.lab, forkedFrom: r.forkedFrom, createdAt: new Date(r.createdAt).toISOString() })) });
  });

  app.post("/v1/clusters", async (c) => {
    const who = await x.owner(c);
    const body = await readJson(c, who.limits.requestBytes);
    const labId = body.lab ?? "empty";
    if (typeof labId !== "string" || !findLab(labId)) throw bad(`unknown lab ${JSON.stringify(labId)}; GET /v1/labs lists them`);
    return x.newCluster(c, who, labId);
  });

  app.get("/v1/clusters/:id", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    return json(await x.deps.host.view(id));
  });

  execRoute(app, x);

  // Ctrl-C in the terminal: stops the command line running on the cluster (sleep, kubectl get -w).
  app.post("/v1/clusters/:id/interrupt", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    return json({ interrupted: await x.deps.host.interrupt(id) });
  });

  // The workspace's read-only views (src/workspace/inspect.ts); a share link may read them too.
  const inspectRoute = (view: string, query: (c: Context) => Record<string, unknown>) =>
    app.get(`/v1/clusters/:id/${view}`, async (c) => {
      const id = c.req.param("id");
      const a = await x.access(c, id, "read");
      const q = InspectQuery.safeParse({ view, ...query(c) });
      if (!q.success) throw bad(`bad query: ${q.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const answer = await x.deps.host.inspect(id, q.data, a.limits);
      // A classroom student's workspace shows the time left (and read-only once it is up).
      const time = view === "workspace" ? await x.classTime(a.row) : undefined;
      return json(time ? { ...(answer as object), classroom: { title: time.title, deadline: new Date(time.deadline).toISOString(), readOnly: time.closed || x.now() >= time.deadline, ...(time.nextLab ? { nextLab: time.nextLab } : {}) } } : answer);
    });
  const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));
  inspectRoute("workspace", () => ({}));
  inspectRoute("journal", (c) => ({ since: num(c.req.query("since")) }));
  inspectRoute("rules", (c) => ({ node: c.req.query("node") ?? "master" }));
  inspectRoute("trace", (c) => ({ key: c.req.query("key") ?? "" }));
  inspectRoute("past", (c) => ({ seq: num(c.req.query("seq")), node: c.req.query("node") || undefined }));

  // Time travel's "fork from here": a new cluster of the same owner, as this one was after line `seq`.
  app.post("/v1/clusters/:id/fork", async (c) => {
    const id = c.req.param("id");
    const a = await x.access(c, id);
    const body = await readJson(c, a.limits.requestBytes);
    if (body.seq !== undefined && (typeof body.seq !== "number" || !Number.isInteger(body.seq) || body.seq < 0)) throw bad('"seq" must be the number of a command in the journal (0: the cluster as it started)');
    return x.newCluster(c, { tenantId: a.row.tenantId, limits: a.limits }, a.row.lab, { id, seq: body.seq as number | undefined });
  });

  app.get("/v1/clusters/:id/kubeconfig", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    const token = await mintToken(await x.deps.platform.secret(), "cluster", id);
    c.header("Content-Type", "application/yaml; charset=utf-8");
    return c.body(kubeconfig(x.deps.kubeServer?.(c, id) ?? { server: `${new URL(c.req.url).origin}/k8s/${id}` }, id, token));
  });

  app.get("/v1/clusters/:id/history", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    const limit = Math.min(1000, Math.max(1, Number(c.req.query("limit") ?? 100) || 100));
    return json(await x.deps.platform.history(id, limit));
  });

  app.post("/v1/clusters/:id/snapshots", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    const st = await x.deps.host.state(id);
    const body = JSON.stringify(st);
    x.deps.history.snapshot({ ts: x.now(), clusterId: id, reason: "requested", body });
    return json({ cluster: id, bytes: byteLength(body), objects: st.objects.length }, 201);
  });

  app.post("/v1/clusters/:id/share", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id);
    const token = await mintToken(await x.deps.platform.secret(), "share", id);
    const origin = new URL(c.req.url).origin;
    return json({ token, url: `${origin}/s/${token}`, fork: `${origin}/s/${token}/fork` }, 201);
  });

  app.get("/v1/clusters/:id/live", async (c) => {
    const id = c.req.param("id");
    await x.access(c, id, "read");
    if (!x.deps.live) throw notFoundMsg("this server has no live channel");
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw bad("the live channel is a WebSocket: send Upgrade: websocket");
    const since = c.req.query("since");
    return x.deps.live(c, id, since === undefined ? undefined : Number(since));
  });

  app.delete("/v1/clusters/:id", async (c) => {
    const id = c.req.param("id");
    const a = await x.access(c, id);
    try {
      const st = await x.deps.host.state(id);
      x.deps.history.snapshot({ ts: x.now(), clusterId: id, reason: "deleted", body: JSON.stringify(st) });
    } catch {
      // the final snapshot is best effort: deletion proceeds
    }
    await x.deps.host.delete(id, "deleted");
    await x.deps.platform.endCluster(id, "deleted", x.now());
    x.rows.delete(id);
    x.deps.history.event({ ts: x.now(), clusterId: id, tenantId: a.row.tenantId, type: "deleted", detail: {} });
    return json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: id, kind: "clusters" } });
  });
}
