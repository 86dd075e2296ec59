// The commands the terminal defines itself, once for every shell it runs: the node's login shell
// and a container's shell (kubectl exec, kubectl run -it). Each is parameterised by the place it
// runs in: the host name, what `id` prints, which tools are on PATH, and which shell speaks.
// (sleep, kubectl and ssh stay with the session: they move the clock or the terminal.)

import { defineCommand } from "just-bash";
import type { Command } from "just-bash";
import { date, touch } from "./coreutils/clocked.js";
import { ls } from "./coreutils/ls.js";
import { cat, cpMv, headTail, mkdir, usageHint } from "./coreutils/messages.js";
import { quote, utf8Locale } from "./coreutils/quote.js";
import { uname } from "./coreutils/uname.js";
import { wc } from "./coreutils/wc.js";
import { foldPatterns } from "./grep.js";
import { od } from "./od.js";

/** The shell that reads a line: bash, BusyBox's ash, or Debian's dash as /bin/sh. */
type ShellVoice = "bash" | "ash" | "dash";

export interface ShellPlace {
  /** Who speaks for the shell: its messages (`command not found`, redirections) are in its words. */
  voice: ShellVoice;
  /** The name the shell was started as (`sh` for ash and dash, and for bash run as sh). */
  name: "bash" | "sh";
  hostname: string;
  /** What `hostname -I` prints; undefined where hostname has no -I (BusyBox's). */
  addresses?: string[];
  /** `id` as root. */
  id: string;
  /** Commands not on this place's PATH although the interpreter provides them. */
  lacks: ReadonlySet<string>;
  /** Whether a vi that needs a terminal is here (the node's vim-minimal). */
  vi: boolean;
  /** GNU coreutils' version where they are the userland (the node's 8.32, Debian's 9.1); undefined: BusyBox. */
  coreutils?: "8.32" | "9.1";
  /** Whether files carry SELinux labels (the node: `ls -l` marks them with a '.'). */
  selinux: boolean;
  /** When the place's files were laid out (ms): the node's installation, a container's start. */
  installedAt: number;
  /** The terminal's clock (ms): the line's time, which follows the cluster's. */
  now(): number;
  /** The terminal's width when the running command writes to it (isatty), else undefined. */
  tty?(name: string): number | undefined;
  /** The shell's history list (`history`), where the place keeps one. */
  history?: { lines(): string[]; clear(): void };
  /** What `clear` writes for $TERM (ncurses' clear for xterm-256color); undefined: the interpreter's. */
  clear?: string;
  /** Whether `which` is GNU which (Rocky's), which says where it looked for what it did not find. */
  which?: boolean;
}

type Result = { stdout: string; stderr: string; exitCode: number };

/** What the place's shell says of a command it cannot find, and its status 127. */
function notFound(place: Pick<ShellPlace, "voice" | "name">, command: string): Result {
  const stderr = place.voice === "ash" ? `sh: ${command}: not found\n` : place.voice === "dash" ? `sh: 1: ${command}: not found\n` : `${place.name}: ${command}: command not found\n`;
  return { stdout: "", stderr, exitCode: 127 };
}

/**
 * just-bash's messages said as the place's shell says them. The interpreter is bash; a command it
 * cannot find is `bash: X: command not found` (or, for the interpreters it leaves out, a note about
 * its own build), and a redirection it cannot open is `bash: PATH: <errno text>`.
 */
export function inShellVoice(place: Pick<ShellPlace, "voice" | "name">, stderr: string): string {
  if (!stderr.includes("bash: ")) return stderr;
  return stderr.replace(/^bash: (.*)$/gm, (line, rest: string) => {
    const missing = /^(\S+): command (?:not found|not available in browser environments\. .*)$/.exec(rest);
    if (missing) return notFound(place, missing[1]).stderr.slice(0, -1);
    const open = /^(\S+): (No such file or directory|Read-only file system|Is a directory|Not a directory|Permission denied)$/.exec(rest);
    if (open && place.voice === "ash") return `sh: can't create ${open[1]}: ${open[2] === "No such file or directory" ? "nonexistent directory" : open[2]}`;
    if (open && place.voice === "dash") return `sh: 1: cannot create ${open[1]}: ${open[2] === "No such file or directory" ? "Directory nonexistent" : open[2]}`;
    return place.voice === "bash" && place.name === "bash" ? line : `sh: ${rest}`;
  });
}

const ok = (stdout: string): Result => ({ stdout, stderr: "", exitCode: 0 });

/** What `yes` writes: a pipe buffer's worth (64 KiB), then it ends as a SIGPIPE'd writer does. */
const YES_BYTES = 65_536;

/** The terminal's own commands for one place (a fresh set per shell: they close over the place). */
export function builtinCommands(place: () => ShellPlace): Command[] {
  const grep = defineCommand("grep", async (args, ctx) => ctx.origCommand!(foldPatterns(args) ?? args));
  const hostname = defineCommand("hostname", async (args) => {
    const p = place();
    if (args.includes("-I")) {
      if (!p.addresses) return { stdout: "", stderr: "hostname: invalid option -- 'I'\n", exitCode: 1 };
      return ok(`${p.addresses.join(" ")} \n`);
    }
    return ok(`${p.hostname}\n`);
  });
  const whoami = defineCommand("whoami", async () => ok("root\n"));
  const id = defineCommand("id", async (args, ctx) => {
    const flags = args.filter((a) => /^-[ugGnr]+$/.test(a)).join("");
    // Only root is here: -u, -g and -G print its one id, or with -n its name.
    if (/[ugG]/.test(flags)) return ok(flags.includes("n") ? "root\n" : "0\n");
    const user = args.find((a) => !a.startsWith("-"));
    if (user && user !== "root" && user !== "0") return { stdout: "", stderr: `id: ${quote(user, utf8Locale((k) => ctx.env.get(k)))}: no such user\n`, exitCode: 1 };
    return ok(place().id);
  });
  // coreutils' yes writes until its reader goes (SIGPIPE). A command here returns its output
  // whole, so it writes what a pipe holds before its writer blocks and ends with SIGPIPE's 141:
  // `yes | head -1` prints one line, and nothing reads yes for ever.
  const yes = defineCommand("yes", async (args) => {
    const line = `${args.length ? args.join(" ") : "y"}\n`;
    return { stdout: line.repeat(Math.ceil(YES_BYTES / line.length)), stderr: "", exitCode: 141 };
  });
  const odCmd = defineCommand("od", async (args, ctx) =>
    od(args, toBytes(ctx.stdin), async (p) => {
      try {
        return await ctx.fs.readFileBuffer(ctx.fs.resolvePath(ctx.cwd, p));
      } catch (e) {
        return (e as Error).message.includes("directory") && !(e as Error).message.includes("no such") ? "read error: Is a directory" : "No such file or directory";
      }
    }),
  );
  const commands = [grep, hostname, whoami, id, yes, odCmd];
  // The userland's own programs, where it has them.
  const gnu = place().coreutils;
  commands.push(...[...everywhere(place), ...(gnu ? gnuCoreutils(place, gnu) : [])].filter((c) => !place().lacks.has(c.name)));
  if (place().history) commands.push(history(place));
  if (place().clear !== undefined) commands.push(defineCommand("clear", async () => ok(place().clear!)));
  if (place().which) commands.push(which);
  // No terminal reaches a command here: vim says so, as it does with no tty, and edits nothing.
  const vim = (name: string) =>
    defineCommand(name, async () => ({
      stdout: "Vim: Error reading input, exiting...\nVim: Finished.\n",
      stderr: "Vim: Warning: Output is not to a terminal\nVim: Warning: Input is not from a terminal\n",
      exitCode: 1,
    }));
  if (place().vi) commands.push(vim("vi"), vim("vim"));
  return commands;
}

/** Commands every place's userland has: date and touch on the terminal's clock; env, printenv. */
function everywhere(place: () => ShellPlace): Command[] {
  const run = (ctx: { origCommand?: (args: string[]) => Promise<Result> }) => (args: string[]) => ctx.origCommand!(args);
  return [
    defineCommand("date", async (args, ctx) => date(args, ctx, place().now(), run(ctx))),
    defineCommand("touch", async (args, ctx) => touch(args, ctx, place().now(), run(ctx))),
    defineCommand("env", async (args, ctx) => env(args, exported(place(), ctx, "env"), run(ctx))),
    defineCommand("printenv", async (args, ctx) => printenv(args, exported(place(), ctx, "printenv"), run(ctx))),
  ];
}

/** GNU coreutils where they are the userland: ls, uname, wc, and GNU's words for the interpreter's others. */
function gnuCoreutils(place: () => ShellPlace, version: "8.32" | "9.1"): Command[] {
  const run = (ctx: { origCommand?: (args: string[]) => Promise<Result> }) => (args: string[]) => ctx.origCommand!(args);
  return [
    defineCommand("ls", async (args, ctx) => {
      const p = place();
      return ls(args, ctx, { version, selinux: p.selinux, installedAt: p.installedAt, now: p.now, tty: () => p.tty?.("ls") });
    }),
    defineCommand("uname", async (args, ctx) => uname(args, (k) => ctx.env.get(k), place().hostname, version)),
    defineCommand("wc", async (args, ctx) => wc(args, ctx, run(ctx))),
    gnu("cat", (args, ctx) => cat(args, ctx, run(ctx))),
    gnu("head", (args, ctx) => headTail("head", args, ctx, run(ctx))),
    gnu("tail", (args, ctx) => headTail("tail", args, ctx, run(ctx))),
    gnu("mkdir", (args, ctx) => mkdir(args, ctx, run(ctx))),
    gnu("cp", (args, ctx) => cpMv("cp", args, ctx, run(ctx))),
    gnu("mv", (args, ctx) => cpMv("mv", args, ctx, run(ctx))),
    // chmod names the mode it got with no file (quote(): ‘777’ in a UTF-8 locale).
    gnu("chmod", async (args, ctx) => {
      const r = await run(ctx)(args);
      const last = args.filter((a) => !/^-[a-zA-Z]+$/.test(a)).pop();
      return r.stderr === "chmod: missing operand\n" && last !== undefined ? { ...r, stderr: `chmod: missing operand after ${quote(last, utf8Locale((k) => ctx.env.get(k)))}\n` } : r;
    }),
    ...["rm", "rmdir", "ln", "cut", "sort", "uniq", "tr", "tee", "basename", "dirname", "readlink", "seq", "nl", "paste", "comm", "join", "tac", "fold", "expand", "md5sum", "sha256sum", "base64", "du", "stat"].map((name) => gnu(name, (args, ctx) => run(ctx)(args))),
  ];
}

/** A GNU coreutils program over the interpreter's: its words, then coreutils' usage hint. */
function gnu(name: string, run: (args: string[], ctx: Parameters<Parameters<typeof defineCommand>[1]>[1]) => Promise<Result>): Command {
  return defineCommand(name, async (args, ctx) => usageHint(name, await run(args, ctx)));
}

/** The environment a program gets: the exported variables, and from bash `_`, the program's path. */
function exported(p: ShellPlace, ctx: { exportedEnv?: Record<string, string>; env: Map<string, string> }, program: string): Record<string, string> {
  const vars = { ...(ctx.exportedEnv ?? Object.fromEntries(ctx.env)) };
  delete vars._;
  return p.voice === "bash" && p.name === "bash" ? { ...vars, _: `/usr/bin/${program}` } : vars;
}

/**
 * env: with no command, the exported environment (not the shell's own variables) as the child
 * gets it; with one, the interpreter's env runs it.
 */
async function env(args: string[], exported: Record<string, string>, run: (args: string[]) => Promise<Result>): Promise<Result> {
  let ignore = false;
  const unset: string[] = [];
  const set: [string, string][] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "-i" || a === "--ignore-environment" || a === "-") ignore = true;
    else if ((a === "-u" || a === "--unset") && i + 1 < args.length) unset.push(args[++i]);
    else if (a.startsWith("--unset=")) unset.push(a.slice(8));
    else if (/^-u./.test(a)) unset.push(a.slice(2));
    else if (a === "--") continue;
    else if (a.startsWith("-")) return run(args);
    else if (/^[^=]+=/.test(a)) set.push([a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]);
    else break;
  }
  if (i < args.length) return run(args);
  const vars = new Map<string, string>(ignore ? [] : Object.entries(exported));
  for (const u of unset) vars.delete(u);
  for (const [k, v] of set) vars.set(k, v);
  return ok([...vars].map(([k, v]) => `${k}=${v}\n`).join(""));
}

/** printenv: the exported environment, or the named variables of it (status 1 if one is not there). */
async function printenv(args: string[], exported: Record<string, string>, run: (args: string[]) => Promise<Result>): Promise<Result> {
  if (args.some((a) => a.startsWith("-") && a !== "-0" && a !== "--null")) return run(args);
  const names = args.filter((a) => !a.startsWith("-"));
  const end = args.includes("-0") || args.includes("--null") ? "\0" : "\n";
  const vars = exported;
  if (!names.length) return ok(Object.entries(vars).map(([k, v]) => `${k}=${v}${end}`).join(""));
  const found = names.filter((n) => Object.hasOwn(vars, n) && !n.includes("="));
  return { stdout: found.map((n) => `${vars[n as keyof typeof vars]}${end}`).join(""), stderr: "", exitCode: found.length === names.length ? 0 : 1 };
}

/** GNU which: each name's path, or `which: no NAME in (PATH)` on stderr (Debian's which says nothing). */
const which = defineCommand("which", async (args, ctx) => {
  const options = args.filter((a) => a.startsWith("-"));
  if (options.some((o) => o !== "-a")) return ctx.origCommand!(args);
  let stdout = "";
  let stderr = "";
  for (const name of args.filter((a) => !a.startsWith("-"))) {
    const r = await ctx.origCommand!([...options, name]);
    stdout += r.stdout;
    if (!r.stdout) stderr += `which: no ${name} in (${ctx.env.get("PATH") ?? ""})\n`;
  }
  return { stdout, stderr, exitCode: stderr ? 1 : 0 };
});

/** bash's history builtin over the place's list: every line, the last N, or -c to clear it. */
function history(place: () => ShellPlace): Command {
  return defineCommand("history", async (args) => {
    const h = place().history!;
    if (args[0] === "-c") {
      h.clear();
      return ok("");
    }
    const lines = h.lines();
    if (args[0] !== undefined && !/^\d+$/.test(args[0])) {
      if (args[0].startsWith("-")) return { stdout: "", stderr: `bash: history: ${args[0].slice(0, 2)}: invalid option\nhistory: usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\n`, exitCode: 2 };
      return { stdout: "", stderr: `bash: history: ${args[0]}: numeric argument required\n`, exitCode: 1 };
    }
    const n = args[0] === undefined ? lines.length : Math.min(Number(args[0]), lines.length);
    return ok(lines.slice(lines.length - n).map((l, i) => `${String(lines.length - n + i + 1).padStart(5)}  ${l}\n`).join(""));
  });
}

function toBytes(s: unknown): Uint8Array {
  if (typeof s === "string") return Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);
  return (s as Uint8Array) ?? new Uint8Array();
}
