// The public HTTP API (see docs/platform.md): one Hono app that mounts the middleware every
// request goes through (middleware.ts) and the route modules (routes/*.ts), in
// the order that decides which route answers. Runtime-neutral: the Node server and the Worker
// build it with their own Platform, ClusterHost and live-channel handler.
import { type Context, Hono } from "hono";
import type { HistorySink } from "../db/history.js";
import type { Platform } from "../db/platform.js";
import type { ClusterHost } from "../runtime/host.js";
import type { ClassroomStore } from "../classroom/store.js";
import { type Env, createAuth } from "./auth.js";
import { classroomClock } from "./classroom-time.js";
import type { AppContext } from "./context.js";
import type { KubeServer } from "./kubeconfig.js";
import type { StreamUpgrade } from "../kubeapi/app.js";
import { clusterMaker } from "./make-cluster.js";
import { mountMiddleware } from "./middleware.js";
import { classroomRoutes } from "./routes/classrooms.js";
import { clusterRoutes } from "./routes/clusters.js";
import { kubeAtRoot, kubeRoutes } from "./routes/kube.js";
import { pageRoutes } from "./routes/pages.js";
import { shareRoutes } from "./routes/share.js";
import { tenantRoutes } from "./routes/tenants.js";

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

export function createApp(deps: AppDeps): Hono<Env> {
  const now = deps.now ?? Date.now;
  const app = new Hono<Env>();
  const classTime = deps.classrooms ? classroomClock({ classrooms: deps.classrooms, now }) : Object.assign(async () => undefined, { forget: () => undefined });
  const auth = createAuth(deps, now, classTime);
  const maker = clusterMaker(deps, now, auth.rows);
  const x: AppContext = { ...auth, ...maker, deps, now, classTime };
  const atRoot = kubeAtRoot(x);

  mountMiddleware(app, deps, now, atRoot);
  pageRoutes(app, x);
  tenantRoutes(app, x);
  clusterRoutes(app, x);
  kubeRoutes(app, x, atRoot);
  shareRoutes(app, x);
  if (deps.classrooms) classroomRoutes(app, x, deps.classrooms);

  return app;
}
