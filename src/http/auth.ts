// Who a request is and what it may touch: the bearer token read once (admin key, tenant key,
// cluster token, share link), the rate limit of whoever pays for the request, and the rule that
// a classroom student's cluster is read-only once their time is up.
import type { Context } from "hono";
import type { ClusterRow, Tenant } from "../db/platform.js";
import { DEFAULT_LIMITS, type Limits } from "../runtime/limits.js";
import type { AppDeps } from "./app.js";
import type { ClassroomTime } from "./classroom-time.js";
import { forbiddenMsg, notFoundMsg, rateLimited, unauthorized } from "./errors.js";
import { timingSafeEqual, verifyToken } from "./tokens.js";
import { TtlCache } from "./ttl-cache.js";

type Principal =
  | { kind: "admin" }
  | { kind: "tenant"; tenant: Tenant }
  | { kind: "cluster"; clusterId: string }
  /** A share link: reads one cluster's workspace, never writes. */
  | { kind: "share"; clusterId: string }
  | { kind: "anonymous" };

export type Env = { Variables: { tenantId: string | null; clusterId: string | null; principal: Principal; route?: string } };

interface Access {
  row: ClusterRow;
  limits: Limits;
  principal: Principal;
}

/** Who a new cluster belongs to, and the limits it runs under. */
export interface Owner {
  tenantId: string | null;
  limits: Limits;
}

/** How long a platform row read for one request serves the next ones. */
const CACHE_MS = 10_000;
const CACHE_MAX = 50_000;

export function createAuth(deps: AppDeps, now: () => number, classTime: (row: ClusterRow) => Promise<ClassroomTime | undefined>) {
  const rows = new TtlCache<ClusterRow | undefined>(now, CACHE_MS, CACHE_MAX);
  const tenantsByKey = new TtlCache<Tenant | undefined>(now, CACHE_MS, CACHE_MAX);
  const tenantsById = new TtlCache<Tenant | undefined>(now, CACHE_MS, CACHE_MAX);

  // Only clusters that exist are held: one made a moment later is found.
  const cachedRow = (id: string) => rows.get(id, () => deps.platform.cluster(id), (row) => row !== undefined);
  const cachedTenant = async (key: string): Promise<Tenant | undefined> => {
    let loaded = false;
    const tenant = await tenantsByKey.get(key, () => ((loaded = true), deps.platform.tenantByKey(key)));
    // The tenant's clusters are then reached with their tokens, which look the tenant up by id.
    if (loaded && tenant) tenantsById.set(tenant.id, tenant);
    return tenant;
  };
  const tenantById = (id: string) => tenantsById.get(id, () => deps.platform.tenant(id));
  const tenantLimits = async (tenantId: string | null) => (tenantId ? ((await tenantById(tenantId))?.limits ?? DEFAULT_LIMITS) : DEFAULT_LIMITS);

  const bearer = (c: Context): string | undefined => {
    const h = c.req.header("authorization");
    if (h && /^bearer /i.test(h)) return h.slice(7).trim();
    // Browsers cannot set headers on a WebSocket: the live channel (only) also takes ?token=,
    // so tokens do not end up in URLs and access logs elsewhere.
    return c.req.path.endsWith("/live") ? c.req.query("token") || undefined : undefined;
  };

  const principal = async (c: Context<Env>): Promise<Principal> => {
    const tok = bearer(c);
    if (!tok) return { kind: "anonymous" };
    if (deps.adminKey && timingSafeEqual(tok, deps.adminKey)) return { kind: "admin" };
    if (tok.startsWith("slc_")) {
      const id = await verifyToken(await deps.platform.secret(), "cluster", tok);
      if (!id) throw unauthorized("the cluster token is not valid");
      return { kind: "cluster", clusterId: id };
    }
    if (tok.startsWith("sls_")) {
      const id = await verifyToken(await deps.platform.secret(), "share", tok);
      if (!id) throw unauthorized("the share token is not valid");
      return { kind: "share", clusterId: id };
    }
    if (tok.startsWith("slk_")) {
      const tenant = await cachedTenant(tok);
      if (!tenant) throw unauthorized("the API key is not valid");
      c.set("tenantId", tenant.id);
      return { kind: "tenant", tenant };
    }
    throw unauthorized("the bearer token is not a ServiceLab API key or cluster token");
  };

  const rate = async (key: string, limits: Limits): Promise<void> => {
    const wait = await deps.limiter(key, limits.requestsPerSecond, limits.burst);
    if (wait > 0) throw rateLimited(`limit requestsPerSecond exceeded: at most ${limits.requestsPerSecond} requests per second (burst ${limits.burst}) for ${key.startsWith("t_") ? "this tenant" : "this client"}`, wait);
  };

  /** Who may touch cluster `id`: its token, its tenant's key or the admin key; a share link may read. */
  const access = async (c: Context<Env>, id: string, mode: "write" | "read" = "write"): Promise<Access> => {
    const p = await principal(c);
    if (p.kind === "share" && (mode !== "read" || p.clusterId !== id)) {
      throw forbiddenMsg(mode !== "read" ? "a share link is read-only: fork the cluster to run commands in it" : `this share token is for another cluster, not "${id}"`);
    }
    const row = await cachedRow(id);
    if (!row || row.deletedAt !== null) throw notFoundMsg(`cluster "${id}" not found`);
    c.set("clusterId", id);
    c.set("tenantId", row.tenantId);
    if (p.kind === "anonymous") throw unauthorized("a cluster token or the owning tenant's API key is required");
    if (p.kind === "cluster" && p.clusterId !== id) throw forbiddenMsg(`this cluster token is for another cluster, not "${id}"`);
    if (p.kind === "tenant" && p.tenant.id !== row.tenantId) throw forbiddenMsg(`cluster "${id}" belongs to another tenant`);
    const limits = row.tenantId ? ((await tenantById(row.tenantId))?.limits ?? DEFAULT_LIMITS) : DEFAULT_LIMITS;
    await rate(row.tenantId ?? `cluster:${id}`, limits);
    return { row, limits, principal: p };
  };

  /** Who a new cluster belongs to (create and fork). */
  const owner = async (c: Context<Env>): Promise<Owner> => {
    const p = await principal(c);
    if (p.kind === "tenant") {
      await rate(p.tenant.id, p.tenant.limits);
      return { tenantId: p.tenant.id, limits: p.tenant.limits };
    }
    if (p.kind === "anonymous" && deps.allowAnonymous) {
      const ip = c.req.header("cf-connecting-ip") ?? c.req.header("x-forwarded-for") ?? "local";
      await rate(`anon:${ip}`, DEFAULT_LIMITS);
      return { tenantId: null, limits: DEFAULT_LIMITS };
    }
    if (p.kind === "anonymous") throw unauthorized("creating a cluster needs a tenant API key (Authorization: Bearer slk_...)");
    throw forbiddenMsg("only a tenant API key can create clusters");
  };

  /** The routes of a tenant's own account. */
  const tenantOnly = async (c: Context<Env>): Promise<Tenant> => {
    const p = await principal(c);
    if (p.kind !== "tenant") throw p.kind === "anonymous" ? unauthorized("a tenant API key is required") : forbiddenMsg("this route needs a tenant API key");
    await rate(p.tenant.id, p.tenant.limits);
    return p.tenant;
  };

  /** A classroom student's cluster is read-only once their time is up or the class is closed. */
  const writable = async (row: ClusterRow): Promise<void> => {
    const time = await classTime(row);
    if (time && (time.closed || now() >= time.deadline)) {
      throw forbiddenMsg(`${time.closed ? "the teacher has closed this classroom" : "the classroom's time is up"}: this cluster is read-only now, kept for the teacher's review`);
    }
  };

  return { rows, cachedRow, tenantLimits, bearer, principal, rate, access, owner, tenantOnly, writable };
}

export type Auth = ReturnType<typeof createAuth>;
