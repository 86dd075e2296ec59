// JSON values as the patch code sees them, plus what Go's encoding/json and fmt would say about
// them. The apiserver decodes patch bodies with encoding/json (sigs.k8s.io/json is a fork with
// the same messages) and several strategic-merge errors print values with %v, so both are
// reproduced here rather than approximated with JSON.stringify.

export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function hasKey(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Sets an own property, so a key such as "__proto__" is data and never a prototype change. */
export function setKey(o: JsonObject, k: string, v: JsonValue): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/** A deep copy of a JSON value; `undefined` anywhere becomes absent (objects) or null (arrays). */
export function cloneJson(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => cloneJson(x));
  if (typeof v === "object") {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) setKey(out, k, cloneJson(x));
    }
    return out;
  }
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  throw new TypeError(`not a JSON value: ${typeof v}`);
}

export function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasKey(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// encoding/json syntax errors (scanner.go): the same state machine, the same wording.

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = goQuote(c);
  return "'" + q.slice(1, -1) + "'";
}

const isSpace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isDigit = (c: string) => c >= "0" && c <= "9";
const isHex = (c: string) => isDigit(c) || (c >= "a" && c <= "f") || (c >= "A" && c <= "F");

class SyntaxError_ extends Error {}

/** Go's scanner over `text`; returns the message of the first syntax error, or null if valid. */
export function goJsonSyntaxError(text: string): string | null {
  // Go scans bytes; a non-ASCII character in an error position is reported by its first UTF-8
  // byte read as a rune, which is what this mapping reproduces.
  const fail = (c: string, context: string): never => {
    let ch = c;
    const code = c.codePointAt(0) ?? 0;
    if (code >= 0x80) {
      const first = new TextEncoder().encode(c)[0];
      ch = String.fromCharCode(first);
    }
    throw new SyntaxError_(`invalid character ${quoteChar(ch)} ${context}`);
  };
  let i = 0;
  const n = text.length;
  const eof = (): never => {
    throw new SyntaxError_("unexpected end of JSON input");
  };
  const skip = () => {
    while (i < n && isSpace(text[i])) i++;
  };
  const literal = (word: string) => {
    // the first character has been matched already
    for (let k = 1; k < word.length; k++) {
      // at EOF Go's scanner steps one space, so a cut literal reports ' '
      if (i >= n) fail(" ", `in literal ${word} (expecting '${word[k]}')`);
      if (text[i] !== word[k]) fail(text[i], `in literal ${word} (expecting '${word[k]}')`);
      i++;
    }
  };
  const number = () => {
    if (text[i] === "-") {
      i++;
      if (i >= n) fail(" ", "in numeric literal");
      if (!isDigit(text[i])) fail(text[i], "in numeric literal");
    }
    if (text[i] === "0") i++;
    else while (i < n && isDigit(text[i])) i++;
    if (i < n && text[i] === ".") {
      i++;
      if (i >= n) fail(" ", "after decimal point in numeric literal");
      if (!isDigit(text[i])) fail(text[i], "after decimal point in numeric literal");
      while (i < n && isDigit(text[i])) i++;
    }
    if (i < n && (text[i] === "e" || text[i] === "E")) {
      i++;
      if (i < n && (text[i] === "+" || text[i] === "-")) i++;
      if (i >= n) fail(" ", "in exponent of numeric literal");
      if (!isDigit(text[i])) fail(text[i], "in exponent of numeric literal");
      while (i < n && isDigit(text[i])) i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= n) eof();
      const c = text[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        i++;
        if (i >= n) fail(" ", "in string escape code");
        const e = text[i];
        if (e === "u") {
          i++;
          for (let k = 0; k < 4; k++) {
            if (i >= n) fail(" ", "in \\u hexadecimal character escape");
            if (!isHex(text[i])) fail(text[i], "in \\u hexadecimal character escape");
            i++;
          }
          continue;
        }
        if (!'bfnrt\\/"'.includes(e)) fail(e, "in string escape code");
        i++;
        continue;
      }
      if (c < " ") fail(c, "in string literal");
      i++;
    }
  };
  const value = (depth: number) => {
    skip();
    if (i >= n) eof();
    const c = text[i];
    if (c === "{") {
      i++;
      skip();
      if (i >= n) eof();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        skip();
        if (i >= n) eof();
        if (text[i] !== '"') fail(text[i], "looking for beginning of object key string");
        string();
        skip();
        if (i >= n) eof();
        if (text[i] !== ":") fail(text[i], "after object key");
        i++;
        value(depth + 1);
        skip();
        if (i >= n) eof();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(text[i], "after object key:value pair");
      }
    }
    if (c === "[") {
      i++;
      skip();
      if (i >= n) eof();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        skip();
        if (i >= n) eof();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(text[i], "after array element");
      }
    }
    if (c === '"') return string();
    if (c === "-" || isDigit(c)) return number();
    if (c === "t") {
      i++;
      return literal("true");
    }
    if (c === "f") {
      i++;
      return literal("false");
    }
    if (c === "n") {
      i++;
      return literal("null");
    }
    fail(c, "looking for beginning of value");
  };
  try {
    value(0);
    skip();
    if (i < n) fail(text[i], "after top-level value");
    return null;
  } catch (e) {
    if (e instanceof SyntaxError_) return e.message;
    throw e;
  }
}

type ParseResult = { ok: true; value: JsonValue } | { ok: false; message: string };

/** json.Unmarshal into interface{}: Go's syntax error text, or the value. */
export function parseGoJson(text: string): ParseResult {
  const err = goJsonSyntaxError(text);
  if (err !== null) return { ok: false, message: err };
  return { ok: true, value: cloneJson(JSON.parse(text)) };
}

/** The word encoding/json's UnmarshalTypeError uses for a JSON value ("object", "array", ...). */
export function jsonValueWord(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "boolean") return "bool";
  return typeof v; // "string" | "number"
}

// ---------------------------------------------------------------------------------------------
// fmt: %v of a decoded interface{}, %s of reflect.TypeOf, strconv.Quote.

/** Go's reflect type of a value decoded by the apiserver (ints are kept as int64). */
export function goTypeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return "string";
}

function goFloat(f: number): string {
  // %v of a float64: shortest repr, exponent form when exp < -4 || exp >= 21, two-digit exponent.
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : Number.isNaN(f) ? "NaN" : "-Inf";
  const exp = Math.floor(Math.log10(Math.abs(f)));
  if (exp < -4 || exp >= 21) {
    const [m, e] = f.toExponential().split("e");
    const sign = e.startsWith("-") ? "-" : "+";
    const digits = e.replace(/^[+-]/, "").padStart(2, "0");
    return `${m}e${sign}${digits}`;
  }
  return String(f);
}

/** fmt's %v for a value decoded into interface{} (maps print with sorted keys). */
export function goV(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return "[" + v.map(goV).join(" ") + "]";
  if (typeof v === "object") {
    const keys = Object.keys(v).sort();
    return "map[" + keys.map((k) => `${k}:${goV(v[k])}`).join(" ") + "]";
  }
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v);
  return String(v);
}

/** fmt's %s for an interface{} that may not be a string. */
export function goS(v: JsonValue | undefined): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (typeof v === "boolean") return `%!s(bool=${v})`;
  if (typeof v === "number") return `%!s(${goTypeName(v)}=${goV(v)})`;
  return goV(v);
}

/** strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c >= 0x80 && c < 0xa0) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/** strconv.Atoi on a 64-bit platform: the value, or Go's *NumError text. */
export function goAtoi(s: string): { ok: true; value: number; text: string } | { ok: false; message: string } {
  const bad = (why: string) => ({ ok: false as const, message: `strconv.Atoi: parsing ${goQuote(s)}: ${why}` });
  if (!/^[+-]?[0-9]+$/.test(s)) return bad("invalid syntax");
  const big = BigInt(s);
  if (big > 2n ** 63n - 1n || big < -(2n ** 63n)) return bad("value out of range");
  return { ok: true, value: Number(big), text: big.toString() };
}
