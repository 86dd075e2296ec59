// One cluster as a host holds it: the engine's Cluster, its terminal, and the command lines run
// in it. Runtime-neutral (no node: imports): the Node host and the Durable Object both drive a
// ClusterCore and only differ in where they write its rows and how they wake it. Its parts live
// in files of their own: what is persisted and what changed (cluster-rows.ts), the traffic of
// each command (traffic-observer.ts), the live channel's messages (live-channel.ts), kubectl
// edit's hosted editor (hosted-editor.ts). The host must persist the delta before it
// acknowledges the request.
import { Cluster } from "../engine/cluster.js";
import { lookupKind, R } from "../engine/api/resources.js";
import type { KObject, Pod } from "../engine/api/types.js";
import { forbidden, badRequest } from "../engine/api/status.js";
import { conflictMsg } from "../http/errors.js";
import { objectKey, type StoreEvent } from "../engine/store/store.js";
import type { ConnectResult } from "../engine/net/packet.js";
import { lab as findLab } from "../labs/index.js";
import { type Limits, quotaOf } from "./limits.js";
import type { ExecResult, PendingEdit, ShellFactory, ShellHooks, ShellRunner } from "./shell.js";
import { LineTime, ReplayedTime, SimulatedTime, type TimeSource } from "../shell/time.js";
import { Journal, type JournalEntry, ORIGIN_KEY } from "./journal.js";
import { CommandStop, LineBudget, stopFor, timeLimitStop, withoutAbortNote } from "./budget.js";
import { evaluateLab, type StepResult } from "../labs/checks.js";
import { ClusterRows, type ClusterState, type Delta, type HostFields, type Meta } from "./cluster-rows.js";
import { decodeState } from "./read-state.js";
import { TrafficObserver, type TrafficRun } from "./traffic-observer.js";
import { LiveChannel, type LiveMessage } from "./live-channel.js";
import { HostedEditor } from "./hosted-editor.js";

export { type ClusterState, type Delta, fullDelta } from "./cluster-rows.js";
export type { TrafficRun } from "./traffic-observer.js";
export type { LiveMessage } from "./live-channel.js";

/**
 * Building a cluster runs kubeadm's bootstrap and a minute of pod start-up (~150 ms); restoring
 * one costs ~10 ms. So each lab is built once per process as a template, and a new cluster is
 * the template's rows written under its id: creating is one transaction, and the engine is
 * instantiated on the cluster's first command. Every cluster of a lab starts byte-identical
 * (the lab is the seed), which makes lab guides reproducible to the pod name.
 */
export interface Template {
  lab: string;
  state: ClusterState;
  view: ClusterView;
  builtAt: number;
}

const TEMPLATE_MAX_AGE_MS = 60 * 60_000;
const templates = new Map<string, Template>();

export function labTemplate(lab: string, now: number, shellFactory: ShellFactory): Template {
  const hit = templates.get(lab);
  if (hit && now - hit.builtAt < TEMPLATE_MAX_AGE_MS) return hit;
  const core = ClusterCore.create(`lab-${lab}`, { lab, tenantId: null, now }, shellFactory, lab);
  const t: Template = { lab, state: core.state(), view: core.view(), builtAt: now };
  templates.set(lab, t);
  return t;
}

/** The template's state and view as cluster `id` of `tenantId`, created `now`. */
export function instantiate(t: Template, id: string, tenantId: string | null, now: number): { state: ClusterState; view: ClusterView } {
  const meta = JSON.parse(t.state.meta) as Meta;
  meta.tenantId = tenantId;
  meta.createdAt = now;
  meta.lastActive = now;
  const start: ClusterState = { meta: JSON.stringify(meta), objects: t.state.objects };
  // The state time travel replays the journal from (src/runtime/journal.ts).
  return {
    state: { meta: start.meta, objects: [...t.state.objects, [ORIGIN_KEY, JSON.stringify(start)]] },
    view: { ...t.view, id, createdAt: new Date(now).toISOString() },
  };
}

export interface K8sEventRecord {
  ts: number;
  reason: string;
  message: string;
  object: string;
}

/** The longest a command line runs when the exec names no time limit (a forgotten `get -w`). */
export const MAX_LINE_MS = 60 * 60_000;

/** The answer to a second command line while one waits in the terminal (sleep, kubectl get -w). */
export const runningBusy = (command: string) =>
  conflictMsg(`a command is still running in this terminal (${command.length > 60 ? command.slice(0, 57) + "..." : command}): press Ctrl-C (POST /v1/clusters/{id}/interrupt) or wait for it to end`);

export class LimitError extends Error {
  constructor(readonly limit: keyof Limits, readonly detail: string) {
    super(detail);
  }
  toStatus() {
    return forbidden("clusters", "servicelab.dev", "", `limit ${this.limit} exceeded: ${this.detail}`);
  }
}

export class ClusterCore {
  private readonly k8sEvents: K8sEventRecord[] = [];
  private readonly stepPasses: Array<{ ts: number; step: string; seq: number }> = [];
  /** The budget and stop of the command line running now (see exec). */
  private line?: LineBudget;
  /** What is persisted of this cluster, and what changed since. */
  private readonly rows: ClusterRows;
  private readonly traffic: TrafficObserver;
  private readonly live: LiveChannel;
  private readonly editor = new HostedEditor();
  readonly shell: ShellRunner;
  /** What the terminal borrows from the host: the hosted editor, during a command line that may use it. */
  private readonly hooks: ShellHooks = { editor: {} };

  private constructor(
    readonly id: string,
    readonly cluster: Cluster,
    private readonly meta: HostFields,
    shellFactory: ShellFactory,
    shellState: unknown,
    full: boolean,
    readonly journal: Journal = new Journal(),
  ) {
    this.shell = shellFactory(cluster, shellState, this.hooks);
    this.rows = new ClusterRows(cluster, this.shell, journal, meta, full);
    this.traffic = new TrafficObserver(cluster);
    this.live = new LiveChannel(id, cluster.store);
    cluster.store.subscribe((ev) => this.onChange(ev));
  }

  /** A new cluster from a lab, or a fork of `from` (a share link). */
  static create(
    id: string,
    init: { lab: string; tenantId: string | null; now: number; from?: ClusterState },
    shellFactory: ShellFactory,
    seed: string = id,
  ): ClusterCore {
    const info = { lab: init.lab, tenantId: init.tenantId, createdAt: init.now, lastActive: init.now };
    if (init.from) {
      const { snapshot, shell } = decodeState(init.from);
      const core = new ClusterCore(id, Cluster.restore(snapshot, { adoptObjects: true }), info, shellFactory, shell, true, Journal.fromRows(init.from.objects));
      core.cluster.advanceTo(init.now);
      return core;
    }
    const lab = findLab(init.lab);
    if (!lab) throw badRequest(`unknown lab "${init.lab}"`);
    // The cluster has been up for a minute when the student arrives (Cluster.create runs system
    // pods to Running for 60 s): start it a minute ago so its clock meets the wall clock.
    const cluster = Cluster.create({ seed, startTime: init.now - 60_000 });
    for (const m of lab.objects) {
      const obj = m as KObject;
      const info = lookupKind(String(m.apiVersion), String(m.kind));
      if (!info) throw new Error(`lab ${lab.id}: unknown kind ${String(m.apiVersion)} ${String(m.kind)}`);
      cluster.client.create(info, info.namespaced ? (obj.metadata.namespace ?? "default") : undefined, structuredClone(m));
    }
    cluster.advanceTo(init.now);
    return new ClusterCore(id, cluster, info, shellFactory, undefined, true);
  }

  /** The cluster as it was persisted. */
  static restore(id: string, state: ClusterState, shellFactory: ShellFactory): ClusterCore {
    const { snapshot, shell, meta, logRows, podRows } = decodeState(state);
    const cluster = Cluster.restore(snapshot, { adoptObjects: true });
    // Restoring resyncs every controller; if that wrote anything the rows are rewritten.
    const drift = cluster.store.revision() !== snapshot.revision;
    // Only the host's own fields: decodeState() also put the side rows (config, kubelet, shell)
    // into `meta`, and metaJSON() would write copies of them into every meta row.
    const info = { lab: meta.lab, tenantId: meta.tenantId, createdAt: meta.createdAt, lastActive: meta.lastActive };
    const core = new ClusterCore(id, cluster, info, shellFactory, shell, drift, Journal.fromRows(state.objects));
    // The rows just read need not be written again; the terminal's is its state as restored. (The
    // kubelet's rows are serialized again: restoring reconciles every pod, moving their revisions.)
    core.rows.restored(state, { lastActive: meta.lastActive, logRows, podRows });
    return core;
  }

  get tenantId(): string | null {
    return this.meta.tenantId;
  }
  get lab(): string {
    return this.meta.lab;
  }
  get lastActive(): number {
    return this.meta.lastActive;
  }
  get createdAt(): number {
    return this.meta.createdAt;
  }
  revision(): number {
    return this.cluster.store.revision();
  }

  private onChange(ev: StoreEvent): void {
    this.rows.changed(ev);
    this.live.changed(ev);
    if (ev.type === "ADDED" && ev.resource === "events") {
      const o = ev.object as KObject & { reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } };
      this.k8sEvents.push({
        ts: this.cluster.now(),
        reason: String(o.reason ?? ""),
        message: String(o.message ?? ""),
        object: `${o.involvedObject?.kind ?? ""}/${o.involvedObject?.name ?? ""}`,
      });
    }
  }

  /** Brings the simulated clock up to the wall clock (fires due timers). */
  tick(now: number): void {
    this.cluster.advanceTo(now);
  }

  touch(now: number): void {
    this.meta.lastActive = now;
  }

  /**
   * Builds now what the first command would otherwise build (for a host warming engines in the
   * background): the data plane, and the rows' serialized forms a restore made stale. Changes
   * nothing that is persisted.
   */
  prepare(): void {
    this.traffic.observe();
    this.rows.prepare();
  }

  /** Told when a command line's kubectl edit opens a file in the hosted editor (set by the host). */
  set onEdit(f: ((e: PendingEdit) => void) | undefined) {
    this.editor.onEdit = f;
  }
  get onEdit(): ((e: PendingEdit) => void) | undefined {
    return this.editor.onEdit;
  }

  /** The file kubectl edit waits on in the hosted editor, if one does. */
  get pendingEdit(): PendingEdit | undefined {
    return this.editor.waiting;
  }

  /** The hosted editor's answer to edit `id` (undefined: quit); false when no such edit waits. */
  finishEdit(id: string, text: string | undefined): boolean {
    return this.editor.finish(id, text);
  }

  /** Whether a command line is running (it may be waiting: sleep, kubectl get -w). */
  get busy(): boolean {
    return this.line !== undefined;
  }

  /**
   * Runs one command line; throws LimitError when the result breaks a limit (the host then
   * discards this core). With `hostedEditor`, kubectl edit opens its file through onEdit.
   *
   * The line's one stop is its LineBudget (src/runtime/budget.ts, see stopLine()): Ctrl-C, the
   * exec's time limit, the CPU budget. Its commands that wait do so on
   * `opts.time` (the host's source; a simulated one at `now` when none is given) while the
   * cluster follows it; `around` is told around each wait (a host lets other requests in). The
   * journal keeps when each wait returned and what stopped the line, so a replay (`replay`)
   * never waits and ends the same way.
   */
  async exec(
    command: string,
    now: number,
    limits: Limits,
    opts: {
      hostedEditor?: boolean;
      replayEdits?: ReadonlyArray<string | null>;
      yieldTo?: () => Promise<void>;
      time?: TimeSource;
      timeLimitMs?: number;
      around?: { before(): Promise<void> | void; after(): Promise<void> | void };
      write?: (chunk: string, kept: boolean) => void;
      columns?: number;
      replay?: Pick<JournalEntry, "waits" | "stopped">;
    } = {},
  ): Promise<ExecResult> {
    // The line's one stop (src/runtime/budget.ts): its CPU budget, and whoever else stops it.
    const line = (this.line = new LineBudget({ cpuMs: limits.cpuMsPerCommand, yieldTo: opts.yieldTo }));
    const replay = opts.replay;
    // (A line the CPU budget stopped is stopped by the replay's own budget.)
    const replayStop = replay?.stopped && replay.stopped !== "cpu" ? () => line.stop(stopFor(replay.stopped!, limits)) : undefined;
    // Without a source of the host's, waits move a clock of the line's own from where the cluster
    // is (a caller's `now` may be behind a cluster an earlier line moved on).
    const from = Math.max(now, this.cluster.now());
    const source: TimeSource = replay ? new ReplayedTime(from, replay.waits ?? [], replayStop) : (opts.time ?? new SimulatedTime(from));
    const deadline = opts.timeLimitMs !== undefined && !replay ? now + Math.max(0, opts.timeLimitMs) : undefined;
    const around = {
      before: async () => {
        line.pause();
        await opts.around?.before();
      },
      after: async () => {
        await opts.around?.after();
        line.resume();
      },
    };
    const time = new LineTime(this.cluster, source, { signal: line.signal, around, deadline, onDeadline: () => line.stop(timeLimitStop()) });
    // A line stopped before its first wait (none recorded) is stopped at once in a replay.
    if (replayStop && !replay?.waits?.length) replayStop();
    this.hooks.editor.current = this.editor.begin({ hosted: opts.hostedEditor, replay: opts.replayEdits });
    // The tenant's pod and object limits are the apiserver's quota: a create past them is
    // refused before anything is made (checkLimits below only backs that up).
    this.cluster.setQuota(quotaOf(limits));
    this.tick(now);
    this.touch(now);
    this.traffic.observe();
    // The workspace draws one connection per pod and outcome of a curl loop: those are traced.
    const traffic = this.traffic.begin();
    const prompt = this.prompt();
    let r: ExecResult;
    try {
      r = await this.shell.run(command, { signal: line.signal, time, write: opts.write, columns: opts.columns });
      const stop = line.stopped();
      // Ctrl-C: the terminal's echo, and bash's 130; unless the command caught it (watch exits 0).
      if (stop?.why === "interrupt" && r.caught) r = { stdout: r.stdout, stderr: withoutAbortNote(String(r.stderr ?? "")), exitCode: r.exitCode };
      else if (stop) r = { stdout: r.stdout + (stop.why === "interrupt" ? "^C\n" : ""), stderr: withoutAbortNote(String(r.stderr ?? "")) + stop.message, exitCode: stop.exitCode };
    } catch (e) {
      // A line stopped inside a command that does not catch the abort: bash's voice all the same.
      const stop = line.stopped();
      if (!stop) throw e;
      r = { stdout: stop.why === "interrupt" ? "^C\n" : "", stderr: stop.message, exitCode: stop.exitCode };
    } finally {
      this.line = undefined;
      this.traffic.end();
      this.hooks.editor.current = undefined;
    }
    const stopped = line.stopped()?.why;
    const end = Math.max(now, source.now());
    const run = this.traffic.run(traffic, now, command);
    const res: ExecResult = { stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? ""), exitCode: Number(r.exitCode ?? 0) };
    this.checkLimits(limits);
    const bytes = byteLength(res.stdout) + byteLength(res.stderr);
    if (bytes > limits.outputBytes) {
      throw new LimitError("outputBytes", `the command printed ${bytes} bytes, more than ${limits.outputBytes}; its effects were discarded`);
    }
    const edits = this.editor.end(opts.replayEdits);
    const entry = this.journal.add({
      ts: now,
      ...(end > now ? { end } : {}),
      prompt,
      command,
      exitCode: res.exitCode,
      stdout: res.stdout,
      stderr: res.stderr,
      ...(run ? { traffic: { connections: run.connections, pods: run.pods, other: run.other } } : {}),
      ...(edits.length ? { edits } : {}),
      ...(time.waits.length ? { waits: time.waits } : {}),
      ...(stopped ? { stopped } : {}),
    });
    if (run) this.traffic.keepSamples(entry.seq, traffic);
    this.touch(end);
    const steps = this.evaluateSteps(end);
    this.live.ran({ type: "exec", command, exitCode: res.exitCode, stdout: res.stdout, stderr: res.stderr, entry, ...(steps ? { steps } : {}) });
    return { ...res, prompt: this.prompt(), seq: entry.seq, ...(stopped ? { stopped } : {}) };
  }

  /** Stops the command line running now, if one is (an interrupt, a time limit); false if none runs. */
  stopLine(reason: CommandStop): boolean {
    if (!this.line) return false;
    this.line.stop(reason);
    return true;
  }

  /**
   * One command in a pod's container for a client of the Kubernetes API (an exec stream's
   * command, or one line of its interactive shell), in the terminal's pod shells; limits as for
   * a terminal command. Not a terminal line: time travel stops before it.
   * A pod that is gone or made again under its name is told apart by `uid` (undefined result).
   */
  async podExec(
    target: { namespace: string; pod: string; uid: string; container: string },
    argv: string[],
    stdin: string,
    now: number,
    limits: Limits,
    opts: { signal?: AbortSignal; yieldTo?: () => Promise<void> } = {},
  ): Promise<ExecResult | undefined> {
    this.cluster.setQuota(quotaOf(limits));
    this.tick(now);
    this.touch(now);
    this.traffic.observe();
    const pod = this.cluster.api.peek(R.pods, target.namespace, target.pod);
    if (!pod || pod.metadata.uid !== target.uid || this.cluster.kubelet.containerState(pod as Pod, target.container) !== "running") return undefined;
    if (!this.shell.execInPod) throw badRequest("this build's terminal has no pod shells");
    // A command line's budget and stop, as for the terminal's; the client going stops it too.
    const line = (this.line = new LineBudget({ cpuMs: limits.cpuMsPerCommand, yieldTo: opts.yieldTo }));
    const gone = () => line.stop(new CommandStop("interrupt", "", 128 + 2));
    opts.signal?.addEventListener("abort", gone);
    let r: ExecResult;
    try {
      r = await this.shell.execInPod(target.namespace, target.pod, target.container, argv, stdin, line.signal);
      const stop = line.stopped();
      if (stop) r = { stdout: r.stdout, stderr: withoutAbortNote(r.stderr) + stop.message, exitCode: stop.exitCode };
    } catch (e) {
      const stop = line.stopped();
      if (!stop) throw e;
      r = { stdout: "", stderr: stop.message, exitCode: stop.exitCode };
    } finally {
      this.line = undefined;
      opts.signal?.removeEventListener("abort", gone);
    }
    this.checkLimits(limits);
    const bytes = byteLength(r.stdout) + byteLength(r.stderr);
    if (bytes > limits.outputBytes) throw new LimitError("outputBytes", `the command printed ${bytes} bytes, more than ${limits.outputBytes}; its effects were discarded`);
    // It may have written the container's files: replay cannot reproduce it.
    this.journal.markExternalWrite();
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
  }

  /** The prompt the terminal shows before the next line. */
  prompt(): string {
    return this.shell.prompt?.() ?? "[root@master ~]# ";
  }

  /**
   * The lab's steps against the cluster now; records steps that just passed. Reads only: the
   * checks never write, move the clock or draw random numbers. Undefined for a lab without steps.
   */
  evaluateSteps(now: number): StepResult[] | undefined {
    const lab = findLab(this.meta.lab);
    if (!lab || lab.steps.length === 0) return undefined;
    const before = this.journal.progress;
    const { steps, progress } = evaluateLab(lab, this.cluster.store, this.journal.records(), before, now);
    for (const [step, at] of Object.entries(progress)) if (!before[step]) this.stepPasses.push({ ts: now, step, seq: at.seq });
    this.journal.setProgress(progress);
    return steps;
  }

  /** Steps that passed since the last call (for the history, after they were persisted). */
  takeStepPasses(): Array<{ ts: number; step: string; seq: number }> {
    return this.stepPasses.splice(0);
  }

  /** The traced sample connections of the last command that sent traffic (src/runtime/traffic-observer.ts). */
  trafficSamples(): { seq: number; traces: ReadonlyMap<string, ConnectResult> } {
    return this.traffic.sampled();
  }

  checkLimits(limits: Limits): void {
    const pods = this.cluster.store.count("pods");
    if (pods > limits.podsPerCluster) {
      throw new LimitError("podsPerCluster", `the cluster would hold ${pods} pods, more than ${limits.podsPerCluster}; the command's effects were discarded`);
    }
    // As the quota counts them: events are bounded on their own (MAX_EVENTS, oldest trimmed).
    const objects = this.cluster.api.objectCount();
    if (objects > limits.objectsPerCluster) {
      throw new LimitError("objectsPerCluster", `the cluster would hold ${objects} objects, more than ${limits.objectsPerCluster}; the command's effects were discarded`);
    }
  }

  hasChanges(): boolean {
    return this.rows.hasChanges();
  }

  /** The rows to persist now, or null when nothing needs writing (see ClusterRows.takeDeltaIfChanged). */
  takeDeltaIfChanged(): Delta | null {
    return this.rows.takeDeltaIfChanged();
  }

  /** The rows to persist now. */
  takeDelta(): Delta {
    return this.rows.takeDelta();
  }

  /** The whole cluster in its persisted form (forks, snapshots in history). */
  state(): ClusterState {
    return this.rows.state();
  }

  /** Live messages since the last call (only after the delta they belong to was persisted). */
  takeMessages(): LiveMessage[] {
    return this.live.take();
  }

  /** Messages that bring a client at revision `since` up to date (or a reset). */
  resume(since: number | undefined): LiveMessage[] {
    return this.live.resume(since);
  }

  takeK8sEvents(): K8sEventRecord[] {
    return this.k8sEvents.splice(0);
  }

  /** Traffic runs since the last call (for history, after their command was persisted). */
  takeTrafficRuns(): TrafficRun[] {
    return this.traffic.takeRuns();
  }

  /** A read-only summary for share links and the cluster route. */
  view(): ClusterView {
    const store = this.cluster.store;
    const counts: Record<string, number> = {};
    for (const r of store.resources()) counts[r] = store.count(r);
    const names = (r: string) => store.list(r).map((o) => objectKey(o.metadata.namespace, o.metadata.name!));
    return {
      id: this.id,
      lab: this.meta.lab,
      createdAt: new Date(this.meta.createdAt).toISOString(),
      clock: new Date(this.cluster.now()).toISOString(),
      revision: store.revision(),
      counts,
      services: names("services"),
      deployments: names("deployments.apps"),
      pods: store.list("pods").map((p) => ({
        name: objectKey(p.metadata.namespace, p.metadata.name!),
        phase: String((p as { status?: { phase?: string } }).status?.phase ?? ""),
        ip: String((p as { status?: { podIP?: string } }).status?.podIP ?? ""),
      })),
    };
  }

  /** When the host must wake this cluster next: its next timer or its idle expiry. */
  nextWake(idleMs: number): { at: number; reason: "timer" | "idle" } {
    const idle = this.meta.lastActive + idleMs;
    const t = this.cluster.manager.nextTimer();
    return t !== undefined && t < idle ? { at: t, reason: "timer" } : { at: idle, reason: "idle" };
  }
}

export interface ClusterView {
  id: string;
  lab: string;
  createdAt: string;
  clock: string;
  revision: number;
  counts: Record<string, number>;
  services: string[];
  deployments: string[];
  pods: Array<{ name: string; phase: string; ip: string }>;
}

const enc = new TextEncoder();
export function byteLength(s: string): number {
  // ASCII fast path: most terminal output is ASCII.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return enc.encode(s).length;
  return s.length;
}
