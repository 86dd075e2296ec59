// `npm run bench [name...]`: runs every bench/*.bench.ts (or the named ones) and prints figures.
// A benchmark module's default export receives `report(label, value, target?)`.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type Report = (label: string, value: string, target?: string) => void;
export type Bench = (report: Report) => Promise<void> | void;

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: Bench };
  console.log(`\n## ${f.replace(/\.bench\.ts$/, "")}`);
  await mod.default((label, value, target) => {
    console.log(`  ${label.padEnd(64)} ${value.padStart(14)}${target ? `   (target ${target})` : ""}`);
  });
}
