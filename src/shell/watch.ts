// procps-ng's watch (Rocky 9: 3.3.17): runs a command through `sh -c` every interval and shows
// its output (stdout and stderr) full screen under a header, until Ctrl-C, which it catches:
// it leaves the screen as it found it and exits 0. On the terminal it draws in the alternate
// screen (curses' initscr/endwin), so nothing of it stays once it ends; elsewhere (a pipe) it
// writes each screen as text.
import { defineCommand } from "just-bash";
import type { Command } from "just-bash";
import type { LineTime } from "./time.js";

/** What watch needs of the terminal it runs in. */
interface WatchHost {
  readonly lineTime: LineTime;
  readonly terminalColumns: number;
  readonly node: string;
  takeTty(name: string): ((chunk: string, kept?: boolean) => void) | undefined;
  caughtInterrupt(): void;
}

const USAGE = `
Usage:
 watch [options] command

Options:
  -b, --beep             beep if command has a non-zero exit
  -c, --color            interpret ANSI color and style sequences
  -d, --differences[=<permanent>]
                         highlight changes between updates
  -e, --errexit          exit if command has a non-zero exit
  -g, --chgexit          exit when output from command changes
  -n, --interval <secs>  seconds to wait between updates
  -p, --precise          attempt run command in precise intervals
  -t, --no-title         turn off header
  -x, --exec             pass command to exec instead of "sh -c"

 -h, --help     display this help and exit
 -v, --version  output version information and exit

For more details see watch(1).
`;

const LONG: Record<string, string> = { color: "c", differences: "d", help: "h", interval: "n", beep: "b", errexit: "e", chgexit: "g", exec: "x", precise: "p", "no-title": "t", version: "v" };

interface Options {
  interval: number;
  title: boolean;
  exec: boolean;
  chgexit: boolean;
  command: string[];
}

type Parsed = Options | { stdout: string; stderr: string; exitCode: number };

/** getopt_long with "+bced::ghn:pvtx": options stop at the first operand. */
function parseArgs(args: string[]): Parsed {
  const o: Options = { interval: 2, title: true, exec: false, chgexit: false, command: [] };
  const usageErr = (msg: string) => ({ stdout: "", stderr: msg + USAGE, exitCode: 1 });
  let i = 0;
  const flag = (c: string, value: () => string | undefined): Parsed | undefined => {
    switch (c) {
      case "b":
      case "c":
      case "p":
        return undefined;
      case "d":
        return undefined;
      case "e":
        return undefined;
      case "g":
        o.chgexit = true;
        return undefined;
      case "t":
        o.title = false;
        return undefined;
      case "x":
        o.exec = true;
        return undefined;
      case "h":
        return { stdout: USAGE, stderr: "", exitCode: 0 };
      case "v":
        return { stdout: "watch from procps-ng 3.3.17\n", stderr: "", exitCode: 0 };
      case "n": {
        const v = value();
        if (v === undefined) return usageErr("watch: option requires an argument -- 'n'\n");
        const n = Number(v.trim());
        if (v.trim() === "" || !Number.isFinite(n)) return { stdout: "", stderr: `watch: failed to parse argument: '${v}'\n`, exitCode: 1 };
        o.interval = Math.min(Math.max(n, 0.1), 4294);
        return undefined;
      }
      default:
        return usageErr(`watch: invalid option -- '${c}'\n`);
    }
  };
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (a.startsWith("--")) {
      const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const matches = Object.keys(LONG).filter((k) => k.startsWith(name));
      const full = matches.includes(name) ? name : matches.length === 1 ? matches[0] : undefined;
      if (!full) return usageErr(matches.length > 1 ? `watch: option '${a}' is ambiguous\n` : `watch: unrecognized option '${a}'\n`);
      const c = LONG[full];
      if (inline !== undefined && c !== "n" && c !== "d") return usageErr(`watch: option '--${full}' doesn't allow an argument\n`);
      const r = flag(c, () => (inline !== undefined ? inline : args[++i]));
      if (r) return r;
      continue;
    }
    if (!a.startsWith("-") || a === "-") break;
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (c === "n") {
        const rest = a.slice(j + 1);
        const r = flag(c, () => (rest ? rest : args[++i]));
        if (r) return r;
        break;
      }
      if (c === "d") {
        // -d takes an optional argument only when attached (-dpermanent).
        break;
      }
      const r = flag(c, () => undefined);
      if (r) return r;
    }
  }
  o.command = args.slice(i);
  if (!o.command.length) return usageErr("");
  return o;
}

/** ctime(3) in UTC, as the node's clock reads: "Wed Dec  2 03:19:24 2026". */
function ctime(ms: number): string {
  const d = new Date(ms);
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][d.getUTCDay()];
  const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  const p2 = (n: number) => String(n).padStart(2, "0");
  return `${day} ${mon} ${String(d.getUTCDate()).padStart(2, " ")} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** The header line as output_header() lays it out at `width` columns. */
function header(interval: number, command: string, host: string, now: number, width: number): string {
  const left = `Every ${interval.toFixed(1)}s: `;
  const ts = `${host}: ${ctime(now)}`;
  // procps counts ctime's newline: the time ends in the last column.
  const tsl = ts.length + 1;
  if (width < tsl) return "";
  const line: string[] = Array.from({ length: width }, () => " ");
  const put = (col: number, text: string) => {
    for (let k = 0; k < text.length && col + k < width; k++) line[col + k] = text[k];
  };
  const hlen = left.length;
  if (tsl + hlen + 1 <= width) {
    put(0, left);
    if (tsl + hlen + 2 <= width) {
      if (width < tsl + hlen + 4) put(width - tsl - 4, "... ");
      else if (width < tsl + hlen + command.length) {
        put(hlen, command.slice(0, width - tsl - hlen - 4));
        put(width - tsl - 4, "... ");
      } else put(hlen, command);
    }
  }
  put(width - tsl + 1, ts);
  return line.join("").trimEnd();
}

/** The command's output as the screen shows it: tabs to 8 columns, long lines wrapped. */
function screenLines(text: string, width: number): string[] {
  const out: string[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const raw of lines) {
    let line = "";
    for (const ch of raw) {
      if (ch === "\t") line += " ".repeat(8 - (line.length % 8));
      else if (ch >= " " || ch > "\x7f") line += ch;
    }
    if (!line) out.push("");
    for (let k = 0; k < line.length; k += width) out.push(line.slice(k, k + width));
  }
  return out;
}

export function watchCommand(host: WatchHost): Command {
  return defineCommand("watch", async (args, ctx) => {
    const o = parseArgs(args);
    if (!("command" in o)) return o;
    const time = host.lineTime;
    const tty = host.takeTty("watch");
    const width = host.terminalColumns;
    const command = o.command.join(" ");
    // -x runs argv itself: quoted back into one line for the shell that runs it.
    const line = o.exec ? o.command.map((w) => (/^[\w./:=,@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(" ") : command;
    let text = "";
    // On the terminal the screens are drawn in the alternate screen: nothing of them stays.
    const emit = (s: string) => (tty ? tty(s, false) : (text += s));
    if (tty) emit("\x1b[?1049h");
    let last: string | undefined;
    let unchangedSince = time.now();
    for (;;) {
      const r = await ctx.exec!(line, { cwd: ctx.cwd });
      if (time.stopped || ctx.signal?.aborted) break;
      const shown = r.stdout + r.stderr;
      const screen = [...(o.title ? [header(o.interval, command, host.node, time.now(), width), ""] : []), ...screenLines(shown, width)].join("\n") + "\n";
      emit((tty ? "\x1b[H\x1b[2J" : "") + screen);
      if (o.chgexit && last !== undefined && shown !== last) break;
      if (shown !== last) unchangedSince = time.now();
      last = shown;
      // A simulated clock's script stops a watch that has shown the same thing for a while.
      if (time.quietMs !== undefined && time.now() - unchangedSince >= time.quietMs) break;
      if (!(await time.wait(o.interval * 1000, ctx.signal))) break;
    }
    if (tty) emit("\x1b[?1049l");
    // watch catches SIGINT and exits 0 (die() -> do_exit(0)).
    if (time.stopped) host.caughtInterrupt();
    return { stdout: text, stderr: "", exitCode: 0 };
  });
}
