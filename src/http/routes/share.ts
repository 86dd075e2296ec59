// Share links (/s/{token}): anyone with the link reads the cluster's workspace, and may fork it
// into a cluster of their own.
import type { Context, Hono } from "hono";
import type { ClusterRow } from "../../db/platform.js";
import { DEFAULT_LIMITS } from "../../runtime/limits.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { notFoundMsg } from "../errors.js";
import { json } from "../json.js";
import { verifyToken } from "../tokens.js";

export function shareRoutes(app: Hono<Env>, x: AppContext): void {
  const { deps } = x;
  const shared = async (c: Context<Env>): Promise<ClusterRow> => {
    const id = await verifyToken(await deps.platform.secret(), "share", c.req.param("token") ?? "");
    if (!id) throw notFoundMsg("this share link is not valid");
    const row = await x.cachedRow(id);
    if (!row || row.deletedAt !== null) throw notFoundMsg("the shared cluster no longer exists");
    c.set("clusterId", id);
    await x.rate(`share:${id}`, DEFAULT_LIMITS);
    return row;
  };

  app.get("/s/:token", async (c) => {
    // A browser opens the workspace read-only; API clients get the summary.
    if (deps.page && (c.req.header("accept") ?? "").includes("text/html")) return deps.page(c);
    const row = await shared(c);
    const view = await deps.host.view(row.id);
    return json({ readOnly: true, cluster: view, lab: row.lab, fork: `${new URL(c.req.url).origin}/s/${c.req.param("token")}/fork` });
  });

  app.post("/s/:token/fork", async (c) => {
    const row = await shared(c);
    return x.newCluster(c, await x.owner(c), row.lab, { id: row.id });
  });
}
