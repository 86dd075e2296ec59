// History rows are buffered and written in batches off the request path: a request only pushes
// to an array; a timer (or a full buffer) flushes it in one multi-row insert per table.
import type { ApiCallRow, ClusterEventRow, CommandRow, HistoryBatch, SnapshotRow, TrafficRunRow } from "./platform.js";

export interface HistorySink {
  apiCall(r: ApiCallRow): void;
  event(r: ClusterEventRow): void;
  command(r: CommandRow): void;
  snapshot(r: SnapshotRow): void;
  traffic(r: TrafficRunRow): void;
}

export class BatchingHistory implements HistorySink {
  private batch: Required<HistoryBatch> = { apiCalls: [], events: [], commands: [], snapshots: [], traffic: [] };
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (b: HistoryBatch) => Promise<void>,
    private readonly opts: { maxRows: number; maxDelayMs: number; onError?: (e: unknown) => void } = { maxRows: 2000, maxDelayMs: 200 },
  ) {}

  apiCall(r: ApiCallRow) {
    this.push("apiCalls", r);
  }
  event(r: ClusterEventRow) {
    this.push("events", r);
  }
  command(r: CommandRow) {
    this.push("commands", r);
  }
  snapshot(r: SnapshotRow) {
    this.push("snapshots", r);
  }
  traffic(r: TrafficRunRow) {
    this.push("traffic", r);
  }

  private push<K extends keyof HistoryBatch>(k: K, r: NonNullable<HistoryBatch[K]>[number]): void {
    (this.batch[k] as unknown[]).push(r);
    this.size++;
    if (this.size >= this.opts.maxRows) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.maxDelayMs);
  }

  /** Writes what is buffered; resolves when it (and any earlier flush) is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.size === 0) return this.inflight;
    const b = this.batch;
    this.batch = { apiCalls: [], events: [], commands: [], snapshots: [], traffic: [] };
    this.size = 0;
    this.inflight = this.inflight.then(() =>
      this.write(b).catch((e: unknown) => {
        if (this.opts.onError) this.opts.onError(e);
        else console.error("servicelab: history write failed:", e);
      }),
    );
    return this.inflight;
  }
}
