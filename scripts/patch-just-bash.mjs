// Three patches of just-bash's interpreter (run by `npm install` as postinstall; each idempotent):
// SIGPIPE for pipelines into head, a slice hook between commands (below, SLICE), and errno texts
// for redirections (below, ERRNO).
//
// SIGPIPE
//
// Why a patch: just-bash 3.4.2 runs a pipeline's commands one after the other, each to the end,
// handing the whole output of one to the next. bash runs them together, and a reader that exits
// (`head -3`) makes the writer's next write fail with SIGPIPE, which kills it: `yes | head -1`
// and `while true; do echo x; done | head -3` end at once. Nothing outside the interpreter can
// see a pipeline stage's output while it runs (it is held by the interpreter's output builders
// until the stage ends; commands and plugins get no hook into it, and the abort signal stops
// the whole line, not one stage), so the stage cannot be stopped from our code.
//
// What the patch does, in the pipeline executor of each bundle just-bash ships (Node ESM, CJS
// and the browser build the Worker uses): when the next command of a pipeline is `head` with a
// literal count (-n N, -N, -c N, --lines/--bytes, or a file operand: it reads no stdin), the
// stage before it runs with that budget. Once its output holds more than head will read, the
// stage's next command fails as a SIGPIPE'd writer does: it ends with status 141 (PIPESTATUS),
// no message, and head gets the output so far. Everything else is unchanged.
//
// The helper is plain code injected once before the executor; the executor's one call to run a
// stage is wrapped by it. The minified names differ per bundle, so they are read from the
// pattern. A bundle whose executor does not match fails the install loudly (just-bash changed:
// review this patch), and src/shell/adversarial.test.ts checks the behaviour.
//
// ERRNO
//
// A patch for redirections: when opening a redirection's file fails (`echo x > /nope/x`,
// a write into a read-only configMap volume), just-bash 3.4.2 lets the file system's error escape
// the whole command line. bash prints the errno's text and fails that command only:
// `bash: /nope/x: No such file or directory`, `bash: /etc/config/k: Read-only file system`. The
// patch returns that message for an error that carries an errno code; other errors are unchanged.
// src/shell/fs.test.ts checks the behaviour.

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MARK = "/* servicelab:sigpipe */";
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "just-bash", "dist", "bundle");
const bundles = ["index.js", "index.cjs", "browser.js"];

const HELPER = `${MARK}
function __slHeadBudget(cmd) {
  if (!cmd || cmd.type !== "SimpleCommand" || cmd.redirections && cmd.redirections.length) return undefined;
  const lit = (w) => w && w.parts && w.parts.length === 1 && w.parts[0].type === "Literal" ? w.parts[0].value : undefined;
  if (lit(cmd.name) !== "head") return undefined;
  let budget = { lines: 10 };
  const args = cmd.args || [];
  for (let i = 0; i < args.length; i++) {
    const a = lit(args[i]);
    if (a === undefined) return undefined;
    let m;
    const count = (v, kind) => (/^\\d+$/.test(v || "") ? { [kind]: Number(v) } : undefined);
    if (a === "-n" || a === "--lines") budget = count(lit(args[++i]), "lines");
    else if (a === "-c" || a === "--bytes") budget = count(lit(args[++i]), "bytes");
    else if ((m = /^(?:-n|--lines=)(.*)$/.exec(a))) budget = count(m[1], "lines");
    else if ((m = /^(?:-c|--bytes=)(.*)$/.exec(a))) budget = count(m[1], "bytes");
    else if (/^-\\d+$/.test(a)) budget = { lines: Number(a.slice(1)) };
    else if (a === "-q" || a === "-v" || a === "--quiet" || a === "--silent" || a === "--verbose" || a === "-") continue;
    else if (a.startsWith("-")) return undefined;
    else return { lines: 0, bytes: 0 }; // a file operand: head reads no stdin
    if (!budget) return undefined;
  }
  return budget;
}
async function __slPipeStage(ctx, pipeline, index, run, ExitError) {
  const budget = index < pipeline.commands.length - 1 ? __slHeadBudget(pipeline.commands[index + 1]) : undefined;
  const scope = ctx.executionScope;
  if (!budget || !scope) return run();
  const append = scope.appendOutput, release = scope.relinquishOutput, charge = scope.chargeCommand;
  // The stage's output as the interpreter accounts it, in order: each result's part not yet
  // accounted. A command substitution's capture is accounted, then released (the last bytes).
  const out = [], err = [];
  let lines = 0, bytes = 0;
  const newlines = (t) => { let n = 0; for (let i = t.indexOf("\\n"); i >= 0; i = t.indexOf("\\n", i + 1)) n++; return n; };
  scope.appendOutput = function (kind, text, label, accounted, encoding) {
    const n = append.apply(this, arguments);
    // A redirection accounts a command's output before it moves it (to stderr, to a file):
    // what it moves is not the stage's stdout.
    if (typeof text === "string" && label !== "redirection") {
      const fresh = accounted ? text.slice(Math.max(0, text.length - (n - accounted))) : text;
      if (kind === "stdout") { out.push(fresh); bytes += fresh.length; lines += newlines(fresh); }
      else err.push(fresh);
    }
    return n;
  };
  scope.relinquishOutput = function (count) {
    release.apply(this, arguments);
    for (let left = count; left > 0 && out.length; ) {
      const last = out.pop();
      const keep = last.length > left ? last.slice(0, last.length - left) : "";
      bytes -= last.length - keep.length; lines -= newlines(last) - newlines(keep);
      left -= last.length - keep.length;
      if (keep) out.push(keep);
    }
  };
  // Once the output holds more than head will read, the writer dies at its next command, as a
  // write to a closed pipe kills it: status 141, no message, head gets what was written.
  const sigpipe = new ExitError(141, "", "");
  scope.chargeCommand = function () {
    if ((budget.lines !== undefined && lines > budget.lines) || (budget.bytes !== undefined && bytes > budget.bytes)) throw sigpipe;
    return charge.apply(this, arguments);
  };
  try {
    return await run();
  } catch (e) {
    if (e !== sigpipe) throw e;
    const stdout = out.join(""), stderr = err.join("");
    // Accounted already (as it was appended): the pipeline does not count it twice.
    const size = (t) => new TextEncoder().encode(t).length;
    return { stdout, stderr, exitCode: 141, internalOutputAccounting: { stdout: size(stdout), stderr: size(stderr) } };
  } finally {
    scope.appendOutput = append;
    scope.relinquishOutput = release;
    scope.chargeCommand = charge;
  }
}
`;

// `<ctx>.state.commandCount=<ctx>.executionScope.chargeCommand(),<N>=await <run>(<cmd>,<stdin>)}catch(<e>){if(<e> instanceof <X>)...;else if(<e> instanceof <ExitError>&&<pipeline>.commands.length>1)`
const ID = String.raw`[\w$]+`;
const CALL = new RegExp(
  String.raw`(${ID})\.state\.commandCount=\1\.executionScope\.chargeCommand\(\),(${ID})=await (${ID})\((${ID}),(${ID})\)\}catch\((${ID})\)\{if\(\6 instanceof ${ID}\)\2=\{stdout:\6\.stdout,stderr:\6\.stderr,exitCode:1\};else if\(\6 instanceof (${ID})&&(${ID})\.commands\.length>1\)`,
);

// SLICE
//
// Why: one Node event loop serves every cluster, and a command line runs in it until it ends; a
// 100000-command loop in one cluster held every other cluster's requests for seconds. The
// interpreter is async, so a line can give the loop back between two commands. The host puts a
// function on the command line's AbortSignal under Symbol.for("servicelab.slice")
// (src/runtime/budget.ts); the pipeline executor, which runs every command of every line,
// calls it before it charges the command and awaits what it returns (a promise when the line's
// slice of time is used up; nothing otherwise). A line run without such a signal runs as
// before, and nothing a command prints changes.
const SLICE_MARK = "/* servicelab:slice */";
const SLICE_HELPER = `${SLICE_MARK}
function __slSlice(ctx) {
  const s = ctx.state.signal;
  const f = s && s[Symbol.for("servicelab.slice")];
  return typeof f === "function" ? f() : undefined;
}
`;
// `try{<ctx>.state.commandCount=<ctx>.executionScope.chargeCommand(),`: the same call as above.
const CHARGE = new RegExp(String.raw`try\{(${ID})\.state\.commandCount=\1\.executionScope\.chargeCommand\(\),`);

let patched = 0;
for (const b of bundles) {
  const file = join(root, b);
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  if (!src.includes(SLICE_MARK)) {
    const m = CHARGE.exec(src);
    if (!m) throw new Error(`patch-just-bash: ${b}: the pipeline executor's charge does not match (just-bash changed?)`);
    const ctx = m[1];
    const fn = src.lastIndexOf("async function", m.index);
    const call = `try{{const __slP=__slSlice(${ctx});if(__slP)await __slP}${ctx}.state.commandCount=${ctx}.executionScope.chargeCommand(),`;
    src = src.slice(0, fn) + SLICE_HELPER + src.slice(fn, m.index) + call + src.slice(m.index + m[0].length);
    writeFileSync(file, src);
    patched++;
  }
  if (src.includes(MARK)) continue;
  const m = CALL.exec(src);
  if (!m) throw new Error(`patch-just-bash: ${b}: the pipeline executor does not match (just-bash changed?)`);
  const [whole, ctx, result, run, cmd, stdin, , exitError, pipeline] = m;
  // The stage index: `let <cmd>=<pipeline>.commands[<index>]` shortly before.
  const before = src.slice(Math.max(0, m.index - 800), m.index);
  const esc = (x) => x.replace(/\$/g, "\\$");
  const idx = [...before.matchAll(new RegExp(`let ${esc(cmd)}=${esc(pipeline)}\\.commands\\[([\\w$]+)\\]`, "g"))].pop();
  if (!idx) throw new Error(`patch-just-bash: ${b}: no stage index before the pipeline executor's call`);
  const fn = src.lastIndexOf("async function", m.index);
  const call = `${ctx}.state.commandCount=${ctx}.executionScope.chargeCommand(),${result}=await __slPipeStage(${ctx},${pipeline},${idx[1]},()=>${run}(${cmd},${stdin}),${exitError})}`;
  const replaced = whole.replace(/^.*?\)\}/, () => call);
  src = src.slice(0, fn) + HELPER + src.slice(fn, m.index) + replaced + src.slice(m.index + whole.length);
  writeFileSync(file, src);
  patched++;
}
if (patched) console.log(`patch-just-bash: ${patched} patch(es) applied (SIGPIPE for pipelines into head, slice hook)`);

const ERRNO_MARK = "/* servicelab:redirect-errno */";
const ERRNO_HELPER = `${ERRNO_MARK}
function __slErrnoText(e) {
  const code = e && typeof e === "object" ? e.code : undefined;
  return { ENOENT: "No such file or directory", EROFS: "Read-only file system", EISDIR: "Is a directory", ENOTDIR: "Not a directory", EACCES: "Permission denied", ENOSPC: "No space left on device" }[code];
}
`;
// `catch(<e>){if(!<strict>)throw <e>;return{error:<result>("",\`bash: \${<target>}: cannot open redirect target\n\`,1)}}`
const OPEN = new RegExp(String.raw`catch\((${ID})\)\{if\(!(${ID})\)throw \1;return\{error:(${ID})\("",\`bash: \$\{(${ID})\}: cannot open redirect target\n\`,1\)\}\}`);
let errno = 0;
for (const b of bundles) {
  const file = join(root, b);
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  if (src.includes(ERRNO_MARK)) continue;
  const m = OPEN.exec(src);
  if (!m) throw new Error(`patch-just-bash: ${b}: the redirection opener does not match (just-bash changed?)`);
  const [whole, e, strict, result, target] = m;
  const call = `catch(${e}){if(__slErrnoText(${e}))return{error:${result}("",\`bash: \${${target}}: \${__slErrnoText(${e})}\n\`,1)};if(!${strict})throw ${e};return{error:${result}("",\`bash: \${${target}}: cannot open redirect target\n\`,1)}}`;
  const fn = src.lastIndexOf("async function", m.index);
  src = src.slice(0, fn) + ERRNO_HELPER + src.slice(fn, m.index) + call + src.slice(m.index + whole.length);
  writeFileSync(file, src);
  errno++;
}
if (errno) console.log(`patch-just-bash: errno texts for redirections, ${errno} bundle(s) patched`);
