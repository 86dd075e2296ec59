// The SQL of a cluster's rows, shared by the Node host (libSQL, many clusters in one file) and
// the Durable Object (its own SQLite, one cluster): a meta row and one row per object.
import type { Delta } from "./cluster-rows.js";

export const UPSERT_OBJECT =
  "INSERT INTO cluster_objects (cluster_id, key, body) VALUES (?, ?, ?) ON CONFLICT(cluster_id, key) DO UPDATE SET body = excluded.body";
const DELETE_OBJECT = "DELETE FROM cluster_objects WHERE cluster_id = ? AND key = ?";
export const DELETE_ALL_OBJECTS = "DELETE FROM cluster_objects WHERE cluster_id = ?";
const UPSERT_META =
  "INSERT INTO cluster_state (cluster_id, meta, updated_at) VALUES (?, ?, ?) ON CONFLICT(cluster_id) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at";
export const DELETE_META = "DELETE FROM cluster_state WHERE cluster_id = ?";
export const SELECT_META = "SELECT meta FROM cluster_state WHERE cluster_id = ?";
export const SELECT_OBJECTS = "SELECT key, body FROM cluster_objects WHERE cluster_id = ?";

interface Stmt {
  sql: string;
  args: Array<string | number>;
}

/** The statements that persist one delta, to run in one transaction. */
export function deltaStatements(id: string, d: Delta, now: number): Stmt[] {
  const out: Stmt[] = [];
  if (d.full) out.push({ sql: DELETE_ALL_OBJECTS, args: [id] });
  for (const [k, body] of d.upserts) out.push({ sql: UPSERT_OBJECT, args: [id, k, body] });
  for (const k of d.deletes) out.push({ sql: DELETE_OBJECT, args: [id, k] });
  out.push({ sql: UPSERT_META, args: [id, d.meta, now] });
  return out;
}

/** Rows per multi-row statement: 3 parameters each, far below SQLite's 32766-variable limit. */
const ROWS_PER_STATEMENT = 500;

/**
 * The statements that persist several clusters' deltas in one transaction (the Node host's
 * group commit): each cluster's full-replace deletes first, then every object row and every
 * meta row as multi-row upserts, then the object deletes. A delta's own order survives (its
 * deletes of all rows come before its upserts; a key is either upserted or deleted), and one
 * statement per 500 rows instead of one per row saves the statement preparation that dominates
 * a small write.
 */
export function groupStatements(deltas: ReadonlyArray<{ id: string; delta: Delta }>, now: number): Stmt[] {
  const out: Stmt[] = [];
  const objects: Array<string | number> = [];
  const metas: Array<string | number> = [];
  for (const { id, delta } of deltas) {
    if (delta.full) out.push({ sql: DELETE_ALL_OBJECTS, args: [id] });
    for (const [k, body] of delta.upserts) objects.push(id, k, body);
    metas.push(id, delta.meta, now);
  }
  const multi = (head: string, tail: string, args: Array<string | number>) => {
    for (let i = 0; i < args.length; i += ROWS_PER_STATEMENT * 3) {
      const chunk = args.slice(i, i + ROWS_PER_STATEMENT * 3);
      out.push({ sql: `${head} VALUES ${Array.from({ length: chunk.length / 3 }, () => "(?, ?, ?)").join(", ")} ${tail}`, args: chunk });
    }
  };
  multi("INSERT INTO cluster_objects (cluster_id, key, body)", "ON CONFLICT(cluster_id, key) DO UPDATE SET body = excluded.body", objects);
  multi("INSERT INTO cluster_state (cluster_id, meta, updated_at)", "ON CONFLICT(cluster_id) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at", metas);
  for (const { id, delta } of deltas) for (const k of delta.deletes) out.push({ sql: DELETE_OBJECT, args: [id, k] });
  return out;
}
