// -o yaml / -o json / -o name as kubectl prints them. kubectl decodes into map[string]interface{}
// before marshalling (unstructured objects; sigs.k8s.io/yaml converts through JSON), so keys come
// out sorted at every level, sequences are not indented under their key (go-yaml v2), long lines
// are not folded, and strings that YAML 1.1 would read as something else are quoted. go-yaml's
// encoder double-quotes a string that would read as another type ("on", "1.0", "null"); one
// that only cannot be a plain scalar (": ", a leading "#", "@", "*", "[", a trailing space) is
// single-quoted by its emitter.

import { Document, type Scalar, visit } from "yaml";
import type { z } from "zod";
import type { ResourceInfo } from "../engine/api/resources.js";

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
export function goYamlKeyOrder(a: string, b: string): number {
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

export function toYaml(obj: unknown): string {
  const doc = new Document(sortKeys(obj, goYamlKeyOrder), { version: "1.1" });
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

/** `kind.group/name`, as -o name prints it. */
export function resourceName(info: ResourceInfo, name: string): string {
  return `${info.kind.toLowerCase()}${info.group ? "." + info.group : ""}/${name}`;
}

/** The List kubectl builds around several objects for -o yaml/json/jsonpath. */
export function asList(items: unknown[]): Record<string, unknown> {
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}
