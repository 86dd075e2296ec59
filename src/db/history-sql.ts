// History rows as plain multi-row INSERTs: a batch of thousands of rows becomes a few statements
// run in one transaction, instead of one query-builder pass per row set. The hosts' SQL drivers
// differ in how many parameters one statement may bind (libSQL 32766, a Durable Object's SQLite
// 100), so the number of rows per statement follows from the driver's limit.
import { type ApiCallRow, type ClusterEventRow, type CommandRow, day, type HistoryBatch, type SnapshotRow, type TrafficRunRow } from "./platform.js";

export type SqlValue = string | number | null;
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
