// Making a cluster (a lab's start, a fork, a classroom student's): the row inserted under the
// tenant's quota, the host's cluster created from the lab or from another's state, and the
// answer with the cluster's token and links.
import type { Context } from "hono";
import { randomId, type ClusterRow } from "../db/platform.js";
import type { AppDeps } from "./app.js";
import type { Env, Owner } from "./auth.js";
import { forbiddenMsg } from "./errors.js";
import { json } from "./json.js";
import { mintToken } from "./tokens.js";
import type { TtlCache } from "./ttl-cache.js";

export function clusterMaker(deps: AppDeps, now: () => number, rows: TtlCache<ClusterRow | undefined>) {
  /** Makes and registers a cluster: its answer's body. */
  const makeCluster = async (c: Context<Env>, owner: Owner, labId: string, from?: { id: string; seq?: number }, classroomId?: string) => {
    const { tenantId, limits } = owner;
    const id = `c${randomId(11)}`;
    const ts = now();
    const row: ClusterRow = { id, tenantId, lab: labId, forkedFrom: from?.id ?? null, createdAt: ts, deletedAt: null, endReason: null, classroomId: classroomId ?? null };
    // The quota is checked where the row is inserted: two concurrent creates cannot both pass.
    if (!(await deps.platform.addCluster(row, tenantId === null ? undefined : limits.clustersPerTenant))) {
      const n = await deps.platform.liveClusterCount(tenantId!);
      throw forbiddenMsg(`limit clustersPerTenant exceeded: this tenant already has ${n} clusters, at most ${limits.clustersPerTenant} are allowed`);
    }
    let view;
    try {
      const start = from ? (from.seq !== undefined ? await deps.host.pastState(from.id, from.seq, limits) : await deps.host.state(from.id)) : undefined;
      view = await deps.host.create(id, { tenantId, lab: labId, from: start, ...(classroomId ? { classroomId } : {}) });
    } catch (e) {
      await deps.platform.endCluster(id, "failed", now());
      throw e;
    }
    rows.set(id, row, ts);
    c.set("clusterId", id);
    deps.history.event({ ts, clusterId: id, tenantId, type: from ? "forked" : "created", detail: { lab: labId, ...(from ? { from: from.id } : {}), ...(from?.seq !== undefined ? { seq: from.seq } : {}) } });
    const secret = await deps.platform.secret();
    const token = await mintToken(secret, "cluster", id);
    const origin = new URL(c.req.url).origin;
    return {
      id,
      token,
      lab: labId,
      tenant: tenantId,
      createdAt: new Date(ts).toISOString(),
      links: {
        exec: `${origin}/v1/clusters/${id}/exec`,
        kubeconfig: `${origin}/v1/clusters/${id}/kubeconfig`,
        live: `${origin.replace(/^http/, "ws")}/v1/clusters/${id}/live`,
        k8s: `${origin}/k8s/${id}`,
      },
      cluster: view,
    };
  };
  /** The 201 answer of a cluster made. */
  const newCluster = async (c: Context<Env>, owner: Owner, labId: string, from?: { id: string; seq?: number }) => json(await makeCluster(c, owner, labId, from), 201);
  return { makeCluster, newCluster };
}
