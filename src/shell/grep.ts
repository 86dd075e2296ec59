// just-bash's grep keeps only the last -e pattern. GNU grep matches a line if any pattern
// matches; we fold every pattern into one extended regex (each basic regex translated to ERE)
// and hand it to the original grep, so its other flags keep working.

const SHORT_WITH_ARG = new Set(["e", "f", "m", "A", "B", "C", "d", "D"]);

/** A POSIX basic regular expression rewritten as an extended one. */
function breToEre(bre: string): string {
  let out = "";
  for (let i = 0; i < bre.length; i++) {
    const ch = bre[i];
    if (ch === "\\" && i + 1 < bre.length) {
      const n = bre[++i];
      if ("(){}|+?".includes(n)) out += n;
      else out += "\\" + n;
    } else if ("(){}|+?".includes(ch)) out += "\\" + ch;
    else out += ch;
  }
  return out;
}

function escapeFixed(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Rewrites argv so that several -e patterns become one -E pattern; undefined when not needed. */
export function foldPatterns(argv: string[]): string[] | undefined {
  const patterns: string[] = [];
  const rest: string[] = [];
  let mode: "G" | "E" | "F" = "G";
  let ended = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (ended || a === "-" || !a.startsWith("-")) {
      rest.push(a);
      continue;
    }
    if (a === "--") {
      ended = true;
      rest.push(a);
      continue;
    }
    if (a.startsWith("--regexp=")) {
      patterns.push(a.slice(9));
      continue;
    }
    if (a === "--regexp") {
      patterns.push(argv[++i] ?? "");
      continue;
    }
    if (a === "--extended-regexp") mode = "E";
    if (a === "--fixed-strings") mode = "F";
    if (a.startsWith("--")) {
      rest.push(a);
      continue;
    }
    // A cluster of short flags, possibly ending in one that takes an argument.
    let kept = "-";
    for (let j = 1; j < a.length; j++) {
      const ch = a[j];
      if (ch === "E") mode = "E";
      else if (ch === "F") mode = "F";
      else if (ch === "G") mode = "G";
      if (ch === "e") {
        const v = a.slice(j + 1) || argv[++i] || "";
        patterns.push(v);
        break;
      }
      if (SHORT_WITH_ARG.has(ch)) {
        const v = a.slice(j + 1);
        kept += ch;
        if (kept.length > 1) rest.push(kept);
        kept = "";
        if (v) rest.push(v);
        else if (i + 1 < argv.length) rest.push(argv[++i]);
        break;
      }
      if (ch !== "E" && ch !== "F" && ch !== "G") kept += ch;
    }
    if (kept.length > 1) rest.push(kept);
  }
  if (patterns.length < 2) return undefined;
  const ere = patterns.map((p) => (mode === "F" ? escapeFixed(p) : mode === "E" ? p : breToEre(p)));
  const combined = ere.map((p) => (p === "" ? "" : `(${p})`)).join("|");
  return ["-E", "-e", combined, ...rest];
}
