// date and touch on the terminal's clock (the cluster's) rather than the host's: just-bash's
// read the wall clock, so "now" is handed to them as an explicit time. date also prints in the
// locale's default format (en_US.UTF-8's date_fmt has a 12-hour clock since glibc 2.29) and
// -I as GNU's date does (the date alone unless asked for more).
import type { CommandContext } from "just-bash";
import { argmatchError } from "./getopt.js";
import { quote, quotef, utf8Locale } from "./quote.js";

type Run = (args: string[]) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

/** The operands date's options take (its short ones may be bundled: -ud @0). */
const DATE_VALUE = /^(-d|--date|-f|--file|-s|--set)$/;

/** date, with the clock's time wherever it would read the host's, and -r's file's time. */
export async function date(args: string[], ctx: Pick<CommandContext, "env" | "fs" | "cwd">, now: number, run: Run): Promise<ReturnType<Run>> {
  const env = (k: string) => ctx.env.get(k);
  const secs = Math.floor(now / 1000);
  const out: string[] = [];
  let given = false;
  let format = false;
  let iso: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const reference = a === "-r" || a === "--reference" ? args[i + 1] : a.startsWith("--reference=") ? a.slice(12) : undefined;
    if (reference !== undefined && (a.includes("=") || i + 1 < args.length)) {
      // -r FILE: the file's modification time (the interpreter's date has no -r).
      if (!a.includes("=")) i++;
      const t = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, reference)).then((s) => s.mtime.getTime(), () => undefined);
      if (t === undefined) return { stdout: "", stderr: `date: ${quotef(reference)}: No such file or directory\n`, exitCode: 1 };
      given = true;
      out.push("-d", `@${Math.floor(t / 1000)}`);
    } else if (DATE_VALUE.test(a) && i + 1 < args.length) {
      given = true;
      out.push(a, relative(args[++i], secs));
    } else if (/^--(date|file|set)=/.test(a)) {
      given = true;
      const eq = a.indexOf("=");
      out.push(a.slice(0, eq + 1) + relative(a.slice(eq + 1), secs));
    } else if (/^-I/.test(a) || /^--iso-8601/.test(a)) iso = a.replace(/^(-I|--iso-8601=?)/, "") || "date";
    else {
      if (a.startsWith("+")) format = true;
      out.push(a);
    }
  }
  if (!given) out.unshift("-d", `@${secs}`);
  const tz = env("TZ");
  if (iso !== undefined && !format && (!tz || tz === "UTC" || tz === "UTC0")) {
    const spec = { date: "%Y-%m-%d", hours: "%Y-%m-%dT%H+00:00", minutes: "%Y-%m-%dT%H:%M+00:00", seconds: "%Y-%m-%dT%H:%M:%S+00:00", ns: "%Y-%m-%dT%H:%M:%S,%N+00:00" }[iso];
    if (spec) out.push(`+${spec}`);
    else return { stdout: "", stderr: argmatchError("date", "--iso-8601", iso, ["hours", "minutes", "date", "seconds", "ns"], [1, 2, 3, 4, 5], utf8Locale(env)), exitCode: 1 };
  } else if (iso !== undefined) out.push("-I");
  // The locale's format when none is asked for (date_fmt; C's is just-bash's own).
  else if (!format && !out.some((a) => /^(-R|--rfc-email|--rfc-2822)$/.test(a) || /^--rfc-3339/.test(a)) && utf8Locale(env, "LC_TIME") && /^en_US/.test(env("LC_ALL") || env("LC_TIME") || env("LANG") || "")) out.push("+%a %b %e %r %Z %Y");
  const r = await run(out);
  // date quotes what it cannot read in the locale's quotes (quote()).
  return { ...r, stderr: r.stderr.replace(/^date: invalid date '(.*)'$/m, (_m, v: string) => `date: invalid date ${quote(v, utf8Locale(env))}`) };
}

/** A date string's words for the present, as the time they name. */
function relative(value: string, secs: number): string {
  const v = value.trim().toLowerCase();
  if (v === "now" || v === "today") return `@${secs}`;
  if (v === "yesterday") return `@${secs - 86_400}`;
  if (v === "tomorrow") return `@${secs + 86_400}`;
  return value;
}

/** touch: the clock's time unless a time is given (-d), and -t's STAMP and -r's FILE read here. */
export async function touch(args: string[], ctx: Pick<CommandContext, "fs" | "cwd" | "env">, now: number, run: Run): Promise<ReturnType<Run>> {
  const utf8 = utf8Locale((k) => ctx.env.get(k));
  const out: string[] = [];
  let when: string | undefined = new Date(now).toISOString();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      out.push(...args.slice(i));
      break;
    }
    if ((a === "-d" || a === "--date") && i + 1 < args.length) {
      when = undefined;
      out.push(a, args[++i]);
    } else if (a.startsWith("--date=")) {
      when = undefined;
      out.push(a);
    } else if ((a === "-t" || a === "-r" || a === "--reference") && i + 1 < args.length) {
      const v = args[++i];
      const t = a === "-t" ? stamp(v, now) : await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, v)).then((s) => s.mtime.getTime(), () => undefined);
      if (t === undefined) {
        return a === "-t"
          ? { stdout: "", stderr: `touch: invalid date format ${quote(v, utf8)}\n`, exitCode: 1 }
          : { stdout: "", stderr: `touch: failed to get attributes of '${v}': No such file or directory\n`, exitCode: 1 };
      }
      when = new Date(t).toISOString();
    } else out.push(a);
  }
  const r = await run(when ? ["-d", when, ...out] : out);
  return { ...r, stderr: r.stderr.replace(/^touch: invalid date format '(.*)'$/m, (_m, v: string) => `touch: invalid date format ${quote(v, utf8)}`) };
}

/** -t's [[CC]YY]MMDDhhmm[.ss], in UTC (the node's zone); undefined when it is not one. */
function stamp(v: string, now: number): number | undefined {
  const m = /^(\d{2}|\d{4})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?$/.exec(v);
  if (!m) return undefined;
  let year = new Date(now).getUTCFullYear();
  if (m[1]?.length === 4) year = Number(m[1]);
  else if (m[1]) year = Number(m[1]) + (Number(m[1]) < 69 ? 2000 : 1900);
  const t = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  return Number.isNaN(t) ? undefined : t;
}
