// The Node host builds new clusters' engines in the background from the rows create() wrote.
// Once a command has run, those rows are no longer the cluster's state: a command refused for a
// limit drops the engine, and the next one must rebuild from the database, not from them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/runtime/limits.js";
import { NodeClusterHost } from "../../src/runtime/node-host.js";
import { openDatabase } from "../../src/runtime/node-server.js";
import { testShell } from "./runner.js";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A host on a fresh database whose clock the test moves (`clock.t`). */
async function withHost(fn: (host: NodeClusterHost, clock: { t: number }) => Promise<void>): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), "sl-warm-"));
  const db = await openDatabase(dir);
  const clock = { t: Date.parse("2026-11-29T10:00:00Z") };
  const host = new NodeClusterHost(db, { shell: testShell, now: () => clock.t });
  try {
    await fn(host, clock);
  } finally {
    host.close();
    db.close();
  }
}

describe("background warm-up of new clusters", () => {
  it("never brings back a new cluster's first rows after a command changed it", () =>
    withHost(async (host, clock) => {
      await host.create("c1", { tenantId: null, lab: "empty" });
      const limits = { ...DEFAULT_LIMITS, podsPerCluster: 10 };
      expect((await host.exec("c1", "create-pod p1", limits)).exitCode).toBe(0);
      await expect(host.exec("c1", "create-pod p2", limits)).rejects.toMatchObject({ code: 403 });
      // The warm-up runs once creations have paused; let it.
      clock.t += 1000;
      await new Promise((r) => setTimeout(r, 200));
      expect((await host.exec("c1", "get-pods", limits)).stdout).toBe("p1\n");
    }));

  it("builds new clusters' engines once creations pause, and not a cluster deleted meanwhile", () =>
    withHost(async (host, clock) => {
      for (const id of ["a", "b", "gone"]) await host.create(id, { tenantId: null, lab: "empty" });
      await host.delete("gone", "deleted");
      expect(host.loaded()).toBe(0);
      clock.t += 1000;
      for (let i = 0; i < 100 && host.warmingCount() > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(host.loaded()).toBe(2);
      expect((await host.exec("a", "echo ready", DEFAULT_LIMITS)).stdout).toBe("ready\n");
      await expect(host.exec("gone", "echo", DEFAULT_LIMITS)).rejects.toMatchObject({ code: 404 });
    }));
});

