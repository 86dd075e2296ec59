// The Kubernetes REST surface of one cluster, for real kubectl: a Hono sub-app that the platform
// mounts at /k8s/:id behind its own auth (the cluster token as a bearer token), and the same
// API at the root of a server URL (kubeRoot), the cluster chosen by the token. Each request
// becomes one KubeRequest for the cluster's host; watches stream as chunked JSON lines.
//
// /version, /healthz, /livez and /readyz answer without a token, as kube-apiserver lets anyone
// read them (system:public-info-viewer): the kubectl version dispatcher asks /version first.

import { type Context, Hono } from "hono";
import { clusterConfig } from "../engine/config.js";
import type { ClusterHost } from "../runtime/host.js";
import type { Limits } from "../runtime/limits.js";
import { kubeBackendFor, type KubeBackend, type KubeWatch } from "./backend.js";
import { versionInfo } from "./discovery.js";
import { errorResponse, json, type KubeRequest, type KubeResponse } from "./serve.js";
import { asWatch } from "./watch.js";

export interface KubeApiDeps {
  host: ClusterHost;
  /** The platform's access check for cluster `id` (token, tenant, rate limit); the tenant's limits. */
  access: (c: Context, id: string) => Promise<Limits>;
  /** Overrides how requests reach clusters (default: kubeBackendFor(host)). */
  backend?: KubeBackend;
  /** Longest a watch stays open (kube-apiserver: --min-request-timeout 1800 s, randomised). */
  maxWatchSeconds?: number;
}

const PUBLIC = new Set(["/version", "/healthz", "/livez", "/readyz"]);

export function kubeApi(deps: KubeApiDeps): Hono {
  const app = new Hono();
  const serveOne = kubeServe(deps);
  app.all("*", (c) => {
    const id = c.req.param("id") ?? "";
    const url = new URL(c.req.url);
    const prefix = `/k8s/${encodeURIComponent(id)}`;
    const idx = url.pathname.indexOf(prefix);
    const path = (idx >= 0 ? url.pathname.slice(idx + prefix.length) : url.pathname) || "/";
    return serveOne(c, path, url.pathname.slice(0, Math.max(0, idx)) + prefix, async () => ({ id, limits: await deps.access(c, id) }));
  });
  return app;
}

/**
 * The API at the root of a server URL (the Node server's TLS port; the Worker's origin), the
 * cluster chosen by the request's credentials: `cluster` resolves them, throwing the
 * apiserver's 401 when they name none.
 */
export function kubeRoot(deps: Omit<KubeApiDeps, "access"> & { cluster: (c: Context) => Promise<{ id: string; limits: Limits }> }): (c: Context) => Promise<Response> {
  const serveOne = kubeServe(deps);
  return (c) => serveOne(c, new URL(c.req.url).pathname || "/", "", () => deps.cluster(c));
}

/** One request: `path` below the cluster's prefix, `who` the access check (cluster and limits). */
function kubeServe(deps: Omit<KubeApiDeps, "access">) {
  const backend = deps.backend ?? kubeBackendFor(deps.host);
  const maxWatch = deps.maxWatchSeconds ?? 1800;
  return async (c: Context, path: string, prefix: string, who: () => Promise<{ id: string; limits: Limits }>): Promise<Response> => {
    const url = new URL(c.req.url);
    const anonymous = !c.req.header("authorization");
    if (PUBLIC.has(path) && anonymous && (c.req.method === "GET" || c.req.method === "HEAD")) {
      return path === "/version" ? send(c, json(200, versionInfo(clusterConfig().kubernetesVersion))) : c.text("ok");
    }
    const { id, limits } = await who();
    if (!backend) {
      return send(c, json(501, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "this host does not serve the Kubernetes API yet", reason: "NotImplemented", code: 501 }));
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
    const hasBody = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    const body = hasBody ? new Uint8Array(await c.req.arrayBuffer()) : undefined;
    const req: KubeRequest = {
      method: c.req.method,
      path,
      query,
      accept: c.req.header("accept"),
      contentType: c.req.header("content-type"),
      body,
      prefix,
    };
    const w = asWatch(req);
    if (w) return watch(c, backend, id, w, limits, maxWatch);
    let res: KubeResponse;
    try {
      res = await backend.request(id, req, limits);
    } catch (e) {
      res = errorResponse(e);
    }
    return send(c, res);
  };
}

function send(c: Context, res: KubeResponse): Response {
  const headers = new Headers({ "Content-Type": res.contentType, "Cache-Control": "no-cache, private" });
  for (const w of res.warnings ?? []) headers.append("Warning", `299 - ${JSON.stringify(w)}`);
  return new Response(c.req.method === "HEAD" ? null : res.body, { status: res.status, headers });
}

async function watch(c: Context, backend: KubeBackend, id: string, req: KubeRequest, limits: Limits, maxWatch: number): Promise<Response> {
  const enc = new TextEncoder();
  let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const pending: Uint8Array[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let handle: KubeWatch | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    handle?.stop();
    try {
      ctl?.close();
    } catch {
      // already closed by the client
    }
  };
  const emit = (line: string) => {
    if (closed) return;
    const chunk = enc.encode(line);
    if (ctl) ctl.enqueue(chunk);
    else pending.push(chunk);
  };
  let started: Awaited<ReturnType<KubeBackend["watch"]>>;
  try {
    started = await backend.watch(id, req, limits, emit, close);
  } catch (e) {
    return send(c, errorResponse(e));
  }
  if ("status" in started) return send(c, started);
  handle = started;
  const seconds = Math.min(maxWatch, Number(req.query.timeoutSeconds) > 0 ? Number(req.query.timeoutSeconds) : maxWatch);
  timer = setTimeout(close, seconds * 1000);
  (timer as { unref?: () => void }).unref?.();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      ctl = controller;
      for (const p of pending.splice(0)) controller.enqueue(p);
      if (closed) controller.close();
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
      handle?.stop();
    },
  });
  const table = /as=Table/.test(req.accept ?? "");
  return new Response(stream, {
    status: 200,
    headers: {
      "Content-Type": table ? "application/json;as=Table;v=v1;g=meta.k8s.io" : "application/json",
      "Cache-Control": "no-cache, private",
    },
  });
}
