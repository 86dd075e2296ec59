// How GNU coreutils quote a file name (gnulib's quotearg): in a diagnostic (`ls: cannot access
// 'a b': ...` is quoteaf, `cat: 'a b': ...` quotef), in ls's listing on a terminal (shell-escape,
// `'a b'`), and quote()'s locale quotes (‘x’ in a UTF-8 locale, 'x' in C).

/** Characters a shell takes specially anywhere in a word (quotearg.c's list). */
const SPECIAL = new Set([..."!\"$&()*;<=>[^`|?\\'"]);
/** Control characters shell-escape writes as $'\n' (the others in octal). */
const ESCAPES: Record<string, string> = { "\x07": "a", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v" };

const isControl = (c: string) => c < " " || c === "\x7f";

/** Whether shell-escape quoting changes `name` (`extra`: characters quoted besides, quotef's ':'). */
export function needsQuoting(name: string, extra = ""): boolean {
  if (name === "") return true;
  const chars = [...name];
  return chars.some((c, i) => SPECIAL.has(c) || c === " " || isControl(c) || extra.includes(c) || ((c === "#" || c === "~") && i === 0) || ((c === "{" || c === "}") && chars.length === 1));
}

/**
 * shell-escape quoting: the name as it is when a shell would read it so, else in single quotes
 * (`'a b'`) with control characters as $'\n', or in double quotes when an apostrophe is its only
 * trouble (`"it's"`). `always` quotes every name (shell-escape-always: quoteaf).
 */
export function shellEscape(name: string, always = false, extra = ""): string {
  if (!always && !needsQuoting(name, extra)) return name;
  const chars = [...name];
  // quotearg's c_and_shell_quote_compat: what reads the same in double quotes.
  const compat = (c: string, i: number) => /[A-Za-z0-9%+,\-./:\]_ ']/.test(c) || c > "\x7f" || ((c === "#" || c === "~") && i === 0) || ((c === "{" || c === "}") && chars.length === 1);
  if (name.includes("'") && chars.every(compat)) return `"${name}"`;
  let out = "'";
  let pending = false;
  for (const c of chars) {
    const esc = ESCAPES[c] ?? (isControl(c) ? c.charCodeAt(0).toString(8).padStart(3, "0") : undefined);
    if (esc !== undefined) {
      if (!pending) out += "'$'";
      pending = true;
      out += `\\${esc}`;
      continue;
    }
    if (pending) out += "''";
    pending = false;
    out += c === "'" ? "'\\''" : c;
  }
  return out + "'";
}

/** quotef: a name in a diagnostic where it leads the message (`cat: /etc: Is a directory`); a colon needs quotes too. */
export function quotef(name: string): string {
  return shellEscape(name, false, ":");
}

/** quoteaf: a name inside a diagnostic, always quoted (`cannot access '/nope'`). */
export function quoteaf(name: string): string {
  return shellEscape(name, true);
}

/** Whether the environment's locale is a UTF-8 one (LC_ALL, then LC_MESSAGES, then LANG). */
export function utf8Locale(env: (name: string) => string | undefined, category = "LC_MESSAGES"): boolean {
  const v = env("LC_ALL") || env(category) || env("LANG") || "";
  return /\.utf-?8$/i.test(v);
}

/** quote(): the locale's quotation marks, ‘x’ in a UTF-8 locale and 'x' in C. */
export function quote(s: string, utf8: boolean): string {
  return utf8 ? `\u2018${s}\u2019` : `'${s}'`;
}
