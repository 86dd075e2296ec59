// The SQL of a cluster's rows, shared by the Node host (libSQL, many clusters in one file) and
// the Durable Object (its own SQLite, one cluster): a meta row and one row per object.
import type { Delta } from "./core.js";

export const UPSERT_OBJECT =
  "INSERT INTO cluster_objects (cluster_id, key, body) VALUES (?, ?, ?) ON CONFLICT(cluster_id, key) DO UPDATE SET body = excluded.body";
export const DELETE_OBJECT = "DELETE FROM cluster_objects WHERE cluster_id = ? AND key = ?";
export const DELETE_ALL_OBJECTS = "DELETE FROM cluster_objects WHERE cluster_id = ?";
export const UPSERT_META =
  "INSERT INTO cluster_state (cluster_id, meta, updated_at) VALUES (?, ?, ?) ON CONFLICT(cluster_id) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at";
export const DELETE_META = "DELETE FROM cluster_state WHERE cluster_id = ?";
export const SELECT_META = "SELECT meta FROM cluster_state WHERE cluster_id = ?";
export const SELECT_OBJECTS = "SELECT key, body FROM cluster_objects WHERE cluster_id = ?";

export interface Stmt {
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
