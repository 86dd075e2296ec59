// A cluster's journal: the command lines its terminal ran, with what they printed and the traffic
// they sent, and when each lab step passed. It is what a reloaded terminal shows again, what a
// share link replays, what the lab's command and traffic checks read, the workspace's list of
// commands, and what time travel replays: with the cluster's state before the first line (its
// origin), the lines and their times give back the cluster as it was after any of them, since
// the engine is deterministic.
//
// Bounded: the last MAX_ENTRIES lines, and lines of at most MAX_COMMAND_CHARS together (past
// either the oldest go, and time travel with them), of which only the last WITH_OUTPUT keep what
// they printed, each cut at MAX_OUTPUT bytes. Persisted
// as one row per line ("#cmd|<seq>"), the origin ("#origin", written once) and a small row for
// the progress and what time travel may not replay ("#journal").
import type { CommandRecord, Progress } from "../labs/checks.js";
import type { TrafficRun } from "./traffic-observer.js";
import type { StopReason } from "./budget.js";

export const MAX_ENTRIES = 2000;
/** The lines' own text, together: 2000 here-documents of a request's 256 KiB would be 512 MB. */
export const MAX_COMMAND_CHARS = 4 * 1024 * 1024;
const WITH_OUTPUT = 200;
const MAX_OUTPUT = 64 * 1024;
const CMD_PREFIX = "#cmd|";
const JOURNAL_KEY = "#journal";
export const ORIGIN_KEY = "#origin";

export interface JournalEntry {
  seq: number;
  ts: number;
  /** The prompt the line was typed at ("[root@master ~]# "). */
  prompt: string;
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
  /** True when stdout or stderr was cut at MAX_OUTPUT. */
  cut?: boolean;
  /** True once the line is older than the last WITH_OUTPUT: its output is gone, its command stays. */
  trimmed?: boolean;
  traffic?: Pick<TrafficRun, "connections" | "pods" | "other">;
  /** What the hosted editor answered each time kubectl edit opened it (null: quit), for replay. */
  edits?: Array<string | null>;
  /** When the line ended, if later than it started (it waited). */
  end?: number;
  /** When each of the line's waits returned (sleep, kubectl get -w...): a replay's waits return then. */
  waits?: number[];
  /** What stopped the line (a replay stops it at its last wait). */
  stopped?: StopReason;
}

interface JournalMeta {
  progress: Progress;
  /** The last line after which the cluster was written outside the terminal (the Kubernetes API). */
  externalAfter?: number;
  /** Lines before this one were dropped: the origin no longer leads to the lines kept. */
  lostBefore?: number;
}

const cutText = (s: string) => (s.length > MAX_OUTPUT ? s.slice(0, MAX_OUTPUT) : s);

export class Journal {
  private entries: JournalEntry[] = [];
  /** The entries' command text, together (MAX_COMMAND_CHARS). */
  private commandChars = 0;
  private meta: JournalMeta = { progress: {} };
  /** The cluster's state (ClusterState JSON) before the first line. */
  private originText?: string;
  private unsaved = new Set<JournalEntry>();
  private dropped: number[] = [];
  private metaDirty = false;
  private originDirty = false;

  /** The journal as its rows hold it. */
  static fromRows(rows: Iterable<[string, string]>): Journal {
    const j = new Journal();
    for (const [k, body] of rows) {
      if (k.startsWith(CMD_PREFIX)) j.entries.push(JSON.parse(body) as JournalEntry);
      else if (k === JOURNAL_KEY) j.meta = JSON.parse(body) as JournalMeta;
      else if (k === ORIGIN_KEY) j.originText = body;
    }
    j.entries.sort((a, b) => a.seq - b.seq);
    for (const e of j.entries) j.commandChars += e.command.length;
    return j;
  }

  /** The lines that still have their output (what a terminal shows again). */
  get list(): readonly JournalEntry[] {
    const i = Math.max(0, this.entries.length - WITH_OUTPUT);
    return this.entries.slice(i);
  }

  /** Every line kept, trimmed ones included (time travel). */
  get all(): readonly JournalEntry[] {
    return this.entries;
  }

  get progress(): Progress {
    return this.meta.progress;
  }

  get origin(): string | undefined {
    return this.originText;
  }

  /** The origin for a cluster that starts now (instantiate, a fork of a past state). */
  setOrigin(state: string): void {
    this.originText = state;
    this.originDirty = true;
  }

  /** Why the cluster after line `seq` cannot be replayed, or undefined when it can. */
  unreplayable(seq: number): string | undefined {
    if (!this.originText) return "this cluster was made before time travel existed: its starting state was not kept";
    if (this.meta.lostBefore !== undefined && this.meta.lostBefore > 0) return `the oldest commands were dropped (the journal keeps ${MAX_ENTRIES}, ${MAX_COMMAND_CHARS / 1024 / 1024} MiB of command text): time travel cannot replay from the start`;
    if (this.meta.externalAfter !== undefined && seq > this.meta.externalAfter) return `the cluster was changed through the Kubernetes API (a kubectl outside the terminal) after command ${this.meta.externalAfter}: time travel replays only the terminal's commands`;
    if (seq !== 0 && !this.entries.some((e) => e.seq === seq)) return `there is no command ${seq} in this cluster's journal`;
    return undefined;
  }

  /** A write that did not come through the terminal (the Kubernetes API): replay stops before it. */
  markExternalWrite(): void {
    if (this.meta.externalAfter !== undefined) return;
    this.meta = { ...this.meta, externalAfter: this.entries.at(-1)?.seq ?? 0 };
    this.metaDirty = true;
  }

  nextSeq(): number {
    return (this.entries.at(-1)?.seq ?? 0) + 1;
  }

  add(e: Omit<JournalEntry, "seq" | "cut">): JournalEntry {
    const stdout = cutText(e.stdout);
    const stderr = cutText(e.stderr);
    const entry: JournalEntry = { ...e, seq: this.nextSeq(), stdout, stderr, ...(stdout !== e.stdout || stderr !== e.stderr ? { cut: true } : {}) };
    this.entries.push(entry);
    this.unsaved.add(entry);
    // The line that just left the last WITH_OUTPUT keeps its command, not its output.
    const old = this.entries[this.entries.length - 1 - WITH_OUTPUT];
    if (old && !old.trimmed) {
      const trimmed: JournalEntry = { ...old, stdout: "", stderr: "", trimmed: true };
      this.entries[this.entries.length - 1 - WITH_OUTPUT] = trimmed;
      this.unsaved.delete(old);
      this.unsaved.add(trimmed);
    }
    this.commandChars += entry.command.length;
    while (this.entries.length > MAX_ENTRIES || (this.commandChars > MAX_COMMAND_CHARS && this.entries.length > 1)) {
      const gone = this.entries.shift()!;
      this.commandChars -= gone.command.length;
      if (!this.unsaved.delete(gone)) this.dropped.push(gone.seq);
      this.meta = { ...this.meta, lostBefore: gone.seq + 1 };
      this.metaDirty = true;
    }
    return entry;
  }

  setProgress(p: Progress): void {
    if (JSON.stringify(p) === JSON.stringify(this.meta.progress)) return;
    this.meta = { ...this.meta, progress: p };
    this.metaDirty = true;
  }

  /** What the lab's checks read: the lines that still have their output. */
  records(): CommandRecord[] {
    return this.list.map((e) => ({ seq: e.seq, command: e.command, exitCode: e.exitCode, output: e.stdout + e.stderr, traffic: e.traffic }));
  }

  dirty(): boolean {
    return this.unsaved.size > 0 || this.dropped.length > 0 || this.metaDirty || this.originDirty;
  }

  /** Rows to write since the last call (all of them for a full write). */
  delta(all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    for (const e of all ? this.entries : this.unsaved) upserts.push([rowKeyOf(e.seq), JSON.stringify(e)]);
    if (!all) for (const seq of this.dropped) deletes.push(rowKeyOf(seq));
    if (all || this.metaDirty) upserts.push([JOURNAL_KEY, JSON.stringify(this.meta)]);
    if (this.originText !== undefined && (all || this.originDirty)) upserts.push([ORIGIN_KEY, this.originText]);
    this.unsaved.clear();
    this.dropped = [];
    this.metaDirty = false;
    this.originDirty = false;
  }

  /** Every row (a whole state). */
  rows(): Array<[string, string]> {
    const rows = this.entries.map((e): [string, string] => [rowKeyOf(e.seq), JSON.stringify(e)]);
    rows.push([JOURNAL_KEY, JSON.stringify(this.meta)]);
    if (this.originText !== undefined) rows.push([ORIGIN_KEY, this.originText]);
    return rows;
  }

  /** The journal of a cluster forked after line `seq`: the lines up to it, the same origin. */
  upTo(seq: number): Journal {
    const j = new Journal();
    j.entries = this.entries.filter((e) => e.seq <= seq);
    for (const e of j.entries) j.commandChars += e.command.length;
    j.meta = { progress: {} };
    j.originText = this.originText;
    return j;
  }
}

const rowKeyOf = (seq: number) => CMD_PREFIX + String(seq).padStart(8, "0");
