// `npm run shell`: an interactive terminal on a fresh local cluster (readline with history), or
// `npm run shell -- -c '<command line>'` for scripts. This is a host: it moves the cluster's clock
// with wall time between lines, as the hosted runtime does.

import { createInterface } from "node:readline";
import { writeFileSync, readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { Cluster } from "../engine/cluster.js";
import { DEFAULT_LIMITS, quotaOf } from "../runtime/limits.js";
import { Session } from "./session.js";

/** $EDITOR on a temp file, as kubectl edit does. */
function editor(text: string, file: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "servicelab-edit-"));
  const path = join(dir, file.split("/").pop()!);
  writeFileSync(path, text);
  const ed = process.env.EDITOR ?? "vi";
  const r = spawnSync(ed, [path], { stdio: "inherit" });
  if (r.status !== 0) return undefined;
  return readFileSync(path, "utf8");
}

async function main(): Promise<void> {
  const cluster = Cluster.create();
  // A host like the others: the default tenant's limits are the apiserver's quota.
  cluster.setQuota(quotaOf(DEFAULT_LIMITS));
  const session = new Session(cluster, { editor });
  const started = Date.now();
  const base = cluster.now();
  const tick = () => cluster.advanceTo(base + (Date.now() - started));
  const i = process.argv.indexOf("-c");
  if (i >= 0) {
    const r = await session.run(process.argv[i + 1] ?? "");
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    process.exit(r.exitCode);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout, historySize: 1000, terminal: process.stdin.isTTY });
  const ask = () => rl.setPrompt(session.prompt) ?? rl.prompt();
  let buffer = "";
  rl.on("line", async (line) => {
    rl.pause();
    buffer += (buffer ? "\n" : "") + line;
    // A trailing backslash or an open here-document continues on the next line.
    if (/\\$/.test(line) || (/<<-?\s*['"]?(\w+)/.test(buffer) && !new RegExp(`\\n${/<<-?\s*['"]?(\w+)/.exec(buffer)![1]}$`).test(buffer))) {
      rl.setPrompt("> ");
      rl.prompt();
      rl.resume();
      return;
    }
    const cmd = buffer;
    buffer = "";
    tick();
    const r = await session.run(cmd);
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    ask();
    rl.resume();
  });
  rl.on("close", () => process.exit(0));
  ask();
}

void main();
