// One cluster as a host holds it: the engine's Cluster, its terminal, and what changed since it
// was last persisted. Runtime-neutral (no node: imports): the Node host and the Durable Object
// both drive a ClusterCore and only differ in where they write its rows and how they wake it.
//
// Persistence is per object: a store subscription records which keys changed, and a write
// (`takeDelta`) upserts only those rows plus one small meta row (clock, rng, revision). The
// larger engine-side state (config, kubelet, shell) lives in side rows ("#kubelet", ...) that
// are rewritten only when their JSON changed, the kubelet's runtime of each pod in a row of its
// own ("#kpod|ns/pod"), and containers' logs in rows of LOG_CHUNK lines
// ("#log|ns/pod|container|n") of which only the last one and new ones are written as lines are
// added. The host must persist the delta before it acknowledges the request.
import { Cluster, type ClusterSnapshot } from "../engine/cluster.js";
import { lookupKind, R } from "../engine/api/resources.js";
import type { KObject, Pod } from "../engine/api/types.js";
import { forbidden, badRequest } from "../engine/api/status.js";
import { conflictMsg } from "../http/errors.js";
import { objectKey, type StoreEvent } from "../engine/store/store.js";
import { dataplaneOf } from "../engine/net/cluster-env.js";
import type { ConnectResult } from "../engine/net/packet.js";
import type { KubeletPodState, KubeletState, LogLine } from "../engine/kubelet/kubelet.js";
import { lab as findLab } from "../labs/index.js";
import { type Limits, quotaOf } from "./limits.js";
import type { ExecResult, PendingEdit, ShellFactory, ShellHooks, ShellRunner } from "./shell.js";
import { LineTime, ReplayedTime, SimulatedTime, type TimeSource } from "../shell/time.js";
import { Journal, type JournalEntry, ORIGIN_KEY } from "./journal.js";
import { CommandStop, LineBudget, stopFor, timeLimitStop, withoutAbortNote } from "./budget.js";
import { evaluateLab, type StepResult } from "../labs/checks.js";

/** Everything of a ClusterSnapshot but its objects, plus what the host keeps. */
export interface Meta extends Omit<ClusterSnapshot, "objects"> {
  shell: unknown;
  lab: string;
  tenantId: string | null;
  createdAt: number;
  lastActive: number;
}

/** A cluster's persisted form: the meta row and one row per object. */
export interface ClusterState {
  meta: string;
  objects: Array<[key: string, body: string]>;
}

/** What one acknowledged operation changed: rows to write in one transaction. */
export interface Delta {
  meta: string;
  upserts: Array<[key: string, body: string]>;
  deletes: string[];
  /** Replace every object row (new cluster, fork, restore drift). */
  full: boolean;
}

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

/** Rows that replace a cluster's whole state. */
export function fullDelta(state: ClusterState): Delta {
  return { meta: state.meta, upserts: state.objects, deletes: [], full: true };
}

/** A message of the live channel (JSON over a WebSocket). */
export type LiveMessage =
  | { type: "hello"; cluster: string; rv: number }
  | { type: "change"; rv: number; verb: StoreEvent["type"]; resource: string; object: KObject }
  | { type: "reset"; rv: number; objects: Record<string, KObject[]> }
  | { type: "exec"; command: string; exitCode: number; stdout: string; stderr: string; entry?: JournalEntry; steps?: StepResult[] }
  | { type: "gone"; reason: string };

export interface K8sEventRecord {
  ts: number;
  reason: string;
  message: string;
  object: string;
}

/** What one command sent through the data plane: connections per answering pod, and the rest. */
export interface TrafficRun {
  ts: number;
  command: string;
  connections: number;
  /** Connections a pod accepted, by pod ("namespace/name"), protocol and port (after DNAT). */
  pods: Array<{ pod: string; proto: string; port: number; connections: number }>;
  /** The others: refused, timeout, unreachable, or answered by a node ("node/<name>"). */
  other: Record<string, number>;
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

const SEP = "|";
/** Connections traced per command line, for the workspace's samples (a 100-curl loop to 10 pods needs ~10). */
const TRACED_PER_COMMAND = 64;
/** How long kubectl edit waits for the hosted editor before it quits as if the file was closed unchanged. */
const EDIT_TIMEOUT_MS = 15 * 60_000;
/** Side rows: state that is not an object, kept apart from the meta row so it is written only on change. */
const SIDE = ["#config", "#kubelet", "#shell", "#proxies"] as const;
type SideKey = (typeof SIDE)[number];
/** The engine's snapshot without objects, config and kubelet state (the meta row's part). */
type SnapshotMeta = ReturnType<Cluster["snapshotMeta"]>;
/**
 * Log rows: "#log|<namespace>/<pod>|<container>|<n>" holds lines n*LOG_CHUNK.. of that
 * container's log. A web pod's access log grows by a line per request, up to the kubelet's
 * 10 Mi rotation: in the #kubelet row, every curl rewrote all of it.
 */
const LOG_PREFIX = "#log|";
const LOG_CHUNK = 256;
const logRowKey = (stream: string, n: number) => `${LOG_PREFIX}${stream}|${n}`;
/** The rows of `lines`, a log's lines from row `first` on (first * LOG_CHUNK) to its end. */
function pushLogRows(rows: Array<[string, string]>, stream: string, first: number, lines: readonly LogLine[]): void {
  for (let n = first, i = 0; i < lines.length; n++, i += LOG_CHUNK) rows.push([logRowKey(stream, n), JSON.stringify(lines.slice(i, i + LOG_CHUNK))]);
}
/**
 * Pod rows: "#kpod|<namespace>/<pod>" holds the kubelet's runtime of that pod (containers, their
 * files, transitions), with `seq`, its place in the kubelet's order (pods are restored in it).
 * In the #kubelet row, every write that touched one pod of a 1000-pod deployment rewrote all of
 * them (~0.5 MB).
 */
const POD_PREFIX = "#kpod|";
interface PodRow {
  seq: number;
  pod: KubeletPodState;
}
/** A pod's row as persisted: its place, the pod it was (uid), the kubelet revision it was serialized at, and its text. */
interface PersistedPod {
  seq: number;
  uid: string;
  rev: number;
  body: string;
}
/** A log as its rows hold it: the kubelet's epoch it was written at, lines and rows. */
interface PersistedLog {
  epoch: number;
  count: number;
  chunks: number;
}
export function rowKey(resource: string, obj: KObject): string {
  return resource + SEP + objectKey(obj.metadata.namespace, obj.metadata.name!);
}

export class ClusterCore {
  private readonly dirty = new Set<string>();
  private readonly changes: LiveMessage[] = [];
  private readonly k8sEvents: K8sEventRecord[] = [];
  private readonly trafficRuns: TrafficRun[] = [];
  private readonly stepPasses: Array<{ ts: number; step: string; seq: number }> = [];
  /** The budget and stop of the command line running now (see exec). */
  private line?: LineBudget;
  /** Connections of the command running now (see countTraffic). */
  private tally?: Map<string, number>;
  /** The first traced connection of each tally key of the command running now. */
  private traces?: Map<string, ConnectResult>;
  private observingTraffic = false;
  private full: boolean;
  private readonly lastSide = new Map<string, string>();
  private persistedActive = 0;
  private persistedMetaKey = "";
  /** The side rows as last serialized, with the revisions they were serialized at (the kubelet's shared one for #kubelet). */
  private readonly side: { kubelet: string; kubeletRev: number; shell: string; shellRev: string | number | undefined; proxies: string; proxiesRev: number } = {
    kubelet: "",
    kubeletRev: -1,
    shell: "",
    shellRev: undefined,
    proxies: "",
    proxiesRev: -1,
  };
  /** Each container log's rows as persisted, by log stream (see Kubelet.logStreams). */
  private readonly logs = new Map<string, PersistedLog>();
  /** The kubelet's revision when the log rows were last brought up to date. */
  private logsRev = -1;
  /** Each pod's row as persisted, by pod key (see Kubelet.podStates). */
  private readonly podRows = new Map<string, PersistedPod>();
  private nextPodSeq = 0;
  /** The kubelet's revision when the pod rows were last brought up to date. */
  private podsRev = -1;
  readonly shell: ShellRunner;
  /** What the terminal borrows from the host: the hosted editor, during a command line that may use it. */
  private readonly hooks: ShellHooks = { editor: {} };
  private pending?: PendingEdit & { finish(text: string | undefined): void };
  /** The hosted editor's answers during the command line running now (the journal keeps them for replay). */
  private edited?: Array<string | null>;
  private edits = 0;
  /** Told when a command line's kubectl edit opens a file in the hosted editor (set by the host). */
  onEdit?: (e: PendingEdit) => void;
  /** The connections of the last command that sent traffic, one traced sample per pod and outcome. */
  private samples: { seq: number; traces: Map<string, ConnectResult> } = { seq: 0, traces: new Map() };

  private constructor(
    readonly id: string,
    readonly cluster: Cluster,
    private readonly meta: Pick<Meta, "lab" | "tenantId" | "createdAt" | "lastActive">,
    shellFactory: ShellFactory,
    shellState: unknown,
    full: boolean,
    readonly journal: Journal = new Journal(),
  ) {
    this.full = full;
    this.shell = shellFactory(cluster, shellState, this.hooks);
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
    for (const [k, body] of state.objects) if ((SIDE as readonly string[]).includes(k)) core.lastSide.set(k, body);
    core.persistedActive = meta.lastActive;
    // Logs read from their rows are at the kubelet's epoch 0 ("as loaded"): lines the restore
    // added are written next, and a container made again (a new epoch) is written whole.
    for (const [stream, rows] of logRows) core.logs.set(stream, { epoch: 0, ...rows });
    // The pod rows read: the first write compares each pod's runtime with its row (restoring
    // reconciled every pod), rewriting only those that changed; new pods come after them.
    for (const [key, row] of podRows) {
      core.podRows.set(key, { ...row, rev: -1 });
      core.nextPodSeq = Math.max(core.nextPodSeq, row.seq + 1);
    }
    // The terminal's row just read is its state as restored: the first write need not serialize
    // every file of it again to find that out. (The kubelet's rows are serialized again:
    // restoring reconciles every pod, which moves their revisions; see prepare and podDelta.)
    const shellRow = core.lastSide.get("#shell");
    const shellRev = core.shell.revision?.();
    if (shellRow !== undefined && shellRev !== undefined) {
      core.side.shell = shellRow;
      core.side.shellRev = shellRev;
    }
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
    this.dirty.add(rowKey(ev.resource, ev.object));
    this.changes.push({ type: "change", rv: ev.rv, verb: ev.type, resource: ev.resource, object: ev.object });
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

  /** Counts the requests each pod answers (traffic runs); builds the cluster's data plane. */
  private observeTraffic(): void {
    if (this.observingTraffic) return;
    dataplaneOf(this.cluster).observe((c) => this.countTraffic(c));
    this.observingTraffic = true;
  }

  /**
   * Builds now what the first command would otherwise build (for a host warming engines in the
   * background): the data plane, and the side rows' serialized forms, which restoring made
   * stale (it reconciles every pod, moving the kubelet's revision) and the first write would
   * serialize again to compare. Changes nothing that is persisted.
   */
  prepare(): void {
    this.observeTraffic();
    this.sideRows(this.cluster.snapshotMeta());
    // Pods whose runtime still serializes to the row read are up to date; the others are
    // written by the next delta.
    for (const { key, uid, revision } of this.cluster.kubelet.podStates()) {
      const was = this.podRows.get(key);
      if (!was || was.uid !== uid || was.rev === revision) continue;
      if (this.podRowText(key, was.seq) === was.body) was.rev = revision;
    }
  }

  /** The file kubectl edit waits on in the hosted editor, if one does. */
  get pendingEdit(): PendingEdit | undefined {
    return this.pending && { id: this.pending.id, file: this.pending.file, text: this.pending.text };
  }

  /** The hosted editor's answer to edit `id` (undefined: quit); false when no such edit waits. */
  finishEdit(id: string, text: string | undefined): boolean {
    if (this.pending?.id !== id) return false;
    this.pending.finish(text);
    return true;
  }

  /** kubectl edit's editor while a command line runs with the hosted one: opens the file, waits for its answer. */
  private openEditor(text: string, file: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const id = `e${++this.edits}`;
      // A tab closed while editing must not hold the terminal for ever: quit the editor.
      const timer = setTimeout(() => this.finishEdit(id, undefined), EDIT_TIMEOUT_MS);
      this.pending = {
        id,
        file,
        text,
        finish: (t) => {
          clearTimeout(timer);
          this.pending = undefined;
          this.edited?.push(t ?? null);
          resolve(t);
        },
      };
      this.onEdit?.({ id, file, text });
    });
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
    const replayed = opts.replayEdits ? [...opts.replayEdits] : undefined;
    this.hooks.editor.current = replayed
      ? async () => replayed.shift() ?? undefined
      : opts.hostedEditor
        ? (text, file) => this.openEditor(text, file)
        : undefined;
    const edited: Array<string | null> = (this.edited = []);
    // The tenant's pod and object limits are the apiserver's quota: a create past them is
    // refused before anything is made (checkLimits below only backs that up).
    this.cluster.setQuota(quotaOf(limits));
    this.tick(now);
    this.touch(now);
    this.observeTraffic();
    const tally = (this.tally = new Map());
    const traces = (this.traces = new Map());
    const prompt = this.prompt();
    const dataplane = dataplaneOf(this.cluster);
    // The workspace draws one connection per pod and outcome of a curl loop: those are traced.
    dataplane.traceBudget = TRACED_PER_COMMAND;
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
      this.tally = undefined;
      this.traces = undefined;
      dataplane.traceBudget = 0;
      this.hooks.editor.current = undefined;
    }
    const stopped = line.stopped()?.why;
    const end = Math.max(now, source.now());
    const run = tally.size ? trafficRun(now, command, tally) : undefined;
    if (run) this.trafficRuns.push(run);
    const res: ExecResult = { stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? ""), exitCode: Number(r.exitCode ?? 0) };
    this.checkLimits(limits);
    const bytes = byteLength(res.stdout) + byteLength(res.stderr);
    if (bytes > limits.outputBytes) {
      throw new LimitError("outputBytes", `the command printed ${bytes} bytes, more than ${limits.outputBytes}; its effects were discarded`);
    }
    const edits = replayed ? [...(opts.replayEdits ?? [])] : edited;
    this.edited = undefined;
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
    if (run) this.samples = { seq: entry.seq, traces };
    this.touch(end);
    const steps = this.evaluateSteps(end);
    this.changes.push({ type: "exec", command, exitCode: res.exitCode, stdout: res.stdout, stderr: res.stderr, entry, ...(steps ? { steps } : {}) });
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
    this.observeTraffic();
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

  /** The traced sample connections of the last command that sent traffic (see TRACED_PER_COMMAND). */
  trafficSamples(): { seq: number; traces: ReadonlyMap<string, ConnectResult> } {
    return this.samples;
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

  /** The meta row as JSON (small: written on every acknowledged write). */
  metaJSON(snap: SnapshotMeta = this.cluster.snapshotMeta(), key = ClusterCore.metaKey(snap)): string {
    // Everything the engine's snapshot holds but objects, config and kubelet (their own rows):
    // its clock, the rest as serialized once for the change check (metaKey), and the host's
    // fields. Parsed back, it is { ...snap, ...this.meta }.
    const host: Pick<Meta, "lab" | "tenantId" | "createdAt" | "lastActive"> = this.meta;
    return `{"clock":${JSON.stringify(snap.clock)},${key.slice(1, -1)},${JSON.stringify(host).slice(1)}`;
  }

  /**
   * The side rows. Serializing the kubelet's and the terminal's state costs more than a
   * read-only command itself (~0.5 ms for 30 KB), so each is serialized again only when its
   * revision moved since it was last serialized.
   */
  private sideRows(snap: SnapshotMeta): Array<[SideKey, string]> {
    const kubeletRev = this.cluster.kubelet.sharedRevision;
    if (this.side.kubeletRev !== kubeletRev || !this.lastSide.has("#kubelet")) {
      this.side.kubelet = JSON.stringify(this.cluster.kubelet.saveShared());
      this.side.kubeletRev = kubeletRev;
    }
    // kube-proxy's state moves only when one starts (KubeProxies.starts counts them).
    const proxiesRev = this.cluster.proxies.starts;
    if (this.side.proxiesRev !== proxiesRev) {
      this.side.proxies = JSON.stringify(snap.proxies);
      this.side.proxiesRev = proxiesRev;
    }
    const shellRev = this.shell.revision?.();
    if (shellRev === undefined || this.side.shellRev !== shellRev || !this.lastSide.has("#shell")) {
      this.side.shell = JSON.stringify(this.shell.save() ?? null);
      this.side.shellRev = shellRev;
    }
    return [
      ["#config", this.lastSide.get("#config") ?? JSON.stringify(this.cluster.config)],
      ["#kubelet", this.side.kubelet],
      ["#shell", this.side.shell],
      ["#proxies", this.side.proxies],
    ];
  }

  /**
   * The log rows to write since they were last persisted (all of them for a full delta): for a
   * log that only grew, its last partial row and the new ones; for one whose epoch moved
   * (rotated, or a new container), every row, and deletes for rows it no longer has; deletes for
   * the rows of logs that are gone.
   */
  private logDelta(all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    const kubelet = this.cluster.kubelet;
    const seen = new Set<string>();
    for (const { key, epoch, count } of kubelet.logStreams()) {
      seen.add(key);
      const was = this.logs.get(key);
      const same = !all && was !== undefined && was.epoch === epoch;
      if (same && was.count === count) continue;
      const first = same ? Math.floor(was.count / LOG_CHUNK) : 0;
      pushLogRows(upserts, key, first, kubelet.logLinesFrom(key, first * LOG_CHUNK));
      const chunks = Math.ceil(count / LOG_CHUNK);
      if (was && !all) for (let n = chunks; n < was.chunks; n++) deletes.push(logRowKey(key, n));
      this.logs.set(key, { epoch, count, chunks });
    }
    for (const [key, was] of this.logs) {
      if (seen.has(key)) continue;
      if (!all) for (let n = 0; n < was.chunks; n++) deletes.push(logRowKey(key, n));
      this.logs.delete(key);
    }
  }

  /**
   * The pod rows to write since they were last persisted (all of them for a full delta): a pod
   * whose runtime's revision moved is serialized again and written if its text changed; a new
   * pod (or a new one under an old name) takes the next place; rows of pods the kubelet no
   * longer runs are deleted.
   */
  private podDelta(all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    const seen = new Set<string>();
    for (const { key, uid, revision } of this.cluster.kubelet.podStates()) {
      seen.add(key);
      let was = this.podRows.get(key);
      // Another pod under that name: the kubelet put it after every pod it runs.
      if (was && was.uid !== uid) was = undefined;
      if (!all && was && was.rev === revision) continue;
      const seq = was ? was.seq : this.nextPodSeq++;
      const body = this.podRowText(key, seq);
      if (all || was?.body !== body) upserts.push([POD_PREFIX + key, body]);
      this.podRows.set(key, { seq, uid, rev: revision, body });
    }
    for (const key of this.podRows.keys()) {
      if (seen.has(key)) continue;
      if (!all) deletes.push(POD_PREFIX + key);
      this.podRows.delete(key);
    }
  }

  /** Every pod row (state(): a whole state, numbered in the kubelet's order). */
  private allPodRows(): Array<[string, string]> {
    return this.cluster.kubelet.podStates().map(({ key }, seq): [string, string] => [POD_PREFIX + key, this.podRowText(key, seq)]);
  }

  /** The row text of pod `key` at place `seq` (its runtime without logs: those have rows of their own). */
  private podRowText(key: string, seq: number): string {
    return JSON.stringify({ seq, pod: this.cluster.kubelet.savePod(key, { logs: false })! } satisfies PodRow);
  }

  /** Every log row (state()). */
  private allLogRows(): Array<[string, string]> {
    const kubelet = this.cluster.kubelet;
    const rows: Array<[string, string]> = [];
    for (const { key } of kubelet.logStreams()) pushLogRows(rows, key, 0, kubelet.logLinesFrom(key, 0));
    return rows;
  }

  /**
   * The meta row's content but the clock, which need not be stored (see takeDeltaIfChanged), and
   * kube-proxy's per-node state, which has a side row of its own (#proxies): it is most of the
   * engine's meta (each node's configuration and instance) and moves only when a kube-proxy pod
   * starts, while the meta row is written with every write.
   */
  private static metaKey(snap: SnapshotMeta): string {
    const { clock: _clock, proxies: _proxies, ...rest } = snap;
    return JSON.stringify(rest);
  }

  hasChanges(): boolean {
    return this.full || this.dirty.size > 0 || this.journal.dirty();
  }

  /**
   * The rows to persist now, or null when nothing needs writing: a read-only command (kubectl
   * get) moves only the clock, and the clock need not be stored (timers fire at their own times
   * whenever the cluster is next advanced, so the state at any wall time is the same). Anything
   * else that moved is written: objects, the kubelet's state (container logs and files), the
   * terminal's, random streams and conntrack (meta). The meta row is also refreshed once a
   * minute so idle expiry sees activity.
   */
  takeDeltaIfChanged(): Delta | null {
    if (this.full || this.dirty.size > 0 || this.journal.dirty() || this.meta.lastActive - this.persistedActive >= 60_000) return this.takeDelta();
    if (this.cluster.kubelet.revision !== this.podsRev) return this.takeDelta();
    const shellRev = this.shell.revision?.();
    if (shellRev === undefined || shellRev !== this.side.shellRev) return this.takeDelta();
    const snap = this.cluster.snapshotMeta();
    const key = ClusterCore.metaKey(snap);
    if (key !== this.persistedMetaKey || this.cluster.proxies.starts !== this.side.proxiesRev) return this.takeDelta(snap, key);
    return null;
  }

  /**
   * The rows to persist now; clears the dirty set. `snap` and `key` when the caller has them
   * (the engine's meta is built and serialized once per write).
   */
  takeDelta(snap: SnapshotMeta = this.cluster.snapshotMeta(), key = ClusterCore.metaKey(snap)): Delta {
    this.persistedActive = this.meta.lastActive;
    this.persistedMetaKey = key;
    const upserts: Array<[string, string]> = [];
    const deletes: string[] = [];
    if (this.full) {
      upserts.push(...this.objectRows());
    } else {
      for (const k of this.dirty) {
        const i = k.indexOf(SEP);
        const resource = k.slice(0, i);
        const rest = k.slice(i + 1);
        const j = rest.indexOf("/");
        const obj = j < 0 ? this.cluster.store.get(resource, undefined, rest) : this.cluster.store.get(resource, rest.slice(0, j), rest.slice(j + 1));
        if (obj) upserts.push([k, JSON.stringify(obj)]);
        else deletes.push(k);
      }
    }
    for (const [k, body] of this.sideRows(snap)) {
      if (this.full || this.lastSide.get(k) !== body) upserts.push([k, body]);
      this.lastSide.set(k, body);
    }
    const kubeletRev = this.cluster.kubelet.revision;
    if (this.full || this.podsRev !== kubeletRev) {
      this.podsRev = kubeletRev;
      this.podDelta(this.full, upserts, deletes);
    }
    if (this.full || this.logsRev !== kubeletRev) {
      this.logsRev = kubeletRev;
      this.logDelta(this.full, upserts, deletes);
    }
    this.journal.delta(this.full, upserts, deletes);
    const d: Delta = { meta: this.metaJSON(snap, key), upserts, deletes, full: this.full };
    this.full = false;
    this.dirty.clear();
    return d;
  }

  /** Live messages since the last call (only after the delta they belong to was persisted). */
  takeMessages(): LiveMessage[] {
    return this.changes.splice(0);
  }

  takeK8sEvents(): K8sEventRecord[] {
    return this.k8sEvents.splice(0);
  }

  /** Traffic runs since the last call (for history, after their command was persisted). */
  takeTrafficRuns(): TrafficRun[] {
    return this.trafficRuns.splice(0);
  }

  private countTraffic(c: ConnectResult): void {
    // explain's connection is ServiceLab's diagnostic, not traffic the student sent.
    if (!this.tally || c.probe) return;
    const key =
      c.pod && c.verdict === "established" ? `${c.pod}|${c.tuple.proto}|${c.dst?.port ?? c.tuple.dport}` : c.host && c.verdict === "established" ? `|node/${c.host}` : `|${c.verdict}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    if (c.trace && this.traces && !this.traces.has(key)) this.traces.set(key, c);
  }

  /** Messages that bring a client at revision `since` up to date (or a reset). */
  resume(since: number | undefined): LiveMessage[] {
    const rv = this.revision();
    const hello: LiveMessage = { type: "hello", cluster: this.id, rv };
    if (since !== undefined && Number.isFinite(since) && since <= rv) {
      const evs = this.cluster.store.changesSince(since);
      if (evs) return [hello, ...evs.map((ev): LiveMessage => ({ type: "change", rv: ev.rv, verb: ev.type, resource: ev.resource, object: ev.object }))];
    }
    return [hello, { type: "reset", rv, objects: this.cluster.store.dump() }];
  }

  /** The whole cluster in its persisted form (forks, snapshots in history). */
  state(): ClusterState {
    const snap = this.cluster.snapshotMeta();
    return { meta: this.metaJSON(snap), objects: [...this.objectRows(), ...this.sideRows(snap), ...this.allPodRows(), ...this.allLogRows(), ...this.journal.rows()] };
  }

  /** A row for every object in the store. */
  private objectRows(): Array<[string, string]> {
    const rows: Array<[string, string]> = [];
    const store = this.cluster.store;
    for (const r of store.resources()) for (const o of store.iterate(r)) rows.push([rowKey(r, o), JSON.stringify(o)]);
    return rows;
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

function decodeState(state: ClusterState): {
  snapshot: ClusterSnapshot;
  shell: unknown;
  meta: Meta;
  logRows: Map<string, Omit<PersistedLog, "epoch">>;
  podRows: Map<string, Omit<PersistedPod, "rev">>;
} {
  const meta = JSON.parse(state.meta) as Meta;
  const objects: Record<string, KObject[]> = {};
  const logChunks = new Map<string, LogLine[][]>();
  const pods: Array<{ key: string; row: PodRow; body: string }> = [];
  for (const [k, body] of state.objects) {
    if (k.startsWith(POD_PREFIX)) {
      pods.push({ key: k.slice(POD_PREFIX.length), row: JSON.parse(body) as PodRow, body });
      continue;
    }
    if (k.startsWith(LOG_PREFIX)) {
      const bar = k.lastIndexOf("|");
      const stream = k.slice(LOG_PREFIX.length, bar);
      let chunks = logChunks.get(stream);
      if (!chunks) logChunks.set(stream, (chunks = []));
      chunks[Number(k.slice(bar + 1))] = JSON.parse(body) as LogLine[];
      continue;
    }
    if (k.startsWith("#")) {
      const v = JSON.parse(body) as unknown;
      if (k === "#config") meta.config = v as Meta["config"];
      else if (k === "#kubelet") meta.kubelet = v;
      else if (k === "#shell") meta.shell = v;
      // (A meta row written before #proxies existed holds them itself.)
      else if (k === "#proxies") meta.proxies = v as Meta["proxies"];
      continue;
    }
    const r = k.slice(0, k.indexOf(SEP));
    (objects[r] ??= []).push(JSON.parse(body) as KObject);
  }
  // The pods, in the kubelet's order, from their rows (a #kubelet row written before pods had
  // rows of their own still holds them: the first write then moves them to rows).
  const podRows = new Map<string, Omit<PersistedPod, "rev">>();
  const kubeletState = meta.kubelet as KubeletState | undefined;
  if (kubeletState && !kubeletState.pods) {
    pods.sort((a, b) => a.row.seq - b.row.seq);
    kubeletState.pods = pods.map(({ key, row }) => [key, row.pod]);
    for (const { key, row, body } of pods) podRows.set(key, { seq: row.seq, uid: row.pod.uid, body });
  } else {
    // Pod rows beside an old #kubelet: its order wins, so they are rewritten in it (no uid
    // matches "") or deleted.
    for (const { key, row, body } of pods) podRows.set(key, { seq: row.seq, uid: "", body });
  }
  // Containers saved without their logs get them back from the log rows (a #kubelet row written
  // before logs had rows of their own still holds them).
  const logRows = new Map<string, Omit<PersistedLog, "epoch">>();
  for (const [podKey, p] of (meta.kubelet as KubeletState | undefined)?.pods ?? []) {
    for (const c of p.containers) {
      if (c.logs !== undefined) continue;
      const stream = `${podKey}|${c.name}`;
      const chunks = logChunks.get(stream) ?? [];
      c.logs = chunks.flat();
      logRows.set(stream, { count: c.logs.length, chunks: chunks.length });
    }
  }
  // Rows of a log no container has (its pod went while a delete was not written): tracked, so the
  // next write deletes them.
  for (const [stream, chunks] of logChunks) if (!logRows.has(stream)) logRows.set(stream, { count: 0, chunks: chunks.length });
  const { shell, lab: _l, tenantId: _t, createdAt: _c, lastActive: _a, ...rest } = meta;
  return { snapshot: { ...rest, objects }, shell, meta, logRows, podRows };
}

function trafficRun(ts: number, command: string, tally: Map<string, number>): TrafficRun {
  const run: TrafficRun = { ts, command: command.slice(0, 4096), connections: 0, pods: [], other: {} };
  for (const [key, n] of tally) {
    run.connections += n;
    const [pod, proto, port] = key.split("|");
    if (pod) run.pods.push({ pod, proto, port: Number(port), connections: n });
    else run.other[proto] = n;
  }
  run.pods.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : a.port - b.port));
  return run;
}

const enc = new TextEncoder();
export function byteLength(s: string): number {
  // ASCII fast path: most terminal output is ASCII.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return enc.encode(s).length;
  return s.length;
}
