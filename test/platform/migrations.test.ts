import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/runtime/node-server.js";

describe("migrations", () => {
  it("build every table from an empty database, and run again as a no-op", async () => {
    const dir = mkdtempSync(join(tmpdir(), "servicelab-mig-"));
    const db = await openDatabase(dir);
    const t = await db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    expect(t.rows.map((r) => String(r.name))).toEqual([
      "__drizzle_migrations",
      "api_calls",
      "classroom_students",
      "classrooms",
      "cluster_events",
      "cluster_objects",
      "cluster_state",
      "clusters",
      "commands",
      "settings",
      "snapshots",
      "tenants",
      "traffic_runs",
    ]);
    db.close();
    const again = await openDatabase(dir);
    const n = await again.execute("SELECT count(*) AS n FROM __drizzle_migrations");
    expect(Number(n.rows[0].n)).toBe(4);
    // A database of before classrooms gets them, and its clusters a classroom column.
    const cols = await again.execute("SELECT name FROM pragma_table_info('clusters')");
    expect(cols.rows.map((r) => String(r.name))).toContain("classroom_id");
    again.close();
  });
});
