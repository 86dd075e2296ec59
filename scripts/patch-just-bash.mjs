// Patches of just-bash's interpreter (run by `npm install` as postinstall; each idempotent):
// SIGPIPE for pipelines into head, a slice hook between commands (below, SLICE), errno texts for
// redirections (ERRNO), slices in sed's and awk's loops (LOOPS), a stopped line's output kept
// (ABORT) and each command's output written to the terminal as it ends (TTY).
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

import { readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
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

// LOOPS
//
// Why: sed and awk run their scripts inside one command, so the slice between commands (SLICE
// above) is never reached while `sed ':a;s/^/x/;ba'` branches 10000 times over a growing
// pattern space or `awk 'BEGIN { while (1) {} }'` spins: the whole loop held every other
// cluster's requests (a bystander's p99 366 ms). awk's interpreter is async already; sed's
// command executor is a synchronous loop, made async here (its two callers, its own group
// recursion and the cycle loop, are async functions and await it).
//
// What the patch does: sed's executor and awk's while/for/do-while loops call the same slice
// function (the one on the command's AbortSignal under Symbol.for("servicelab.slice")) once per
// iteration and await the promise it returns when the line's slice is used up. The signal
// reaches sed's executor through its options (`slSignal`, set by the sed command from its
// context) and awk's loops through the awk runtime context (`__slSignal`). The iteration limits,
// the output and the error texts are unchanged. src/shell/adversarial.test.ts checks that a
// bystander is answered during both loops.
const LOOPS_MARK = "/* servicelab:loops */";
// One copy before each patched function (sed's and awk's may share a module: two names).
const loopHelper = (name) => `${LOOPS_MARK}
function ${name}(signal) {
  const f = signal && signal[Symbol.for("servicelab.slice")];
  return typeof f === "function" ? f() : undefined;
}
`;
// A command runs with a context of its own whose signal is a new controller's, aborted with the
// line's (the revocable command context): it carries the line's slice function too.
const REVOCABLE = new RegExp(String.raw`function (${ID})\((${ID}),${ID}\)\{let ${ID}=!0,(${ID})=\2\.signal\?new AbortController:void 0,`);
// A command's signal may be a combination of the line's and another (combineAbortSignals: the
// line's with a command's own); the combination carries the line's slice function too.
const COMBINE = new RegExp(String.raw`(function ${ID}\(\.\.\.${ID}\)\{let (${ID})=\[\.\.\.new Set\([^]{0,200}?if\(\2\.length===1\)return\{signal:\2\[0\],cleanup\(\)\{\}\};let (${ID})=new AbortController,${ID}=\[\];)`);
const chunkDir = join(root, "chunks");
const loopFiles = [...bundles, ...(existsSync(chunkDir) ? readdirSync(chunkDir).map((f) => join("chunks", f)) : [])];
const esc = (x) => x.replace(/\$/g, "\\$");
let sedDone = 0;
let awkDone = 0;
let combineDone = 0;
let revocableDone = 0;
for (const b of loopFiles) {
  const file = join(root, b);
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  const hasSed = src.includes("sed: command execution exceeded maximum iterations");
  const hasAwk = src.includes("awk: while loop exceeded maximum iterations");
  const cm0 = COMBINE.exec(src);
  const rv = REVOCABLE.exec(src);
  if (!hasSed && !hasAwk && !cm0 && !rv) continue;
  if (src.includes(LOOPS_MARK)) {
    sedDone += hasSed ? 1 : 0;
    awkDone += hasAwk ? 1 : 0;
    combineDone += cm0 ? 1 : 0;
    revocableDone += src.includes("__slCarrySlice(") ? 1 : 0;
    continue;
  }
  if (rv) {
    const [whole, , ctxName] = rv;
    const carry = whole.replace(/new AbortController:void 0,$/, () => `__slCarrySlice(${ctxName}.signal,new AbortController):void 0,`);
    const helper = `${LOOPS_MARK}
function __slCarrySlice(from, controller) {
  const k = Symbol.for("servicelab.slice");
  if (typeof from[k] === "function") Object.defineProperty(controller.signal, k, { value: from[k] });
  return controller;
}
`;
    src = src.slice(0, rv.index) + helper + carry + src.slice(rv.index + whole.length);
    revocableDone++;
  }
  const fail = (what) => {
    throw new Error(`patch-just-bash: ${b}: ${what} does not match (just-bash changed? review the LOOPS patch)`);
  };
  if (cm0) {
    const [whole, , list, controller] = cm0;
    const carry = `${whole}{const __slK=Symbol.for("servicelab.slice"),__slF=${list}.find((x)=>typeof x[__slK]==="function");if(__slF)Object.defineProperty(${controller}.signal,__slK,{value:__slF[__slK]})}`;
    src = src.slice(0, cm0.index) + LOOPS_MARK + src.slice(cm0.index).replace(whole, () => carry);
    combineDone++;
  }
  if (hasSed) {
    // The executor: `function <Z>(<cmds>,<state>,<lines>,<opts>){let <labels>=new Map;...for(;<pc><<cmds>.length;){if(<n>++,<n>><max>)throw new <E>(\`sed: command execution exceeded`
    const at = src.indexOf("sed: command execution exceeded maximum iterations");
    const def = src.lastIndexOf("function ", at);
    const head = new RegExp(String.raw`^function (${ID})\((${ID}),(${ID}),(${ID}),(${ID})\)\{`).exec(src.slice(def, at));
    if (!head) fail("sed's command executor");
    const [, Z, , , , opts] = head;
    const loop = new RegExp(String.raw`for\(;(${ID})<(${ID})\.length;\)\{if\((${ID})\+\+,\3>(${ID})\)throw new (${ID})\(\`sed: command execution exceeded maximum iterations`);
    const lm = loop.exec(src.slice(def, at + 60));
    if (!lm) fail("sed's executor loop");
    const loopAt = def + lm.index + lm[0].indexOf("{") + 1;
    src = src.slice(0, loopAt) + `{const __slP=__slSedSlice(${opts}?.slSignal);if(__slP)await __slP}` + src.slice(loopAt);
    src = src.slice(0, def) + loopHelper("__slSedSlice") + "async " + src.slice(def);
    // Its callers await it: the group command's recursion and the cycle loop.
    const group = new RegExp(String.raw`(\.coverage\?\.hit\("sed:cmd:group"\),)(${esc(Z)}\()`);
    if (!group.test(src)) fail("sed's group recursion");
    src = src.replace(group, "$1await $2");
    const cycle = new RegExp(String.raw`((${ID})\.pendingFileReads=\[\],\2\.pendingFileWrites=\[\],)(${esc(Z)}\()`);
    if (!cycle.test(src)) fail("sed's cycle loop");
    src = src.replace(cycle, "$1await $3");
    // The executor's options: `<he>=<limits>?{maxIterations:<limits>.maxSedIterations,maxStringLength:<b>}:void 0`,
    // in the function whose options (`<n>={}`) carry the signal.
    const optsRe = new RegExp(String.raw`(${ID})=(${ID})\?\{maxIterations:\2\.maxSedIterations,maxStringLength:(${ID})\}:void 0`);
    const om = optsRe.exec(src);
    if (!om) fail("sed's executor options");
    const proc = src.lastIndexOf("async function", om.index);
    const pm = new RegExp(String.raw`^async function ${ID}\(${ID},${ID},${ID},(${ID})=\{\}\)\{`).exec(src.slice(proc, om.index));
    if (!pm) fail("sed's content processor");
    src = src.slice(0, om.index) + `${om[1]}={...(${om[2]}?{maxIterations:${om[2]}.maxSedIterations,maxStringLength:${om[3]}}:{}),slSignal:${pm[1]}.slSignal}` + src.slice(om.index + om[0].length);
    // The sed command hands its signal to each of its content processor's calls.
    const cmd = src.indexOf('name:"sed",async execute(');
    if (cmd < 0) fail("the sed command");
    const ctxName = new RegExp(String.raw`^name:"sed",async execute\((${ID}),(${ID})\)`).exec(src.slice(cmd))[2];
    const end = src.indexOf('name:"', cmd + 10);
    const body = src.slice(cmd, end < 0 ? src.length : end);
    const pass = new RegExp(String.raw`requireDefenseContext:${esc(ctxName)}\.requireDefenseContext\}\)`, "g");
    const calls = body.match(pass)?.length ?? 0;
    if (calls < 3) fail("the sed command's calls of its processor");
    src = src.slice(0, cmd) + body.replace(pass, `requireDefenseContext:${ctxName}.requireDefenseContext,slSignal:${ctxName}.signal})`) + src.slice(cmd + body.length);
  }
  if (hasAwk) {
    // awk's runtime context: `<A>=<fe>({fieldSep:...,maxIterations:<t>.limits.maxAwkIterations,...});`
    const ctxRe = new RegExp(String.raw`(${ID})=(${ID})\(\{fieldSep:${ID},maxIterations:(${ID})\.limits\.maxAwkIterations,[^;]*?requireDefenseContext:\3\.requireDefenseContext\}\);`);
    const cm = ctxRe.exec(src);
    if (!cm) fail("awk's runtime context");
    src = src.slice(0, cm.index + cm[0].length) + `${cm[1]}.__slSignal=${cm[3]}.signal;` + src.slice(cm.index + cm[0].length);
    // Each loop: `if(<n>++,<n>><e>.maxIterations)throw new <w>(\`awk: <kind> loop exceeded maximum iterations`
    const loopRe = new RegExp(String.raw`if\((${ID})\+\+,\1>(${ID})\.maxIterations\)throw new ${ID}\(\`awk: (?:while|for|do-while) loop exceeded`, "g");
    let loops = 0;
    src = src.replace(loopRe, (m, _n, e) => {
      loops++;
      return `{const __slP=__slAwkSlice(${e}.__slSignal);if(__slP)await __slP}${m}`;
    });
    if (loops < 3) fail("awk's loops");
    const fn = src.lastIndexOf("async function", src.indexOf("awk: while loop exceeded"));
    src = src.slice(0, fn) + loopHelper("__slAwkSlice") + src.slice(fn);
  }
  writeFileSync(file, src);
  sedDone += hasSed ? 1 : 0;
  awkDone += hasAwk ? 1 : 0;
}
if (!sedDone || !awkDone || !combineDone || revocableDone < 2) throw new Error("patch-just-bash: sed's or awk's loops or the signal combiner were not found (just-bash changed? review the LOOPS patch)");
console.log("patch-just-bash: sed's and awk's loops give the slice (" + sedDone + "+" + awkDone + " file(s))");

// ABORT
//
// Why: a command line stopped while it runs (Ctrl-C, the exec API's time limit, the CPU budget)
// lost everything it had printed: `for i in 1 2 3; do echo $i; sleep 10; done` stopped in the
// first sleep showed nothing, where bash had already shown `1`. just-bash 3.4.2 stops a line by
// throwing its ExecutionAbortedError; the interpreter's output builders (script, loops, groups,
// pipelines, substitutions) hand what they collected to an ExecutionLimitError on its way out
// (prependOutput) and rethrow it, but not to an ExecutionAbortedError, which leaves them empty.
// The patch makes ExecutionAbortedError an ExecutionLimitError (its stderr unchanged): every
// builder then passes the output on, a command substitution stops instead of swallowing the
// stop, and the top level still answers it first as an abort (status 124) with the output.
// src/shell/abort-output.test.ts checks the behaviour.
const ABORT_MARK = "/* servicelab:abort-output */";
const LIMIT_CLASS = /([\w$]+)=class extends [\w$]+\{limitType;name="ExecutionLimitError";/;
const ABORT_CLASS = /([\w$]+)=class extends ([\w$]+)\{name="ExecutionAbortedError";constructor\((\w)="",(\w)=""\)\{super\("execution aborted",\3,\4\)\}\}/;
let abort = 0;
const abortFiles = [...bundles.map((b) => join(root, b)), ...(existsSync(chunkDir) ? readdirSync(chunkDir).map((c) => join(chunkDir, c)) : [])];
let abortClasses = 0;
for (const file of abortFiles) {
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  if (!src.includes('name="ExecutionAbortedError"')) continue;
  abortClasses++;
  if (src.includes(ABORT_MARK)) continue;
  const limit = LIMIT_CLASS.exec(src);
  const m = ABORT_CLASS.exec(src);
  if (!limit || !m || limit.index > m.index) throw new Error(`patch-just-bash: ${file}: the ExecutionAbortedError / ExecutionLimitError classes do not match (just-bash changed?)`);
  const [whole, name, , out, err] = m;
  const cls = `${name}=class extends ${limit[1]}{name="ExecutionAbortedError";constructor(${out}="",${err}=""){super("execution aborted","aborted",${out},${err}),this.stderr=${err}${ABORT_MARK}}}`;
  src = src.slice(0, m.index) + cls + src.slice(m.index + whole.length);
  writeFileSync(file, src);
  abort++;
}
if (!abortClasses) throw new Error("patch-just-bash: no bundle defines ExecutionAbortedError (just-bash changed?)");

// What a command or process substitution printed was its capture, and what a pipeline's stage
// before the last printed went into the pipe: never the terminal's. Stopped there, the stop is
// passed on without that output (its stderr did reach the terminal). Inline code: no helper
// whose scope could differ between bundles.
const SUBST_MARK = "/* servicelab:abort-subst */";
const dropCapture = (e, when = "true") => `throw(${e}&&${e}.name==="ExecutionAbortedError"&&${when}&&(${e}.stdout=""),${e})`;
// `<p> instanceof <Limit>)throw <p>;if(<p> instanceof <Exit>){<ctx>.state.lastExitCode=<p>.exitCode,...expansionStderr=` (command substitution)
const CMD_SUBST = /([\w$]+) instanceof ([\w$]+)\)throw \1;(if\(\1 instanceof [\w$]+\)\{([\w$]+)\.state\.lastExitCode=\1\.exitCode,\4\.state\.env\.set\("\?",String\(\1\.exitCode\)\),\1\.stderr&&\(\4\.state\.expansionStderr=)/;
// `catch(<m>){if(<m> instanceof <Limit>)throw <m>;if(<m> instanceof <Exit>)return{stdout:...};throw <m>}finally{` (process substitution)
const PROC_SUBST = /catch\(([\w$]+)\)\{if\(\1 instanceof ([\w$]+)\)throw \1;(if\(\1 instanceof [\w$]+\)return\{stdout:\1\.stdout,stderr:\1\.stderr,exitCode:\1\.exitCode\};throw \1\}finally\{)/;
// The SIGPIPE patch's stage call (above): `__slPipeStage(<ctx>,<pipeline>,<index>,()=><run>(<cmd>,<stdin>),<ExitError>)`
const PIPE_STAGE = /__slPipeStage\(([\w$]+),([\w$]+),([\w$]+),\(\)=>([\w$]+)\(([\w$]+),([\w$]+)\),([\w$]+)\)/;
let subst = 0;
for (const b of bundles) {
  const file = join(root, b);
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  if (src.includes(SUBST_MARK)) continue;
  const fail = (what) => {
    throw new Error(`patch-just-bash: ${b}: ${what} does not match (just-bash changed? review the ABORT patch)`);
  };
  const c = CMD_SUBST.exec(src);
  if (!c) fail("the command substitution's catch");
  src = src.slice(0, c.index) + `${c[1]} instanceof ${c[2]})${dropCapture(c[1])};${c[3]}` + src.slice(c.index + c[0].length);
  const pr = PROC_SUBST.exec(src);
  if (!pr) fail("the process substitution's catch");
  src = src.slice(0, pr.index) + `catch(${pr[1]}){if(${pr[1]} instanceof ${pr[2]})${dropCapture(pr[1])};${pr[3]}` + src.slice(pr.index + pr[0].length);
  const ps = PIPE_STAGE.exec(src);
  if (!ps) fail("the pipeline's stage call (SIGPIPE patch)");
  const [call, , pipeline, index] = ps;
  src = src.slice(0, ps.index) + `${SUBST_MARK}${call}.catch((__slE)=>{${dropCapture("__slE", `${index}<${pipeline}.commands.length-1`)}})` + src.slice(ps.index + call.length);
  writeFileSync(file, src);
  subst++;
}
if (subst) console.log(`patch-just-bash: a stopped substitution or pipe stage drops its capture, ${subst} bundle(s) patched`);
if (abort) console.log(`patch-just-bash: a stopped line keeps its output, ${abort} file(s) patched`);

// TTY
//
// Why: just-bash hands a command line's output back when the line ends; bash writes each
// command's output as it comes. `for i in $(seq 5); do echo $i; sleep 1; done` showed all five
// lines at the end on the streaming exec API and in the web terminal.
//
// What the patch does: the host puts a writer on the line's AbortSignal under
// Symbol.for("servicelab.tty") (src/shell/session.ts). The first top-level run (exec depth 0) on
// that signal claims it (the line's own; a shell a command starts, as kubectl exec's in a pod,
// finds it claimed) and keeps it in its state; a command whose output goes to the terminal hands its stdout and stderr
// (and its exit status, which orders them: src/shell/session.ts) to it when it ends:
// a simple command, or a compound command with redirections, as a whole; a compound command
// without redirections (loop, if, case, group, subshell) leaves it to the commands inside. A
// pipeline's stages before the last and command/process substitutions write to no terminal.
// The line's result is unchanged (the host drops what was written already); a binary output
// ends the writing for the rest of the line (the result carries it). src/shell/stream.test.ts
// checks the behaviour.
const TTY_MARK = "/* servicelab:tty */";
const EXEC_COMMAND = /async executeCommand\(([\w$]+),([\w$]+),([\w$]+)=!1\)\{/;
const EXEC_IN_SCOPE = /async execInScope\(([\w$]+),([\w$]+),([\w$]+),([\w$]+),([\w$]+),([\w$]+)=!1,([\w$]+)=!0\)\{/;
const STATE_END = /signal:([\w$]+)\.signal,extraArgs:\1\.args\}/;
const PIPE_RUN = /__slPipeStage\(([\w$]+),([\w$]+),([\w$]+),\(\)=>([\w$]+)\(([\w$]+),([\w$]+)\),([\w$]+)\)/;
let tty = 0;
for (const b of bundles) {
  const file = join(root, b);
  if (!existsSync(file)) continue;
  let src = readFileSync(file, "utf8");
  if (src.includes(TTY_MARK)) continue;
  const fail = (what) => {
    throw new Error(`patch-just-bash: ${b}: ${what} does not match (just-bash changed? review the TTY patch)`);
  };
  const ec = EXEC_COMMAND.exec(src);
  if (!ec) fail("the interpreter's executeCommand");
  const [t, n, r] = [ec[1], ec[2], ec[3]];
  const wrapper = `async executeCommand(${t},${n},${r}=!1){${TTY_MARK}const __slS=this.ctx.state,__slW=__slS.__slTty;if(typeof __slW!=="function"||(this.ctx.substitutionDepth??0)>0)return this.__slExecuteCommand(${t},${n},${r});if(["If","For","CStyleFor","While","Until","Case","Subshell","Group"].includes(${t}.type)&&!(${t}.redirections&&${t}.redirections.length))return this.__slExecuteCommand(${t},${n},${r});__slS.__slTty=void 0;let __slR;try{__slR=await this.__slExecuteCommand(${t},${n},${r})}finally{__slS.__slTty=__slW}if(__slR&&typeof __slR.stdout==="string"&&(__slR.stdout||__slR.stderr)){if(__slR.stdoutKind==="bytes")__slS.__slTty=void 0;else __slW(__slR.stdout,__slR.stderr??"",__slR.exitCode)}return __slR}async __slExecuteCommand(${t},${n},${r}=!1){`;
  src = src.slice(0, ec.index) + wrapper + src.slice(ec.index + ec[0].length);
  const es = EXEC_IN_SCOPE.exec(src);
  if (!es) fail("execInScope");
  const depth = es[4];
  const st = STATE_END.exec(src.slice(es.index));
  if (!st || st.index > 4000) fail("execInScope's state");
  const at = es.index + st.index;
  const opts = st[1];
  src = src.slice(0, at) + `signal:${opts}.signal,extraArgs:${opts}.args,__slTty:${depth}===0?(()=>{const w=${opts}.signal&&${opts}.signal[Symbol.for("servicelab.tty")];if(typeof w!=="function"||w.claimed)return void 0;w.claimed=!0;return w})():void 0}` + src.slice(at + st[0].length);
  const ps = PIPE_RUN.exec(src);
  if (!ps) fail("the pipeline's stage call (SIGPIPE patch)");
  const [call, ctx, pipeline, index, run, cmd, stdin, exitError] = ps;
  const quiet = `()=>{const __slT=${ctx}.state.__slTty;if(${index}<${pipeline}.commands.length-1)${ctx}.state.__slTty=void 0;return ${run}(${cmd},${stdin}).finally(()=>{${ctx}.state.__slTty=__slT})}`;
  src = src.slice(0, ps.index) + `__slPipeStage(${ctx},${pipeline},${index},${quiet},${exitError})` + src.slice(ps.index + call.length);
  writeFileSync(file, src);
  tty++;
}
if (tty) console.log(`patch-just-bash: commands write to the terminal as they end, ${tty} bundle(s) patched`);
