// History rows as plain multi-row INSERTs: a batch of thousands of rows becomes a few statements
// run in one transaction, instead of one query-builder pass per row set. The hosts' SQL drivers
// differ in how many parameters one statement may bind (libSQL 32766, a Durable Object's SQLite
// 100), so the number of rows per statement follows from the driver's limit.
import { type ApiCallRow, type ClusterEventRow, type CommandRow, day, type HistoryBatch, type SnapshotRow, type TrafficRunRow } from "./platform.js";

type SqlValue = string | number | null;
export interface SqlStatement {
  sql: string;
  args: SqlValue[];
}

interface Table<R> {
  name: string;
  columns: readonly string[];
  values(r: R): SqlValue[];
}

const API_CALLS: Table<ApiCallRow> = {
  name: "api_calls",
  columns: ["ts", "day", "tenant_id", "cluster_id", "method", "route", "status", "latency_ms"],
  values: (r) => [r.ts, day(r.ts), r.tenantId, r.clusterId, r.method, r.route, r.status, r.latencyMs],
};
const EVENTS: Table<ClusterEventRow> = {
  name: "cluster_events",
  columns: ["ts", "cluster_id", "tenant_id", "type", "detail"],
  values: (r) => [r.ts, r.clusterId, r.tenantId, r.type, JSON.stringify(r.detail ?? {})],
};
const COMMANDS: Table<CommandRow> = {
  name: "commands",
  columns: ["ts", "cluster_id", "tenant_id", "command", "exit_code", "stdout_bytes", "stderr_bytes", "duration_ms"],
  values: (r) => [r.ts, r.clusterId, r.tenantId, r.command, r.exitCode, r.stdoutBytes, r.stderrBytes, r.durationMs],
};
const SNAPSHOTS: Table<SnapshotRow> = {
  name: "snapshots",
  columns: ["ts", "cluster_id", "reason", "body"],
  values: (r) => [r.ts, r.clusterId, r.reason, r.body],
};

const TRAFFIC: Table<TrafficRunRow> = {
  name: "traffic_runs",
  columns: ["ts", "cluster_id", "tenant_id", "command", "connections", "detail"],
  values: (r) => [r.ts, r.clusterId, r.tenantId, r.command, r.connections, JSON.stringify({ pods: r.pods, other: r.other })],
};

/** INSERT texts by table and row count: the same few shapes recur batch after batch. */
const texts = new Map<string, string>();
function insertText(t: Table<unknown>, rows: number): string {
  const key = `${t.name}/${rows}`;
  let sql = texts.get(key);
  if (!sql) {
    const one = `(${t.columns.map(() => "?").join(", ")})`;
    sql = `INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES ${Array(rows).fill(one).join(", ")}`;
    texts.set(key, sql);
  }
  return sql;
}

function inserts<R>(t: Table<R>, rows: R[] | undefined, maxParams: number, maxRows: number, out: SqlStatement[]): void {
  if (!rows?.length) return;
  const per = Math.max(1, Math.min(maxRows, Math.floor(maxParams / t.columns.length)));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const args: SqlValue[] = [];
    for (const r of chunk) for (const v of t.values(r)) args.push(v);
    out.push({ sql: insertText(t as Table<unknown>, chunk.length), args });
  }
}

/** The statements that write one history batch, each of at most `maxRows` rows. */
export function historyStatements(b: HistoryBatch, maxParams: number, maxRows = 500): SqlStatement[] {
  const out: SqlStatement[] = [];
  inserts(API_CALLS, b.apiCalls, maxParams, maxRows, out);
  inserts(EVENTS, b.events, maxParams, maxRows, out);
  inserts(COMMANDS, b.commands, maxParams, maxRows, out);
  inserts(SNAPSHOTS, b.snapshots, maxParams, maxRows, out);
  inserts(TRAFFIC, b.traffic, maxParams, maxRows, out);
  return out;
}

/**
 * Rows the history keeps per cluster and table; past them the oldest go. A cluster that lives
 * for weeks (a classroom's) would otherwise grow its API calls and commands without end, in a
 * file every cluster shares (a Durable Object's SQLite on Workers). A snapshot holds a whole
 * cluster: few are kept.
 */
export const HISTORY_ROWS_PER_CLUSTER: Readonly<Record<HistoryTable, number>> = {
  api_calls: 10_000,
  cluster_events: 10_000,
  commands: 10_000,
  traffic_runs: 10_000,
  snapshots: 20,
};

export type HistoryTable = "api_calls" | "cluster_events" | "commands" | "traffic_runs" | "snapshots";

/**
 * When to trim: each cluster's table is cut back to its bound once a tenth of the bound has been
 * added since its last trim (so a table holds at most 1.1 times its bound, a little more across a
 * restart, which forgets the counts), oldest rows first. A trim is one DELETE in the same
 * writes as the batch that made it due.
 */
export class HistoryTrim {
  private readonly added = new Map<string, number>();
  private readonly bounds: Readonly<Record<HistoryTable, number>>;

  constructor(bounds: Partial<Record<HistoryTable, number>> = {}) {
    this.bounds = { ...HISTORY_ROWS_PER_CLUSTER, ...bounds };
  }

  /** The DELETEs `b` makes due. */
  statements(b: HistoryBatch): SqlStatement[] {
    const out: SqlStatement[] = [];
    this.count("api_calls", b.apiCalls, out);
    this.count("cluster_events", b.events, out);
    this.count("commands", b.commands, out);
    this.count("snapshots", b.snapshots, out);
    this.count("traffic_runs", b.traffic, out);
    // Counts of clusters long gone: forgetting them only delays a trim.
    if (this.added.size > 100_000) this.added.clear();
    return out;
  }

  private count(table: HistoryTable, rows: ReadonlyArray<{ clusterId: string | null }> | undefined, out: SqlStatement[]): void {
    if (!rows?.length) return;
    const bound = this.bounds[table];
    const every = Math.max(1, Math.floor(bound / 10));
    for (const r of rows) {
      // A tenant's own API calls (no cluster) are not a cluster's history.
      if (!r.clusterId) continue;
      const k = `${table}\0${r.clusterId}`;
      const n = (this.added.get(k) ?? 0) + 1;
      if (n < every) {
        this.added.set(k, n);
        continue;
      }
      this.added.delete(k);
      // Everything up to the (bound+1)-th newest row goes; fewer rows than that, nothing.
      out.push({
        sql: `DELETE FROM ${table} WHERE cluster_id = ? AND id <= (SELECT id FROM ${table} WHERE cluster_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${bound})`,
        args: [r.clusterId, r.clusterId],
      });
    }
  }
}
