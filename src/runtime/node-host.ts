// The in-process host: clusters live in this Node process, requests to one cluster run one at a
// time (a lock per cluster, which a command line lets go of while it waits: sleep, kubectl get
// -w), and every write is committed to libSQL (the changed object rows and the meta row;
// simultaneous writes of several clusters share one transaction, see commit) before the request
// is acknowledged.
// Idle clusters leave memory after `evictMs` and are rebuilt from their rows on the next call.
import type { Client, InStatement } from "@libsql/client";
import { notFound } from "../engine/api/status.js";
import type { HistorySink } from "../db/history.js";
import { ClusterCore, MAX_LINE_MS, runningBusy, type ClusterState, type ClusterView, type Delta, fullDelta, instantiate, labTemplate, LimitError, type LiveMessage } from "./core.js";
import type { ClusterHost, CreateInit, ExecOptions } from "./host.js";
import type { Limits } from "./limits.js";
import { DELETE_ALL_OBJECTS, DELETE_META, groupStatements, SELECT_META, SELECT_OBJECTS } from "./rows.js";
import { missingShell, type ExecResult, type ShellFactory } from "./shell.js";
import { inspect, InspectQuery } from "../workspace/inspect.js";
import { EditRelay, editBusy } from "./edit-relay.js";
import { replayTo } from "./time-travel.js";
import { realTime, type TimeSource } from "../shell/time.js";
import { interruptStop } from "./budget.js";

interface NodeHostOptions {
  shell?: ShellFactory;
  history?: HistorySink;
  /** Unused clusters leave memory after this long (they stay on disk). */
  evictMs?: number;
  /** New clusters get their engine built once creations pause, up to this many engines in memory (default 1024). */
  warmLimit?: number;
  now?: () => number;
  /**
   * What command lines wait on (default: the wall clock and real timers); tests pass a
   * SimulatedTime, whose now() must then also be `now`.
   */
  time?: TimeSource;
  /** Runs statements in one write transaction (default: this connection's batch). */
  write?: (statements: InStatement[]) => Promise<unknown>;
}

type Send = (msg: LiveMessage) => void;

/** Background engine builds wait until no cluster was created for this long. */
const WARM_QUIET_MS = 50;
/**
 * One event loop serves every cluster: a command line that has run for a slice gives it back
 * (src/runtime/budget.ts), and setImmediate lets the requests that arrived meanwhile in first.
 * Taken at load: just-bash's defense box blocks timers for code running inside a line.
 */
const setImmediateHost = setImmediate;
const giveLoopBack = () => new Promise<void>((resolve) => setImmediateHost(resolve));

interface Slot {
  core?: ClusterCore;
  /**
   * The rows just written by create(), until the cluster's engine is first built: the background
   * warm-up and the first command build from them instead of reading the rows back. Never used
   * after that: a core dropped later (a refused command) is rebuilt from the database.
   */
  fresh?: ClusterState;
  /** The cluster's lock: one request at a time (a waiting command line lets go of it). */
  lock: Mutex;
  /** The command line waiting now, if one is (another exec is refused meanwhile). */
  waiting?: string;
  used: number;
  subscribers: Set<Send>;
  timer?: ReturnType<typeof setTimeout>;
  /** The answers of a command line waiting in the hosted editor (kubectl edit). */
  relay?: EditRelay;
}

export class NodeClusterHost implements ClusterHost {
  private readonly slots = new Map<string, Slot>();
  private readonly shell: ShellFactory;
  private readonly now: () => number;
  private readonly time: TimeSource;
  private readonly evictMs: number;
  private evictTimer?: ReturnType<typeof setInterval>;
  /** New clusters whose engine is built in the background (see warmSoon). */
  private readonly warming: string[] = [];
  private warmTimer?: ReturnType<typeof setTimeout>;
  private lastCreate = 0;

  private readonly write: (statements: InStatement[]) => Promise<unknown>;

  constructor(private readonly db: Client, private readonly opts: NodeHostOptions = {}) {
    this.write = opts.write ?? ((st) => this.db.batch(st, "write"));
    this.shell = opts.shell ?? missingShell;
    const time = opts.time;
    this.now = opts.now ?? (time ? () => time.now() : Date.now);
    this.time = opts.time ?? realTime;
    this.evictMs = opts.evictMs ?? 10 * 60_000;
    this.evictTimer = setInterval(() => this.evict(), Math.min(this.evictMs, 60_000));
    this.evictTimer.unref?.();
  }

  close(): void {
    clearInterval(this.evictTimer);
    clearTimeout(this.warmTimer);
    this.warming.length = 0;
    for (const s of this.slots.values()) clearTimeout(s.timer);
  }

  private slot(id: string): Slot {
    let s = this.slots.get(id);
    if (!s) {
      s = { lock: new Mutex(), used: this.now(), subscribers: new Set() };
      this.slots.set(id, s);
    }
    return s;
  }

  /** Runs `fn` after every earlier call on this cluster has finished (or let go of the lock to wait). */
  private async serial<T>(id: string, fn: (s: Slot, lock: Held) => Promise<T>): Promise<T> {
    const s = this.slot(id);
    s.used = this.now();
    const held: Held = { release: await s.lock.acquire() };
    try {
      return await fn(s, held);
    } finally {
      held.release();
    }
  }

  private async load(id: string, s: Slot): Promise<ClusterCore> {
    if (s.core) return s.core;
    const state = s.fresh ?? (await this.readState(id));
    s.fresh = undefined;
    if (!state) throw notFound("clusters", "servicelab.dev", id);
    s.core = ClusterCore.restore(id, state, this.shell);
    return s.core;
  }

  private async readState(id: string): Promise<ClusterState | undefined> {
    const m = await this.db.execute({ sql: SELECT_META, args: [id] });
    if (!m.rows.length) return undefined;
    const objs = await this.db.execute({ sql: SELECT_OBJECTS, args: [id] });
    return { meta: String(m.rows[0].meta), objects: objs.rows.map((r) => [String(r.key), String(r.body)] as [string, string]) };
  }

  /**
   * Group commit: the deltas of every cluster that reaches persist while a commit is pending or
   * running go to the database together, in one transaction, and each caller is answered when
   * that transaction has committed (or failed: then every cluster in it drops its in-memory
   * state, as a failed write of its own would). A class's simultaneous commands cost one
   * transaction and a few multi-row statements instead of one of each per command.
   */
  private queued: Array<{ id: string; delta: Delta; done: () => void; fail: (e: unknown) => void }> = [];
  private committing = false;

  private commit(id: string, delta: Delta): Promise<void> {
    return new Promise((done, fail) => {
      this.queued.push({ id, delta, done, fail });
      if (!this.committing) {
        this.committing = true;
        // After the I/O callbacks already due: requests that arrived together join this commit.
        setImmediate(() => void this.commitQueued());
      }
    });
  }

  private async commitQueued(): Promise<void> {
    while (this.queued.length) {
      const group = this.queued.splice(0);
      try {
        await this.write(groupStatements(group, this.now()) as InStatement[]);
        for (const g of group) g.done();
      } catch (e) {
        for (const g of group) g.fail(e);
      }
    }
    this.committing = false;
  }

  /** Commits what changed, then tells live subscribers (never before the commit). */
  private async persist(id: string, s: Slot, core: ClusterCore): Promise<void> {
    // (A line that waited through its cluster's deletion writes nothing back.)
    if (this.slots.get(id) !== s) return;
    const d = core.takeDeltaIfChanged();
    if (d) await this.commit(id, d);
    const msgs = core.takeMessages();
    for (const ev of core.takeK8sEvents()) {
      this.opts.history?.event({ ts: ev.ts, clusterId: id, tenantId: core.tenantId, type: "k8s-event", detail: ev });
    }
    for (const run of core.takeTrafficRuns()) this.opts.history?.traffic({ ...run, clusterId: id, tenantId: core.tenantId });
    for (const p of core.takeStepPasses()) this.opts.history?.event({ ts: p.ts, clusterId: id, tenantId: core.tenantId, type: "step-passed", detail: { lab: core.lab, step: p.step, seq: p.seq } });
    for (const send of s.subscribers) for (const m of msgs) send(m);
    this.schedule(id, s, core);
  }

  async create(id: string, init: CreateInit): Promise<ClusterView> {
    return this.serial(id, async (s) => {
      const now = this.now();
      if (init.from) {
        const core = ClusterCore.create(id, { ...init, now }, this.shell);
        s.core = core;
        try {
          await this.persist(id, s, core);
        } catch (e) {
          s.core = undefined;
          throw e;
        }
        return core.view();
      }
      // From the lab's template: write its rows; the engine starts on the first command.
      const { state, view } = instantiate(labTemplate(init.lab, now, this.shell), id, init.tenantId, now);
      await this.commit(id, fullDelta(state));
      s.core = undefined;
      s.fresh = state;
      this.warmSoon(id);
      return view;
    });
  }

  /**
   * A new cluster's engine costs ~10 ms to build from its rows (and ~0.5 ms more for what its
   * first command would build, see ClusterCore.prepare). Instead of the student's first command
   * paying it (and a class's first commands queueing behind each other), it is built
   * from the rows just written once creations pause for WARM_QUIET_MS, one cluster per turn of
   * the event loop so requests keep going between them. Up to `warmLimit` engines in memory;
   * past that, on first use.
   */
  private warmSoon(id: string): void {
    this.lastCreate = this.now();
    if (this.loaded() + this.warming.length >= (this.opts.warmLimit ?? 1024)) return;
    this.warming.push(id);
    clearTimeout(this.warmTimer);
    this.warmTimer = setTimeout(() => this.warmNext(), WARM_QUIET_MS);
  }

  private warmNext(): void {
    this.warmTimer = undefined;
    const quiet = this.now() - this.lastCreate;
    if (quiet < WARM_QUIET_MS) {
      this.warmTimer = setTimeout(() => this.warmNext(), WARM_QUIET_MS - quiet);
      return;
    }
    const id = this.warming.shift();
    if (id === undefined) return;
    const slot = this.slots.get(id);
    // Only a cluster no command has touched yet: its fresh rows are still its whole state.
    if (slot?.fresh && !slot.core) {
      void this.serial(id, async (s) => {
        if (!s.core && s.fresh && this.slots.get(id) === s) (await this.load(id, s)).prepare();
      }).catch(() => undefined);
    }
    if (this.warming.length) this.warmTimer = setTimeout(() => this.warmNext(), 0);
  }

  /** New clusters still waiting for their engine (benchmarks). */
  warmingCount(): number {
    return this.warming.length;
  }

  /**
   * Runs `fn` on cluster `id` as one acknowledged operation, as exec does: after every earlier
   * call on the cluster, with its clock brought to now; `writes` decides whether the tenant's
   * limits are checked; the changes are persisted before the result is returned, and on any
   * failure the in-memory cluster is dropped so nothing unacknowledged survives. The REST
   * surface for kubectl (src/kubeapi) runs its requests through this.
   */
  operate<T>(id: string, limits: Limits, fn: (core: ClusterCore) => T | Promise<T>, writes: (result: T) => boolean): Promise<T> {
    return this.serial(id, async (s) => {
      const core = await this.load(id, s);
      try {
        const now = this.now();
        core.tick(now);
        core.touch(now);
        const result = await fn(core);
        if (writes(result)) {
          core.checkLimits(limits);
          // Not a terminal command: time travel cannot replay past it.
          core.journal.markExternalWrite();
        }
        await this.persist(id, s, core);
        return result;
      } catch (e) {
        s.core = undefined;
        if (e instanceof LimitError) throw e.toStatus();
        throw e;
      }
    });
  }

  /** Reads the loaded cluster (after earlier calls on it), changing nothing. */
  read<T>(id: string, fn: (core: ClusterCore) => T): Promise<T> {
    return this.serial(id, async (s) => fn(await this.load(id, s)));
  }

  /** Long commands give the event loop back through this (see giveLoopBack). */
  readonly yieldTo = giveLoopBack;

  /** The host's wall clock. */
  wallClock(): number {
    return this.now();
  }

  exec(id: string, command: string, limits: Limits, opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.slots.get(id)?.core?.pendingEdit) return Promise.reject(editBusy());
    const run = () => this.serial(id, async (s, held) => {
      // One terminal: a line that waits holds it, as a shell's foreground job does.
      if (s.waiting !== undefined) throw runningBusy(s.waiting);
      const core = await this.load(id, s);
      try {
        core.onEdit = opts.hostedEditor ? this.relay(s).opened : undefined;
        // While the line waits, what it did so far is acknowledged (the live channel shows it)
        // and the cluster's other requests run: the Kubernetes API, views, the live channel.
        const around = {
          before: async () => {
            await this.persist(id, s, core);
            s.waiting = command;
            held.release();
          },
          after: async () => {
            held.release = await s.lock.acquire();
            s.waiting = undefined;
          },
        };
        const r = await core.exec(command, this.now(), limits, { ...opts, timeLimitMs: opts.timeLimitMs ?? MAX_LINE_MS, time: this.time, around, yieldTo: giveLoopBack });
        core.onEdit = undefined;
        await this.persist(id, s, core);
        return r;
      } catch (e) {
        // Whatever the command did in memory is not acknowledged: rebuild from the rows.
        s.core = undefined;
        if (e instanceof LimitError) {
          this.opts.history?.event({ ts: this.now(), clusterId: id, tenantId: core.tenantId, type: "limit", detail: { limit: e.limit, message: e.message } });
          throw e.toStatus();
        }
        throw e;
      }
    });
    return opts.hostedEditor ? this.relay(this.slot(id)).start(run) : run();
  }

  /** Ctrl-C: stops the command line running on cluster `id`; false when none runs. */
  async interrupt(id: string): Promise<boolean> {
    return this.slots.get(id)?.core?.stopLine(interruptStop()) ?? false;
  }

  resumeEdit(id: string, editId: string, text: string | null): Promise<ExecResult> {
    const s = this.slots.get(id);
    return this.relay(s ?? this.slot(id)).resume(s?.core, editId, text);
  }

  private relay(s: Slot): EditRelay {
    return (s.relay ??= new EditRelay());
  }

  view(id: string): Promise<ClusterView> {
    return this.serial(id, async (s) => {
      const core = await this.load(id, s);
      core.tick(this.now());
      if (core.hasChanges()) await this.persist(id, s, core);
      return core.view();
    });
  }

  inspect(id: string, query: InspectQuery, limits: Limits): Promise<unknown> {
    return this.serial(id, async (s) => {
      const core = await this.load(id, s);
      const now = this.now();
      core.tick(now);
      const answer = await inspect(core, InspectQuery.parse(query), now, (c, seq) => replayTo(c, seq, this.shell, limits));
      // A step that passed as time moved (pods became Ready) is recorded like any change.
      if (core.hasChanges()) await this.persist(id, s, core);
      return answer;
    });
  }

  pastState(id: string, seq: number, limits: Limits): Promise<ClusterState> {
    return this.serial(id, async (s) => (await replayTo(await this.load(id, s), seq, this.shell, limits)).state());
  }

  state(id: string): Promise<ClusterState> {
    return this.serial(id, async (s) => {
      const core = await this.load(id, s);
      core.tick(this.now());
      if (core.hasChanges()) await this.persist(id, s, core);
      return core.state();
    });
  }

  delete(id: string, reason: "deleted" | "expired"): Promise<void> {
    // A line waiting on the cluster ends first (its terminal is gone).
    this.slots.get(id)?.core?.stopLine(interruptStop());
    return this.serial(id, async (s) => {
      await this.write([
        { sql: DELETE_ALL_OBJECTS, args: [id] },
        { sql: DELETE_META, args: [id] },
      ]);
      clearTimeout(s.timer);
      for (const send of s.subscribers) send({ type: "gone", reason });
      s.subscribers.clear();
      s.core = undefined;
      this.slots.delete(id);
    });
  }

  /** Live channel: sends the resume messages, then every acknowledged change. */
  subscribe(id: string, since: number | undefined, send: Send): Promise<() => void> {
    return this.serial(id, async (s) => {
      const core = await this.load(id, s);
      core.tick(this.now());
      if (core.hasChanges()) await this.persist(id, s, core);
      for (const m of core.resume(since)) send(m);
      s.subscribers.add(send);
      this.schedule(id, s, core);
      return () => {
        s.subscribers.delete(send);
        if (!s.subscribers.size) clearTimeout(s.timer);
      };
    });
  }

  /** While someone watches, timed transitions (pods starting, readiness) run on time. */
  private schedule(id: string, s: Slot, core: ClusterCore): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    if (!s.subscribers.size) return;
    const next = core.cluster.manager.nextTimer();
    if (next === undefined) return;
    s.timer = setTimeout(
      () =>
        void this.serial(id, async (slot) => {
          if (!slot.core) return;
          slot.core.tick(this.now());
          await this.persist(id, slot, slot.core);
        }).catch(() => undefined),
      Math.max(0, next - this.now()),
    );
  }

  /** Clusters whose last write is older than `idleMs` (the caller deletes and records them). */
  async idle(idleMs: number): Promise<string[]> {
    const r = await this.db.execute({ sql: "SELECT cluster_id FROM cluster_state WHERE updated_at < ?", args: [this.now() - idleMs] });
    return r.rows.map((x) => String(x.cluster_id)).filter((id) => !(this.slots.get(id)?.subscribers.size));
  }

  private evict(): void {
    const t = this.now() - this.evictMs;
    // (A terminal waiting in the hosted editor stays: its command line is still running.)
    for (const [id, s] of this.slots) if (s.used < t && !s.subscribers.size && !s.core?.pendingEdit && !s.core?.busy) this.slots.delete(id);
  }

  /** Clusters held in memory (for the memory benchmark). */
  loaded(): number {
    let n = 0;
    for (const s of this.slots.values()) if (s.core) n++;
    return n;
  }
}

/** Who holds a cluster's lock can let go of it and take it again (Slot.lock). */
interface Held {
  release: () => void;
}

/** A FIFO lock: acquire() resolves, with the release, once every earlier holder released. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.tail;
    this.tail = prev.then(() => next);
    let done = false;
    return prev.then(() => () => {
      if (done) return;
      done = true;
      release();
    });
  }
}

