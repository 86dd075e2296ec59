// The embedded server: one Node process, one libSQL file (data dir/servicelab.db) holding
// tenants, clusters' rows and history. Migrations are applied at start, so an empty directory
// is a working installation.
import { mkdirSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "@libsql/client";
import { serve, type ServerType } from "@hono/node-server";
import { drizzle } from "drizzle-orm/libsql";
import type { TimeSource } from "../shell/time.js";
import { migrate } from "drizzle-orm/libsql/migrator";
import { BatchingHistory } from "../db/history.js";
import { SqlPlatform } from "../db/platform.js";
import * as schema from "../db/schema.js";
import { createApp } from "../http/app.js";
import type { LiveMessage } from "./core.js";
import { CONNECTION_PRAGMAS, DbWriter } from "./db-writer.js";
import { RateLimiter } from "./limits.js";
import { NodeClusterHost } from "./node-host.js";
import { missingShell, type ShellFactory } from "./shell.js";
import { labTemplate } from "./core.js";
import { webAssets } from "./web-assets.js";
import { SqlClassroomStore } from "../classroom/store.js";
import { classroomClock } from "../http/classroom-time.js";
import { ClassroomFanout } from "../classroom/fanout.js";
import { LABS } from "../labs/index.js";
import { kubeTls, servingNames, type KubeTls } from "./kube-tls.js";
import { acceptWebSocket, nodeStreamUpgrade, serveUpgrades } from "./node-upgrade.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface NodeServerOptions {
  port: number;
  hostname?: string;
  /**
   * The Kubernetes API's TLS port (0: any free port), as kube-apiserver's 6443; unset: none, and
   * kubeconfigs point at the plain port's /k8s/{id}.
   */
  kubePort?: number;
  dataDir: string;
  allowAnonymous: boolean;
  adminKey?: string;
  idleMs: number;
  shell?: ShellFactory;
  /** History flush: rows per batch and longest wait. */
  historyMaxRows?: number;
  historyDelayMs?: number;
  /** What command lines wait on (default: the wall clock and real timers; tests skip waits with FastForwardTime). */
  time?: TimeSource;
}

export interface NodeServer {
  server: ServerType;
  /** The Hono app the server serves (benchmarks call its fetch without a socket). */
  app: { fetch: (req: Request) => Response | Promise<Response> };
  port: number;
  /** The Kubernetes API's TLS port and the installation's CA (PEM), when it serves one. */
  kubePort?: number;
  kubeCa?: string;
  db: Client;
  host: NodeClusterHost;
  history: BatchingHistory;
  platform: SqlPlatform;
  sweep(): Promise<string[]>;
  close(): Promise<void>;
}

/** How long an idle client connection is kept open (node:http's default is 5 s). */
const KEEP_ALIVE_MS = 120_000;

function databaseUrl(dataDir: string): string {
  return `file:${join(dataDir, "servicelab.db")}`;
}

export async function openDatabase(dataDir: string): Promise<Client> {
  mkdirSync(dataDir, { recursive: true });
  const db = createClient({ url: databaseUrl(dataDir) });
  // WAL: readers do not wait for the writer. A commit is in the WAL before the request is
  // acknowledged, which survives a killed process (synchronous=NORMAL risks only power loss).
  for (const p of CONNECTION_PRAGMAS) await db.execute(p);
  await migrate(drizzle(db, { schema }), { migrationsFolder: join(root, "migrations") });
  return db;
}

/**
 * History goes to the writer's thread in background transactions of at most this many rows
 * (~3 ms each): a cluster's write waits behind at most one of them, never a whole batch (the
 * ~800 rows of a class's burst took 20-40 ms as one transaction).
 */
const HISTORY_ROWS_PER_WRITE = 100;

export async function startNodeServer(o: NodeServerOptions): Promise<NodeServer> {
  const db = await openDatabase(o.dataDir);
  // Cluster rows and history batches are written on the writer's thread (see db-writer.ts).
  const writer = new DbWriter(databaseUrl(o.dataDir));
  await writer.started();
  const platform = new SqlPlatform(drizzle(db, { schema }), { write: (stmts, opts) => writer.write(stmts, opts), maxParams: 32_766, backgroundRows: HISTORY_ROWS_PER_WRITE });
  const history = new BatchingHistory((b) => platform.record(b), { maxRows: o.historyMaxRows ?? 2000, maxDelayMs: o.historyDelayMs ?? 200 });
  const host = new NodeClusterHost(db, { shell: o.shell, history, write: (stmts) => writer.write(stmts), ...(o.time ? { time: o.time } : {}) });
  // Build every lab's template now, so the first create is as fast as the rest.
  for (const lab of Object.keys(LABS)) labTemplate(lab, Date.now(), o.shell ?? missingShell);
  const limiter = new RateLimiter();
  const web = webAssets(join(root, "web/dist"));
  // Classrooms' rows share the installation's database on Node.
  const classrooms = new SqlClassroomStore(drizzle(db, { schema }));
  const classTime = classroomClock({ classrooms: () => classrooms, now: Date.now });
  // The Kubernetes API over TLS, its certificate from the installation's CA (see kube-tls.ts).
  const tls: KubeTls | undefined = o.kubePort === undefined ? undefined : await kubeTls(platform, servingNames(o.hostname));
  let kubePort: number | undefined;
  const dashboards = new ClassroomFanout();

  const app = createApp({
    platform,
    host,
    history,
    adminKey: o.adminKey,
    allowAnonymous: o.allowAnonymous,
    limiter: (key, rate, burst) => limiter.take(key, rate, burst, Date.now()),
    page: web.page,
    classrooms: () => classrooms,
    notifyClassroom: (_c, id) => dashboards.notify(id),
    classroomLive: (c, id) =>
      acceptWebSocket(c, (ws) => {
        const leave = dashboards.join(id, (m) => ws.send(m));
        ws.on("close", leave);
      }),
    fromLoopback: (c) => {
      const addr = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
      return addr === "127.0.0.1" || addr === "::1" || addr === "::ffff:127.0.0.1";
    },
    kubePort: (c) => (c.env as { kubePort?: boolean } | undefined)?.kubePort === true,
    kubeServer: (c) => {
      if (!tls || kubePort === undefined) return undefined;
      // The name the client reached us by, when the certificate covers it; else the listen address.
      const asked = new URL(c.req.url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
      const listen = o.hostname && o.hostname !== "0.0.0.0" && o.hostname !== "::" ? o.hostname : "127.0.0.1";
      const host = tls.names.includes(asked) ? asked : listen;
      return { server: `https://${host.includes(":") ? `[${host}]` : host}:${kubePort}`, certificateAuthority: tls.caCert };
    },
    live: (c, id, since) =>
      acceptWebSocket(c, (ws) => {
        let unsubscribe: (() => void) | undefined;
        let closed = false;
        ws.on("close", () => {
          closed = true;
          unsubscribe?.();
        });
        const send = (m: LiveMessage) => ws.send(JSON.stringify(m));
        host.subscribe(id, since, send).then(
          (u) => (closed ? u() : (unsubscribe = u)),
          () => ws.close(1011, "cluster not available"),
        );
      }),
    streamUpgrade: nodeStreamUpgrade,
  });

  let port = o.port;
  const server = await new Promise<ServerType>((res) => {
    const s = serve({ fetch: (req, env) => web.asset(req) ?? app.fetch(req, env), port: o.port, hostname: o.hostname ?? "127.0.0.1" }, (info) => {
      port = info.port;
      res(s);
    });
  });
  // A client's connection stays open between a student's commands: Node's default closes it
  // after 5 s idle, so nearly every command paid a new TCP connection and HTTP parser (on two
  // cores, a class's simultaneous commands cost several times as much on new connections; see
  // the platform benchmark). 120 s outlasts the clients' own idle timeouts (kubectl's Go
  // transport: 90 s), so it is the client that closes an idle connection, never the server
  // while a request is on its way.
  (server as import("node:http").Server).keepAliveTimeout = KEEP_ALIVE_MS;
  // Upgrades (the live channels, kubectl exec/attach, SPDY from older kubectl) go through the app.
  const wss = serveUpgrades(server as import("node:http").Server, (req, env) => app.fetch(req, env));

  // The TLS port: the same app, every path the Kubernetes API's (AppDeps.kubePort), its
  // upgrades too (exec and attach streams).
  let kubeServer: ServerType | undefined;
  let kubeWss: import("ws").WebSocketServer | undefined;
  if (tls) {
    kubeServer = await new Promise<ServerType>((res, rej) => {
      const s = serve(
        { fetch: (req, env) => app.fetch(req, Object.assign(env as object, { kubePort: true })), port: o.kubePort, hostname: o.hostname ?? "127.0.0.1", createServer: createHttpsServer, serverOptions: { key: tls.key, cert: tls.cert } },
        (info) => {
          kubePort = info.port;
          res(s);
        },
      );
      // A port in use (say, 8788 by another program) stops the start with a message naming the setting.
      s.once("error", (e: NodeJS.ErrnoException) => {
        server.close();
        rej(e.code === "EADDRINUSE" ? new Error(`the Kubernetes API's TLS port ${o.kubePort} is in use: choose another with KUBE_PORT (or KUBE_PORT=off)`) : e);
      });
    });
    (kubeServer as import("node:https").Server).keepAliveTimeout = KEEP_ALIVE_MS;
    kubeWss = serveUpgrades(kubeServer as import("node:http").Server, (req, env) => app.fetch(req, Object.assign(env, { kubePort: true })));
  }

  const sweep = async (): Promise<string[]> => {
    const ids = await host.idle(o.idleMs);
    const expired: string[] = [];
    for (const id of ids) {
      const row = await platform.cluster(id);
      // A classroom student's cluster is kept for the teacher's review, idle or not.
      const time = row && (await classTime(row));
      if (time && Date.now() < time.reviewUntil) continue;
      expired.push(id);
      try {
        history.snapshot({ ts: Date.now(), clusterId: id, reason: "expired", body: JSON.stringify(await host.state(id)) });
      } catch {
        // best effort
      }
      await host.delete(id, "expired");
      await platform.endCluster(id, "expired", Date.now());
      history.event({ ts: Date.now(), clusterId: id, tenantId: row?.tenantId ?? null, type: "expired", detail: { idleMs: o.idleMs } });
    }
    return expired;
  };
  const sweeper = setInterval(() => void sweep().catch((e: unknown) => console.error("servicelab: idle sweep failed:", e)), Math.min(60_000, Math.max(1000, o.idleMs / 4)));
  sweeper.unref();

  return {
    server,
    app,
    port,
    kubePort,
    kubeCa: tls?.caCert,
    db,
    host,
    history,
    platform,
    sweep,
    async close() {
      clearInterval(sweeper);
      host.close();
      for (const ws of wss.clients) ws.terminate();
      for (const ws of kubeWss?.clients ?? []) ws.terminate();
      await new Promise<void>((r) => server.close(() => r()));
      if (kubeServer) {
        (kubeServer as import("node:https").Server).closeAllConnections();
        await new Promise<void>((r) => kubeServer!.close(() => r()));
      }
      await history.flush();
      await writer.close();
      db.close();
    },
  };
}
