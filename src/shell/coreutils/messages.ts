// GNU coreutils' words for what just-bash's cat, head, tail, mkdir, cp, mv, rm... report in
// their own: a directory is "Is a directory" (just-bash's read says it is not there), head and
// tail say which operation failed, cp and mv name the destination, names are quoted as
// coreutils quote them (quotef, quoteaf, and quote() in the locale's quotation marks), and a
// usage error ends with "Try 'PROGRAM --help' for more information.".
import type { CommandContext } from "just-bash";
import { quote, quoteaf, quotef, utf8Locale } from "./quote.js";

type Result = { stdout: string; stderr: string; exitCode: number };

/** The operands of a command line (what is not an option, and everything after `--`). */
function operands(args: string[], valued: RegExp = /^$/): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") return [...out, ...args.slice(i + 1)];
    if (valued.test(args[i])) i++;
    else if (!args[i].startsWith("-") || args[i] === "-") out.push(args[i]);
  }
  return out;
}

async function isDirectory(ctx: Pick<CommandContext, "fs" | "cwd">, path: string): Promise<boolean> {
  return ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, path)).then((s) => s.isDirectory, () => false);
}

/** Rewrites each `NAME: OPERAND: TEXT` line of stderr for the operand it names. */
async function perOperand(name: string, r: Result, ops: string[], say: (op: string, text: string) => Promise<string>): Promise<Result> {
  if (!r.stderr) return r;
  const lines = r.stderr.split("\n");
  for (let i = 0; i < lines.length; i++) {
    // The longest operand that fits: a name may itself hold ": ".
    const op = ops.filter((o) => lines[i].startsWith(`${name}: ${o}: `)).sort((a, b) => b.length - a.length)[0];
    if (op !== undefined) lines[i] = await say(op, lines[i].slice(name.length + op.length + 4));
  }
  return { ...r, stderr: lines.join("\n") };
}

export async function cat(args: string[], ctx: Pick<CommandContext, "fs" | "cwd">, run: (args: string[]) => Promise<Result>): Promise<Result> {
  return perOperand("cat", await run(args), operands(args), async (op, text) =>
    `cat: ${quotef(op)}: ${text === "No such file or directory" && (await isDirectory(ctx, op)) ? "Is a directory" : text}`,
  );
}

/** head and tail: `cannot open 'X' for reading` and `error reading 'X'` (a directory). */
export async function headTail(name: "head" | "tail", args: string[], ctx: Pick<CommandContext, "fs" | "cwd">, run: (args: string[]) => Promise<Result>): Promise<Result> {
  return perOperand(name, await run(args), operands(args, /^(-n|-c|--lines|--bytes|-s|--sleep-interval|--pid|--max-unchanged-stats)$/), async (op, text) => {
    if (text !== "No such file or directory") return `${name}: ${quotef(op)}: ${text}`;
    return (await isDirectory(ctx, op)) ? `${name}: error reading ${quoteaf(op)}: Is a directory` : `${name}: cannot open ${quoteaf(op)} for reading: ${text}`;
  });
}

/** mkdir names the directory with quote(): ‘/tmp’ in a UTF-8 locale. */
export async function mkdir(args: string[], ctx: Pick<CommandContext, "env">, run: (args: string[]) => Promise<Result>): Promise<Result> {
  const r = await run(args);
  const utf8 = utf8Locale((k) => ctx.env.get(k));
  return { ...r, stderr: r.stderr.replace(/^mkdir: cannot create directory '(.*)': /gm, (_m, d: string) => `mkdir: cannot create directory ${quote(d, utf8)}: `) };
}

/**
 * cp and mv: a missing operand as coreutils word it (which one, after what), and a failed
 * write named by its destination (`cannot create regular file 'X'`, `cannot move 'A' to 'B'`).
 */
export async function cpMv(name: "cp" | "mv", args: string[], ctx: Pick<CommandContext, "fs" | "cwd">, run: (args: string[]) => Promise<Result>): Promise<Result> {
  const ops = operands(args, /^(-t|--target-directory|-S|--suffix)$/);
  const r = await run(args);
  if (/^\w+: missing destination file operand\n$/.test(r.stderr)) {
    return { ...r, stderr: ops.length ? `${name}: missing destination file operand after ${quoteaf(ops[0])}\n` : `${name}: missing file operand\n` };
  }
  if (ops.length < 2) return r;
  const dest = ops[ops.length - 1];
  // The file a source lands on: inside the destination when it is a directory.
  const target = async (src: string) => ((await isDirectory(ctx, dest)) ? `${dest.replace(/\/+$/, "")}/${src.replace(/\/+$/, "").split("/").pop()}` : dest);
  const lines = r.stderr.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^(cp|mv): cannot (copy|move) '(.*)': (.*)$/.exec(lines[i]);
    if (!m) continue;
    const to = await target(m[3]);
    lines[i] = m[2] === "copy" ? `cp: cannot create regular file ${quoteaf(to)}: ${m[4]}` : `mv: cannot move ${quoteaf(m[3])} to ${quoteaf(to)}: ${m[4]}`;
  }
  return { ...r, stderr: lines.join("\n") };
}

/** A usage error (an unknown option, a missing operand) followed by coreutils' hint to --help. */
export function usageHint(name: string, r: Result): Result {
  const last = r.stderr.replace(/\n$/, "").split("\n").pop() ?? "";
  const usage = new RegExp(`^${name}: (invalid option -- '.'|unrecognized option '.*'|option requires an argument -- '.'|missing (file |destination file )?operand.*)$`);
  return usage.test(last) ? { ...r, stderr: `${r.stderr}Try '${name} --help' for more information.\n` } : r;
}
