// The public HTTP API (see docs/platform.md): platform routes, auth, tenants, quotas, metering,
// labs and share links. Runtime-neutral: the Node server and the Worker build it with their own
// Platform, ClusterHost and live-channel handler.
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isStatusError, type Status } from "../engine/api/status.js";
import type { HistorySink } from "../db/history.js";
import { day, randomId, type ClusterRow, type Platform, type Tenant } from "../db/platform.js";
import { byteLength } from "../runtime/core.js";
import type { ClusterHost } from "../runtime/host.js";
import { DEFAULT_LIMITS, type Limits } from "../runtime/limits.js";
import { LABS, lab as findLab, labSummary } from "../labs/index.js";
import { InspectQuery } from "../workspace/inspect.js";
import type { ClassroomStore } from "../classroom/store.js";
import { classroomClock, classroomRoutes } from "./classroom.js";
import { bad, forbiddenMsg, internal, notFoundMsg, rateLimited, tooLarge, unauthorized } from "./errors.js";
import { kubeconfig, type KubeServer } from "./kubeconfig.js";
import { kubeApi, kubeRoot, type StreamUpgrade } from "../kubeapi/app.js";
import { mintToken, timingSafeEqual, verifyToken } from "./tokens.js";

export interface AppDeps {
  platform: Platform;
  host: ClusterHost;
  history: HistorySink;
  /** Key that may create tenants (SERVICELAB_ADMIN_KEY); unset: tenant creation is off. */
  adminKey?: string;
  /** Local mode: clusters may be created without a tenant key. */
  allowAnonymous: boolean;
  /** Token bucket: 0 when allowed, else seconds to wait. */
  limiter: (key: string, rate: number, burst: number) => number | Promise<number>;
  /** Live channel (WebSocket upgrade) for an authorized cluster. */
  live?: (c: Context, id: string, since: number | undefined) => Response | Promise<Response>;
  /** Takes a Kubernetes API request's connection over as a WebSocket (kubectl exec/attach). */
  streamUpgrade?: StreamUpgrade;
  /** Runs after every request (Workers: waitUntil(history flush)). */
  afterRequest?: (c: Context) => void;
  now?: () => number;
  /**
   * The web UI's page (web/dist/index.html) for the routes the single-page app owns (/, /labs/*,
   * /c/*, and /s/* when a browser asks for HTML). Node reads it from disk; Workers from the assets.
   */
  page?: (c: Context) => Response | Promise<Response>;
  /** Hard cap on any body, before a tenant is known. */
  maxBodyBytes?: number;
  /** Where classroom `id`'s rows live (Node: the installation's database; Workers: its object). */
  classrooms?: (id: string) => ClassroomStore;
  /** The teacher dashboard's live channel (a WebSocket that says when the class changed). */
  classroomLive?: (c: Context, classroomId: string) => Response | Promise<Response>;
  /** Something in classroom `id` changed (a student's command, a join): its dashboards look again. */
  notifyClassroom?: (c: Context, classroomId: string) => void;
  /**
   * Whether the request comes from this machine (Node host). In local mode, kubectl on the same
   * machine may reach an anonymous cluster's /k8s/{id} without a token: kubectl sends no
   * bearer token to a plain-http server, and `npm start` serves plain http.
   */
  fromLoopback?: (c: Context) => boolean;
  /**
   * Where a kubeconfig points kubectl at cluster `id` (the Node server's TLS port and its CA;
   * the Worker's https origin). Unset or undefined: `<origin>/k8s/{id}`.
   */
  kubeServer?: (c: Context, id: string) => KubeServer | undefined;
  /**
   * Whether the request came to a port that serves only the Kubernetes API (the Node server's
   * TLS port): every path there is the API's, at the root, the cluster chosen by the token.
   */
  kubePort?: (c: Context) => boolean;
}

type Principal =
  | { kind: "admin" }
  | { kind: "tenant"; tenant: Tenant }
  | { kind: "cluster"; clusterId: string }
  /** A share link: reads one cluster's workspace, never writes. */
  | { kind: "share"; clusterId: string }
  | { kind: "anonymous" };

type Env = { Variables: { tenantId: string | null; clusterId: string | null; principal: Principal; route?: string } };

interface Access {
  row: ClusterRow;
  limits: Limits;
  principal: Principal;
}

const CACHE_MS = 10_000;
/**
 * The headers of every answer: CORS for any origin (the UI and API clients may live elsewhere)
 * and the security headers hono's secureHeaders() sets, with our content security policy.
 * Static, so the JSON answers carry them from construction as a plain object: the Node adapter
 * then writes them as they are, where setting them on a finished Response made it build a
 * Headers object and convert it back, ~0.1 ms of every request. Answers made elsewhere (hono's
 * own, the kube API's) get them added afterwards (see the middleware).
 */
const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Retry-After",
  "content-security-policy": "default-src 'self'; connect-src 'self' ws: wss:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "cross-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=15552000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};
const JSON_HEADERS: Readonly<Record<string, string>> = { ...RESPONSE_HEADERS, "content-type": "application/json" };
const PREFLIGHT = { "Access-Control-Allow-Methods": "GET,POST,DELETE,OPTIONS", "Access-Control-Allow-Headers": "Authorization,Content-Type", "Access-Control-Max-Age": "600" };
/** Answers built with RESPONSE_HEADERS already in them. */
const withHeaders = new WeakSet<Response>();

/** A JSON answer with every header of RESPONSE_HEADERS. */
function json(body: unknown, status = 200, extra?: Record<string, string>): Response {
  const r = new Response(JSON.stringify(body), { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS });
  withHeaders.add(r);
  return r;
}

export function createApp(deps: AppDeps): Hono<Env> {
  const now = deps.now ?? Date.now;
  const app = new Hono<Env>();
  const rows = new Map<string, { row: ClusterRow; at: number }>();
  const tenantsByKey = new Map<string, { tenant: Tenant | undefined; at: number }>();
  const tenantsById = new Map<string, { tenant: Tenant | undefined; at: number }>();

  const cachedRow = async (id: string): Promise<ClusterRow | undefined> => {
    const hit = rows.get(id);
    if (hit && now() - hit.at < CACHE_MS) return hit.row;
    const row = await deps.platform.cluster(id);
    if (row) rows.set(id, { row, at: now() });
    if (rows.size > 50_000) rows.clear();
    return row;
  };
  const cachedTenant = async (key: string): Promise<Tenant | undefined> => {
    const hit = tenantsByKey.get(key);
    if (hit && now() - hit.at < CACHE_MS) return hit.tenant;
    const tenant = await deps.platform.tenantByKey(key);
    if (tenantsByKey.size > 50_000) tenantsByKey.clear();
    tenantsByKey.set(key, { tenant, at: now() });
    // The tenant's clusters are then reached with their tokens, which look the tenant up by id.
    if (tenant) rememberTenant(tenant.id, tenant);
    return tenant;
  };
  const rememberTenant = (id: string, tenant: Tenant | undefined): void => {
    if (tenantsById.size > 50_000) tenantsById.clear();
    tenantsById.set(id, { tenant, at: now() });
  };
  const tenantById = async (id: string): Promise<Tenant | undefined> => {
    const hit = tenantsById.get(id);
    if (hit && now() - hit.at < CACHE_MS) return hit.tenant;
    const tenant = await deps.platform.tenant(id);
    rememberTenant(id, tenant);
    return tenant;
  };

  // ---- errors: one mapping --------------------------------------------------------------
  app.onError((err, c) => {
    let st: Status;
    if (isStatusError(err)) st = err.status;
    else if (err instanceof Error && "getResponse" in err && typeof (err as { status?: unknown }).status === "number") {
      // hono's HTTPException (body limit, malformed requests): keep its code.
      const code = (err as unknown as { status: number }).status;
      st = (code === 413 ? tooLarge(err.message) : code < 500 ? bad(err.message || "bad request") : internal(err.message)).status;
    } else {
      console.error("servicelab: unhandled error:", err);
      st = internal("the server failed to handle this request").status;
    }
    return json(st, st.code, st.code === 429 && st.details?.retryAfterSeconds ? { "retry-after": String(st.details.retryAfterSeconds) } : undefined);
  });
  app.notFound((c) => json(notFoundMsg(`the server could not find the requested resource (${c.req.method} ${new URL(c.req.url).pathname})`).status, 404));

  // ---- cross-cutting ------------------------------------------------------------------
  app.use("*", async (c, next) => {
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: { ...RESPONSE_HEADERS, ...PREFLIGHT } });
    await next();
    if (withHeaders.has(c.res)) return;
    // A WebSocket upgrade from a Durable Object has immutable headers: answer with a copy.
    if (c.res.status === 101) c.res = new Response(c.res.body, c.res);
    for (const k in RESPONSE_HEADERS) c.res.headers.set(k, RESPONSE_HEADERS[k]);
  });
  // A body with a Content-Length is checked from the header: the HTTP parser never delivers more
  // than it declares, and reading the header leaves the runtime's fast body read in place (hono's
  // bodyLimit wraps every body in a counting stream). Chunked bodies are counted as they stream.
  const maxBody = deps.maxBodyBytes ?? 1024 * 1024;
  const overMax = () => tooLarge(`the request body is larger than ${maxBody} bytes`);
  const chunkedLimit = bodyLimit({
    maxSize: maxBody,
    onError: () => {
      throw overMax();
    },
  });
  app.use("*", async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const length = c.req.header("content-length");
    if (length === undefined || c.req.header("transfer-encoding") !== undefined) return chunkedLimit(c, next);
    if (Number(length) > maxBody) throw overMax();
    await next();
  });
  // Metering: every call, after the response is known, pushed to the batched history.
  app.use("*", async (c, next) => {
    c.set("tenantId", null);
    c.set("clusterId", null);
    const t0 = performance.now();
    await next();
    if (c.req.path === "/healthz" || c.req.method === "OPTIONS") return;
    const route = c.get("route") ?? c.req.matchedRoutes.filter((r) => r.method !== "ALL").pop()?.path ?? "unmatched";
    deps.history.apiCall({
      ts: now(),
      tenantId: c.get("tenantId"),
      clusterId: c.get("clusterId"),
      method: c.req.method,
      route,
      status: c.res.status,
      latencyMs: Math.round(performance.now() - t0),
    });
    deps.afterRequest?.(c);
  });
  // The Node server's TLS port: nothing but the Kubernetes API, at the root (see kubeAtRoot).
  if (deps.kubePort) {
    const onKubePort = deps.kubePort;
    app.use("*", async (c, next) => {
      if (!onKubePort(c)) return next();
      c.set("route", "(kube port)");
      return kubeAtRoot(c);
    });
  }

  // ---- auth helpers -------------------------------------------------------------------
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

  const readJson = async (c: Context, max: number): Promise<Record<string, unknown>> => {
    const text = await c.req.text();
    const n = byteLength(text);
    if (n > max) throw tooLarge(`limit requestBytes exceeded: the body has ${n} bytes, at most ${max} are allowed`);
    if (!text.trim()) return {};
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw bad(`malformed JSON body: ${(e as Error).message}`);
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) throw bad("the request body must be a JSON object");
    return v as Record<string, unknown>;
  };

  /** Who a new cluster belongs to (create and fork). */
  const owner = async (c: Context<Env>): Promise<{ tenantId: string | null; limits: Limits }> => {
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

  /** Makes and registers a cluster (a lab's start, a fork, a classroom student's): its answer's body. */
  const makeCluster = async (c: Context<Env>, owner: { tenantId: string | null; limits: Limits }, labId: string, from?: { id: string; seq?: number }, classroomId?: string) => {
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
    rows.set(id, { row, at: ts });
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
  const newCluster = async (c: Context<Env>, owner: { tenantId: string | null; limits: Limits }, labId: string, from?: { id: string; seq?: number }) =>
    json(await makeCluster(c, owner, labId, from), 201);

  // ---- classrooms ---------------------------------------------------------------------
  const classTime = deps.classrooms ? classroomClock({ classrooms: deps.classrooms, now }) : Object.assign(async () => undefined, { forget: () => undefined });
  /** A classroom student's cluster is read-only once their time is up or the class is closed. */
  const writable = async (row: ClusterRow): Promise<void> => {
    const time = await classTime(row);
    if (time && (time.closed || now() >= time.deadline)) {
      throw forbiddenMsg(`${time.closed ? "the teacher has closed this classroom" : "the classroom's time is up"}: this cluster is read-only now, kept for the teacher's review`);
    }
  };
  const tenantLimits = async (tenantId: string | null) => (tenantId ? ((await tenantById(tenantId))?.limits ?? DEFAULT_LIMITS) : DEFAULT_LIMITS);

  // ---- routes -------------------------------------------------------------------------
  const page = (c: Context) => (deps.page ? deps.page(c) : c.redirect("/v1/labs"));
  app.get("/", page);
  app.get("/labs/:id", page);
  app.get("/c/:id", page);
  app.get("/teach/:lab", page);
  app.get("/healthz", (c) => json({ ok: true }));
  app.get("/v1/labs", (c) => json({ items: Object.values(LABS).map(labSummary) }));
  app.get("/v1/labs/:id", (c) => {
    const l = findLab(c.req.param("id"));
    if (!l) throw notFoundMsg(`lab "${c.req.param("id")}" not found`);
    const { objects: _objects, ...rest } = l;
    return json(rest);
  });

  app.post("/v1/tenants", async (c) => {
    const p = await principal(c);
    if (p.kind !== "admin") throw p.kind === "anonymous" ? unauthorized("creating a tenant needs the admin key") : forbiddenMsg("creating a tenant needs the admin key");
    const body = await readJson(c, DEFAULT_LIMITS.requestBytes);
    const name = body.name;
    if (typeof name !== "string" || !name.trim() || name.length > 200) throw bad('"name" must be a non-empty string of at most 200 characters');
    const limits = body.limits && typeof body.limits === "object" ? (body.limits as Partial<Limits>) : {};
    const t = await deps.platform.createTenant(name.trim(), limits, now());
    c.set("tenantId", t.id);
    return json({ ...t, note: "the apiKey is shown only now: it is stored hashed" }, 201);
  });

  const tenantOnly = async (c: Context<Env>): Promise<Tenant> => {
    const p = await principal(c);
    if (p.kind !== "tenant") throw p.kind === "anonymous" ? unauthorized("a tenant API key is required") : forbiddenMsg("this route needs a tenant API key");
    await rate(p.tenant.id, p.tenant.limits);
    return p.tenant;
  };

  app.get("/v1/tenant", async (c) => {
    const t = await tenantOnly(c);
    return json({ id: t.id, name: t.name, limits: t.limits, createdAt: new Date(t.createdAt).toISOString() });
  });

  app.get("/v1/tenant/usage", async (c) => {
    const t = await tenantOnly(c);
    const days = Math.min(366, Math.max(1, Number(c.req.query("days") ?? 30) || 30));
    return json(await deps.platform.usage(t.id, day(now() - (days - 1) * 86_400_000), now()));
  });

  app.get("/v1/clusters", async (c) => {
    const t = await tenantOnly(c);
    const list = await deps.platform.clusters(t.id);
    return json({ items: list.map((r) => ({ id: r.id, lab: r.lab, forkedFrom: r.forkedFrom, createdAt: new Date(r.createdAt).toISOString() })) });
  });

  app.post("/v1/clusters", async (c) => {
    const who = await owner(c);
    const body = await readJson(c, who.limits.requestBytes);
    const labId = body.lab ?? "empty";
    if (typeof labId !== "string" || !findLab(labId)) throw bad(`unknown lab ${JSON.stringify(labId)}; GET /v1/labs lists them`);
    return newCluster(c, who, labId);
  });

  app.get("/v1/clusters/:id", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    return json(await deps.host.view(id));
  });

  app.post("/v1/clusters/:id/exec", async (c) => {
    const id = c.req.param("id");
    const a = await access(c, id);
    const body = await readJson(c, a.limits.requestBytes);
    const body_ = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => ({
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: r.exitCode,
      ...(r.prompt !== undefined ? { prompt: r.prompt } : {}),
      ...(r.seq !== undefined ? { seq: r.seq } : {}),
      ...(r.edit ? { edit: r.edit } : {}),
      ...(r.stopped ? { stopped: r.stopped } : {}),
    });
    const answer = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => json(body_(r));
    // The hosted editor's answer to a kubectl edit that waits for it (see src/runtime/edit-relay.ts).
    if (body.edit !== undefined) {
      const e = body.edit as { id?: unknown; text?: unknown } | null;
      if (!e || typeof e.id !== "string" || (typeof e.text !== "string" && e.text !== null)) throw bad('the body must be {"edit": {"id": "<edit id>", "text": "<the edited file>" or null to quit}}');
      const done = await deps.host.resumeEdit(id, e.id, e.text);
      if (a.row.classroomId) deps.notifyClassroom?.(c, a.row.classroomId);
      return answer(done);
    }
    if (typeof body.command !== "string") throw bad('the body must be {"command": "<one bash command line>"}');
    if (body.editor !== undefined && body.editor !== "hosted") throw bad('"editor" may only be "hosted" (kubectl edit then answers with the file to edit)');
    if (body.timeLimitMs !== undefined && !(typeof body.timeLimitMs === "number" && Number.isFinite(body.timeLimitMs) && body.timeLimitMs >= 0)) throw bad('"timeLimitMs" must be a number of milliseconds (>= 0)');
    if (body.stream !== undefined && typeof body.stream !== "boolean") throw bad('"stream" must be true or false');
    if (body.columns !== undefined && !(Number.isInteger(body.columns) && (body.columns as number) > 0)) throw bad('"columns" must be a positive integer (the terminal\'s width)');
    await writable(a.row);
    const command = body.command;
    const opts = { hostedEditor: body.editor === "hosted", ...(body.timeLimitMs !== undefined ? { timeLimitMs: body.timeLimitMs as number } : {}), ...(body.columns !== undefined ? { columns: body.columns as number } : {}) };
    const t0 = performance.now();
    const done = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => {
      if (a.row.classroomId) deps.notifyClassroom?.(c, a.row.classroomId);
      // (A line waiting in the hosted editor is recorded by the journal once it ends, not here.)
      if (!r.edit) deps.history.command({
        ts: now(),
        clusterId: id,
        tenantId: a.row.tenantId,
        command: command.slice(0, 4096),
        exitCode: r.exitCode,
        stdoutBytes: byteLength(r.stdout),
        stderrBytes: byteLength(r.stderr),
        durationMs: Math.round(performance.now() - t0),
      });
    };
    if (!body.stream) {
      // A client that goes away while its line waits interrupts it, as a closed terminal would.
      const gone = () => void deps.host.interrupt(id).catch(() => undefined);
      const signal = c.req.raw.signal;
      signal?.addEventListener("abort", gone);
      try {
        const r = await deps.host.exec(id, command, a.limits, opts);
        done(r);
        return answer(r);
      } finally {
        signal?.removeEventListener("abort", gone);
      }
    }
    // Streamed: newline-delimited JSON, {"out": chunk} as a streaming command writes to the
    // terminal ("screen": true for what it draws in the alternate screen, which the terminal does
    // not keep: watch), then {"result": ...} whose stdout leaves out what was already sent
    // (`streamed` characters), or {"error": Status}. A client that goes away interrupts the line.
    const enc = new TextEncoder();
    let sent = 0;
    let finished = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (ctl) => {
        const send = (o: unknown) => {
          if (!finished) ctl.enqueue(enc.encode(JSON.stringify(o) + "\n"));
        };
        deps.host
          .exec(id, command, a.limits, {
            ...opts,
            write: (chunk, kept) => {
              if (kept) sent += chunk.length;
              send(kept ? { out: chunk } : { out: chunk, screen: true });
            },
          })
          .then(
            (r) => {
              done(r);
              const b = body_(r);
              send({ result: { ...b, stdout: b.stdout.slice(Math.min(sent, b.stdout.length)), streamed: sent } });
            },
            (e: unknown) => send({ error: isStatusError(e) ? e.status : internal("the server failed to handle this request").status }),
          )
          .finally(() => {
            if (finished) return;
            finished = true;
            ctl.close();
          });
      },
      cancel: () => {
        if (finished) return;
        finished = true;
        void deps.host.interrupt(id).catch(() => undefined);
      },
    });
    const res = new Response(stream, { headers: { ...RESPONSE_HEADERS, "content-type": "application/x-ndjson", "cache-control": "no-store" } });
    withHeaders.add(res);
    return res;
  });

  // Ctrl-C in the terminal: stops the command line running on the cluster (sleep, kubectl get -w).
  app.post("/v1/clusters/:id/interrupt", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    return json({ interrupted: await deps.host.interrupt(id) });
  });

  // The workspace's read-only views (src/workspace/inspect.ts); a share link may read them too.
  const inspectRoute = (view: string, query: (c: Context) => Record<string, unknown>) =>
    app.get(`/v1/clusters/:id/${view}`, async (c) => {
      const id = c.req.param("id");
      const a = await access(c, id, "read");
      const q = InspectQuery.safeParse({ view, ...query(c) });
      if (!q.success) throw bad(`bad query: ${q.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const answer = await deps.host.inspect(id, q.data, a.limits);
      // A classroom student's workspace shows the time left (and read-only once it is up).
      const time = view === "workspace" ? await classTime(a.row) : undefined;
      return json(time ? { ...(answer as object), classroom: { title: time.title, deadline: new Date(time.deadline).toISOString(), readOnly: time.closed || now() >= time.deadline, ...(time.nextLab ? { nextLab: time.nextLab } : {}) } } : answer);
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
    const a = await access(c, id);
    const body = await readJson(c, a.limits.requestBytes);
    if (body.seq !== undefined && (typeof body.seq !== "number" || !Number.isInteger(body.seq) || body.seq < 0)) throw bad('"seq" must be the number of a command in the journal (0: the cluster as it started)');
    return newCluster(c, { tenantId: a.row.tenantId, limits: a.limits }, a.row.lab, { id, seq: body.seq as number | undefined });
  });

  app.get("/v1/clusters/:id/kubeconfig", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    const token = await mintToken(await deps.platform.secret(), "cluster", id);
    c.header("Content-Type", "application/yaml; charset=utf-8");
    return c.body(kubeconfig(deps.kubeServer?.(c, id) ?? { server: `${new URL(c.req.url).origin}/k8s/${id}` }, id, token));
  });

  app.get("/v1/clusters/:id/history", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    const limit = Math.min(1000, Math.max(1, Number(c.req.query("limit") ?? 100) || 100));
    return json(await deps.platform.history(id, limit));
  });

  app.post("/v1/clusters/:id/snapshots", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    const st = await deps.host.state(id);
    const body = JSON.stringify(st);
    deps.history.snapshot({ ts: now(), clusterId: id, reason: "requested", body });
    return json({ cluster: id, bytes: byteLength(body), objects: st.objects.length }, 201);
  });

  app.post("/v1/clusters/:id/share", async (c) => {
    const id = c.req.param("id");
    await access(c, id);
    const token = await mintToken(await deps.platform.secret(), "share", id);
    const origin = new URL(c.req.url).origin;
    return json({ token, url: `${origin}/s/${token}`, fork: `${origin}/s/${token}/fork` }, 201);
  });

  app.get("/v1/clusters/:id/live", async (c) => {
    const id = c.req.param("id");
    await access(c, id, "read");
    if (!deps.live) throw notFoundMsg("this server has no live channel");
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw bad("the live channel is a WebSocket: send Upgrade: websocket");
    const since = c.req.query("since");
    return deps.live(c, id, since === undefined ? undefined : Number(since));
  });

  app.delete("/v1/clusters/:id", async (c) => {
    const id = c.req.param("id");
    const a = await access(c, id);
    try {
      const st = await deps.host.state(id);
      deps.history.snapshot({ ts: now(), clusterId: id, reason: "deleted", body: JSON.stringify(st) });
    } catch {
      // the final snapshot is best effort: deletion proceeds
    }
    await deps.host.delete(id, "deleted");
    await deps.platform.endCluster(id, "deleted", now());
    rows.delete(id);
    deps.history.event({ ts: now(), clusterId: id, tenantId: a.row.tenantId, type: "deleted", detail: {} });
    return json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: id, kind: "clusters" } });
  });

  /** /k8s/{id}: as access(), plus token-less local kubectl on anonymous clusters (see fromLoopback). */
  const kubeAccess = async (c: Context<Env>, id: string): Promise<Limits> => {
    if (!bearer(c) && deps.allowAnonymous && deps.fromLoopback?.(c)) {
      const row = await cachedRow(id);
      if (!row || row.deletedAt !== null) throw notFoundMsg(`cluster "${id}" not found`);
      if (row.tenantId === null) {
        c.set("clusterId", id);
        await rate(`cluster:${id}`, DEFAULT_LIMITS);
        return DEFAULT_LIMITS;
      }
    }
    const a = await access(c, id);
    await kubeWritable(c, a.row);
    return a.limits;
  };
  /** A classroom student's cluster after their time: the Kubernetes API reads it, and writes nothing. */
  const kubeWritable = async (c: Context, row: ClusterRow) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") await writable(row);
  };
  app.route("/k8s/:id", kubeApi({ host: deps.host, access: async (c, id) => kubeAccess(c as Context<Env>, id), upgrade: deps.streamUpgrade }));

  /**
   * The API at the root of a server URL (the Node server's TLS port; the Worker's https origin),
   * as a kubeadm cluster serves it: the cluster is the one the bearer token names. Credentials
   * that name no live cluster (none, forged, another installation's, a share link's, a tenant
   * key, a deleted cluster's) get kube-apiserver's own 401, which says nothing more.
   */
  const kubeAtRoot = kubeRoot({
    host: deps.host,
    upgrade: deps.streamUpgrade,
    cluster: async (c) => {
      const tok = bearer(c);
      const id = tok ? await verifyToken(await deps.platform.secret(), "cluster", tok) : undefined;
      const row = id ? await cachedRow(id) : undefined;
      if (!id || !row || row.deletedAt !== null) throw unauthorized("Unauthorized");
      const a = await access(c as Context<Env>, id);
      await kubeWritable(c, a.row);
      return { id, limits: a.limits };
    },
  });
  for (const path of ["/api", "/api/*", "/apis", "/apis/*", "/openapi/*", "/version", "/livez", "/readyz"]) app.all(path, kubeAtRoot);

  // ---- share links --------------------------------------------------------------------
  const shared = async (c: Context<Env>): Promise<ClusterRow> => {
    const id = await verifyToken(await deps.platform.secret(), "share", c.req.param("token") ?? "");
    if (!id) throw notFoundMsg("this share link is not valid");
    const row = await cachedRow(id);
    if (!row || row.deletedAt !== null) throw notFoundMsg("the shared cluster no longer exists");
    c.set("clusterId", id);
    await rate(`share:${id}`, DEFAULT_LIMITS);
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
    return newCluster(c, await owner(c), row.lab, { id: row.id });
  });

  if (deps.classrooms) {
    classroomRoutes(app, {
      platform: deps.platform,
      host: deps.host,
      history: deps.history,
      classrooms: deps.classrooms,
      now,
      json,
      readJson,
      owner,
      rate,
      makeCluster: (c, who, lab, from, classroomId) => makeCluster(c as Context<Env>, who, lab, from, classroomId),
      tenantLimits,
      forgetRow: (id) => rows.delete(id),
      forgetClassroom: (id) => classTime.forget(id),
      live: deps.classroomLive,
      notify: (c, id) => deps.notifyClassroom?.(c, id),
      page: deps.page,
    });
  }

  return app;
}
