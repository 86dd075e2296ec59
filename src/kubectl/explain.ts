// `kubectl explain` as kubectl 1.33 prints it: its plaintext template (pkg/explain/v2) walked over
// the OpenAPI v3 document of the resource's group-version, the same document /k8s serves to a real
// kubectl. FIELD, DESCRIPTION and FIELDS, type guesses (<[]Container>, <map[string]string>,
// <IntOrString>), -required-, enums, --recursive, and descriptions word-wrapped at 76 columns as
// go-wordwrap wraps them.

type Schema = {
  $ref?: string;
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  enum?: unknown[];
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
};

interface OpenAPIDocument {
  components?: { schemas?: Record<string, Schema> };
}

interface ExplainRequest {
  group: string;
  version: string;
  kind: string;
  /** The field path after the resource: ["spec", "ports"]. */
  fieldPath: string[];
  recursive?: boolean;
}

export class ExplainError extends Error {}

/** The text kubectl explain prints, or an ExplainError with its message. */
export function explain(doc: OpenAPIDocument, req: ExplainRequest): string {
  const ex = new Explainer(doc, !!req.recursive);
  let out = req.group ? `GROUP:      ${req.group}\n` : "";
  out += `KIND:       ${req.kind}\nVERSION:    ${req.version}\n\n`;
  const schema = Object.values(doc.components?.schemas ?? {}).find((s) =>
    (s["x-kubernetes-group-version-kind"] ?? []).some((g) => g.group === req.group && g.version === req.version && g.kind === req.kind),
  );
  if (!schema) throw new ExplainError(`GVK ${req.group}/${req.version}, Kind=${req.kind} not found in OpenAPI schema`);
  const body = ex.output(schema, req.fieldPath, new Set());
  // kubectl prints the header before it finds out that the field does not exist.
  if (!body) throw new ExplainError(`${out}error: field "${req.fieldPath[req.fieldPath.length - 1]}" does not exist`);
  return out + body + "\n";
}

class Explainer {
  constructor(
    private readonly doc: OpenAPIDocument,
    private readonly recursive: boolean,
  ) {}

  private resolve(ref: string | undefined): Schema | undefined {
    if (!ref?.startsWith("#/")) return undefined;
    let cur: unknown = this.doc;
    for (const k of ref.slice(2).split("/")) {
      if (!k) continue;
      cur = (cur as Record<string, unknown> | undefined)?.[k];
      if (!cur || typeof cur !== "object") return undefined;
    }
    return cur as Schema;
  }

  /** Follows the field path, then prints the schema reached ("output" in the template). */
  output(schema: Schema, path: string[], history: ReadonlySet<string>): string {
    const ref = schema.$ref ?? "";
    const next = ref ? new Set([...history, ref]) : history;
    const resolved = this.resolve(ref) ?? schema;
    if (!path.length) {
      let out = "DESCRIPTION:\n" + indent(4, wrap(76, this.description(resolved) || "<empty>")) + "\n";
      const fields = this.fieldList(resolved, 1, new Set());
      if (fields) out += "FIELDS:\n" + fields;
      return out;
    }
    if (ref && history.has(ref)) return "";
    const sub = resolved.properties?.[path[0]];
    if (sub) {
      const head = path.length === 1 ? `FIELD: ${path[0]} <${this.typeGuess(sub)}>\n${enumText(sub, true, -1, 0)}\n\n` : "";
      return head + this.output(sub, path.slice(1), new Set());
    }
    if (resolved.items) return this.output(resolved.items, path, next);
    if (isSchema(resolved.additionalProperties)) return this.output(resolved.additionalProperties, path, next);
    for (const alt of resolved.allOf ?? []) {
      const out = this.output(alt, path, next);
      if (out) return out;
    }
    return "";
  }

  /** The schema's description, then those of what it is made of (allOf, items, map values). */
  private description(schema: Schema): string {
    const s = this.resolve(schema.$ref) ?? schema;
    let out = s.description ? s.description + "\n" : "";
    for (const alt of s.allOf ?? []) out += this.description(alt);
    if (s.items) out += this.description(s.items);
    if (isSchema(s.additionalProperties)) out += this.description(s.additionalProperties);
    return out;
  }

  private fieldList(schema: Schema, level: number, history: ReadonlySet<string>): string {
    const ref = schema.$ref ?? "";
    if (ref && history.has(ref)) return ""; // a cycle
    const next = ref ? new Set([...history, ref]) : history;
    const resolved = this.resolve(ref) ?? schema;
    let out = "";
    // Go templates range over a map in key order.
    for (const name of Object.keys(resolved.properties ?? {}).sort()) {
      out += this.fieldDetail(name, resolved, level);
      if (this.recursive) out += this.fieldList(resolved.properties![name], level + 1, next);
    }
    for (const alt of resolved.allOf ?? []) out += this.fieldList(alt, level, next);
    if (resolved.items) out += this.fieldList(resolved.items, level, next);
    if (isSchema(resolved.additionalProperties)) out += this.fieldList(resolved.additionalProperties, level, next);
    return out;
  }

  private fieldDetail(name: string, parent: Schema, level: number): string {
    const pad = level * 2;
    const field = parent.properties![name];
    let out = `${indent(pad, name)}\t<${this.typeGuess(field)}>`;
    if (parent.required?.includes(name)) out += " -required-";
    out += enumText(field, false, 4, pad) + "\n";
    if (!this.recursive) out += indent(pad + 2, wrap(78 - pad, field.description || "<no description>")) + "\n\n";
    return out;
  }

  /** `string`, `integer`, `Object`, `[]Container`, `map[string]string`, `IntOrString`... */
  typeGuess(s: Schema): string {
    if (s.items) return `[]${this.typeGuess(s.items)}`;
    if (isSchema(s.additionalProperties)) return `map[string]${this.typeGuess(s.additionalProperties)}`;
    if (s.allOf?.length === 1 && !s.properties) return this.typeGuess(s.allOf[0]);
    if (s.$ref) {
      const target = this.resolve(s.$ref);
      if (!target || !target.type || target.type === "object") return s.$ref.split("/").pop()!.split(".").pop() || "Object";
      return target.type;
    }
    return s.type === "object" ? "Object" : s.type || "Object";
  }
}

function isSchema(x: Schema | boolean | undefined): x is Schema {
  return !!x && typeof x === "object";
}

/** "enum: A, B, C, D, ...." after a field, or "ENUM:" with one value a line after FIELD. */
function enumText(s: Schema, long: boolean, limit: number, pad: number): string {
  if (!s.enum?.length) return "";
  let out = long ? "ENUM:" : `\n${" ".repeat(pad)}enum: `;
  for (let i = 0; i < s.enum.length; i++) {
    if (limit > -1 && i >= limit) {
      out += ", ....";
      break;
    }
    if (i > 0 && !long) out += ", ";
    else if (long) out += "\n    ";
    const v = s.enum[i];
    out += v === "" ? '""' : String(v);
  }
  return out;
}

/** sprig-style indent: every line, including an empty last one, gets the pad. */
function indent(n: number, s: string): string {
  const pad = " ".repeat(n);
  return pad + s.replaceAll("\n", "\n" + pad);
}

/**
 * go-wordwrap's WrapString: breaks at whitespace so that lines stay within `lim` runes; a word
 * longer than the limit stays whole on its own line; existing line breaks are kept, and spaces
 * where a line breaks are dropped.
 */
export function wrap(lim: number, s: string): string {
  let out = "";
  let current = 0;
  let word = "";
  let space = "";
  for (const ch of s) {
    if (ch === "\n") {
      if (!word) {
        if (current + space.length <= lim) out += space;
      } else {
        out += space + word;
      }
      space = "";
      word = "";
      out += ch;
      current = 0;
    } else if (/\s/.test(ch) && ch !== "\u00a0") {
      if (!space || word) {
        current += space.length + [...word].length;
        out += space + word;
        space = "";
        word = "";
      }
      space += ch;
    } else {
      word += ch;
      const wl = [...word].length;
      if (current + space.length + wl > lim && wl < lim) {
        out += "\n";
        current = 0;
        space = "";
      }
    }
  }
  if (!word) {
    if (current + space.length <= lim) out += space;
  } else {
    out += space + word;
  }
  return out;
}
