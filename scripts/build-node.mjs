// Bundles what Node runs outside the tests: the server (`npm start`) into dist/node/ and the
// benchmarks (`npm run bench`) into dist/bench/. One bundle loads as one module, so the code is
// written for the reader, not for a loader's per-module costs or its keepNames wrappers; vitest
// still runs the tests from source.
//
// esbuild is the one wrangler pins exactly (0.27.3), resolved from wrangler itself: no second
// copy in package.json to keep in step with it. Packages stay external (libSQL has native code).
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const esbuild = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("esbuild");

const common = { bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", sourcemap: "linked", logLevel: "warning" };
const what = process.argv[2] ?? "all";

if (what === "all" || what === "server") {
  // dist/node is two levels below the root, as src/runtime is: node-server.ts finds web/dist from there.
  await esbuild.build({ ...common, entryPoints: { server: join(root, "src/runtime/node.ts") }, outdir: join(root, "dist/node") });
}
if (what === "all" || what === "bench") {
  const benches = readdirSync(join(root, "bench")).filter((f) => f.endsWith(".bench.ts"));
  // Each benchmark runs in a process of its own (bench/run.ts): one bundle each.
  await esbuild.build({ ...common, entryPoints: [join(root, "bench/run.ts"), ...benches.map((f) => join(root, "bench", f))], outdir: join(root, "dist/bench") });
}
