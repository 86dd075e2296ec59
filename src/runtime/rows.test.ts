// The group commit's statements leave the same rows as each delta's own statements would.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InStatement } from "@libsql/client";
import { describe, expect, it } from "vitest";
import type { Delta } from "./core.js";
import { openDatabase } from "./node-server.js";
import { deltaStatements, groupStatements, UPSERT_OBJECT } from "./rows.js";

const rowsOf = async (db: Awaited<ReturnType<typeof openDatabase>>) => {
  const o = await db.execute("SELECT cluster_id, key, body FROM cluster_objects ORDER BY cluster_id, key");
  const m = await db.execute("SELECT cluster_id, meta, updated_at FROM cluster_state ORDER BY cluster_id");
  return { objects: o.rows.map((r) => [r.cluster_id, r.key, r.body]), meta: m.rows.map((r) => [r.cluster_id, r.meta, r.updated_at]) };
};

describe("groupStatements (the Node host's group commit)", () => {
  it("writes several clusters' deltas in one transaction with the rows one transaction each would leave", async () => {
    const seed: InStatement[] = [];
    for (const c of ["a", "b", "c"]) for (let i = 0; i < 3; i++) seed.push({ sql: UPSERT_OBJECT, args: [c, `configmaps/default/old${i}`, `{"v":${i}}`] });
    const deltas: Array<{ id: string; delta: Delta }> = [
      // A full replace: its old rows go, its new ones stay.
      { id: "a", delta: { full: true, meta: '{"m":"a"}', upserts: [["configmaps/default/new", '{"v":"a"}']], deletes: [] } },
      // An incremental write: one row updated, one added, one deleted.
      { id: "b", delta: { full: false, meta: '{"m":"b"}', upserts: [["configmaps/default/old0", '{"v":"b0"}'], ["pods/default/p", '{"p":1}']], deletes: ["configmaps/default/old2"] } },
      // Many rows: more than one multi-row statement.
      { id: "d", delta: { full: true, meta: '{"m":"d"}', upserts: Array.from({ length: 1203 }, (_, i) => [`configmaps/default/n${i}`, `{"i":${i}}`] as [string, string]), deletes: [] } },
    ];
    const one = await openDatabase(mkdtempSync(join(tmpdir(), "sl-rows-")));
    const grouped = await openDatabase(mkdtempSync(join(tmpdir(), "sl-rows-")));
    for (const db of [one, grouped]) await db.batch(seed, "write");
    for (const { id, delta } of deltas) await one.batch(deltaStatements(id, delta, 1000) as InStatement[], "write");
    const stmts = groupStatements(deltas, 1000);
    expect(stmts.filter((s) => s.sql.startsWith("INSERT INTO cluster_objects")).length).toBe(3);
    await grouped.batch(stmts as InStatement[], "write");
    const want = await rowsOf(one);
    expect(await rowsOf(grouped)).toEqual(want);
    expect(want.objects.filter((r) => r[0] === "a").map((r) => r[1])).toEqual(["configmaps/default/new"]);
    expect(want.objects.filter((r) => r[0] === "c").length).toBe(3);
    one.close();
    grouped.close();
  });
});
