// Go's text/template (Go 1.24, as kubectl 1.33 is built), for kubectl's -o go-template: the
// lexer and parser (trim markers, comments, variables, if/else if/with/range/else, break and
// continue, parenthesised pipelines, literals) with Go's error texts and positions, and an
// evaluator over the object as kubectl hands it over (k8s.io/apimachinery/pkg/util/json's decode
// into map[string]interface{}: integral numbers are int64, others float64). Values print with
// fmt's %v (maps "map[k:v]" with sorted keys, slices "[a b]", nil in a container "<nil>", a
// missing value "<no value>"); printf implements fmt's verbs, flags, width and precision and its
// "%!d(string=x)" complaints. Builtins: and, or, not, len, index, slice, print, printf, println,
// eq, ne, lt, le, gt, ge, html, js, urlquery, call; plus the functions a caller adds (kubectl:
// exists, base64decode). Pure: no I/O.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

// ---------------------------------------------------------------------------------------------
// Values

/** A Go number whose type the JSON data does not tell: literals (int, float64), len (int), a byte of a string (uint8). */
export class GoNum {
  constructor(
    readonly type: "int" | "int64" | "float64" | "uint8",
    readonly v: number,
  ) {}
}

/**
 * A value as the evaluator holds it: `undefined` is Go's invalid reflect.Value (a missing key:
 * "<no value>"), `null` a nil interface{} (JSON null), JS numbers are int64 when integral and
 * float64 otherwise, objects are map[string]interface{} and arrays []interface{}.
 */
export type GoValue = Any;

/** A value and whether Go holds it in an interface{} (a map or slice element): some error texts say so. */
interface V {
  v: GoValue;
  iface: boolean;
}

const val = (v: GoValue, iface = false): V => ({ v, iface });

type Kind = "invalid" | "nil" | "bool" | "int" | "uint" | "float" | "string" | "map" | "slice";

function kindOf(v: GoValue): Kind {
  if (v === undefined) return "invalid";
  if (v === null) return "nil";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (v instanceof GoNum) return v.type === "float64" ? "float" : v.type === "uint8" ? "uint" : "int";
  if (Array.isArray(v)) return "slice";
  return "map";
}

const num = (v: GoValue): number => (v instanceof GoNum ? v.v : (v as number));

/** The Go type of a value, as %T and error messages name it. */
export function goTypeName(v: GoValue): string {
  if (v instanceof GoNum) return v.type;
  switch (kindOf(v)) {
    case "nil":
      return "interface {}";
    case "bool":
      return "bool";
    case "string":
      return "string";
    case "int":
      return "int64";
    case "float":
      return "float64";
    case "slice":
      return "[]interface {}";
    case "map":
      return "map[string]interface {}";
  }
  return "<nil>";
}

function truth(v: GoValue): boolean {
  switch (kindOf(v)) {
    case "invalid":
    case "nil":
      return false;
    case "bool":
      return v as boolean;
    case "string":
    case "slice":
      return (v as string | unknown[]).length > 0;
    case "map":
      return Object.keys(v).length > 0;
    default:
      return num(v) !== 0;
  }
}

// ---------------------------------------------------------------------------------------------
// fmt

interface Flags {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
}

const NOFLAGS: Flags = { minus: false, plus: false, sharp: false, space: false, zero: false };

function pad(s: string, f: Flags, zeroOk = false): string {
  const n = f.width ?? 0;
  const len = [...s].length;
  if (len >= n) return s;
  if (f.minus) return s + " ".repeat(n - len);
  if (f.zero && zeroOk) {
    const sign = /^[+-]/.test(s) ? s[0] : "";
    return sign + "0".repeat(n - len) + s.slice(sign.length);
  }
  return " ".repeat(n - len) + s;
}

/** strconv.Quote: Go's escapes, printable runes kept. */
export function goQuote(s: string, ascii = false): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c < 0x7f) out += ch;
    else if (!ascii && /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (c === 0xfffd) out += "\\ufffd";
    else if (c < 0x10000) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += "\\U" + c.toString(16).padStart(8, "0");
  }
  return out + '"';
}

/** Go's %e exponent: a sign and at least two digits. */
function goExp(s: string): string {
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** strconv.FormatFloat(v, 'g', -1, 64), as %v prints a float64. */
function formatFloat(v: number, verb = "g", prec?: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  switch (verb) {
    case "e":
    case "E": {
      const s = goExp(v.toExponential(prec ?? 6));
      return verb === "E" ? s.toUpperCase() : s;
    }
    case "f":
    case "F": {
      // toFixed rounds an exact tie away from zero; Go rounds it to even.
      const p = prec ?? 6;
      const scaled = Math.abs(v) * 10 ** p;
      if (p <= 20 && scaled % 1 === 0.5 && Math.floor(scaled) % 2 === 0) return (Math.sign(v) * Math.floor(scaled) / 10 ** p).toFixed(p);
      return v.toFixed(p);
    }
    default: {
      // %g: shortest digits (or prec significant ones, trailing zeros dropped); the exponent form
      // when the exponent is below -4 or reaches the precision (6 when shortest), as strconv's 'g'.
      const e = prec === undefined ? v.toExponential() : v.toExponential(Math.min(100, Math.max(0, (prec || 1) - 1)));
      const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e)!;
      const exp = Number(m[4]);
      const digits = (m[2] + (m[3] ?? "")).replace(/(.)0+$/, "$1");
      let eprec = prec === undefined ? 6 : prec || 1;
      if (prec !== undefined && eprec > digits.length && digits.length >= exp + 1) eprec = digits.length;
      let s: string;
      if (exp < -4 || exp >= eprec) {
        const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
        s = `${m[1]}${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
      } else if (exp < 0) {
        s = `${m[1]}0.${"0".repeat(-exp - 1)}${digits}`;
      } else {
        const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
        const frac = digits.slice(exp + 1);
        s = `${m[1]}${int}${frac ? "." + frac : ""}`;
      }
      return verb === "G" ? s.toUpperCase() : s;
    }
  }
}

function badVerb(verb: string, v: GoValue): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${fmtValue(v, "v", NOFLAGS)})`;
}

function fmtInt(v: GoValue, verb: string, f: Flags): string {
  const n = num(v);
  let digits: string;
  const a = Math.abs(n);
  switch (verb) {
    case "v":
    case "d":
      digits = String(a);
      break;
    case "b":
      digits = a.toString(2);
      break;
    case "o":
    case "O":
      digits = a.toString(8);
      break;
    case "x":
      digits = a.toString(16);
      break;
    case "X":
      digits = a.toString(16).toUpperCase();
      break;
    case "c":
      return pad(String.fromCodePoint(n), f);
    case "q":
      return pad(`'${String.fromCodePoint(n).replace(/['\\]/g, "\\$&")}'`, f);
    case "U": {
      const u = "U+" + n.toString(16).toUpperCase().padStart(4, "0");
      return pad(f.sharp ? `${u} '${String.fromCodePoint(n)}'` : u, f);
    }
    default:
      return badVerb(verb, v);
  }
  if (f.prec !== undefined) digits = digits.padStart(f.prec, "0");
  if (verb === "O") digits = "0o" + digits;
  else if (f.sharp && verb === "o" && digits[0] !== "0") digits = "0" + digits;
  else if (f.sharp && verb === "x") digits = "0x" + digits;
  else if (f.sharp && verb === "X") digits = "0X" + digits;
  const sign = n < 0 ? "-" : f.plus ? "+" : f.space ? " " : "";
  return pad(sign + digits, f, f.prec === undefined);
}

/** fmt's formatting of one operand with a verb: %v of maps, slices, nil; the verbs of each kind. */
export function fmtValue(v: GoValue, verb: string, f: Flags = NOFLAGS): string {
  if (verb === "T") return pad(v === null || v === undefined ? "<nil>" : goTypeName(v), f);
  switch (kindOf(v)) {
    case "invalid":
    case "nil":
      return verb === "v" ? pad("<nil>", f) : badVerb(verb, null);
    case "bool":
      return verb === "v" || verb === "t" ? pad(String(v), f) : badVerb(verb, v);
    case "int":
    case "uint":
      return fmtInt(v, verb, f);
    case "float": {
      const x = num(v);
      if (!"vbeEfFgGxX".includes(verb)) return badVerb(verb, v);
      let s = formatFloat(x, verb === "v" ? "g" : verb, f.prec);
      if (f.plus && !s.startsWith("-") && !s.startsWith("+")) s = "+" + s;
      else if (f.space && !s.startsWith("-")) s = " " + s;
      if (s === "+Inf" && !f.plus) s = f.space ? " Inf" : "+Inf";
      return pad(s, f, Number.isFinite(x));
    }
    case "string": {
      let s = v as string;
      if (f.prec !== undefined && verb !== "x" && verb !== "X") s = [...s].slice(0, f.prec).join("");
      switch (verb) {
        case "v":
        case "s":
          return pad(s, f);
        case "q":
          return pad(f.sharp && !s.includes("`") ? "`" + s + "`" : goQuote(s, f.plus), f);
        case "x":
        case "X": {
          const hex = [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join(f.space ? " " : "");
          return pad(verb === "X" ? hex.toUpperCase() : hex, f);
        }
        default:
          return badVerb(verb, v);
      }
    }
    case "slice":
      return "[" + (v as GoValue[]).map((x) => fmtValue(x, verb, f)).join(" ") + "]";
    case "map":
      return "map[" + Object.keys(v).sort(byteOrder).map((k) => `${fmtValue(k, verb, f)}:${fmtValue(v[k], verb, f)}`).join(" ") + "]";
  }
}

/** Go's string order (bytes of UTF-8; code points agree with it): sort.Strings, `<` on strings. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const ai = [...a];
  const bi = [...b];
  for (let i = 0; i < ai.length && i < bi.length; i++) {
    if (ai[i] !== bi[i]) return ai[i].codePointAt(0)! - bi[i].codePointAt(0)!;
  }
  return ai.length - bi.length;
}

/** fmt.Sprint: operands with %v, a space between two operands when neither is a string. */
function sprint(args: GoValue[]): string {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    if (i > 0 && typeof args[i] !== "string" && typeof args[i - 1] !== "string") out += " ";
    out += fmtValue(args[i], "v");
  }
  return out;
}

/** fmt.Sprintln: operands with %v, spaces between, a newline after. */
function sprintln(args: GoValue[]): string {
  return args.map((a) => fmtValue(a, "v")).join(" ") + "\n";
}

/** fmt.Sprintf: flags, width, precision (and *), argument indexes, fmt's complaints. */
export function sprintf(format: string, args: GoValue[]): string {
  let out = "";
  let argi = 0;
  let reordered = false;
  const chars = [...format];
  for (let i = 0; i < chars.length; ) {
    if (chars[i] !== "%") {
      out += chars[i++];
      continue;
    }
    i++;
    const f: Flags = { ...NOFLAGS };
    for (; i < chars.length; i++) {
      const c = chars[i];
      if (c === "-") f.minus = true;
      else if (c === "+") f.plus = true;
      else if (c === "#") f.sharp = true;
      else if (c === " ") f.space = true;
      else if (c === "0") f.zero = !f.minus;
      else break;
    }
    if (f.minus) f.zero = false;
    const argIndex = () => {
      const m = /^\[(\d+)\]/.exec(chars.slice(i, i + 12).join(""));
      if (m) {
        argi = Number(m[1]) - 1;
        reordered = true;
        i += m[0].length;
      }
    };
    const number = (): number | undefined => {
      let s = "";
      while (i < chars.length && /\d/.test(chars[i])) s += chars[i++];
      return s === "" ? undefined : Number(s);
    };
    argIndex();
    if (chars[i] === "*") {
      i++;
      const a = args[argi++];
      if (kindOf(a) === "int") {
        f.width = num(a);
        if (f.width < 0) {
          f.minus = true;
          f.zero = false;
          f.width = -f.width;
        }
      } else out += "%!(BADWIDTH)";
    } else f.width = number();
    if (chars[i] === ".") {
      i++;
      argIndex();
      if (chars[i] === "*") {
        i++;
        const a = args[argi++];
        if (kindOf(a) === "int") f.prec = num(a);
        else out += "%!(BADPREC)";
      } else f.prec = number() ?? 0;
    }
    argIndex();
    if (i >= chars.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = chars[i++];
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const a = args[argi++];
    if (verb === "v") f.plus = false; // %+v: struct field names, not signs
    if (verb === "v" && f.sharp) out += goSyntax(a);
    else if (verb === "w") out += badVerb(verb, a);
    else out += fmtValue(a, verb, f);
  }
  if (!reordered && argi < args.length) {
    out += "%!(EXTRA " + args.slice(argi).map((a) => (a === null || a === undefined ? "<nil>" : `${goTypeName(a)}=${fmtValue(a, "v")}`)).join(", ") + ")";
  }
  return out;
}

/** %#v: Go syntax of the value. */
function goSyntax(v: GoValue): string {
  switch (kindOf(v)) {
    case "invalid":
    case "nil":
      return "<nil>";
    case "string":
      return goQuote(v);
    case "slice":
      return "[]interface {}{" + (v as GoValue[]).map(goSyntax).join(", ") + "}";
    case "map":
      return "map[string]interface {}{" + Object.keys(v).sort(byteOrder).map((k) => `${goQuote(k)}:${goSyntax(v[k])}`).join(", ") + "}";
    default:
      return fmtValue(v, "v");
  }
}

// ---------------------------------------------------------------------------------------------
// Lexer

type ItemType =
  | "error" | "bool" | "char" | "charConstant" | "comment" | "complex" | "assign" | "declare" | "eof" | "field" | "identifier"
  | "leftDelim" | "leftParen" | "number" | "pipe" | "rawString" | "rightDelim" | "rightParen" | "space" | "string" | "text" | "variable"
  | "block" | "break" | "continue" | "dot" | "define" | "else" | "end" | "if" | "nil" | "range" | "template" | "with";

const KEYWORDS = new Set<ItemType>(["block", "break", "continue", "dot", "define", "else", "end", "if", "nil", "range", "template", "with"]);
const KEY: Record<string, ItemType> = { ".": "dot", block: "block", break: "break", continue: "continue", define: "define", else: "else", end: "end", if: "if", range: "range", nil: "nil", template: "template", with: "with" };

interface Item {
  typ: ItemType;
  pos: number;
  val: string;
  line: number;
}

function itemString(i: Item): string {
  if (i.typ === "eof") return "EOF";
  if (i.typ === "error") return i.val;
  if (KEYWORDS.has(i.typ)) return `<${i.val}>`;
  if ([...i.val].length > 10) return `${goQuote([...i.val].slice(0, 10).join(""))}...`;
  return goQuote(i.val);
}

const isSpace = (r: string | undefined) => r === " " || r === "\t" || r === "\r" || r === "\n";
const isAlphaNumeric = (r: string | undefined) => r !== undefined && (r === "_" || /^[\p{L}\p{Nd}]$/u.test(r));
const LEFT = "{{";
const RIGHT = "}}";

/** %#U of a rune: U+007D '}'. */
function goRune(r: string): string {
  const c = r.codePointAt(0)!;
  const u = "U+" + c.toString(16).toUpperCase().padStart(4, "0");
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u.test(r) ? `${u} '${r}'` : u;
}

function lex(input: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  const emit = (typ: ItemType) => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: startLine });
    line += countNl(input.slice(start, pos));
    start = pos;
    startLine = line;
  };
  const countNl = (s: string) => s.split("\n").length - 1;
  const ignore = () => {
    line += countNl(input.slice(start, pos));
    start = pos;
    startLine = line;
  };
  const errorf = (msg: string): false => {
    items.push({ typ: "error", pos: start, val: msg, line: startLine });
    return false;
  };
  const next = (): string | undefined => {
    if (pos >= input.length) return undefined;
    const r = String.fromCodePoint(input.codePointAt(pos)!);
    pos += r.length;
    return r;
  };
  /** The rest of a "..." string or '...' character constant (Go's lexQuote and lexChar): backslash escapes, no newline. */
  const quoted = (quote: string, unterminated: string): boolean => {
    for (;;) {
      const c = next();
      if (c === "\\") {
        const d = next();
        if (d !== undefined && d !== "\n") continue;
        return errorf(unterminated);
      }
      if (c === undefined || c === "\n") return errorf(unterminated);
      if (c === quote) return true;
    }
  };
  const peek = (): string | undefined => (pos >= input.length ? undefined : String.fromCodePoint(input.codePointAt(pos)!));
  const accept = (valid: string) => {
    const r = peek();
    if (r !== undefined && valid.includes(r)) {
      pos += r.length;
      return true;
    }
    return false;
  };
  const acceptRun = (valid: string) => {
    while (accept(valid));
  };
  const hasLeftTrim = (s: string) => s.length >= 2 && s[0] === "-" && isSpace(s[1]);
  const hasRightTrim = (s: string) => s.length >= 2 && isSpace(s[0]) && s[1] === "-";
  const atRightDelim = (): [boolean, boolean] => {
    if (input.startsWith(RIGHT, pos)) return [true, false];
    if (hasRightTrim(input.slice(pos, pos + 2)) && input.startsWith(RIGHT, pos + 2)) return [true, true];
    return [false, false];
  };
  const atTerminator = () => {
    const r = peek();
    if (r === undefined || isSpace(r) || ".,|:()".includes(r)) return true;
    return input.startsWith(RIGHT, pos);
  };
  const leftTrimLength = (s: string) => s.length - s.replace(/^[ \t\r\n]+/, "").length;

  const lexText = (): boolean => {
    const x = input.indexOf(LEFT, pos);
    if (x >= 0) {
      if (x > pos) {
        pos = x;
        let trim = 0;
        if (hasLeftTrim(input.slice(pos + LEFT.length, pos + LEFT.length + 2))) {
          const t = input.slice(start, pos);
          trim = t.length - t.replace(/[ \t\r\n]+$/, "").length;
        }
        pos -= trim;
        if (pos > start) emit("text");
        pos += trim;
        ignore();
      }
      return lexLeftDelim();
    }
    pos = input.length;
    if (pos > start) emit("text");
    emit("eof");
    return false;
  };
  const lexLeftDelim = (): boolean => {
    pos += LEFT.length;
    const trim = hasLeftTrim(input.slice(pos, pos + 2));
    const after = trim ? 2 : 0;
    if (input.startsWith("/*", pos + after)) {
      pos += after;
      ignore();
      return lexComment();
    }
    emit("leftDelim");
    pos += after;
    ignore();
    parenDepth = 0;
    return insideAction();
  };
  const lexComment = (): boolean => {
    pos += 2;
    const x = input.indexOf("*/", pos);
    if (x < 0) return errorf("unclosed comment");
    pos = x + 2;
    const [delim, trim] = atRightDelim();
    if (!delim) return errorf("comment ends before closing delimiter");
    emit("comment");
    if (trim) pos += 2;
    pos += RIGHT.length;
    if (trim) pos += leftTrimLength(input.slice(pos));
    ignore();
    return true;
  };
  const lexRightDelim = (): boolean => {
    const [, trim] = atRightDelim();
    if (trim) {
      pos += 2;
      ignore();
    }
    pos += RIGHT.length;
    emit("rightDelim");
    if (trim) {
      pos += leftTrimLength(input.slice(pos));
      ignore();
    }
    return true;
  };
  const insideAction = (): boolean => {
    for (;;) {
      const [delim] = atRightDelim();
      if (delim) {
        if (parenDepth === 0) return lexRightDelim();
        return errorf("unclosed left paren");
      }
      const r = next();
      if (r === undefined) return errorf("unclosed action");
      if (isSpace(r)) {
        pos -= r.length;
        let n = 0;
        while (isSpace(peek())) {
          next();
          n++;
        }
        if (hasRightTrim(input.slice(pos - 1, pos + 1)) && input.startsWith(RIGHT, pos + 1)) {
          pos--;
          if (n === 1) continue;
        }
        emit("space");
      } else if (r === "=") emit("assign");
      else if (r === ":") {
        if (next() !== "=") return errorf("expected :=");
        emit("declare");
      } else if (r === "|") emit("pipe");
      else if (r === '"') {
        if (!quoted('"', "unterminated quoted string")) return false;
        emit("string");
      } else if (r === "`") {
        for (;;) {
          const c = next();
          if (c === undefined) return errorf("unterminated raw quoted string");
          if (c === "`") break;
        }
        emit("rawString");
      } else if (r === "$") {
        if (atTerminator()) emit("variable");
        else if (!fieldOrVariable("variable")) return false;
      } else if (r === "'") {
        if (!quoted("'", "unterminated character constant")) return false;
        emit("charConstant");
      } else if (r === "." && pos < input.length && !(input[pos] >= "0" && input[pos] <= "9")) {
        if (!fieldOrVariable("field")) return false;
      } else if (r === "." || r === "+" || r === "-" || (r >= "0" && r <= "9")) {
        pos -= 1;
        if (!scanNumber()) return errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
        const sign = peek();
        if (sign === "+" || sign === "-") {
          if (!scanNumber() || input[pos - 1] !== "i") return errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
          emit("complex");
        } else emit("number");
      } else if (isAlphaNumeric(r)) {
        pos -= r.length;
        while (isAlphaNumeric(peek())) next();
        const word = input.slice(start, pos);
        if (!atTerminator()) return errorf(`bad character ${goRune(peek()!)}`);
        if (KEY[word]) emit(KEY[word]);
        else if (word === "true" || word === "false") emit("bool");
        else emit("identifier");
      } else if (r === "(") {
        emit("leftParen");
        parenDepth++;
      } else if (r === ")") {
        parenDepth--;
        if (parenDepth < 0) return errorf("unexpected right paren");
        emit("rightParen");
      } else if (r.codePointAt(0)! <= 0x7f && /[\x20-\x7e]/.test(r)) emit("char");
      else return errorf(`unrecognized character in action: ${goRune(r)}`);
    }
  };
  const fieldOrVariable = (typ: "field" | "variable"): boolean => {
    if (atTerminator()) {
      emit(typ === "variable" ? "variable" : "dot");
      return true;
    }
    while (isAlphaNumeric(peek())) next();
    if (!atTerminator()) return errorf(`bad character ${goRune(peek()!)}`);
    emit(typ);
    return true;
  };
  const scanNumber = (): boolean => {
    accept("+-");
    let digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    acceptRun(digits);
    if (accept(".")) acceptRun(digits);
    if (digits.length === 11 && accept("eE")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    if (digits.length === 23 && accept("pP")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    accept("i");
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };

  while (lexText());
  return items;
}

// ---------------------------------------------------------------------------------------------
// Parse tree

type Node =
  | { t: "list"; pos: number; nodes: Node[] }
  | { t: "text"; pos: number; text: string }
  | { t: "comment"; pos: number; text: string }
  | { t: "action"; pos: number; line: number; pipe: PipeNode }
  | PipeNode
  | { t: "command"; pos: number; args: Node[] }
  | { t: "field"; pos: number; ident: string[] }
  | { t: "variable"; pos: number; ident: string[] }
  | { t: "chain"; pos: number; node: Node; field: string[] }
  | { t: "identifier"; pos: number; ident: string }
  | { t: "dot"; pos: number }
  | { t: "nil"; pos: number }
  | { t: "bool"; pos: number; value: boolean }
  | NumberNode
  | { t: "string"; pos: number; quoted: string; text: string }
  | ControlNode
  | { t: "break" | "continue"; pos: number; line: number }
  | { t: "end" | "else"; pos: number; line: number };

type ListNode = Extract<Node, { t: "list" }>;
interface ControlNode {
  t: "if" | "range" | "with";
  pos: number;
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList?: ListNode;
}
interface PipeNode {
  t: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: Extract<Node, { t: "variable" }>[];
  cmds: Extract<Node, { t: "command" }>[];
}
interface NumberNode {
  t: "number";
  pos: number;
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: number;
  float: number;
}

function nodeString(n: Node): string {
  switch (n.t) {
    case "list":
      return n.nodes.map(nodeString).join("");
    case "text":
      return n.text;
    case "comment":
      return `{{${n.text}}}`;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "pipe": {
      let s = "";
      if (n.decl.length) s = n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ");
      return s + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.t === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "field":
      return n.ident.map((i) => "." + i).join("");
    case "variable":
      return n.ident.join(".");
    case "chain":
      return (n.node.t === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.field.map((f) => "." + f).join("");
    case "identifier":
      return n.ident;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(n.value);
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "if":
    case "range":
    case "with":
      return `{{${n.t} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList ? `{{else}}${nodeString(n.elseList)}` : ""}{{end}}`;
    case "break":
    case "continue":
      return `{{${n.t}}}`;
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
  }
}

export class GoTemplateError extends Error {}

/** strconv.Unquote of a Go string literal ("..." or `...`) or a rune literal ('x'). */
function unquote(s: string): string {
  if (s.startsWith("`")) return s.slice(1, -1).replace(/\r/g, "");
  const q = s[0];
  const body = s.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === q) throw new GoTemplateError("invalid syntax");
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };
    if (e in simple) out += simple[e];
    else if (e === q) out += q;
    else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new GoTemplateError("invalid syntax");
      const code = parseInt(hex, 16);
      out += e === "x" ? String.fromCharCode(code) : String.fromCodePoint(code);
      i += n;
    } else if (e >= "0" && e <= "7") {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) throw new GoTemplateError("invalid syntax");
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else throw new GoTemplateError("invalid syntax");
  }
  if (q === "'" && [...out].length !== 1) throw new GoTemplateError(`malformed character constant: ${s}`);
  return out;
}

function parseNumber(pos: number, text: string, typ: ItemType): NumberNode {
  const n: NumberNode = { t: "number", pos, text, isInt: false, isUint: false, isFloat: false, int: 0, float: 0 };
  if (typ === "charConstant") {
    const r = unquote(text).codePointAt(0)!;
    return { ...n, isInt: true, isUint: true, isFloat: true, int: r, float: r };
  }
  if (typ === "complex" || text.endsWith("i")) throw new GoTemplateError(`complex constants are not supported: ${goQuote(text)}`);
  const clean = text.replace(/_/g, "");
  const intM = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9]\d*)$/.exec(clean);
  if (intM) {
    let body = intM[2];
    if (/^0[0-7]+$/.test(body)) body = "0o" + body.slice(1);
    const v = Number(body) * (intM[1] === "-" ? -1 : 1);
    if (Number.isSafeInteger(v) || Math.abs(v) < 2 ** 63) {
      n.isInt = true;
      n.int = v;
      n.isUint = v >= 0;
      n.isFloat = true;
      n.float = v;
      return n;
    }
  }
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean)) {
    const f = Number(clean);
    if (!/[.eEpP]/.test(clean)) throw new GoTemplateError(`integer overflow: ${goQuote(text)}`);
    n.isFloat = true;
    n.float = f;
    if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
      n.isInt = true;
      n.int = f;
      n.isUint = f >= 0;
    }
    return n;
  }
  throw new GoTemplateError(`illegal number syntax: ${goQuote(text)}`);
}

export interface Template {
  name: string;
  text: string;
  root: ListNode;
  funcs: Record<string, GoFunc>;
}

/** A function a template can call: gets its evaluated arguments, returns a value or throws an Error (its message is Go's err). */
export type GoFunc = { fn: (...args: GoValue[]) => GoValue; params: ParamType[]; variadic?: ParamType };
type ParamType = "any" | "value" | "string";

class Parser {
  private items: Item[];
  private i = 0;
  private vars: string[] = ["$"];
  private rangeDepth = 0;
  private actionLine = 0;
  /** The furthest item read (Go's token[0], which peeking also moves): its line is the error's. */
  private furthest = 0;

  constructor(
    private readonly name: string,
    text: string,
    private readonly funcs: Record<string, GoFunc>,
  ) {
    this.items = lex(text);
  }

  private errorf(msg: string): never {
    const tok = this.items[Math.min(this.furthest, this.items.length - 1)];
    throw new GoTemplateError(`template: ${this.name}:${tok?.line ?? 1}: ${msg}`);
  }

  private next(): Item {
    const it = this.items[Math.min(this.i, this.items.length - 1)];
    this.furthest = Math.max(this.furthest, this.i);
    this.i++;
    return it;
  }
  private backup(n = 1): void {
    this.i -= n;
  }
  private peek(): Item {
    this.furthest = Math.max(this.furthest, this.i);
    return this.items[Math.min(this.i, this.items.length - 1)];
  }
  private nextNonSpace(): Item {
    let t: Item;
    do t = this.next();
    while (t.typ === "space");
    return t;
  }
  private peekNonSpace(): Item {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  private expect(typ: ItemType, context: string): Item {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }
  private unexpected(t: Item, context: string): never {
    if (t.typ === "error") {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== t.line) {
        extra = ` in action started at ${this.name}:${this.actionLine}`;
        if (t.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${itemString(t)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(t)} in ${context}`);
  }

  parse(): ListNode {
    const root: ListNode = { t: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== "eof") {
      if (this.peek().typ === "leftDelim") {
        const save = this.i;
        this.next();
        if (this.nextNonSpace().typ === "define") this.errorf("{{define}} is not supported here");
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.t === "end" || n.t === "else") this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    return root;
  }

  private textOrAction(): Node {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case "text":
        return { t: "text", pos: t.pos, text: t.val };
      case "leftDelim": {
        this.actionLine = t.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      case "comment":
        return { t: "comment", pos: t.pos, text: t.val };
      default:
        this.unexpected(t, "input");
    }
  }

  private action(): Node {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case "block":
      case "template":
        this.errorf(`{{${t.val}}} is not supported here`);
      // eslint-disable-next-line no-fallthrough
      case "break":
      case "continue": {
        const n = this.nextNonSpace();
        if (n.typ !== "rightDelim") this.unexpected(n, `{{${t.val}}}`);
        if (this.rangeDepth === 0) this.errorf(`{{${t.val}}} outside {{range}}`);
        return { t: t.typ, pos: t.pos, line: t.line };
      }
      case "else": {
        const p = this.peekNonSpace();
        if (p.typ === "if" || p.typ === "with") return { t: "else", pos: p.pos, line: p.line };
        const e = this.expect("rightDelim", "else");
        return { t: "else", pos: e.pos, line: e.line };
      }
      case "end":
        return { t: "end", pos: this.expect("rightDelim", "end").pos, line: t.line };
      case "if":
      case "range":
      case "with":
        return this.control(t.typ);
    }
    this.backup();
    const tok = this.peek();
    return { t: "action", pos: tok.pos, line: tok.line, pipe: this.pipeline("command", "rightDelim") };
  }

  private control(context: "if" | "range" | "with"): Node {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, "rightDelim");
      if (context === "range") this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.t === "else") {
        if ((context === "if" && this.peek().typ === "if") || (context === "with" && this.peek().typ === "with")) {
          this.next();
          elseList = { t: "list", pos: next.pos, nodes: [this.control(context)] };
        } else {
          [elseList, next] = this.itemList();
          if (next.t !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { t: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private itemList(): [ListNode, Node] {
    const list: ListNode = { t: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== "eof") {
      const n = this.textOrAction();
      if (n.t === "end" || n.t === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const tok = this.peekNonSpace();
    const pipe: PipeNode = { t: "pipe", pos: tok.pos, line: tok.line, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== "variable") break;
      const save = this.i;
      this.nextNonSpace();
      const after = this.peek();
      const nx = this.peekNonSpace();
      if (nx.typ === "assign" || nx.typ === "declare") {
        pipe.isAssign = nx.typ === "assign";
        this.nextNonSpace();
        pipe.decl.push({ t: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
      } else if (nx.typ === "char" && nx.val === ",") {
        this.nextNonSpace();
        pipe.decl.push({ t: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue decls;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else {
        void after;
        this.i = save;
      }
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.typ === end) {
        if (!pipe.cmds.length) this.errorf(`missing value for ${context}`);
        pipe.cmds.slice(1).forEach((c, i) => {
          if (["bool", "dot", "nil", "number", "string"].includes(c.args[0].t)) this.errorf(`non executable command in pipeline stage ${i + 2}`);
        });
        return pipe;
      }
      switch (t.typ) {
        case "bool":
        case "charConstant":
        case "complex":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private command(): Extract<Node, { t: "command" }> {
    const cmd: Extract<Node, { t: "command" }> = { t: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const op = this.operand();
      if (op) cmd.args.push(op);
      const t = this.next();
      if (t.typ === "space") continue;
      if (t.typ === "rightDelim" || t.typ === "rightParen") this.backup();
      else if (t.typ !== "pipe") this.unexpected(t, "operand");
      break;
    }
    if (!cmd.args.length) this.errorf("empty command");
    return cmd;
  }

  private operand(): Node | undefined {
    let node = this.term();
    if (!node) return undefined;
    if (this.peek().typ === "field") {
      const pos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === "field") fields.push(this.next().val.slice(1));
      switch (node.t) {
        case "field":
          node = { t: "field", pos, ident: [...node.ident, ...fields] };
          break;
        case "variable":
          node = { t: "variable", pos, ident: [...node.ident, ...fields] };
          break;
        case "bool":
        case "string":
        case "number":
        case "nil":
        case "dot":
          this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
        // eslint-disable-next-line no-fallthrough
        default:
          node = { t: "chain", pos, node, field: fields };
      }
    }
    return node;
  }

  private term(): Node | undefined {
    const t = this.nextNonSpace();
    try {
      switch (t.typ) {
        case "identifier":
          if (!(t.val in this.funcs) && !(t.val in BUILTINS)) this.errorf(`function ${goQuote(t.val)} not defined`);
          return { t: "identifier", pos: t.pos, ident: t.val };
        case "dot":
          return { t: "dot", pos: t.pos };
        case "nil":
          return { t: "nil", pos: t.pos };
        case "variable": {
          const ident = t.val.split(".");
          if (!this.vars.includes(ident[0])) this.errorf(`undefined variable ${goQuote(ident[0])}`);
          return { t: "variable", pos: t.pos, ident };
        }
        case "field":
          return { t: "field", pos: t.pos, ident: [t.val.slice(1)] };
        case "bool":
          return { t: "bool", pos: t.pos, value: t.val === "true" };
        case "charConstant":
        case "complex":
        case "number":
          return parseNumber(t.pos, t.val, t.typ);
        case "leftParen":
          return this.pipeline("parenthesized pipeline", "rightParen");
        case "string":
        case "rawString":
          return { t: "string", pos: t.pos, quoted: t.val, text: unquote(t.val) };
      }
    } catch (e) {
      if (e instanceof GoTemplateError && !e.message.startsWith("template: ")) this.errorf(e.message);
      throw e;
    }
    this.backup();
    return undefined;
  }
}

/** Parses a template as template.New(name).Funcs(funcs).Parse(text); errors read as Go's. */
export function parseGoTemplate(text: string, funcs: Record<string, GoFunc> = {}, name = "output"): Template {
  return { name, text, root: new Parser(name, text, funcs).parse(), funcs };
}

// ---------------------------------------------------------------------------------------------
// Builtins

class FuncError extends Error {}

const BUILTINS: Record<string, GoFunc> = {
  and: { fn: () => undefined, params: ["value"], variadic: "value" },
  or: { fn: () => undefined, params: ["value"], variadic: "value" },
  not: { fn: (a) => !truth(a), params: ["value"] },
  len: {
    fn: (a) => {
      if (a === null) throw new FuncError("len of nil pointer");
      if (a === undefined) throw new FuncError("reflect: call of reflect.Value.Type on zero Value");
      const k = kindOf(a);
      if (k === "string") return new GoNum("int", new TextEncoder().encode(a).length);
      if (k === "slice") return new GoNum("int", a.length);
      if (k === "map") return new GoNum("int", Object.keys(a).length);
      throw new FuncError(`len of type ${goTypeName(a)}`);
    },
    params: ["value"],
  },
  index: { fn: (item, ...idx) => indexValue(item, idx), params: ["value"], variadic: "value" },
  slice: { fn: (item, ...idx) => sliceValue(item, idx), params: ["value"], variadic: "value" },
  print: { fn: (...a) => sprint(a.map(nilled)), params: [], variadic: "any" },
  printf: { fn: (f, ...a) => sprintf(f, a.map(nilled)), params: ["string"], variadic: "any" },
  println: { fn: (...a) => sprintln(a.map(nilled)), params: [], variadic: "any" },
  html: { fn: (...a) => htmlEscape(evalArgs(a)), params: [], variadic: "any" },
  js: { fn: (...a) => jsEscape(evalArgs(a)), params: [], variadic: "any" },
  urlquery: { fn: (...a) => queryEscape(evalArgs(a)), params: [], variadic: "any" },
  call: {
    fn: (f) => {
      throw new FuncError(f === undefined || f === null ? "call of nil" : `non-function ${fmtValue(f, "v")} of type ${goTypeName(f)}`);
    },
    params: ["value"],
    variadic: "value",
  },
  eq: {
    fn: (a, ...bs) => {
      if (!bs.length) throw new FuncError("missing argument for comparison");
      for (const b of bs) if (equal(a, b)) return true;
      return false;
    },
    params: ["value"],
    variadic: "value",
  },
  ne: { fn: (a, b) => !equal(a, b), params: ["value", "value"] },
  lt: { fn: (a, b) => less(a, b), params: ["value", "value"] },
  le: { fn: (a, b) => less(a, b) || equal(a, b), params: ["value", "value"] },
  gt: {
    fn: (a, b) => {
      const le = less(a, b) || equal(a, b);
      return !le;
    },
    params: ["value", "value"],
  },
  ge: { fn: (a, b) => !less(a, b), params: ["value", "value"] },
};

/** An untyped-nil interface{} argument: fmt prints it as <nil>. */
const nilled = (v: GoValue) => (v === undefined ? null : v);

/** text/template's evalArgs: one string as is, else fmt.Sprint with missing values as "<no value>". */
function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? "<no value>" : a)));
}

function htmlEscape(s: string): string {
  return s.replace(/["'&<>\0]/g, (c) => ({ '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;", "\0": "\uFFFD" })[c]!);
}

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === "<") out += "\\u003C";
    else if (ch === ">") out += "\\u003E";
    else if (ch === "&") out += "\\u0026";
    else if (ch === "=") out += "\\u003D";
    else if (c < 0x20) out += "\\u00" + c.toString(16).toUpperCase().padStart(2, "0");
    else if (c >= 0x80 && !/[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u.test(ch)) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out;
}

/** url.QueryEscape. */
function queryEscape(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

function basicKind(v: GoValue): Kind | undefined {
  const k = kindOf(v);
  return k === "bool" || k === "int" || k === "uint" || k === "float" || k === "string" ? k : undefined;
}

function equal(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return num(a) === num(b);
    if (a !== undefined && a !== null && b !== undefined && b !== null) throw new FuncError("incompatible types for comparison");
    return false;
  }
  if (k1 === undefined) {
    // Neither is a basic kind: nils compare, maps and slices cannot.
    const an = a === undefined || a === null;
    const bn = b === undefined || b === null;
    if (an || bn) {
      if (!an) throw new FuncError(`non-comparable types ${fmtValue(a, "s")}: ${goTypeName(a)}, ${goTypeName(b)}: ${fmtValue(b, "v")}`);
      return an === bn;
    }
    throw new FuncError(`non-comparable type ${fmtValue(a, "s")}: ${goTypeName(a)}`);
  }
  if (k1 === "int" || k1 === "uint" || k1 === "float") return num(a) === num(b);
  return a === b;
}

function less(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  if (!k1) throw new FuncError("invalid type for comparison");
  const k2 = basicKind(b);
  if (!k2) throw new FuncError("invalid type for comparison");
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return num(a) < num(b);
    throw new FuncError("incompatible types for comparison");
  }
  if (k1 === "bool") throw new FuncError("invalid type for comparison");
  if (k1 === "string") return byteOrder(a, b) < 0;
  return num(a) < num(b);
}

function indexArg(i: GoValue, cap: number): number {
  const k = kindOf(i);
  if (k === "invalid" || k === "nil") throw new FuncError("cannot index slice/array with nil");
  if (k !== "int" && k !== "uint") throw new FuncError(`cannot index slice/array with type ${goTypeName(i)}`);
  const x = num(i);
  if (x < 0 || x > cap) throw new FuncError(`index out of range: ${x}`);
  return x;
}

function indexValue(item: GoValue, idx: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new FuncError("index of untyped nil");
  for (const i of idx) {
    if (item === null) throw new FuncError("index of nil pointer");
    const k = kindOf(item);
    if (k === "slice" || k === "string") {
      const bytes = k === "string" ? new TextEncoder().encode(item) : undefined;
      const len = bytes ? bytes.length : item.length;
      const x = indexArg(i, len);
      if (x === len) throw new FuncError(k === "string" ? "reflect: string index out of range" : "reflect: slice index out of range");
      item = bytes ? new GoNum("uint8", bytes[x]) : item[x];
    } else if (k === "map") {
      if (i === undefined || i === null) throw new FuncError("value is nil; should be of type string");
      if (typeof i !== "string") throw new FuncError(`value has type ${goTypeName(i)}; should be string`);
      item = Object.prototype.hasOwnProperty.call(item, i) ? item[i] : null;
    } else throw new FuncError(`can't index item of type ${goTypeName(item)}`);
  }
  return item;
}

function sliceValue(item: GoValue, idx: GoValue[]): GoValue {
  if (item === undefined || item === null) throw new FuncError("slice of untyped nil");
  if (idx.length > 3) throw new FuncError(`too many slice indexes: ${idx.length}`);
  const k = kindOf(item);
  let len: number;
  if (k === "string") {
    if (idx.length === 3) throw new FuncError("cannot 3-index slice a string");
    len = new TextEncoder().encode(item).length;
  } else if (k === "slice") len = item.length;
  else throw new FuncError(`can't slice item of type ${goTypeName(item)}`);
  const x = [0, len, len];
  idx.forEach((i, n) => (x[n] = indexArg(i, len)));
  if (x[0] > x[1]) throw new FuncError(`invalid slice index: ${x[0]} > ${x[1]}`);
  if (idx.length === 3 && x[1] > x[2]) throw new FuncError(`invalid slice index: ${x[1]} > ${x[2]}`);
  if (k === "string") return new TextDecoder().decode(new TextEncoder().encode(item).slice(x[0], x[1]));
  return item.slice(x[0], x[1]);
}

// ---------------------------------------------------------------------------------------------
// Execution

interface ExecOptions {
  /** missingkey=error (kubectl --allow-missing-template-keys=false): a missing map key is an error. */
  missingKeyError?: boolean;
}

/** An execution error: Go's message, and what the template wrote before it. */
export class GoTemplateExecError extends GoTemplateError {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

class Break {}
class Continue {}
const BREAK = new Break();
const CONTINUE = new Continue();

const MISSING = Symbol("missing");

class State {
  out = "";
  node: Node | undefined;
  vars: { name: string; value: V }[] = [];

  constructor(
    readonly tmpl: Template,
    readonly missingKeyError: boolean,
  ) {}

  errorf(msg: string): never {
    let prefix = `template: ${this.tmpl.name}: `;
    if (this.node) {
      const pos = this.node.pos;
      const text = this.tmpl.text.slice(0, pos);
      const nl = text.lastIndexOf("\n");
      const col = nl < 0 ? pos : pos - (nl + 1);
      const line = 1 + text.split("\n").length - 1;
      prefix = `template: ${this.tmpl.name}:${line}:${col}: executing ${goQuote(this.tmpl.name)} at <${nodeString(this.node)}>: `;
    }
    throw new GoTemplateExecError(prefix + msg, this.out);
  }

  at(n: Node) {
    this.node = n;
  }

  varValue(name: string): V {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    this.errorf(`undefined variable: ${name}`);
  }

  setVar(name: string, value: V) {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  walk(dot: V, node: Node): void {
    this.at(node);
    switch (node.t) {
      case "action": {
        const v = this.evalPipeline(dot, node.pipe);
        if (!node.pipe.decl.length) this.printValue(node, v);
        return;
      }
      case "comment":
        return;
      case "if":
      case "with": {
        const mark = this.vars.length;
        const v = this.evalPipeline(dot, node.pipe);
        if (truth(v.v)) this.walk(node.t === "with" ? v : dot, node.list);
        else if (node.elseList) this.walk(dot, node.elseList);
        this.vars.length = mark;
        return;
      }
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        return this.walkRange(dot, node);
      case "text":
        this.out += node.text;
        return;
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  walkRange(dot: V, r: ControlNode): void {
    this.at(r);
    const outer = this.vars.length;
    const v = this.evalPipeline(dot, r.pipe).v;
    const mark = this.vars.length;
    const decl = r.pipe.decl;
    const one = (index: V, elem: V): boolean => {
      if (decl.length > 0) {
        if (r.pipe.isAssign) this.setVar(decl[0].ident[0], decl.length > 1 ? index : elem);
        else this.vars[this.vars.length - 1].value = elem;
      }
      if (decl.length > 1) {
        if (r.pipe.isAssign) this.setVar(decl[1].ident[0], elem);
        else this.vars[this.vars.length - 2].value = index;
      }
      try {
        this.walk(elem, r.list);
      } catch (e) {
        if (e === BREAK) return false;
        if (e !== CONTINUE) throw e;
      } finally {
        this.vars.length = mark;
      }
      return true;
    };
    const k = kindOf(v);
    let ran = false;
    if (k === "slice") {
      for (let i = 0; i < v.length; i++) {
        ran = true;
        if (!one(val(new GoNum("int", i)), val(v[i], true))) break;
      }
    } else if (k === "map") {
      for (const key of Object.keys(v).sort(byteOrder)) {
        ran = true;
        if (!one(val(key), val(v[key], true))) break;
      }
    } else if (k === "int" || k === "uint") {
      if (decl.length > 1) this.errorf(`can't use ${fmtValue(v, "v")} to iterate over more than one variable`);
      for (let i = 0; i < num(v); i++) {
        ran = true;
        const x = v instanceof GoNum ? new GoNum(v.type, i) : i;
        if (!one(val(x), val(x))) break;
      }
    } else if (k !== "invalid") {
      this.errorf(`range can't iterate over ${fmtValue(v, "v")}`);
    }
    if (!ran && r.elseList) this.walk(dot, r.elseList);
    this.vars.length = outer;
  }

  evalPipeline(dot: V, pipe: PipeNode): V {
    this.at(pipe);
    let value: V | typeof MISSING = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // An interface{} is dug out: a nil one is no value at all.
      value = val(value.v === null ? undefined : value.v);
    }
    const v = value as V;
    for (const d of pipe.decl) {
      if (pipe.isAssign) this.setVar(d.ident[0], v);
      else this.vars.push({ name: d.ident[0], value: v });
    }
    return v;
  }

  notAFunction(args: Node[], final: V | typeof MISSING) {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0])}`);
  }

  evalCommand(dot: V, cmd: Extract<Node, { t: "command" }>, final: V | typeof MISSING): V {
    const first = cmd.args[0];
    switch (first.t) {
      case "field":
        this.at(first);
        return this.evalFieldChain(dot, dot, first, first.ident, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariable(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.t) {
      case "bool":
        return val(first.value);
      case "dot":
        return dot;
      case "nil":
        this.errorf("nil is not a command");
      // eslint-disable-next-line no-fallthrough
      case "number":
        return val(this.idealConstant(first));
      case "string":
        return val(first.text);
    }
    this.errorf(`can't evaluate command ${goQuote(nodeString(first))}`);
  }

  idealConstant(n: NumberNode): GoValue {
    this.at(n);
    if (n.isFloat && !/^0[xX]/.test(n.text) && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return new GoNum("float64", n.float);
    if (n.isInt) return new GoNum("int", n.int);
    if (n.isUint) this.errorf(`${n.text} overflows int`);
    return undefined;
  }

  evalChain(dot: V, chain: Extract<Node, { t: "chain" }>, args: Node[], final: V | typeof MISSING): V {
    this.at(chain);
    if (chain.node.t === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, "any", chain.node);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  evalVariable(dot: V, v: Extract<Node, { t: "variable" }>, args: Node[], final: V | typeof MISSING): V {
    this.at(v);
    const value = this.varValue(v.ident[0]);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  evalFieldChain(dot: V, receiver: V, node: Node, ident: string[], args: Node[], final: V | typeof MISSING): V {
    for (let i = 0; i < ident.length - 1; i++) receiver = this.evalField(ident[i], receiver, [], MISSING);
    return this.evalField(ident[ident.length - 1], receiver, args, final);
  }

  evalField(name: string, receiver: V, args: Node[], final: V | typeof MISSING): V {
    const r = receiver.v;
    if (r === undefined) {
      if (this.missingKeyError) this.errorf(`nil data; no entry for key ${goQuote(name)}`);
      return val(undefined);
    }
    if (r === null) this.errorf(`nil pointer evaluating interface {}.${name}`);
    if (kindOf(r) === "map") {
      if (args.length > 1 || final !== MISSING) this.errorf(`${name} is not a method but has arguments`);
      if (Object.prototype.hasOwnProperty.call(r, name)) return val(r[name], true);
      if (this.missingKeyError) this.errorf(`map has no entry for key ${goQuote(name)}`);
      return val(undefined);
    }
    this.errorf(`can't evaluate field ${name} in type ${receiver.iface ? "interface {}" : goTypeName(r)}`);
  }

  evalFunction(dot: V, node: Extract<Node, { t: "identifier" }>, cmd: Node, args: Node[], final: V | typeof MISSING): V {
    this.at(node);
    const name = node.ident;
    const builtin = BUILTINS[name] && !(name in this.tmpl.funcs);
    const fn = this.tmpl.funcs[name] ?? BUILTINS[name];
    if (!fn) this.errorf(`${goQuote(name)} is not a defined function`);
    const rest = args.slice(1);
    const numIn = rest.length + (final !== MISSING ? 1 : 0);
    const fixed = fn.params.length;
    if (fn.variadic) {
      if (numIn < fixed) this.errorf(`wrong number of args for ${name}: want at least ${fixed} got ${rest.length}`);
    } else if (numIn !== fixed) this.errorf(`wrong number of args for ${name}: want ${fixed} got ${numIn}`);
    const typeAt = (i: number): ParamType => (i < fixed ? fn.params[i] : fn.variadic!);

    if (builtin && (name === "and" || name === "or")) {
      let v: V = val(undefined);
      for (const a of rest) {
        v = this.evalArg(dot, "value", a);
        if (truth(v.v) === (name === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: V[] = rest.map((a, i) => this.evalArg(dot, typeAt(i), a));
    if (final !== MISSING) argv.push(this.validateType(final, typeAt(numIn - 1)));
    try {
      return val(fn.fn(...argv.map((a) => a.v)));
    } catch (e) {
      if (e instanceof GoTemplateExecError) throw e;
      this.at(cmd);
      this.errorf(`error calling ${name}: ${(e as Error).message}`);
    }
  }

  validateType(value: V, typ: ParamType): V {
    if (value.v === undefined) {
      if (typ === "string") this.errorf("invalid value; expected string");
      return value;
    }
    if (typ === "string" && typeof value.v !== "string") {
      this.errorf(`wrong type for value; expected string; got ${value.v === null ? "interface {}" : goTypeName(value.v)}`);
    }
    return value;
  }

  evalArg(dot: V, typ: ParamType, n: Node): V {
    this.at(n);
    switch (n.t) {
      case "dot":
        return this.validateType(dot, typ);
      case "nil":
        if (typ === "string") this.errorf("cannot assign nil to string");
        return val(undefined);
      case "field":
        return this.validateType(this.evalFieldChain(dot, dot, n, n.ident, [n], MISSING), typ);
      case "variable":
        return this.validateType(this.evalVariable(dot, n, [], MISSING), typ);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), typ);
      case "identifier":
        return this.validateType(this.evalFunction(dot, n, n, [n], MISSING), typ);
      case "chain":
        return this.validateType(this.evalChain(dot, n, [], MISSING), typ);
    }
    if (typ === "string") {
      if (n.t === "string") return val(n.text);
      this.errorf(`expected string; found ${nodeString(n)}`);
    }
    switch (n.t) {
      case "bool":
        return val(n.value);
      case "number":
        return val(this.idealConstant(n));
      case "string":
        return val(n.text);
    }
    this.errorf(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }

  printValue(n: Node, v: V): void {
    this.at(n);
    this.out += v.v === undefined ? "<no value>" : fmtValue(v.v, "v");
  }
}

/** Executes a parsed template over data (the object in its JSON form). Throws GoTemplateExecError. */
export function executeGoTemplate(t: Template, data: GoValue, opts: ExecOptions = {}): string {
  const s = new State(t, opts.missingKeyError ?? false);
  const dot = val(data);
  s.vars.push({ name: "$", value: dot });
  try {
    s.walk(dot, t.root);
  } catch (e) {
    if (e === BREAK || e === CONTINUE) return s.out;
    throw e;
  }
  return s.out;
}
