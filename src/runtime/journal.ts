// A cluster's journal: the command lines its terminal ran, with what they printed and the traffic
// they sent, and when each lab step passed. It is what a reloaded terminal shows again, what a
// share link replays, what the lab's command and traffic checks read, and the list of commands
// of the workspace. Bounded: the last MAX_ENTRIES lines, each's output cut at MAX_OUTPUT bytes.
// Persisted as one row per line ("#cmd|<seq>", written once) and one for the progress.
import type { CommandRecord, Progress } from "../labs/checks.js";
import type { TrafficRun } from "./core.js";

export const MAX_ENTRIES = 200;
export const MAX_OUTPUT = 64 * 1024;
export const CMD_PREFIX = "#cmd|";
export const PROGRESS_KEY = "#progress";

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
  traffic?: Pick<TrafficRun, "connections" | "pods" | "other">;
}

const cutText = (s: string) => (s.length > MAX_OUTPUT ? s.slice(0, MAX_OUTPUT) : s);

export class Journal {
  private entries: JournalEntry[] = [];
  private progressValue: Progress = {};
  private unsaved: JournalEntry[] = [];
  private dropped: number[] = [];
  private progressDirty = false;

  /** The journal as its rows hold it. */
  static fromRows(rows: Iterable<[string, string]>): Journal {
    const j = new Journal();
    for (const [k, body] of rows) {
      if (k.startsWith(CMD_PREFIX)) j.entries.push(JSON.parse(body) as JournalEntry);
      else if (k === PROGRESS_KEY) j.progressValue = JSON.parse(body) as Progress;
    }
    j.entries.sort((a, b) => a.seq - b.seq);
    return j;
  }

  get list(): readonly JournalEntry[] {
    return this.entries;
  }

  get progress(): Progress {
    return this.progressValue;
  }

  nextSeq(): number {
    return (this.entries.at(-1)?.seq ?? 0) + 1;
  }

  add(e: Omit<JournalEntry, "seq" | "cut">): JournalEntry {
    const stdout = cutText(e.stdout);
    const stderr = cutText(e.stderr);
    const entry: JournalEntry = { ...e, seq: this.nextSeq(), stdout, stderr, ...(stdout !== e.stdout || stderr !== e.stderr ? { cut: true } : {}) };
    this.entries.push(entry);
    this.unsaved.push(entry);
    while (this.entries.length > MAX_ENTRIES) {
      const old = this.entries.shift()!;
      const i = this.unsaved.indexOf(old);
      if (i >= 0) this.unsaved.splice(i, 1);
      else this.dropped.push(old.seq);
    }
    return entry;
  }

  setProgress(p: Progress): void {
    if (JSON.stringify(p) === JSON.stringify(this.progressValue)) return;
    this.progressValue = p;
    this.progressDirty = true;
  }

  /** What the lab's checks read. */
  records(): CommandRecord[] {
    return this.entries.map((e) => ({ seq: e.seq, command: e.command, exitCode: e.exitCode, output: e.stdout + e.stderr, traffic: e.traffic }));
  }

  dirty(): boolean {
    return this.unsaved.length > 0 || this.dropped.length > 0 || this.progressDirty;
  }

  /** Rows to write since the last call (all of them for a full write). */
  delta(all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    for (const e of all ? this.entries : this.unsaved) upserts.push([rowKeyOf(e.seq), JSON.stringify(e)]);
    if (!all) for (const seq of this.dropped) deletes.push(rowKeyOf(seq));
    if (all || this.progressDirty) upserts.push([PROGRESS_KEY, JSON.stringify(this.progressValue)]);
    this.unsaved = [];
    this.dropped = [];
    this.progressDirty = false;
  }

  /** Every row (a whole state). */
  rows(): Array<[string, string]> {
    return [...this.entries.map((e): [string, string] => [rowKeyOf(e.seq), JSON.stringify(e)]), [PROGRESS_KEY, JSON.stringify(this.progressValue)]];
  }
}

const rowKeyOf = (seq: number) => CMD_PREFIX + String(seq).padStart(8, "0");
