// `npm run bench [name...]`: runs every bench/*.bench.ts (or the named ones) and prints figures.
// A benchmark module's default export receives `report(label, value, target?)`.
// Each module runs in a process of its own (same Node flags): one benchmark's leftovers (a 1000-
// Service cluster, a server with 200 tenants) must not weigh on the next one's heap and GC.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type Report = (label: string, value: string, target?: string) => void;
export type Bench = (report: Report) => Promise<void> | void;

const here = dirname(fileURLToPath(import.meta.url));
/** bench/*.bench.ts, or the bundles of them in dist/bench/ (scripts/build-node.mjs). */
const BENCH = /\.bench\.[jt]s$/;
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => BENCH.test(f))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

if (files.length > 1) {
  let failed = false;
  for (const f of files) {
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), f.replace(BENCH, ".bench")], { stdio: "inherit" });
    if (r.status !== 0) failed = true;
  }
  process.exit(failed ? 1 : 0);
}

for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: Bench };
  console.log(`\n## ${f.replace(BENCH, "")}`);
  await mod.default((label, value, target) => {
    console.log(`  ${label.padEnd(64)} ${value.padStart(14)}${target ? `   (target ${target})` : ""}`);
  });
}
