// GNU getopt_long as coreutils use it: options anywhere among the operands (until `--`), short
// options bundled (`-la`), a short option's argument attached or next (`-w80`, `-w 80`), long
// options abbreviated to any unambiguous prefix (`--all`, `--al`), `--opt=ARG` or `--opt ARG`,
// and glibc's messages for what it refuses.
import { quote } from "./quote.js";

export interface LongOption {
  name: string;
  /** "none", "required" or "optional" (only `--opt=ARG` gives an optional argument). */
  arg: "none" | "required" | "optional";
  /** What the option is reported as (its short letter, or a name of its own). */
  key: string;
}

export type Parsed = { options: { key: string; arg?: string; name: string }[]; operands: string[] } | { error: string };

/**
 * Parses argv. `short` is getopt's string ("abw:" : w takes an argument); the error is glibc's
 * text, to which the caller adds its "Try '... --help'" line.
 */
export function getoptLong(program: string, argv: string[], short: string, long: readonly LongOption[]): Parsed {
  const options: { key: string; arg?: string; name: string }[] = [];
  const operands: string[] = [];
  const takes = (c: string) => {
    const i = short.indexOf(c);
    return i < 0 ? undefined : short[i + 1] === ":" ? (short[i + 2] === ":" ? "optional" : "required") : "none";
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = a.slice(2, eq < 0 ? undefined : eq);
      const exact = long.find((o) => o.name === name);
      const matches = exact ? [exact] : long.filter((o) => o.name.startsWith(name));
      // Abbreviations of several names that mean the same option are not ambiguous.
      const distinct = matches.filter((o, j) => matches.findIndex((p) => p.key === o.key && p.arg === o.arg) === j);
      if (!matches.length) return { error: `${program}: unrecognized option '${eq < 0 ? a : a.slice(0, eq)}'\n` };
      if (distinct.length > 1) return { error: `${program}: option '${eq < 0 ? a : a.slice(0, eq)}' is ambiguous; possibilities:${matches.map((o) => ` '--${o.name}'`).join("")}\n` };
      const o = matches[0];
      if (o.arg === "none") {
        if (eq >= 0) return { error: `${program}: option '--${o.name}' doesn't allow an argument\n` };
        options.push({ key: o.key, name: `--${o.name}` });
      } else if (eq >= 0) options.push({ key: o.key, arg: a.slice(eq + 1), name: `--${o.name}` });
      else if (o.arg === "optional") options.push({ key: o.key, name: `--${o.name}` });
      else if (i + 1 < argv.length) options.push({ key: o.key, arg: argv[++i], name: `--${o.name}` });
      else return { error: `${program}: option '--${o.name}' requires an argument\n` };
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        const kind = takes(c);
        if (kind === undefined || c === ":") return { error: `${program}: invalid option -- '${c}'\n` };
        if (kind === "none") {
          options.push({ key: c, name: `-${c}` });
          continue;
        }
        const rest = a.slice(j + 1);
        if (rest) options.push({ key: c, arg: rest, name: `-${c}` });
        else if (kind === "optional") options.push({ key: c, name: `-${c}` });
        else if (i + 1 < argv.length) options.push({ key: c, arg: argv[++i], name: `-${c}` });
        else return { error: `${program}: option requires an argument -- '${c}'\n` };
        break;
      }
      continue;
    }
    operands.push(a);
  }
  return { options, operands };
}

/**
 * argmatch's refusal of an option's argument (XARGMATCH): the invalid or ambiguous argument, the
 * valid ones (synonyms on one line), and the usage hint.
 */
export function argmatchError(program: string, option: string, value: string, valid: readonly string[], values: readonly unknown[], utf8: boolean): string {
  const ambiguous = valid.filter((v) => v.startsWith(value)).length > 1 && !valid.includes(value);
  let out = `${program}: ${ambiguous ? "ambiguous" : "invalid"} argument ${quote(value, utf8)} for ${quote(option, utf8)}\nValid arguments are:`;
  let last: unknown = Symbol();
  valid.forEach((v, i) => {
    if (values[i] === last) out += `, ${quote(v, utf8)}`;
    else out += `\n  - ${quote(v, utf8)}`;
    last = values[i];
  });
  return `${out}\nTry '${program} --help' for more information.\n`;
}

/** argmatch: the value an argument names, exactly or by an unambiguous prefix (undefined: none). */
export function argmatch<T>(value: string, valid: readonly string[], values: readonly T[]): T | undefined {
  const exact = valid.indexOf(value);
  if (exact >= 0) return values[exact];
  const found = valid.map((v, i) => [v, values[i]] as const).filter(([v]) => v.startsWith(value));
  if (!found.length || found.some(([, x]) => x !== found[0][1])) return undefined;
  return found[0][1];
}
