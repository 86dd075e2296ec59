// The Kubernetes REST surface of one cluster, for real kubectl: a Hono sub-app that the platform
// mounts at /k8s/:id behind its own auth (the cluster token as a bearer token), and the same
// API at the root of a server URL (kubeRoot), the cluster chosen by the token. Each request
// becomes one KubeRequest for the cluster's host; watches stream as chunked JSON lines.
//
// /version, /healthz, /livez and /readyz answer without a token, as kube-apiserver lets anyone
// read them (system:public-info-viewer): the kubectl version dispatcher asks /version first.

import { impersonationOf } from "./impersonation.js";
import { type Context, Hono } from "hono";
import { clusterConfig } from "../engine/config.js";
import type { ClusterHost } from "../runtime/host.js";
import type { Limits } from "../runtime/limits.js";
import { kubeBackendFor, type KubeBackend, type KubeWatch } from "./backend.js";
import { versionInfo } from "./discovery.js";
import { errorResponse, json, type KubeRequest, type KubeResponse } from "./serve.js";
import { asWatch } from "./watch.js";
import { ExecSession, type StreamSocket } from "./exec-session.js";
import { CHANNEL_PROTOCOLS, pickProtocol } from "./remotecommand.js";

interface KubeApiDeps {
  host: ClusterHost;
  /** The platform's access check for cluster `id` (token, tenant, rate limit); the tenant's limits. */
  access: (c: Context, id: string) => Promise<Limits>;
  /** Overrides how requests reach clusters (default: kubeBackendFor(host)). */
  backend?: KubeBackend;
  /** Longest a watch (or a followed log) stays open (kube-apiserver: --min-request-timeout 1800 s, randomised). */
  maxWatchSeconds?: number;
  /** Takes a request's connection over as a WebSocket (exec, attach); unset: streams are refused. */
  upgrade?: StreamUpgrade;
}

/** What the host's socket tells a stream. */
interface StreamHandlers {
  onMessage(data: Uint8Array | string): void;
  onClose(): void;
}

/**
 * How a host answers a WebSocket upgrade: 101 with `protocol`, then `open` gets the socket and
 * returns what to tell about it. Node: the server's own upgrade handling; Workers: a WebSocketPair.
 */
export type StreamUpgrade = (c: Context, protocol: string, open: (socket: StreamSocket) => StreamHandlers) => Response | Promise<Response>;

/**
 * Why an exec or attach over SPDY is refused: kubectl before 1.30 speaks only SPDY/3.1, and
 * 1.30+ falls back to it when a WebSocket upgrade is refused (so a request that reaches this
 * passed every check the WebSocket one would have met).
 */
const SPDY_REFUSED =
  "ServiceLab streams exec and attach over WebSocket (v5.channel.k8s.io, kubectl 1.30 and later), not SPDY: use kubectl 1.30 or later, or kubectl exec in the cluster's web terminal";
/** port-forward: the pods' apps answer only inside the simulated cluster. */
const PORT_FORWARD_REFUSED =
  "ServiceLab does not forward ports: the pods' applications answer only inside the simulated cluster (curl them from the cluster's web terminal, or expose them with a Service)";

function refusal(message: string): KubeResponse {
  return json(400, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 });
}

/** exec, attach or portforward when `path` names a pod's streaming subresource. */
function streamKind(path: string): "exec" | "attach" | "portforward" | undefined {
  const m = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/(exec|attach|portforward)\/?$/.exec(path);
  return m ? (m[1] as "exec" | "attach" | "portforward") : undefined;
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
      userAgent: c.req.header("user-agent"),
      impersonate: impersonationOf((n) => c.req.header(n)),
      contentType: c.req.header("content-type"),
      body,
      prefix,
    };
    const kind = streamKind(path);
    if (kind && c.req.header("upgrade")) return stream(c, backend, id, { ...req, command: url.searchParams.getAll("command") }, limits, kind, deps.upgrade);
    const w = asWatch(req);
    if (w) return streaming(c, (emit, end) => backend.watch(id, w, limits, emit, end), watchSeconds(w, maxWatch), /as=Table/.test(w.accept ?? "") ? "application/json;as=Table;v=v1;g=meta.k8s.io" : "application/json");
    if (req.method === "GET" && /\/pods\/[^/]+\/log$/.test(path) && (query.follow === "true" || query.follow === "1")) {
      return streaming(c, (emit, end) => backend.follow(id, req, limits, emit, end), maxWatch, "text/plain");
    }
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
  return new Response(c.req.method === "HEAD" ? null : (res.bytes ?? res.body), { status: res.status, headers });
}

function watchSeconds(req: KubeRequest, maxWatch: number): number {
  return Math.min(maxWatch, Number(req.query.timeoutSeconds) > 0 ? Number(req.query.timeoutSeconds) : maxWatch);
}

/** An upgrade to pods/exec, attach or portforward. */
async function stream(c: Context, backend: KubeBackend, id: string, req: KubeRequest, limits: Limits, kind: "exec" | "attach" | "portforward", upgrade: StreamUpgrade | undefined): Promise<Response> {
  if (kind === "portforward") return send(c, refusal(PORT_FORWARD_REFUSED));
  // The apiserver's and the kubelet's checks first: a client that falls back to SPDY meets them again.
  const plan = await backend.streamPlan(id, req, limits);
  if ("status" in plan) return send(c, plan);
  if ((c.req.header("upgrade") ?? "").toLowerCase() !== "websocket" || !upgrade) return send(c, refusal(SPDY_REFUSED));
  const protocol = pickProtocol(c.req.header("sec-websocket-protocol"));
  if (!protocol) return send(c, refusal(`requested protocol(s) are not supported: [${c.req.header("sec-websocket-protocol") ?? ""}]; supports [${CHANNEL_PROTOCOLS.join(" ")}]`));
  return upgrade(c, protocol, (socket) => {
    const session = new ExecSession({
      plan,
      protocol,
      socket,
      run: (argv, stdin, signal) => backend.podExec(id, plan, argv, stdin, limits, signal),
      follow: async (emit, end) => {
        const logReq: KubeRequest = { method: "GET", path: `/api/v1/namespaces/${plan.namespace}/pods/${plan.pod}/log`, query: { container: plan.container, follow: "true", tailLines: "0" }, prefix: req.prefix };
        const w = await backend.follow(id, logReq, limits, emit, end);
        if ("status" in w) throw new Error(JSON.parse(w.body).message);
        return () => w.stop();
      },
    });
    session.start();
    return { onMessage: (m) => session.onMessage(m), onClose: () => session.onClose() };
  });
}

/** A response that stays open: watch events, a followed log. */
async function streaming(c: Context, start: (emit: (text: string) => void, end: () => void) => Promise<KubeResponse | KubeWatch>, seconds: number, contentType: string): Promise<Response> {
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
  let started: KubeResponse | KubeWatch;
  try {
    started = await start(emit, close);
  } catch (e) {
    return send(c, errorResponse(e));
  }
  if ("status" in started) return send(c, started);
  handle = started;
  timer = setTimeout(close, seconds * 1000);
  (timer as { unref?: () => void }).unref?.();
  const body = new ReadableStream<Uint8Array>({
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
  return new Response(body, { status: 200, headers: { "Content-Type": contentType, "Cache-Control": "no-cache, private" } });
}
