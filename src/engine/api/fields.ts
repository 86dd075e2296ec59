// Field selectors as k8s.io/apimachinery/pkg/fields parses them, each kind's selectable fields
// (the scheme's field-label conversion funcs and the registries' GetAttrs/ToSelectableFields),
// and the error texts the apiserver returns for them.

type FieldOp = "=" | "!=";

interface FieldRequirement {
  field: string;
  op: FieldOp;
  value: string;
}

export class FieldSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldSelectorError";
  }
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  matches(fields: Readonly<Record<string, string>>): boolean;
  empty(): boolean;
  toString(): string;
  requiresExactMatch(field: string): string | undefined;
}

const escapeValue = (s: string) => s.replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/=/g, "\\=");

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

function splitTerms(sel: string): string[] {
  if (sel.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < sel.length; i++) {
    const c = sel[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(sel.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(sel.slice(start));
  return terms;
}

function splitTerm(term: string): [string, string, string] | null {
  for (let i = 0; i < term.length; i++) {
    for (const op of ["!=", "==", "="]) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return null;
}

class Sel implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  matches(f: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => ((f[r.field] ?? "") === r.value) === (r.op === "="));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.op}${escapeValue(r.value)}`).join(",");
  }
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.op === "=")?.value;
  }
}

/**
 * fields.ParseSelector: terms sorted as strings; "==" is stored as "=". Called with a kind first
 * (`parseFieldSelector("Pod", "spec.nodeName=n1")`) it also converts the labels for that kind,
 * as the apiserver does before listing, and throws on an unsupported one.
 */
export function parseFieldSelector(selector: string): FieldSelector;
export function parseFieldSelector(kind: string, selector: string): FieldSelector;
export function parseFieldSelector(a: string, b?: string): FieldSelector {
  if (b !== undefined) return convertFieldSelector(a, parseFieldSelector(b));
  const selector = a;
  const parts = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const t = splitTerm(part);
    if (!t) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [lhs, op, rhs] = t;
    reqs.push({ field: lhs, op: op === "!=" ? "!=" : "=", value: unescapeValue(rhs) });
  }
  return new Sel(reqs);
}

// ---------------------------------------------------------------------------------------------
// Per-kind field labels

/* eslint-disable @typescript-eslint/no-explicit-any */
type Getter = (o: any) => string;

const meta = (namespaced: boolean): Record<string, Getter> =>
  namespaced
    ? { "metadata.name": (o) => o?.metadata?.name ?? "", "metadata.namespace": (o) => o?.metadata?.namespace ?? "" }
    : { "metadata.name": (o) => o?.metadata?.name ?? "" };

const podIP = (o: any) => {
  const ips = o?.status?.podIPs;
  if (Array.isArray(ips) && ips.length > 0) return String(ips[0]?.ip ?? "");
  // v1 -> internal conversion fills podIPs from a lone podIP.
  return o?.status?.podIP ?? "";
};

const FIELDS: Record<string, Record<string, Getter>> = {
  Pod: {
    ...meta(true),
    "spec.nodeName": (o) => o?.spec?.nodeName ?? "",
    "spec.restartPolicy": (o) => o?.spec?.restartPolicy ?? "",
    "spec.schedulerName": (o) => o?.spec?.schedulerName ?? "",
    "spec.serviceAccountName": (o) => o?.spec?.serviceAccountName ?? "",
    "spec.hostNetwork": (o) => String(o?.spec?.hostNetwork === true),
    "status.phase": (o) => o?.status?.phase ?? "",
    "status.podIP": podIP,
    "status.nominatedNodeName": (o) => o?.status?.nominatedNodeName ?? "",
  },
  Node: { ...meta(false), "spec.unschedulable": (o) => String(o?.spec?.unschedulable === true) },
  Namespace: { ...meta(false), "status.phase": (o) => o?.status?.phase ?? "" },
  Service: { ...meta(true), "spec.clusterIP": (o) => o?.spec?.clusterIP ?? "", "spec.type": (o) => o?.spec?.type ?? "" },
  Event: {
    ...meta(true),
    "involvedObject.kind": (o) => o?.involvedObject?.kind ?? "",
    "involvedObject.namespace": (o) => o?.involvedObject?.namespace ?? "",
    "involvedObject.name": (o) => o?.involvedObject?.name ?? "",
    "involvedObject.uid": (o) => o?.involvedObject?.uid ?? "",
    "involvedObject.apiVersion": (o) => o?.involvedObject?.apiVersion ?? "",
    "involvedObject.resourceVersion": (o) => o?.involvedObject?.resourceVersion ?? "",
    "involvedObject.fieldPath": (o) => o?.involvedObject?.fieldPath ?? "",
    reason: (o) => o?.reason ?? "",
    reportingComponent: (o) => o?.reportingComponent ?? "",
    source: (o) => o?.source?.component || o?.reportingComponent || "",
    type: (o) => o?.type ?? "",
  },
  ReplicaSet: { ...meta(true), "status.replicas": (o) => String(o?.status?.replicas ?? 0) },
  ReplicationController: { ...meta(true), "status.replicas": (o) => String(o?.status?.replicas ?? 0) },
};

/** Kinds whose scheme registers a conversion func word unknown labels this way. */
const CORE_STYLE = new Set(["Pod", "Node", "Namespace", "Service", "Event", "ReplicaSet", "ReplicationController"]);

const CLUSTER_SCOPED = new Set(["Namespace", "Node"]);

/** Aliases the conversion funcs accept and rewrite. */
const ALIASES: Record<string, Record<string, string>> = { Pod: { "spec.host": "spec.nodeName" } };

/** The selectable field labels of `kind` (metadata.name/namespace for every other kind). */
export function fieldLabels(kind: string): string[] {
  return Object.keys(FIELDS[kind] ?? meta(!CLUSTER_SCOPED.has(kind)));
}

/**
 * scheme.ConvertFieldLabel for every requirement: rewrites aliases and refuses unknown labels
 * with the apiserver's message (served as 400 BadRequest).
 */
export function convertFieldSelector(kind: string, sel: FieldSelector): FieldSelector {
  const known = FIELDS[kind];
  const out: FieldRequirement[] = [];
  for (const r of sel.requirements) {
    const field = ALIASES[kind]?.[r.field] ?? r.field;
    if (known && CORE_STYLE.has(kind)) {
      if (!(field in known)) throw new FieldSelectorError(`field label not supported: ${r.field}`);
    } else if (field !== "metadata.name" && field !== "metadata.namespace") {
      throw new FieldSelectorError(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    out.push({ ...r, field });
  }
  return new Sel(out);
}

/** The fields.Set a stored object offers to selectors. */
function selectableFields(kind: string, obj: any): Record<string, string> {
  const getters = FIELDS[kind] ?? meta(!CLUSTER_SCOPED.has(kind));
  const out: Record<string, string> = {};
  for (const [k, g] of Object.entries(getters)) out[k] = g(obj);
  return out;
}

/**
 * Does `obj` of `kind` satisfy the selector (a string as in ?fieldSelector=, or parsed)?
 * Throws FieldSelectorError on a malformed selector or an unsupported label.
 */
export function matchesFields(kind: string, obj: any, selector: string | FieldSelector): boolean {
  const sel = typeof selector === "string" ? parseFieldSelector(selector) : selector;
  return convertFieldSelector(kind, sel).matches(selectableFields(kind, obj));
}
