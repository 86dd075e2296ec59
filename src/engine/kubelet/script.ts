// What a container's command does when it is short and certain to end: a `sh -c` script made
// only of commands that terminate (echo, printf, sleep N, exit N, true, false, date, hostname,
// env joined by `;`, `&&`, `||` and newlines), or one such command alone, runs for the sum of its
// sleeps and exits with the status bash would give, its output lines timed as they are printed.
// Anything else (loops, pipes, redirections, substitutions, other programs) is undefined: the
// kubelet keeps such a container running, as before. Also the Kubernetes docs' Job example,
// `perl -Mbignum=bpi -wle 'print bpi(N)'`, which prints pi to N digits. Pure.

export interface ScriptLine {
  /** Milliseconds after the container started. */
  at: number;
  text: string;
}

export interface ScriptRun {
  lines: ScriptLine[];
  /** Milliseconds after the start at which the process exits. */
  exitAfter: number;
  code: number;
}

export interface ScriptContext {
  hostname: string;
  /** The environment as `env` prints it, in order. */
  env: readonly (readonly [string, string])[];
  /** `date`'s output for a time this many ms after the start. */
  date(offsetMs: number): string;
}

const SHELLS = /^(?:\/usr)?(?:\/bin\/)?(?:sh|bash|ash|dash)$/;
/** The most digits of pi worked out for perl's bpi (a few ms at most). */
const MAX_PI_DIGITS = 10_000;

/**
 * `sh`, `bash`, `/bin/sh` alone: an interactive shell, which ends at once without stdin and which
 * `kubectl run -it` attaches to (anything else runs as a command).
 */
export function isBareShell(argv: readonly string[]): boolean {
  return argv.length === 1 && /^(sh|bash|ash)$/.test(argv[0].slice(argv[0].lastIndexOf("/") + 1));
}

/** What `command` + `args` do, if they are certain to end; undefined to leave them running. */
export function evaluateCommand(argv: readonly string[], ctx: ScriptContext): ScriptRun | undefined {
  if (!argv.length) return undefined;
  if (SHELLS.test(argv[0]) && argv.length >= 3 && argv[1] === "-c") return runScript(argv[2], ctx);
  if (/^(?:\/usr\/bin\/|\/usr\/local\/bin\/)?perl$/.test(argv[0])) return perlPi(argv.slice(1));
  if (argv[0].includes("/")) {
    const base = argv[0].slice(argv[0].lastIndexOf("/") + 1);
    if (!/^\/(usr\/)?bin\//.test(argv[0])) return undefined;
    return runList([{ op: ";", words: [base, ...argv.slice(1)] }], ctx);
  }
  return runList([{ op: ";", words: [...argv] }], ctx);
}

/** A script's output and exit, or undefined when any part of it is not understood. */
export function runScript(script: string, ctx: ScriptContext): ScriptRun | undefined {
  const list = parse(script, ctx);
  return list && runList(list, ctx);
}

interface Step {
  /** How this command joins the one before: `;` (or newline), `&&`, `||`. */
  op: ";" | "&&" | "||";
  words: string[];
}

/** Words and list operators; undefined on anything beyond them (pipes, redirections, $(...)...). */
function parse(src: string, ctx: ScriptContext): Step[] | undefined {
  const steps: Step[] = [];
  let words: string[] = [];
  let word: string | undefined;
  let op: Step["op"] = ";";
  const env = new Map(ctx.env);
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = (next: Step["op"]): boolean => {
    endWord();
    if (!words.length) {
      // `a && ; b` is a syntax error; empty lines and a trailing `;` are not.
      if (next !== ";" || op !== ";") return false;
      return true;
    }
    steps.push({ op, words });
    words = [];
    op = next;
    return true;
  };
  const expand = (i: number): [string, number] | undefined => {
    // $NAME or ${NAME} from the container's environment; anything else is not modelled.
    const m = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/.exec(src.slice(i));
    if (!m) return undefined;
    return [env.get(m[1] ?? m[2]) ?? "", i + m[0].length];
  };
  for (let i = 0; i < src.length; ) {
    const ch = src[i];
    if (ch === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? "") + src.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      let s = "";
      let j = i + 1;
      for (; j < src.length && src[j] !== '"'; j++) {
        if (src[j] === "\\" && '"\\$`'.includes(src[j + 1] ?? "")) s += src[++j];
        else if (src[j] === "$") {
          const e = expand(j);
          if (!e) return undefined;
          s += e[0];
          j = e[1] - 1;
        } else if (src[j] === "`") return undefined;
        else s += src[j];
      }
      if (j >= src.length) return undefined;
      word = (word ?? "") + s;
      i = j + 1;
    } else if (ch === "\\") {
      if (src[i + 1] === "\n") i += 2;
      else {
        word = (word ?? "") + (src[i + 1] ?? "");
        i += 2;
      }
    } else if (ch === "$") {
      const e = expand(i);
      if (!e) return undefined;
      // Unquoted: split on blanks as bash does.
      const parts = e[0].split(/[ \t\n]+/);
      parts.forEach((p, k) => {
        if (k > 0) endWord();
        if (p !== "" || k > 0) word = (word ?? "") + p;
      });
      i = e[1];
    } else if (ch === " " || ch === "\t") {
      endWord();
      i++;
    } else if (ch === "\n" || ch === ";") {
      if (ch === ";" && src[i + 1] === ";") return undefined;
      if (!endCommand(";")) return undefined;
      i++;
    } else if (ch === "&" && src[i + 1] === "&") {
      if (!endCommand("&&")) return undefined;
      i += 2;
    } else if (ch === "|" && src[i + 1] === "|") {
      if (!endCommand("||")) return undefined;
      i += 2;
    } else if (ch === "#" && word === undefined) {
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl;
    } else if ("|&<>(){}`!".includes(ch)) {
      return undefined;
    } else {
      word = (word ?? "") + ch;
      i++;
    }
  }
  endWord();
  if (words.length) steps.push({ op, words });
  else if (op !== ";") return undefined;
  // Reserved words start compound commands (if, for, while...), which are not modelled.
  if (steps.some((s) => /^(if|then|else|elif|fi|for|while|until|do|done|case|esac|function|select|time)$/.test(s.words[0]))) return undefined;
  return steps;
}

function runList(steps: readonly Step[], ctx: ScriptContext): ScriptRun | undefined {
  const lines: ScriptLine[] = [];
  let partial = "";
  let t = 0;
  let status = 0;
  const print = (s: string) => {
    const parts = (partial + s).split("\n");
    partial = parts.pop()!;
    for (const p of parts) lines.push({ at: t, text: p });
  };
  // Every command is checked first: one that is not understood leaves the whole run undefined.
  for (const s of steps) if (!known(s.words)) return undefined;
  for (const s of steps) {
    if ((s.op === "&&" && status !== 0) || (s.op === "||" && status === 0)) continue;
    const [cmd, ...args] = s.words;
    switch (cmd) {
      case "echo":
        status = echo(args, print);
        break;
      case "printf":
        status = printf(args, print);
        break;
      case "sleep":
        t += sleepMs(args)!;
        status = 0;
        break;
      case "true":
      case ":":
        status = 0;
        break;
      case "false":
        status = 1;
        break;
      case "exit": {
        const code = args.length ? Number(args[0]) & 255 : status;
        if (partial) lines.push({ at: t, text: partial });
        return { lines, exitAfter: t, code };
      }
      case "date":
        print(ctx.date(t) + "\n");
        status = 0;
        break;
      case "hostname":
        print(ctx.hostname + "\n");
        status = 0;
        break;
      case "env":
      case "printenv":
        for (const [k, v] of ctx.env) print(`${k}=${v}\n`);
        status = 0;
        break;
    }
  }
  if (partial) lines.push({ at: t, text: partial });
  return { lines, exitAfter: t, code: status };
}

function known(words: readonly string[]): boolean {
  const [cmd, ...args] = words;
  switch (cmd) {
    case "echo":
    case "true":
    case ":":
    case "false":
      return true;
    case "printf":
      return args.length > 0;
    case "sleep":
      return sleepMs(args) !== undefined;
    case "exit":
      return args.length === 0 || (args.length === 1 && /^-?\d+$/.test(args[0]));
    case "date":
    case "hostname":
    case "env":
    case "printenv":
      return args.length === 0;
    default:
      return false;
  }
}

/** sleep's operands (coreutils and busybox: a number with an optional s/m/h/d suffix, summed). */
function sleepMs(args: readonly string[]): number | undefined {
  if (!args.length) return undefined;
  let ms = 0;
  for (const a of args) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
    if (!m) return undefined;
    ms += Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "" | "s" | "m" | "h" | "d"] * 1000;
  }
  return Math.round(ms);
}

function echo(args: string[], print: (s: string) => void): number {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i]); i++) {
    for (const f of args[i].slice(1)) {
      if (f === "n") newline = false;
      else if (f === "e") escapes = true;
      else escapes = false;
    }
  }
  let s = args.slice(i).join(" ");
  if (escapes) {
    const cut = s.indexOf("\\c");
    if (cut >= 0) {
      s = s.slice(0, cut);
      newline = false;
    }
    s = unescape(s);
  }
  print(newline ? s + "\n" : s);
  return 0;
}

function unescape(s: string): string {
  return s.replace(/\\(0[0-7]{0,3}|[abefnrtv\\])/g, (_m, e: string) => {
    if (e[0] === "0") return String.fromCharCode(parseInt(e.slice(1) || "0", 8));
    return { a: "\x07", b: "\b", e: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" }[e] ?? e;
  });
}

/** printf with %s, %d, %i, %c, %% and the usual escapes; the format is reused for more arguments. */
function printf(args: string[], print: (s: string) => void): number {
  const [format, ...rest] = args;
  let status = 0;
  let i = 0;
  do {
    let used = 0;
    const out = unescape(format).replace(/%(-?\d*)([sdic%])/g, (_m, width: string, conv: string) => {
      if (conv === "%") return "%";
      used++;
      const a = rest[i++] ?? "";
      let v = a;
      if (conv === "d" || conv === "i") {
        if (a === "") v = "0";
        else if (/^[-+]?\d+$/.test(a)) v = String(Number(a));
        else {
          status = 1;
          v = "0";
        }
      } else if (conv === "c") v = a.slice(0, 1);
      const w = Math.abs(Number(width) || 0);
      return width.startsWith("-") ? v.padEnd(w) : v.padStart(w);
    });
    print(out);
    if (!used) break;
  } while (i < rest.length);
  return status;
}

// ---------------------------------------------------------------------------------------------
// perl -Mbignum=bpi -wle 'print bpi(N)'

function perlPi(args: readonly string[]): ScriptRun | undefined {
  let bignum = false;
  let code: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-Mbignum=bpi") bignum = true;
    else if (/^-[wl]*e[wl]*$/.test(a) && code === undefined) code = args[++i];
    else if (!/^-[wl]+$/.test(a)) return undefined;
  }
  const m = code === undefined ? null : /^\s*print\s+bpi\((\d+)\);?\s*$/.exec(code);
  if (!bignum || !m) return undefined;
  const n = Number(m[1]);
  if (n < 1 || n > MAX_PI_DIGITS) return undefined;
  const digits = piDigits(n);
  const text = n === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  // With or without -l the log shows one line (without it, a partial one).
  return { lines: [{ at: 0, text }], exitAfter: 0, code: 0 };
}

/**
 * The first `n` significant digits of pi, rounded half to even as Math::BigFloat rounds bpi's
 * result: Machin's formula in BigInt fixed point with guard digits.
 */
export function piDigits(n: number): string {
  const guard = 12;
  const scale = 10n ** BigInt(n + guard);
  const arctanInv = (x: bigint): bigint => {
    // arctan(1/x) = sum (-1)^k / ((2k+1) x^(2k+1))
    const x2 = x * x;
    let term = scale / x;
    let sum = term;
    for (let k = 1n; term !== 0n; k++) {
      term /= x2;
      const t = term / (2n * k + 1n);
      sum += k % 2n ? -t : t;
    }
    return sum;
  };
  const pi = 4n * (4n * arctanInv(5n) - arctanInv(239n));
  const all = pi.toString();
  const keep = all.slice(0, n);
  const rest = all.slice(n);
  const round = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || Number(keep[keep.length - 1]) % 2 === 1));
  return round ? (BigInt(keep) + 1n).toString().slice(0, n) : keep;
}
