// -o yaml / -o json / -o name as kubectl prints them. kubectl decodes into map[string]interface{}
// before marshalling (unstructured objects; sigs.k8s.io/yaml converts through JSON), so keys come
// out sorted at every level, sequences are not indented under their key (go-yaml v2), long lines
// are not folded, and strings that YAML 1.1 would read as something else are quoted.

import { Document } from "yaml";
import type { ResourceInfo } from "../engine/api/resources.js";

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = sortKeys(o[k]);
    return out;
  }
  return v;
}

export function toYaml(obj: unknown): string {
  const doc = new Document(sortKeys(obj), { version: "1.1" });
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0, nullStr: "null", doubleQuotedMinMultiLineLength: Infinity });
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
