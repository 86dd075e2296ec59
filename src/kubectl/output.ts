// -o yaml / -o json / -o name as kubectl prints them. kubectl decodes into map[string]interface{}
// before marshalling (unstructured objects; sigs.k8s.io/yaml converts through JSON), so keys come
// out sorted at every level, sequences are not indented under their key (go-yaml v2), long lines
// are not folded, and strings that YAML 1.1 would read as something else are quoted. go-yaml's
// encoder double-quotes a string that would read as another type ("on", "1.0", "null"); one
// that only cannot be a plain scalar (": ", a leading "#", "@", "*", "[", a trailing space) is
// single-quoted by its emitter.

import { Document, type Scalar, type Tags, visit } from "yaml";
import type { z } from "zod";
import { executeGoTemplate, fmtValue, type GoFunc, GoNum, goQuote, GoTemplateError, GoTemplateExecError, type GoValue, parseGoTemplate, type Template } from "./gotemplate.js";

function sortKeys(v: unknown, order?: (a: string, b: string) => number): unknown {
  if (Array.isArray(v)) return v.map((x) => sortKeys(x, order));
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort(order)) if (o[k] !== undefined) out[k] = sortKeys(o[k], order);
    return out;
  }
  return v;
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

/**
 * go-yaml v2's order of map keys (encoding/json's is plain byte order): at the first rune that
 * differs, two letters compare as runes; a letter and a non-letter put the non-letter first, or
 * the letter first right after a digit; otherwise the digit runs there compare by value ("k2"
 * before "k10"), then by length; a prefix sorts first.
 */
function goYamlKeyOrder(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) {
      digits = DIGIT.test(ar[i]);
      continue;
    }
    const al = LETTER.test(ar[i]);
    const bl = LETTER.test(br[i]);
    if (al && bl) return ar[i] < br[i] ? -1 : 1;
    if (al || bl) return (digits ? al : bl) ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (ar[i] === "0" || br[i] === "0") {
      // Zeros after a non-zero digit are part of a number being compared: not leading zeros.
      for (let j = i - 1; j >= 0 && DIGIT.test(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && DIGIT.test(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    let bi = i;
    for (; bi < br.length && DIGIT.test(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ar[i] < br[i] ? -1 : 1;
  }
  return ar.length - br.length;
}

/**
 * The YAML library's 1.1 float pattern also takes a float without a digit ("." of managedFields'
 * `.: {}`, "-.", "._"), which go-yaml's strconv.ParseFloat refuses: those stay plain strings.
 */
const withDigit = (tags: Tags): Tags =>
  tags.map((t) => (typeof t === "object" && t.tag === "tag:yaml.org,2002:float" && t.test?.test(".") ? { ...t, test: new RegExp(`(?=.*[0-9])${t.test.source}`) } : t));

export function toYaml(obj: unknown): string {
  const doc = new Document(sortKeys(obj, goYamlKeyOrder), { version: "1.1", customTags: withDigit });
  // The YAML 1.1 tags that read a plain scalar as something other than a string.
  const readers = doc.schema.tags.filter((t) => t.default && t.test && t.tag !== "tag:yaml.org,2002:str");
  visit(doc, {
    Scalar(_key, node: Scalar) {
      const v = node.value;
      if (typeof v === "string" && !v.includes("\n") && readers.some((t) => t.test!.test(v))) node.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0, nullStr: "null", doubleQuotedMinMultiLineLength: Infinity, singleQuote: true });
}

/**
 * json.MarshalIndent of a typed Go object, as kubectl prints what it built itself (create ...
 * --dry-run=client -o json): fields in the Go struct's order, which the zod schema keeps; maps
 * (labels, data) with sorted keys.
 */
export function toTypedJson(schema: z.ZodType, obj: unknown): string {
  return JSON.stringify(inGoOrder(schema, obj), null, 4) + "\n";
}

type ZodDef = { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; in?: z.ZodType };

function inGoOrder(schema: z.ZodType | undefined, v: unknown): unknown {
  let def = (schema as { _zod?: { def: ZodDef } } | undefined)?._zod?.def;
  while (def && (def.type === "optional" || def.type === "nullable" || def.type === "default" || def.type === "pipe")) {
    const next = def.innerType ?? def.in;
    def = (next as { _zod?: { def: ZodDef } } | undefined)?._zod?.def;
  }
  if (Array.isArray(v)) return v.map((x) => inGoOrder(def?.type === "array" ? def.element : undefined, x));
  if (!v || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (def?.type === "object" && def.shape) {
    for (const k of Object.keys(def.shape)) if (o[k] !== undefined) out[k] = inGoOrder(def.shape[k], o[k]);
    for (const k of Object.keys(o).sort()) if (!(k in def.shape) && o[k] !== undefined) out[k] = inGoOrder(undefined, o[k]);
    return out;
  }
  for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = inGoOrder(def?.type === "record" ? def.valueType : undefined, o[k]);
  return out;
}

/** json.MarshalIndent(obj, "", "    ") of the unstructured object, with a final newline. */
export function toJson(obj: unknown): string {
  return JSON.stringify(sortKeys(obj), null, 4) + "\n";
}

/** The List kubectl builds around several objects for -o yaml/json/jsonpath. */
export function asList(items: unknown[]): Record<string, unknown> {
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}

// ---------------------------------------------------------------------------------------------
// -o go-template (k8s.io/cli-runtime/pkg/printers/template.go)

/** kubectl's functions beside text/template's builtins: exists and base64decode. */
export const KUBECTL_TEMPLATE_FUNCS: Record<string, GoFunc> = {
  // exists: whether the item has an element at each of these indexes in turn.
  exists: {
    fn: (item: GoValue, ...indices: GoValue[]) => {
      let v = item;
      for (const i of indices) {
        if (v === null) return false;
        if (typeof v === "string" || Array.isArray(v)) {
          const len = typeof v === "string" ? new TextEncoder().encode(v).length : v.length;
          const x = typeof i === "number" && Number.isInteger(i) ? i : i instanceof GoNum && i.type !== "float64" ? i.v : undefined;
          if (x === undefined || x < 0 || x >= len) return false;
          v = typeof v === "string" ? new GoNum("uint8", new TextEncoder().encode(v)[x]) : v[x];
        } else if (v && typeof v === "object" && !(v instanceof GoNum)) {
          if (i !== undefined && i !== null && typeof i !== "string") return false;
          if (typeof i !== "string" || !Object.prototype.hasOwnProperty.call(v, i)) return false;
          v = v[i];
        } else return false;
      }
      return true;
    },
    params: ["any"],
    variadic: "any",
  },
  base64decode: { fn: (s: string) => base64decode(s), params: ["string"] },
};

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** base64.StdEncoding.DecodeString, with its "illegal base64 data at input byte N". */
function base64decode(s: string): string {
  const bytes: number[] = [];
  const fail = (at: number): never => {
    throw new Error(`base64 decode failed: illegal base64 data at input byte ${at}`);
  };
  let i = 0;
  const nextChar = (): number => {
    while (i < s.length && (s[i] === "\n" || s[i] === "\r")) i++;
    return i < s.length ? i++ : -1;
  };
  for (;;) {
    const quantum: number[] = [];
    let start = -1;
    let padded = false;
    for (let j = 0; j < 4; j++) {
      const at = nextChar();
      if (at < 0) {
        if (j === 0) return new TextDecoder().decode(new Uint8Array(bytes));
        fail(start < 0 ? at : start);
      }
      if (start < 0) start = at;
      if (s[at] === "=") {
        // Padding: only in the last two places of the last quantum, "==" or "=".
        if (j < 2) fail(at);
        if (j === 2) {
          const at2 = nextChar();
          if (at2 < 0) fail(s.length);
          if (s[at2] !== "=") fail(at2);
        }
        const rest = nextChar();
        if (rest >= 0) fail(rest);
        padded = true;
        break;
      }
      const d = B64.indexOf(s[at]);
      if (d < 0) fail(at);
      quantum.push(d);
    }
    const n = quantum.length;
    const v = (quantum[0] << 18) | ((quantum[1] ?? 0) << 12) | ((quantum[2] ?? 0) << 6) | (quantum[3] ?? 0);
    bytes.push((v >> 16) & 0xff);
    if (n > 2) bytes.push((v >> 8) & 0xff);
    if (n > 3) bytes.push(v & 0xff);
    if (padded) return new TextDecoder().decode(new Uint8Array(bytes));
  }
}

/** json.Marshal's compact text: HTML-sensitive characters escaped as Go escapes them. */
export function goCompactJson(obj: unknown): string {
  return JSON.stringify(obj).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A template executed by kubectl's GoTemplatePrinter: what it writes to stdout, and its error. */
export interface TemplateResult {
  out: string;
  error?: string;
}

/**
 * kubectl's go-template printer: parses as printers.NewGoTemplatePrinter does ("error parsing
 * template ..." when not), then executes over the object's JSON form. On an execution error it
 * writes, as kubectl does, what the template printed so far and a debugging block to stdout, and
 * reports `error executing template "..."`.
 */
export class GoTemplatePrinter {
  private readonly template: Template;

  constructor(
    readonly text: string,
    private readonly allowMissingKeys = true,
  ) {
    try {
      this.template = parseGoTemplate(text, KUBECTL_TEMPLATE_FUNCS);
    } catch (e) {
      if (e instanceof GoTemplateError) throw new GoTemplateError(`error parsing template ${text}, ${e.message}`);
      throw e;
    }
  }

  /** `raw` is json.Marshal of what kubectl holds (sorted keys for the server's unstructured objects). */
  print(obj: unknown, raw: string = goCompactJson(sortKeys(obj))): TemplateResult {
    // kubectl hands the template the object decoded from its JSON: no undefined fields.
    const data = JSON.parse(JSON.stringify(obj)) as GoValue;
    try {
      return { out: executeGoTemplate(this.template, data, { missingKeyError: !this.allowMissingKeys }) };
    } catch (e) {
      if (!(e instanceof GoTemplateExecError)) throw e;
      const out =
        e.output +
        `Error executing template: ${e.message}. Printing more information for debugging the template:\n` +
        `\ttemplate was:\n\t\t${this.text}\n` +
        `\traw data was:\n\t\t${raw}\n` +
        `\tobject given to template engine was:\n\t\t${fmtValue(data, "v")}\n\n`;
      return { out, error: `error executing template ${goQuote(this.text)}: ${e.message}` };
    }
  }
}
