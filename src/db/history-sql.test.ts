// History batches as statements: at most the driver's parameters and the rows asked for per
// statement; on a writer with backgroundRows, one background transaction per statement.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../runtime/node-server.js";
import { HISTORY_ROWS_PER_CLUSTER, HistoryTrim, historyStatements, type SqlStatement } from "./history-sql.js";
import { type AnySQLite, type ApiCallRow, type CommandRow, SqlPlatform } from "./platform.js";
import * as schema from "./schema.js";

const call = (i: number): ApiCallRow => ({ ts: 1_700_000_000_000 + i, tenantId: "t", clusterId: "c", method: "POST", route: "/v1/clusters/:id/exec", status: 200, latencyMs: i });
const command = (i: number): CommandRow => ({ ts: 1_700_000_000_000 + i, clusterId: "c", tenantId: "t", command: `echo ${i}`, exitCode: 0, stdoutBytes: 2, stderrBytes: 0, durationMs: 1 });
const batch = { apiCalls: Array.from({ length: 250 }, (_, i) => call(i)), commands: Array.from({ length: 120 }, (_, i) => command(i)) };
const rowsOf = (st: SqlStatement) => (st.sql.match(/\(\?/g) ?? []).length;

describe("history statements", () => {
  it("split by the driver's parameter limit and by rows, keeping every row in order", () => {
    expect(historyStatements(batch, 32_766).map(rowsOf)).toEqual([250, 120]);
    expect(historyStatements(batch, 32_766, 100).map(rowsOf)).toEqual([100, 100, 50, 100, 20]);
    // A Durable Object binds at most 100 parameters: 12 rows of 8 columns.
    expect(Math.max(...historyStatements(batch, 100).map((st) => st.args.length))).toBeLessThanOrEqual(100);
    const latencies = historyStatements(batch, 32_766, 100)
      .filter((st) => st.sql.startsWith("INSERT INTO api_calls"))
      .flatMap((st) => st.args.filter((_, i) => i % 8 === 7));
    expect(latencies).toEqual(batch.apiCalls.map((r) => r.latencyMs));
  });

  it("go to a writer with backgroundRows as background transactions of one statement each", async () => {
    const writes: Array<{ statements: SqlStatement[]; background: boolean }> = [];
    const p = new SqlPlatform(undefined as unknown as AnySQLite, {
      write: (statements, opts) => void writes.push({ statements, background: opts?.background === true }),
      maxParams: 32_766,
      backgroundRows: 100,
    });
    await p.record(batch);
    expect(writes.map((w) => [w.statements.length, rowsOf(w.statements[0]), w.background])).toEqual([
      [1, 100, true],
      [1, 100, true],
      [1, 50, true],
      [1, 100, true],
      [1, 20, true],
    ]);
    // Without it, one transaction.
    const one: SqlStatement[][] = [];
    await new SqlPlatform(undefined as unknown as AnySQLite, { write: (st) => void one.push(st), maxParams: 32_766 }).record(batch);
    expect(one.map((st) => st.length)).toEqual([2]);
  });
});

describe("history bounds", () => {
  it("keep each cluster's newest rows per table, oldest trimmed first, in a real database", async () => {
    const dir = mkdtempSync(join(tmpdir(), "servicelab-trim-"));
    const db = await openDatabase(dir);
    try {
      const p = new SqlPlatform(drizzle(db, { schema }) as unknown as AnySQLite, { write: async (st) => void (await db.batch(st, "write")), maxParams: 32_766 }, { historyRows: { commands: 50, snapshots: 2 } });
      const cmd = (c: string, i: number): CommandRow => ({ ...command(i), clusterId: c, command: `echo ${i}` });
      // 130 commands in one cluster, in batches as a host sends them; 7 in another.
      for (let i = 0; i < 130; i += 10) await p.record({ commands: Array.from({ length: 10 }, (_, j) => cmd("busy", i + j)) });
      await p.record({ commands: Array.from({ length: 7 }, (_, j) => cmd("quiet", j)) });
      for (let i = 0; i < 5; i++) await p.record({ snapshots: [{ ts: i, clusterId: "busy", reason: "request", body: `{"n":${i}}` }] });
      const kept = await db.execute("SELECT command FROM commands WHERE cluster_id = 'busy' ORDER BY id");
      // Trimmed to 50 at every 5th row added: after the 130th, exactly the newest 50.
      expect(kept.rows.map((r) => String(r.command))).toEqual(Array.from({ length: 50 }, (_, i) => `echo ${80 + i}`));
      expect(Number((await db.execute("SELECT count(*) AS n FROM commands WHERE cluster_id = 'quiet'")).rows[0].n)).toBe(7);
      const snaps = await db.execute("SELECT body FROM snapshots WHERE cluster_id = 'busy' ORDER BY id");
      expect(snaps.rows.map((r) => String(r.body))).toEqual(['{"n":3}', '{"n":4}']);
      // The history route reads what is kept.
      expect((await p.history("busy", 1000)).commands.length).toBe(50);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("trim once a tenth of the bound was added, and never a tenant's own calls", () => {
    const t = new HistoryTrim();
    const every = HISTORY_ROWS_PER_CLUSTER.api_calls / 10;
    expect(t.statements({ apiCalls: Array.from({ length: every - 1 }, (_, i) => call(i)) })).toEqual([]);
    const due = t.statements({ apiCalls: [call(every)] });
    expect(due).toEqual([{ sql: `DELETE FROM api_calls WHERE cluster_id = ? AND id <= (SELECT id FROM api_calls WHERE cluster_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${HISTORY_ROWS_PER_CLUSTER.api_calls})`, args: ["c", "c"] }]);
    expect(t.statements({ apiCalls: Array.from({ length: 2 * every }, (_, i) => ({ ...call(i), clusterId: null })) })).toEqual([]);
  });
});
