// GNU wc 8.32 (and 9.1, alike for text): lines, words, characters, bytes and the longest line,
// in columns as wide as the largest regular file's size needs, at least 7 when a count comes
// from a pipe or a directory, 1 when one count of one input is asked; a directory is an error
// that still prints its zeros.
import type { CommandContext } from "just-bash";
import { getoptLong } from "./getopt.js";
import { quotef, utf8Locale } from "./quote.js";

type Result = { stdout: string; stderr: string; exitCode: number };

const LONG = [
  ["bytes", "none", "c"], ["chars", "none", "m"], ["lines", "none", "l"], ["files0-from", "required", "files0-from"], ["max-line-length", "none", "L"], ["words", "none", "w"], ["help", "none", "help"], ["version", "none", "version"],
].map(([name, arg, key]) => ({ name, arg: arg as "none" | "required", key }));

interface Counts {
  lines: number;
  words: number;
  chars: number;
  bytes: number;
  longest: number;
}

function count(bytes: Uint8Array, utf8: boolean): Counts {
  const text = utf8 ? new TextDecoder().decode(bytes) : String.fromCharCode(...bytes);
  const c: Counts = { lines: 0, words: 0, chars: 0, bytes: bytes.length, longest: 0 };
  let inWord = false;
  let pos = 0;
  for (const ch of text) {
    c.chars++;
    if (ch === "\n" || ch === "\r" || ch === "\f") {
      if (ch === "\n") c.lines++;
      c.longest = Math.max(c.longest, pos);
      pos = 0;
    } else if (ch === "\t") pos += 8 - (pos % 8);
    else if (ch === " ") pos++;
    if (/\s/.test(ch)) {
      c.words += inWord ? 1 : 0;
      inWord = false;
    } else if (ch >= " " && ch !== "\x7f" && !(ch >= "\x80" && ch <= "\x9f")) {
      // Only printable characters make words (wc 8.32); control characters are neither.
      pos++;
      inWord = true;
    }
  }
  c.longest = Math.max(c.longest, pos);
  c.words += inWord ? 1 : 0;
  return c;
}

export async function wc(args: string[], ctx: Pick<CommandContext, "fs" | "cwd" | "env" | "stdin">, run: (args: string[]) => Promise<Result>): Promise<Result> {
  const parsed = getoptLong("wc", args, "clLmw", LONG);
  if ("error" in parsed) return { stdout: "", stderr: `${parsed.error}Try 'wc --help' for more information.\n`, exitCode: 1 };
  // --help, --version and --files0-from are just-bash's.
  if (parsed.options.some((o) => o.key === "help" || o.key === "version" || o.key === "files0-from")) return run(args);
  const env = (k: string) => ctx.env.get(k);
  const utf8 = utf8Locale(env, "LC_CTYPE");
  const keys = new Set(parsed.options.map((o) => o.key));
  const show = keys.size ? { l: keys.has("l"), w: keys.has("w"), m: keys.has("m"), c: keys.has("c"), L: keys.has("L") } : { l: true, w: true, m: false, c: true, L: false };
  const shown = Object.values(show).filter(Boolean).length;
  const files = parsed.operands.length ? parsed.operands : [undefined];
  // What each input is (get_input_fstatus): a regular file's size sets the width.
  const inputs: { name?: string; kind: "file" | "dir" | "pipe" | "missing"; data?: Uint8Array }[] = [];
  for (const f of files) {
    if (f === undefined || f === "-") {
      inputs.push({ name: f, kind: "pipe", data: typeof ctx.stdin === "string" ? Uint8Array.from(ctx.stdin as string, (ch) => ch.charCodeAt(0) & 0xff) : (ctx.stdin as unknown as Uint8Array) });
      continue;
    }
    const path = ctx.fs.resolvePath(ctx.cwd, f);
    const st = await ctx.fs.stat(path).catch(() => undefined);
    if (!st) inputs.push({ name: f, kind: "missing" });
    else if (st.isDirectory) inputs.push({ name: f, kind: "dir" });
    else inputs.push({ name: f, kind: "file", data: await ctx.fs.readFileBuffer(path) });
  }
  let width = 1;
  if (!(files.length === 1 && shown === 1)) {
    let min = 1;
    let total = 0;
    for (const i of inputs) {
      if (i.kind === "file" && !(i.name && /^\/dev\//.test(i.name))) total += i.data!.length;
      else if (i.kind !== "missing") min = 7;
    }
    width = Math.max(String(total).length, min);
  }
  const line = (c: Counts, name?: string) => {
    const cols = [show.l && c.lines, show.w && c.words, show.m && c.chars, show.c && c.bytes, show.L && c.longest].filter((v) => v !== false) as number[];
    return `${cols.map((v) => String(v).padStart(width)).join(" ")}${name !== undefined ? ` ${name.includes("\n") ? quotef(name) : name}` : ""}\n`;
  };
  let stdout = "";
  let stderr = "";
  let exitCode = 0;
  const total: Counts = { lines: 0, words: 0, chars: 0, bytes: 0, longest: 0 };
  for (const i of inputs) {
    if (i.kind === "missing") {
      stderr += `wc: ${quotef(i.name!)}: No such file or directory\n`;
      exitCode = 1;
      continue;
    }
    let c: Counts = { lines: 0, words: 0, chars: 0, bytes: 0, longest: 0 };
    if (i.kind === "dir") {
      stderr += `wc: ${quotef(i.name!)}: Is a directory\n`;
      exitCode = 1;
    } else c = count(i.data!, utf8);
    stdout += line(c, i.name);
    total.lines += c.lines;
    total.words += c.words;
    total.chars += c.chars;
    total.bytes += c.bytes;
    total.longest = Math.max(total.longest, c.longest);
  }
  if (files.length > 1) stdout += line(total, "total");
  return { stdout, stderr, exitCode };
}
