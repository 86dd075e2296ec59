// od(1) as GNU coreutils and BusyBox print it (their formats agree for what is here): -A d|o|x|n,
// -t [doux][1248] and c (joined or separate: -tx1, -t x1), -N, -j, -v, and the classic -b -c -d
// -o -x. just-bash's od knows only a separate `-t x1` and ignores -N, so
// `head -c 16 /dev/urandom | od -An -tx1` printed octal.

interface OdResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

type Spec = { kind: "d" | "o" | "u" | "x"; size: 1 | 2 | 4 | 8 } | { kind: "c"; size: 1 };

const USAGE = "Try 'od --help' for more information.\n";

/** Column width of one value per type (GNU's: the widest value plus a space). */
function width(s: Spec): number {
  if (s.kind === "c") return 4;
  const max = { 1: 0xffn, 2: 0xffffn, 4: 0xffffffffn, 8: 0xffffffffffffffffn }[s.size];
  const base = { d: 10, o: 8, u: 10, x: 16 }[s.kind];
  return max.toString(base).length + (s.kind === "d" ? 1 : 0) + 1;
}

const C_ESCAPES: Record<number, string> = { 0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };

/** One value, right-aligned in `w` columns (the type's own width, or a wider one's when several align). */
function format(bytes: Uint8Array, at: number, s: Spec, w: number): string {
  if (s.kind === "c") {
    const b = bytes[at];
    const t = C_ESCAPES[b] ?? (b >= 32 && b < 127 ? String.fromCharCode(b) : b.toString(8).padStart(3, "0"));
    return t.padStart(w, " ");
  }
  let v = 0n;
  for (let i = s.size - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i] ?? 0);
  if (s.kind === "d" && v >= 1n << BigInt(s.size * 8 - 1)) v -= 1n << BigInt(s.size * 8);
  const base = { d: 10, o: 8, u: 10, x: 16 }[s.kind];
  const digits = v.toString(base);
  // Octal and hex are zero-padded to their own full width; decimal is right-aligned.
  if (s.kind === "o" || s.kind === "x") return digits.padStart(width(s) - 1, "0").padStart(w, " ");
  return digits.padStart(w, " ");
}

function parseType(t: string): Spec[] | undefined {
  const out: Spec[] = [];
  const re = /([doux])(1|2|4|8|C|S|I|L)?|c/g;
  let pos = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    if (m.index !== pos) return undefined;
    pos = re.lastIndex;
    if (m[0] === "c") out.push({ kind: "c", size: 1 });
    else {
      const size = ({ C: 1, S: 2, I: 4, L: 8 } as Record<string, number>)[m[2] ?? ""] ?? Number(m[2] ?? 4);
      out.push({ kind: m[1] as "d", size: size as 1 });
    }
  }
  return pos === t.length && out.length ? out : undefined;
}

function parseCount(v: string): number | undefined {
  const m = /^(0x[0-9a-f]+|0[0-7]*|[1-9]\d*)([bkKmM]?)$/i.exec(v);
  if (!m) return undefined;
  const n = m[1].toLowerCase().startsWith("0x") ? parseInt(m[1], 16) : m[1].startsWith("0") && m[1].length > 1 ? parseInt(m[1], 8) : Number(m[1]);
  return n * ({ b: 512, k: 1024, K: 1024, m: 1048576, M: 1048576 }[m[2]] ?? 1);
}

/**
 * Runs od over `read(operand)` for each operand (or stdin). `read` returns the file's bytes, or
 * an error text for the file.
 */
export async function od(args: string[], stdin: Uint8Array, read: (path: string) => Promise<Uint8Array | string>): Promise<OdResult> {
  let radix = "o" as "d" | "o" | "x" | "n";
  const specs: Spec[] = [];
  let limit: number | undefined;
  let skip = 0;
  let verbose = false;
  const files: string[] = [];
  const bad = (msg: string): OdResult => ({ stdout: "", stderr: `od: ${msg}\n${USAGE}`, exitCode: 1 });
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      files.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      files.push(a);
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^-(A|t|N|j)(.*)$/.exec(a)) || (m = /^--(address-radix|format|read-bytes|skip-bytes)=(.*)$/.exec(a))) {
      const opt = { "address-radix": "A", format: "t", "read-bytes": "N", "skip-bytes": "j" }[m[1]] ?? m[1];
      let v = m[2];
      if (v === "" && !a.startsWith("--")) {
        if (i + 1 >= args.length) return bad(`option requires an argument -- '${opt}'`);
        v = args[++i];
      }
      if (opt === "A") {
        if (!/^[doxn]$/.test(v)) return bad(`invalid output address radix '${v}'; it must be one character from [doxn]`);
        radix = v as typeof radix;
      } else if (opt === "t") {
        const s = parseType(v);
        if (!s) {
          const c = v.match(/[^doux1248CSILc]/)?.[0];
          return { stdout: "", stderr: c ? `od: invalid character '${c}' in type string \u2018${v}\u2019\n` : `od: invalid type string \u2018${v}\u2019\n`, exitCode: 1 };
        }
        specs.push(...s);
      } else {
        const n = parseCount(v);
        if (n === undefined) return bad(`invalid ${opt === "N" ? "-N" : "-j"} argument '${v}'`);
        if (opt === "N") limit = n;
        else skip = n;
      }
      continue;
    }
    if (a === "-v" || a === "--output-duplicates") {
      verbose = true;
      continue;
    }
    if (/^-[bcdoxv]+$/.test(a)) {
      for (const f of a.slice(1)) {
        if (f === "v") verbose = true;
        else specs.push(({ b: { kind: "o", size: 1 }, c: { kind: "c", size: 1 }, d: { kind: "u", size: 2 }, o: { kind: "o", size: 2 }, x: { kind: "x", size: 2 } } as Record<string, Spec>)[f]);
      }
      continue;
    }
    return bad(`invalid option -- '${a.replace(/^-+/, "").charAt(0)}'`);
  }
  if (!specs.length) specs.push({ kind: "o", size: 2 });

  const parts: Uint8Array[] = [];
  let stderr = "";
  let exitCode = 0;
  for (const f of files.length ? files : ["-"]) {
    if (f === "-") {
      parts.push(stdin);
      continue;
    }
    const r = await read(f);
    if (typeof r === "string") {
      stderr += `od: ${f}: ${r}\n`;
      exitCode = 1;
    } else parts.push(r);
  }
  let total = 0;
  for (const p of parts) total += p.length;
  let data = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    data.set(p, off);
    off += p.length;
  }
  data = data.subarray(Math.min(skip, data.length), limit === undefined ? undefined : Math.min(data.length, skip + limit));

  const addrWidth = radix === "x" ? 6 : 7;
  const addr = (n: number) => (radix === "n" ? "" : n.toString({ d: 10, o: 8, x: 16 }[radix]).padStart(addrWidth, "0"));
  // Types of one size share a column width, so that `-tx1 -tc` lines up.
  const sameSize = specs.every((s) => s.size === specs[0].size);
  const widest = Math.max(...specs.map(width));
  const lines: string[] = [];
  const block = 16;
  let prev: string | undefined;
  let starred = false;
  for (let at = 0; at < data.length; at += block) {
    const row = data.subarray(at, Math.min(at + block, data.length));
    const key = Array.from(row).join(",");
    if (!verbose && row.length === block && key === prev) {
      if (!starred) lines.push("*");
      starred = true;
      continue;
    }
    prev = key;
    starred = false;
    specs.forEach((s, k) => {
      // A short last row is padded with zero bytes for the wider types, as od does.
      const padded = new Uint8Array(Math.ceil(row.length / s.size) * s.size);
      padded.set(row);
      let text = "";
      for (let i = 0; i < padded.length; i += s.size) text += format(padded, i, s, sameSize ? widest : width(s));
      lines.push((k === 0 ? addr(skip + at) : " ".repeat(radix === "n" ? 0 : addrWidth)) + text);
    });
  }
  // Nothing read at all (every operand failed) prints no address.
  if (radix !== "n" && (parts.length || !files.length)) lines.push(addr(skip + data.length));
  return { stdout: lines.length ? lines.join("\n") + "\n" : "", stderr, exitCode };
}
