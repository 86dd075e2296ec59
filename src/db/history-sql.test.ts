// History batches as statements: at most the driver's parameters and the rows asked for per
// statement; on a writer with backgroundRows, one background transaction per statement.
import { describe, expect, it } from "vitest";
import { historyStatements, type SqlStatement } from "./history-sql.js";
import { type AnySQLite, type ApiCallRow, type CommandRow, SqlPlatform } from "./platform.js";

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
