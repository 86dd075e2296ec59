// Decoding a request body into a typed object, as the apiserver's serializer does: type errors
// and (with fieldValidation=Strict) unknown fields are 400 BadRequest in the apiserver's words;
// with Warn, unknown fields are dropped and reported as warnings.

import type { z } from "zod";
import { badRequest } from "../api/status.js";
import type { ResourceInfo } from "../api/resources.js";
import type { KObject } from "../api/types.js";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

interface Decoded {
  object: KObject;
  warnings: string[];
}

type Issue = z.core.$ZodIssue;

function dotted(path: readonly PropertyKey[]): string {
  return path.filter((p) => typeof p !== "number").map(String).join(".");
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v; // string, number, boolean
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** The Go struct that holds the field at `path`, as encoding/json names it in its errors. */
function goStructOf(kind: string, path: readonly PropertyKey[]): string {
  const keys = path.filter((p) => typeof p !== "number").map(String);
  const parent = keys.slice(0, -1);
  const last = parent[parent.length - 1];
  const joined = parent.join(".");
  if (parent.length === 0) return kind;
  if (last === "metadata") return "ObjectMeta";
  if (joined.endsWith("template.spec") || (kind === "Pod" && joined === "spec")) return "PodSpec";
  if (last === "template") return "PodTemplateSpec";
  if (last === "containers" || last === "initContainers") return "Container";
  if (last === "ports") return kind === "Service" ? "ServicePort" : joined.includes("containers") ? "ContainerPort" : "EndpointPort";
  if (last === "env") return "EnvVar";
  if (last === "volumeMounts") return "VolumeMount";
  if (last === "volumes") return "Volume";
  if (last === "selector") return "LabelSelector";
  if (last === "strategy") return "DeploymentStrategy";
  if (last === "rollingUpdate") return "RollingUpdateDeployment";
  if (parent.length === 1 && last === "spec") return `${kind}Spec`;
  if (parent.length === 1 && last === "status") return `${kind}Status`;
  return last.charAt(0).toUpperCase() + last.slice(1);
}

function goTypeOf(expected: string, key: string): string {
  switch (expected) {
    case "number":
    case "int":
      return /Seconds$|^generation$/.test(key) && key !== "timeoutSeconds" ? "int64" : "int32";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "array":
      return "[]interface {}";
    case "record":
    case "object":
      return key === "labels" || key === "annotations" || key === "selector" || key === "data" ? "map[string]string" : "struct";
    default:
      return expected;
  }
}

function typeMessage(kind: string, body: unknown, issue: Issue): string {
  const path = issue.path as PropertyKey[];
  const key = String([...path].reverse().find((p) => typeof p === "string") ?? "");
  const value = valueAt(body, path);
  // An int32 out of range (zod's too_big/too_small on an int32 field) is Go's decoder refusing
  // the number for the field's type.
  const range = issue.code === "too_big" || issue.code === "too_small";
  const expected = range ? "int" : "expected" in issue ? String(issue.expected) : "value";
  const goType = goTypeOf(expected, key);
  // encoding/json names a number it could not store in a numeric field with its literal
  // ("number 99999999999", "number 1.5"), and other mismatches by the JSON type alone.
  const actual = typeof value === "number" && /^u?int/.test(goType) ? `number ${String(value)}` : jsonTypeOf(value);
  return `json: cannot unmarshal ${actual} into Go struct field ${goStructOf(kind, path)}.${dotted(path)} of type ${goType}`;
}

/** A field the body leaves out: Go's decoder accepts it and validation decides (Required value). */
function isMissing(body: unknown, i: Issue): boolean {
  return i.code === "invalid_type" && valueAt(body, i.path as PropertyKey[]) === undefined;
}

function firstTypeIssue(body: unknown, issues: readonly Issue[]): Issue | undefined {
  for (const i of issues) {
    if (i.code === "unrecognized_keys" || isMissing(body, i)) continue;
    if (i.code === "invalid_union") {
      const inner = (i as unknown as { errors: Issue[][] }).errors.flat();
      const hit = firstTypeIssue(body, inner.map((x) => ({ ...x, path: [...i.path, ...x.path] }) as Issue));
      if (hit) return hit;
      continue;
    }
    return i;
  }
  return undefined;
}

function unknownFields(issues: readonly Issue[]): { path: PropertyKey[]; key: string }[] {
  const out: { path: PropertyKey[]; key: string }[] = [];
  for (const i of issues) {
    if (i.code !== "unrecognized_keys") continue;
    for (const k of (i as unknown as { keys: string[] }).keys) out.push({ path: i.path as PropertyKey[], key: k });
  }
  return out;
}

/** The field as the apiserver's strict decoder names it: `spec.template.spec.containers[0].ports[0].bogus`. */
function unknownName(u: { path: PropertyKey[]; key: string }): string {
  let out = "";
  for (const p of [...u.path, u.key]) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/** Decodes `body` as an object of `info`'s kind. `body` is not modified. */
export function decode(info: ResourceInfo, body: unknown, validation: FieldValidation = "Strict"): Decoded {
  const kind = info.kind;
  const version = info.version;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: expected an object`);
  }
  const res = info.schema.safeParse(body);
  if (res.success) return { object: res.data as KObject, warnings: [] };
  const issues = res.error.issues;
  const typeIssue = firstTypeIssue(body, issues);
  const prefix = `${kind} in version "${version}" cannot be handled as a ${kind}`;
  if (typeIssue) throw badRequest(`${prefix}: ${typeMessage(kind, body, typeIssue)}`);
  const unknown = unknownFields(issues);
  if (validation === "Strict") {
    throw badRequest(`${prefix}: strict decoding error: ${unknown.map((u) => `unknown field "${unknownName(u)}"`).join(", ")}`);
  }
  // Unknown fields are dropped (Warn/Ignore); fields left out are left for validation to name.
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const u of unknown) {
    const holder = valueAt(copy, u.path);
    if (holder && typeof holder === "object") delete (holder as Record<string, unknown>)[u.key];
  }
  const warnings = validation === "Warn" ? unknown.map((u) => `unknown field "${unknownName(u)}"`) : [];
  if (!copy.metadata || typeof copy.metadata !== "object") copy.metadata = {};
  return { object: copy as KObject, warnings };
}
