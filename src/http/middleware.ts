// What every request goes through: one mapping of errors to a v1 Status, CORS and the security
// headers, the body size cap, metering into the history, and the Node server's TLS port, which
// serves nothing but the Kubernetes API.
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isStatusError, type Status } from "../engine/api/status.js";
import type { AppDeps } from "./app.js";
import type { Env } from "./auth.js";
import { bad, internal, notFoundMsg, tooLarge } from "./errors.js";
import { hasHeaders, json, RESPONSE_HEADERS } from "./json.js";

const PREFLIGHT = { "Access-Control-Allow-Methods": "GET,POST,DELETE,OPTIONS", "Access-Control-Allow-Headers": "Authorization,Content-Type", "Access-Control-Max-Age": "600" };

export function mountMiddleware(app: Hono<Env>, deps: AppDeps, now: () => number, kubeAtRoot: (c: Context) => Promise<Response>): void {
  app.onError((err) => {
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

  app.use("*", async (c, next) => {
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: { ...RESPONSE_HEADERS, ...PREFLIGHT } });
    await next();
    if (hasHeaders(c.res)) return;
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
  // The Node server's TLS port: nothing but the Kubernetes API, at the root (see routes/kube.ts).
  if (deps.kubePort) {
    const onKubePort = deps.kubePort;
    app.use("*", async (c, next) => {
      if (!onKubePort(c)) return next();
      c.set("route", "(kube port)");
      return kubeAtRoot(c);
    });
  }
}
