/// <reference types="@cloudflare/workers-types" />
// The Workers entry: the same Hono app, with a SQLite-backed Durable Object per cluster
// (ClusterObject) and one platform object (PlatformObject: tenants, registry, history, rate
// limits) whose tables come from the same migrations as the Node server's libSQL file.
// No node: imports here or below (workerd runs this without nodejs_compat).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/migrations.js";
import { isStatusError, type Status, StatusError } from "../engine/api/status.js";
import { BatchingHistory } from "../db/history.js";
import { type ClusterRow, type HistoryBatch, type Platform, SqlPlatform } from "../db/platform.js";
import * as schema from "../db/schema.js";
import { createApp } from "../http/app.js";
import { type FollowStep, kubeWrites, type KubeWatch, streamFollow, streamWatch } from "../kubeapi/backend.js";
import type { StreamUpgrade } from "../kubeapi/app.js";
import { followNext, followStart, type LogCursor } from "../kubeapi/logs.js";
import { streamPlan, type StreamPlan } from "../kubeapi/remotecommand.js";
import { type KubeRequest, type KubeResponse, serveKube, statusResponse } from "../kubeapi/serve.js";
import { planFromWire, planToWire, watchPlan, type WireWatchPlan } from "../kubeapi/watch.js";
import { notFoundMsg } from "../http/errors.js";
import { ClusterCore, MAX_LINE_MS, type ClusterState, type ClusterView, fullDelta, instantiate, labTemplate, LimitError, type LiveMessage, runningBusy } from "./core.js";
import { realTime } from "../shell/time.js";
import { interruptStop } from "./budget.js";
import type { ClusterHost, CreateInit, ExecOptions } from "./host.js";
import { EditRelay, editBusy } from "./edit-relay.js";
import { replayTo } from "./time-travel.js";
import { type ClassroomObject, classroomLiveObject, classroomStoreOf, notifyClassroomObject } from "./classroom-object.js";

export { ClassroomObject } from "./classroom-object.js";
import { type Limits, quotaOf, RateLimiter } from "./limits.js";
import { deltaStatements, SELECT_OBJECTS } from "./rows.js";
import type { ExecResult, ShellFactory } from "./shell.js";
import { inspect, InspectQuery } from "../workspace/inspect.js";
import { shellFactory } from "./terminal.js";

export interface Env {
  CLUSTER: DurableObjectNamespace<ClusterObject>;
  PLATFORM: DurableObjectNamespace<PlatformObject>;
  /** Secret: may create tenants. */
  ADMIN_KEY?: string;
  /** "1": clusters may be created without a tenant key (local dev). */
  ALLOW_ANONYMOUS?: string;
  IDLE_MINUTES?: string;
  /** One object per classroom (src/runtime/classroom-object.ts). */
  CLASSROOM?: DurableObjectNamespace<ClassroomObject>;
  /** The web UI (web/dist), served by the platform; the Worker asks it for the page of /s/{token}. */
  ASSETS?: Fetcher;
}

/** RPC loses error classes: a v1 Status travels as data and is thrown again on the caller's side. */
type Result<T> = { ok: true; value: T } | { ok: false; status: Status };

async function result<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (e instanceof LimitError) return { ok: false, status: e.toStatus().status };
    if (isStatusError(e)) return { ok: false, status: e.status };
    throw e;
  }
}

function unwrap<T>(r: Result<T>): T {
  if (r.ok) return r.value;
  throw new StatusError(r.status);
}

function platformOf(env: Env): DurableObjectStub<PlatformObject> {
  return env.PLATFORM.get(env.PLATFORM.idFromName("platform"));
}

const getShell = (): Promise<ShellFactory> => shellFactory();

/**
 * The shell writes synchronously; each chunk is one RPC call back into the Worker. Chained, so
 * they arrive in order, and drained before the result is returned (the route counts what it
 * streamed). A Worker that went away loses its chunks, not the line.
 */
function relayOutput(write: (chunk: string, kept: boolean) => void | Promise<void>) {
  let chain: Promise<void> = Promise.resolve();
  return {
    write: (chunk: string, kept: boolean) => {
      chain = chain.then(() => write(chunk, kept)).catch(() => undefined);
    },
    drained: () => chain,
  };
}

// ---------------------------------------------------------------------------------------------

/** One cluster: its rows in this object's SQLite, its engine in memory while awake. */
export class ClusterObject extends DurableObject<Env> {
  private core?: ClusterCore;
  /** A command line waiting in the hosted editor (kubectl edit) and the request it answers next. */
  private readonly edits = new EditRelay();
  private ready: Promise<void>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ready = this.migrate();
    void ctx.blockConcurrencyWhile(() => this.ready);
  }

  private migrate(): Promise<void> {
    return migrate(drizzle(this.ctx.storage, { schema }), migrations);
  }

  private idleMs(): number {
    return Number(this.env.IDLE_MINUTES ?? 120) * 60_000;
  }

  /** The engine, rebuilt from this object's rows after a restart or hibernation. */
  private async load(id: string): Promise<ClusterCore> {
    if (this.core) return this.core;
    await this.ready;
    const meta = this.ctx.storage.sql.exec<{ meta: string }>("SELECT meta FROM cluster_state WHERE cluster_id = ?", id).toArray();
    if (!meta.length) throw notFoundMsg(`cluster "${id}" not found`);
    const objects = this.ctx.storage.sql
      .exec<{ key: string; body: string }>(SELECT_OBJECTS, id)
      .toArray()
      .map((r) => [r.key, r.body] as [string, string]);
    this.core = ClusterCore.restore(id, { meta: meta[0].meta, objects }, await getShell());
    return this.core;
  }

  private write(id: string, stmts: ReturnType<typeof deltaStatements>): void {
    // One transaction; the output gate holds the reply until it is durable.
    this.ctx.storage.transactionSync(() => {
      for (const s of stmts) this.ctx.storage.sql.exec(s.sql, ...s.args);
    });
  }

  private async persist(core: ClusterCore): Promise<void> {
    const d = core.takeDeltaIfChanged();
    if (d) this.write(core.id, deltaStatements(core.id, d, Date.now()));
    this.broadcast(core.takeMessages());
    const events = core.takeK8sEvents();
    const traffic = core.takeTrafficRuns();
    const passes = core.takeStepPasses();
    if (events.length || traffic.length || passes.length) {
      const batch: HistoryBatch = {
        events: [
          ...events.map((e) => ({ ts: e.ts, clusterId: core.id, tenantId: core.tenantId, type: "k8s-event", detail: e })),
          ...passes.map((p) => ({ ts: p.ts, clusterId: core.id, tenantId: core.tenantId, type: "step-passed", detail: { lab: core.lab, step: p.step, seq: p.seq } })),
        ],
        traffic: traffic.map((t) => ({ ...t, clusterId: core.id, tenantId: core.tenantId })),
      };
      this.ctx.waitUntil(platformOf(this.env).record(batch));
    }
    await this.schedule(core);
  }

  private broadcast(msgs: LiveMessage[]): void {
    if (!msgs.length) return;
    for (const ws of this.ctx.getWebSockets()) {
      try {
        for (const m of msgs) ws.send(JSON.stringify(m));
      } catch {
        // a closing socket: its client resumes from its last revision
      }
    }
  }

  /** The next alarm: the engine's next timer (pods starting, readiness) or idle expiry. */
  private async schedule(core: ClusterCore): Promise<void> {
    const wake = core.nextWake(this.idleMs());
    // A classroom cluster has no idle expiry: it wakes only for the engine's timers.
    if (wake.reason === "idle" && (await this.ctx.storage.get("classroom")) !== undefined) {
      const t = core.nextWake(Number.MAX_SAFE_INTEGER / 2);
      if (t.reason === "timer") await this.ctx.storage.setAlarm(t.at);
      else await this.ctx.storage.deleteAlarm();
      return;
    }
    await this.ctx.storage.setAlarm(wake.at);
  }

  async create(id: string, init: CreateInit): Promise<Result<ClusterView>> {
    return result(async () => {
      await this.ready;
      const now = Date.now();
      const sh = await getShell();
      if (init.classroomId) await this.ctx.storage.put("classroom", init.classroomId);
      if (init.from) {
        this.core = ClusterCore.create(id, { ...init, now }, sh);
        await this.persist(this.core);
        return this.core.view();
      }
      const { state, view } = instantiate(labTemplate(init.lab, now, sh), id, init.tenantId, now);
      this.write(id, deltaStatements(id, fullDelta(state), now));
      this.core = undefined;
      await this.ctx.storage.setAlarm(now + this.idleMs());
      return view;
    });
  }

  async exec(id: string, command: string, limits: Limits, opts: ExecOptions = {}): Promise<Result<ExecResult>> {
    return result(async () => {
      // The object takes other requests while a command waits in the hosted editor: one at a time.
      if (this.core?.pendingEdit) throw editBusy();
      if (this.waiting !== undefined) throw runningBusy(this.waiting);
      const run = async () => {
        const core = await this.load(id);
        try {
          core.onEdit = opts.hostedEditor ? this.edits.opened : undefined;
          // While the line waits (sleep, kubectl get -w), what it did so far is acknowledged and
          // the object serves its other requests (they interleave at awaits, as always here).
          const around = {
            before: async () => {
              await this.persist(core);
              this.waiting = command;
            },
            after: () => {
              this.waiting = undefined;
            },
          };
          // A streaming line's output goes back to the Worker as it is written (opts.write is an
          // RPC stub of the route's callback); every chunk is delivered before the result.
          const out = opts.write ? relayOutput(opts.write) : undefined;
          try {
            const r = await core.exec(command, Date.now(), limits, { hostedEditor: opts.hostedEditor, timeLimitMs: opts.timeLimitMs ?? MAX_LINE_MS, columns: opts.columns, time: realTime, around, write: out?.write });
            core.onEdit = undefined;
            await this.persist(core);
            return r;
          } finally {
            await out?.drained();
          }
        } catch (e) {
          this.core = undefined; // not acknowledged: rebuilt from the rows on the next call
          throw e;
        }
      };
      return opts.hostedEditor ? this.edits.start(run) : run();
    });
  }

  /** The command line waiting now, if one is (another exec is refused meanwhile). */
  private waiting?: string;

  /** Ctrl-C: stops the command line running now. */
  async interrupt(_id: string): Promise<Result<boolean>> {
    return result(async () => this.core?.stopLine(interruptStop()) ?? false);
  }

  async resumeEdit(_id: string, editId: string, text: string | null): Promise<Result<ExecResult>> {
    return result(() => this.edits.resume(this.core, editId, text));
  }

  /** One request of the Kubernetes REST API (src/kubeapi), as one acknowledged operation. */
  async kube(id: string, req: KubeRequest, limits: Limits): Promise<Result<KubeResponse>> {
    return result(async () => {
      const core = await this.load(id);
      try {
        const now = Date.now();
        core.tick(now);
        core.touch(now);
        core.cluster.setQuota(quotaOf(limits)); // admitted by the apiserver, as exec does
        const res = serveKube(core.cluster, req);
        if (kubeWrites(req, res)) {
          core.checkLimits(limits);
          core.journal.markExternalWrite(); // not a terminal command: time travel stops before it
        }
        await this.persist(core);
        return res;
      } catch (e) {
        this.core = undefined; // not acknowledged: rebuilt from the rows on the next call
        throw e;
      }
    });
  }

  /** pods/exec, pods/attach: the request checked in the cluster (src/kubeapi/remotecommand.ts). */
  async kubeStreamPlan(id: string, req: KubeRequest): Promise<Result<StreamPlan | KubeResponse>> {
    return result(async () => streamPlan((await this.fresh(id)).cluster, req));
  }

  /** One command of an exec stream in the pod's container, as one acknowledged operation (null: the container stopped). */
  async kubePodExec(id: string, plan: StreamPlan, argv: string[], stdin: string, limits: Limits): Promise<Result<ExecResult | null>> {
    return result(async () => {
      const core = await this.load(id);
      try {
        const r = await core.podExec(plan, argv, stdin, Date.now(), limits);
        await this.persist(core);
        return r ?? null;
      } catch (e) {
        this.core = undefined; // not acknowledged: rebuilt from the rows on the next call
        throw e;
      }
    });
  }

  /** pods/log?follow=true: the lines so far and the follower's cursor; then the lines since a cursor. */
  async kubeFollowStart(id: string, req: KubeRequest): Promise<Result<FollowStep>> {
    return result(async () => followStart((await this.fresh(id)).cluster, req));
  }
  async kubeFollowNext(id: string, cursor: LogCursor): Promise<Result<FollowStep>> {
    return result(async () => followNext((await this.load(id)).cluster, cursor));
  }

  /** What a watch selects, checked against the cluster; the Worker streams it from the live channel. */
  async kubeWatchPlan(id: string, req: KubeRequest): Promise<Result<WireWatchPlan>> {
    return result(async () => planToWire(watchPlan((await this.fresh(id)).cluster, req)));
  }

  private async fresh(id: string): Promise<ClusterCore> {
    const core = await this.load(id);
    core.tick(Date.now());
    if (core.hasChanges()) await this.persist(core);
    return core;
  }

  async view(id: string): Promise<Result<ClusterView>> {
    return result(async () => (await this.fresh(id)).view());
  }

  async inspect(id: string, query: InspectQuery, limits: Limits): Promise<Result<unknown>> {
    return result(async () => {
      const core = await this.fresh(id);
      const answer = await inspect(core, InspectQuery.parse(query), Date.now(), async (c, seq) => replayTo(c, seq, await shellFactory(), limits));
      if (core.hasChanges()) await this.persist(core);
      return answer;
    });
  }

  async state(id: string): Promise<Result<ClusterState>> {
    return result(async () => (await this.fresh(id)).state());
  }

  async pastState(id: string, seq: number, limits: Limits): Promise<Result<ClusterState>> {
    return result(async () => (await replayTo(await this.load(id), seq, await shellFactory(), limits)).state());
  }

  /** Removes every row, the alarm and the sockets. */
  async destroy(reason: "deleted" | "expired"): Promise<void> {
    this.broadcast([{ type: "gone", reason }]);
    for (const ws of this.ctx.getWebSockets()) ws.close(1000, reason);
    this.core = undefined;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.ready = this.migrate();
  }

  /** The live channel: a hibernatable WebSocket. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const id = url.searchParams.get("id") ?? "";
    const sinceRaw = url.searchParams.get("since");
    const r = await result(() => this.fresh(id));
    if (!r.ok) return Response.json(r.status, { status: r.status.code });
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    for (const m of r.value.resume(sinceRaw === null ? undefined : Number(sinceRaw))) server.send(JSON.stringify(m));
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (message === "ping") ws.send(JSON.stringify({ type: "pong" }));
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }

  override async alarm(): Promise<void> {
    await this.ready;
    const row = this.ctx.storage.sql.exec<{ cluster_id: string }>("SELECT cluster_id FROM cluster_state LIMIT 1").toArray()[0];
    if (!row) return;
    const id = row.cluster_id;
    const core = await this.load(id);
    const now = Date.now();
    // A classroom student's cluster stays for the teacher's review, however idle (the teacher
    // resets or the tenant deletes it).
    const kept = (await this.ctx.storage.get("classroom")) !== undefined;
    if (!kept && now >= core.lastActive + this.idleMs() && this.ctx.getWebSockets().length === 0) {
      const p = platformOf(this.env);
      const snapshot = JSON.stringify(core.state());
      await p.endCluster(id, "expired", now);
      await p.record({
        events: [{ ts: now, clusterId: id, tenantId: core.tenantId, type: "expired", detail: { idleMs: this.idleMs() } }],
        snapshots: [{ ts: now, clusterId: id, reason: "expired", body: snapshot }],
      });
      await this.destroy("expired");
      return;
    }
    core.tick(now);
    await this.persist(core);
  }
}

// ---------------------------------------------------------------------------------------------

/** Tenants, the cluster registry, history and rate limits: one object for the installation. */
export class PlatformObject extends DurableObject<Env> implements Platform {
  private readonly p: SqlPlatform;
  private readonly limiter = new RateLimiter();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(db, migrations));
    // A Durable Object's SQLite binds at most 100 parameters per statement.
    this.p = new SqlPlatform(db, {
      write: (stmts) => ctx.storage.transactionSync(() => {
        for (const st of stmts) ctx.storage.sql.exec(st.sql, ...st.args);
      }),
      maxParams: 100,
    });
  }

  secret() {
    return this.p.secret();
  }
  createTenant(name: string, limits: Partial<Limits>, now: number) {
    return this.p.createTenant(name, limits, now);
  }
  tenantByKey(apiKey: string) {
    return this.p.tenantByKey(apiKey);
  }
  tenant(id: string) {
    return this.p.tenant(id);
  }
  addCluster(row: ClusterRow, maxLive?: number) {
    return this.p.addCluster(row, maxLive);
  }
  cluster(id: string) {
    return this.p.cluster(id);
  }
  clusters(tenantId: string) {
    return this.p.clusters(tenantId);
  }
  liveClusterCount(tenantId: string) {
    return this.p.liveClusterCount(tenantId);
  }
  endCluster(id: string, reason: string, now: number) {
    return this.p.endCluster(id, reason, now);
  }
  record(batch: HistoryBatch) {
    return this.p.record(batch);
  }
  usage(tenantId: string, sinceDay: string, now: number) {
    return this.p.usage(tenantId, sinceDay, now);
  }
  history(clusterId: string, limit: number) {
    return this.p.history(clusterId, limit);
  }
  rateLimit(key: string, rate: number, burst: number): number {
    return this.limiter.take(key, rate, burst, Date.now());
  }
}

// ---------------------------------------------------------------------------------------------

/** The Worker's ClusterHost: each call goes to the cluster's object. */
class DurableClusterHost implements ClusterHost {
  constructor(private readonly env: Env) {}
  private stub(id: string) {
    return this.env.CLUSTER.get(this.env.CLUSTER.idFromName(id));
  }
  async create(id: string, init: CreateInit) {
    return unwrap(await this.stub(id).create(id, init)) as ClusterView;
  }
  async exec(id: string, command: string, limits: Limits, opts?: ExecOptions) {
    return unwrap(await this.stub(id).exec(id, command, limits, opts)) as ExecResult;
  }
  async resumeEdit(id: string, editId: string, text: string | null) {
    return unwrap(await this.stub(id).resumeEdit(id, editId, text)) as ExecResult;
  }
  async interrupt(id: string) {
    return unwrap(await this.stub(id).interrupt(id)) as boolean;
  }
  async view(id: string) {
    return unwrap(await this.stub(id).view(id)) as ClusterView;
  }
  async inspect(id: string, query: InspectQuery, limits: Limits) {
    return unwrap(await this.stub(id).inspect(id, query, limits));
  }
  async pastState(id: string, seq: number, limits: Limits) {
    return unwrap(await this.stub(id).pastState(id, seq, limits)) as ClusterState;
  }
  async state(id: string) {
    return unwrap(await this.stub(id).state(id)) as ClusterState;
  }
  async delete(id: string, reason: "deleted" | "expired") {
    await this.stub(id).destroy(reason);
  }
  live(id: string, since: number | undefined, request: Request): Promise<Response> {
    const url = `https://cluster/live?id=${encodeURIComponent(id)}${since !== undefined && Number.isFinite(since) ? `&since=${since}` : ""}`;
    return this.stub(id).fetch(new Request(url, { headers: request.headers }));
  }
  /** The Kubernetes REST API (src/kubeapi's KubeCapableHost): requests run in the object. */
  async kube(id: string, req: KubeRequest, limits: Limits): Promise<KubeResponse> {
    return unwrap(await this.stub(id).kube(id, req, limits)) as KubeResponse;
  }
  /** A watch: planned in the object, streamed from its live channel (a WebSocket) in this Worker. */
  async kubeWatch(id: string, req: KubeRequest, _limits: Limits, emit: (line: string) => void, end: () => void): Promise<KubeWatch> {
    const plan = planFromWire(unwrap(await this.stub(id).kubeWatchPlan(id, req)) as WireWatchPlan);
    return streamWatch(plan, Date.now, (since, send) => this.subscribe(id, since, send), emit, end);
  }
  async kubeStreamPlan(id: string, req: KubeRequest): Promise<StreamPlan | KubeResponse> {
    const r = await this.stub(id).kubeStreamPlan(id, req);
    return r.ok ? (r.value as StreamPlan | KubeResponse) : statusResponse(r.status);
  }
  async kubePodExec(id: string, plan: StreamPlan, argv: string[], stdin: string, limits: Limits): Promise<ExecResult | undefined> {
    return (unwrap(await this.stub(id).kubePodExec(id, plan, argv, stdin, limits)) as ExecResult | null) ?? undefined;
  }
  /** A followed log: started in the object, fed by its live channel, each step read in the object. */
  async kubeFollow(id: string, req: KubeRequest, _limits: Limits, emit: (text: string) => void, end: () => void): Promise<KubeResponse | KubeWatch> {
    const first = await this.stub(id).kubeFollowStart(id, req);
    if (!first.ok) return statusResponse(first.status);
    return streamFollow(
      first.value as FollowStep,
      async (cursor) => unwrap(await this.stub(id).kubeFollowNext(id, cursor)) as FollowStep,
      (send) => this.subscribe(id, undefined, send),
      emit,
      end,
    );
  }
  private async subscribe(id: string, since: number | undefined, send: (m: LiveMessage) => void): Promise<() => void> {
    const r = await this.live(id, since, new Request("https://cluster/", { headers: { Upgrade: "websocket" } }));
    const ws = r.webSocket;
    if (!ws) throw new StatusError((await r.json()) as Status);
    ws.accept();
    ws.addEventListener("message", (e) => send(JSON.parse(String(e.data)) as LiveMessage));
    ws.addEventListener("close", () => send({ type: "gone", reason: "the live channel closed" }));
    return () => ws.close(1000, "watch ended");
  }
}

/**
 * kubectl exec/attach's streams on Workers: a WebSocketPair whose server end stays in this
 * Worker (the session's commands go to the cluster's object one at a time, as REST requests do).
 */
const workersStreamUpgrade: StreamUpgrade = (_c, protocol, open) => {
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  const handlers = open({ send: (d) => server.send(d), close: (code, reason) => server.close(code, reason) });
  // Binary messages may arrive as Blobs: read in order, one after the other.
  let order = Promise.resolve();
  server.addEventListener("message", (e) => {
    const d: unknown = e.data;
    if (typeof d === "string") order = order.then(() => handlers.onMessage(d));
    else if (d instanceof ArrayBuffer) order = order.then(() => handlers.onMessage(new Uint8Array(d)));
    else order = order.then(async () => handlers.onMessage(new Uint8Array(await (d as Blob).arrayBuffer())));
  });
  server.addEventListener("close", () => handlers.onClose());
  server.addEventListener("error", () => handlers.onClose());
  return new Response(null, { status: 101, webSocket: client, headers: { "Sec-WebSocket-Protocol": protocol } });
};

let cached: { env: Env; app: ReturnType<typeof createApp> } | undefined;

function appFor(env: Env) {
  if (cached?.env === env) return cached.app;
  // A stub is an I/O object of the request that made it: take a fresh one for every call.
  const platform = new Proxy({} as Platform, {
    get: (_t, name: string) => (...args: unknown[]) => (platformOf(env) as unknown as Record<string, (...a: unknown[]) => unknown>)[name](...args),
  });
  const host = new DurableClusterHost(env);
  const history = new BatchingHistory((b) => platformOf(env).record(b), { maxRows: 500, maxDelayMs: 60_000 });
  const app = createApp({
    platform,
    host,
    history,
    adminKey: env.ADMIN_KEY || undefined,
    allowAnonymous: env.ALLOW_ANONYMOUS === "1",
    limiter: (key, rate, burst) => platformOf(env).rateLimit(key, rate, burst),
    live: (c, id, since) => host.live(id, since, c.req.raw),
    streamUpgrade: workersStreamUpgrade,
    afterRequest: (c) => c.executionCtx.waitUntil(history.flush()),
    classrooms: env.CLASSROOM ? (id) => classroomStoreOf(env.CLASSROOM!, id) : undefined,
    classroomLive: env.CLASSROOM ? (c, id) => classroomLiveObject(env.CLASSROOM!, id, c.req.raw) : undefined,
    notifyClassroom: env.CLASSROOM ? (c, id) => c.executionCtx.waitUntil(notifyClassroomObject(env.CLASSROOM!, id).catch(() => undefined)) : undefined,
    page: (c) => (env.ASSETS ? env.ASSETS.fetch(new URL("/index.html", c.req.url)) : c.text("the web UI is not deployed with this Worker\n", 503)),
    // TLS is the platform's here (a publicly trusted certificate): the kubeconfig names the
    // origin itself, whose root serves the API of the cluster its token names. Over plain http
    // (wrangler dev) kubectl would not send the token: /k8s/{id} as before.
    kubeServer: (c) => {
      const u = new URL(c.req.url);
      return u.protocol === "https:" ? { server: u.origin } : undefined;
    },
  });
  cached = { env, app };
  return app;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    return appFor(env).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
