// Writes help-texts.json from a real kubectl 1.33: `--help` of every command in its tree (the
// root's groups, then each "Available Commands:" list, recursively), `kubectl options`, and the
// usage that `kubectl help <unknown>` prints after its first line. Run when kubectl's version
// moves:
//
//   KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.33 npx tsx src/shell/kubectl/help-texts.gen.ts
//
// Keys are command paths without "kubectl" ("" is the root, "create deployment", ...).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const kubectl = process.env.KUBECTL ?? "kubectl";
const run = (args: string[]) => {
  const r = spawnSync(kubectl, args, { encoding: "utf8", env: { ...process.env, KUBECONFIG: "/dev/null" } });
  if (r.error) throw r.error;
  return r;
};
const version = run(["version", "--client"]).stdout;
if (!/Client Version: v1\.33\./.test(version)) throw new Error(`${kubectl} is not kubectl 1.33: ${version}`);

const texts: Record<string, string> = {};
/** The command names listed under a help text's "Available Commands:" or the root's groups. */
function subcommands(text: string, root: boolean): string[] {
  const out: string[] = [];
  let inList = false;
  for (const line of text.split("\n")) {
    if (root ? /^[A-Z].*Commands.*:$/.test(line) : line === "Available Commands:") inList = true;
    else if (line === "") inList = false;
    else if (inList && /^ {2}\S/.test(line)) out.push(line.trim().split(/\s+/)[0]);
  }
  return out;
}
function walk(path: string[]): void {
  const r = run([...path, "--help"]);
  if (r.status !== 0) throw new Error(`kubectl ${path.join(" ")} --help exited ${r.status}: ${r.stderr}`);
  texts[path.join(" ")] = r.stdout;
  for (const sub of subcommands(r.stdout, path.length === 0)) walk([...path, sub]);
}
walk([]);
texts.options = run(["options"]).stdout;
const unknown = run(["help", "no-such-topic"]).stderr;
texts["help: unknown topic usage"] = unknown.slice(unknown.indexOf("\n") + 1);

const out = fileURLToPath(new URL("./help-texts.json", import.meta.url));
writeFileSync(out, JSON.stringify(texts, null, 1) + "\n");
console.log(`${Object.keys(texts).length} texts from ${version.split("\n")[0]} -> ${out}`);
