// The writer thread: statements commit on its own connection, in the order they were sent, and
// each write is answered only once committed (another connection sees it); a failing
// transaction is refused as a whole with SQLite's message and the writer goes on.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { CONNECTION_PRAGMAS, DbWriter } from "./db-writer.js";

async function setup() {
  const url = `file:${join(mkdtempSync(join(tmpdir(), "servicelab-writer-")), "t.db")}`;
  const db = createClient({ url });
  for (const p of CONNECTION_PRAGMAS) await db.execute(p);
  await db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  return { db, writer: new DbWriter(url) };
}

describe("DbWriter", () => {
  it("answers once committed, in order, visible to the reading connection", async () => {
    const { db, writer } = await setup();
    const writes = Array.from({ length: 50 }, (_, i) =>
      writer.write([
        { sql: "INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", args: ["last", i] },
        { sql: "INSERT INTO t (k, v) VALUES (?, ?)", args: [`k${i}`, i] },
      ]),
    );
    await writes[10];
    expect(Number((await db.execute("SELECT count(*) AS n FROM t WHERE k LIKE 'k%'")).rows[0].n)).toBeGreaterThanOrEqual(11);
    await Promise.all(writes);
    expect(Number((await db.execute("SELECT v FROM t WHERE k = 'last'")).rows[0].v)).toBe(49);
    await writer.close();
    db.close();
  });

  it("takes a foreground write before the background writes waiting, each lane in its order", async () => {
    const { db, writer } = await setup();
    const done: string[] = [];
    const rows = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ sql: "INSERT INTO t (k, v) VALUES (?, ?)", args: [`${tag}-${i}`, i] }));
    // Everything is built first, so that the writes after the first (a long one) are all sent
    // while it runs.
    const first = rows("bg0", 20_000);
    const later = [1, 2, 3].map((i) => rows(`bg${i}`, 10));
    const fg = [rows("fg0", 1), rows("fg1", 1)];
    const writes = [writer.write(first, { background: true }).then(() => done.push("bg0"))];
    later.forEach((st, i) => writes.push(writer.write(st, { background: true }).then(() => done.push(`bg${i + 1}`))));
    fg.forEach((st, i) => writes.push(writer.write(st).then(() => done.push(`fg${i}`))));
    await Promise.all(writes);
    expect(done).toEqual(["bg0", "fg0", "fg1", "bg1", "bg2", "bg3"]);
    expect(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n)).toBe(20_000 + 30 + 2);
    await writer.close();
    db.close();
  });

  it("refuses a failing transaction whole, and keeps writing", async () => {
    const { db, writer } = await setup();
    await expect(
      writer.write([
        { sql: "INSERT INTO t (k, v) VALUES (?, ?)", args: ["a", 1] },
        { sql: "INSERT INTO t (k, v) VALUES (?, ?)", args: ["b", null] },
      ]),
    ).rejects.toThrow(/NOT NULL/);
    expect(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n)).toBe(0);
    await writer.write([{ sql: "INSERT INTO t (k, v) VALUES (?, ?)", args: ["c", 3] }]);
    expect((await db.execute("SELECT k FROM t")).rows.map((r) => r.k)).toEqual(["c"]);
    await writer.close();
    await expect(writer.write([{ sql: "SELECT 1", args: [] }])).rejects.toThrow(/closed/);
    db.close();
  });
});
