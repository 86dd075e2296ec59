// The Kubernetes API of a cluster, for kubectl: under /k8s/{id} (the cluster in the path), and
// at the root of a server URL as a kubeadm cluster serves it (the cluster the token names).
import type { Context, Hono } from "hono";
import type { ClusterRow } from "../../db/platform.js";
import { kubeApi, kubeRoot } from "../../kubeapi/app.js";
import { DEFAULT_LIMITS, type Limits } from "../../runtime/limits.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { notFoundMsg, unauthorized } from "../errors.js";
import { verifyToken } from "../tokens.js";

/** A classroom student's cluster after their time: the Kubernetes API reads it, and writes nothing. */
const kubeWritable = async (x: AppContext, c: Context, row: ClusterRow) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") await x.writable(row);
};

/**
 * The API at the root of a server URL (the Node server's TLS port; the Worker's https origin),
 * as a kubeadm cluster serves it: the cluster is the one the bearer token names. Credentials
 * that name no live cluster (none, forged, another installation's, a share link's, a tenant
 * key, a deleted cluster's) get kube-apiserver's own 401, which says nothing more.
 */
export function kubeAtRoot(x: AppContext): (c: Context) => Promise<Response> {
  const { deps } = x;
  return kubeRoot({
    host: deps.host,
    upgrade: deps.streamUpgrade,
    cluster: async (c) => {
      const tok = x.bearer(c);
      const id = tok ? await verifyToken(await deps.platform.secret(), "cluster", tok) : undefined;
      const row = id ? await x.cachedRow(id) : undefined;
      if (!id || !row || row.deletedAt !== null) throw unauthorized("Unauthorized");
      const a = await x.access(c as Context<Env>, id);
      await kubeWritable(x, c, a.row);
      return { id, limits: a.limits };
    },
  });
}

export function kubeRoutes(app: Hono<Env>, x: AppContext, atRoot: (c: Context) => Promise<Response>): void {
  const { deps } = x;
  /** /k8s/{id}: as access(), plus token-less local kubectl on anonymous clusters (see fromLoopback). */
  const kubeAccess = async (c: Context<Env>, id: string): Promise<Limits> => {
    if (!x.bearer(c) && deps.allowAnonymous && deps.fromLoopback?.(c)) {
      const row = await x.cachedRow(id);
      if (!row || row.deletedAt !== null) throw notFoundMsg(`cluster "${id}" not found`);
      if (row.tenantId === null) {
        c.set("clusterId", id);
        await x.rate(`cluster:${id}`, DEFAULT_LIMITS);
        return DEFAULT_LIMITS;
      }
    }
    const a = await x.access(c, id);
    await kubeWritable(x, c, a.row);
    return a.limits;
  };
  app.route("/k8s/:id", kubeApi({ host: deps.host, access: async (c, id) => kubeAccess(c as Context<Env>, id), upgrade: deps.streamUpgrade }));
  for (const path of ["/api", "/api/*", "/apis", "/apis/*", "/openapi/*", "/version", "/livez", "/readyz"]) app.all(path, atRoot);
}
