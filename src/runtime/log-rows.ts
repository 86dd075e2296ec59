// Log rows: "#log|<namespace>/<pod>|<container>|<n>" holds lines n*LOG_CHUNK.. of that
// container's log. A web pod's access log grows by a line per request, up to the kubelet's
// 10 Mi rotation: in the #kubelet row, every curl rewrote all of it.
import type { Cluster } from "../engine/cluster.js";
import type { LogLine } from "../engine/kubelet/kubelet.js";
import { type Revision, RevisionMemo } from "./revision-memo.js";

export const LOG_PREFIX = "#log|";
const LOG_CHUNK = 256;
const logRowKey = (stream: string, n: number) => `${LOG_PREFIX}${stream}|${n}`;

/** A log as its rows hold it: the kubelet's epoch it was written at, lines and rows. */
interface PersistedLog {
  epoch: number;
  count: number;
  chunks: number;
}

/** A log's rows as read back: its lines and rows. */
export type ReadLogRows = Omit<PersistedLog, "epoch">;

/** The rows of `lines`, a log's lines from row `first` on (first * LOG_CHUNK) to its end. */
function pushLogRows(rows: Array<[string, string]>, stream: string, first: number, lines: readonly LogLine[]): void {
  for (let n = first, i = 0; i < lines.length; n++, i += LOG_CHUNK) rows.push([logRowKey(stream, n), JSON.stringify(lines.slice(i, i + LOG_CHUNK))]);
}

export class LogRows {
  /** Each container log's rows as persisted, by log stream (see Kubelet.logStreams). */
  private readonly logs = new Map<string, PersistedLog>();
  /** The kubelet's revision when the rows were last brought up to date. */
  private readonly synced = new RevisionMemo<null>();

  constructor(private readonly cluster: Cluster) {}

  /**
   * The rows read back, at the kubelet's epoch 0 ("as loaded"): lines the restore added are
   * written next, and a container made again (a new epoch) is written whole.
   */
  restored(logs: ReadonlyMap<string, ReadLogRows>): void {
    for (const [stream, rows] of logs) this.logs.set(stream, { epoch: 0, ...rows });
  }

  /**
   * The rows to write since they were last persisted, at the kubelet's revision `rev` (all of
   * them when `all`): for a log that only grew, its last partial row and the new ones; for one
   * whose epoch moved (rotated, or a new container), every row, and deletes for rows it no longer
   * has; deletes for the rows of logs that are gone.
   */
  delta(rev: Revision, all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    if (!all && this.synced.isAt(rev)) return;
    this.synced.adopt(rev, null);
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

  /** Every log row (a whole state). */
  all(): Array<[string, string]> {
    const kubelet = this.cluster.kubelet;
    const rows: Array<[string, string]> = [];
    for (const { key } of kubelet.logStreams()) pushLogRows(rows, key, 0, kubelet.logLinesFrom(key, 0));
    return rows;
  }
}
