// The Worker as wrangler builds it for `wrangler deploy` (esbuild, the browser conditions of its
// dependencies), not as Vite resolves it for the workerd tests: a named import that only Node's
// build of a dependency exports passed every test and failed the deployable build.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("wrangler builds the Worker for deployment, under Workers' size limit", { timeout: 180_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "sl-worker-build-"));
  try {
    const r = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", out], { encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/No matching export|Build failed/);
    // Workers take at most 10 MB compressed on the paid plan; the bundle itself stays well under.
    expect(statSync(join(out, "worker.js")).size).toBeLessThan(10 * 1024 * 1024);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
