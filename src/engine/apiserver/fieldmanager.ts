// managedFields: who set which field (the apiserver's fieldmanager package, re-expressed). Every
// client write names a manager (the fieldManager query parameter, else the user agent's first
// word); an Update records the fields the write added or changed for it, a server-side Apply
// owns exactly the fields of its configuration, prunes the ones it stopped applying and refuses
// (409) to change fields other managers own unless forced.

import { FieldSet, type PathElement, pathString } from "../api/managed/fieldset.js";
import { shapeOf, type Shape, zeroObject } from "../api/managed/schema.js";
import { compare, jsonEqual, merge, removeFields, toFieldSet } from "../api/managed/typed.js";
import { applyConflict, type StatusCause } from "../api/status.js";
import type { KObject } from "../api/types.js";

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface Managed {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/** How one write is attributed. */
export interface Attribution {
  kind: string;
  apiVersion: string;
  manager: string;
  subresource?: string;
  /** The kind has a status subresource: its main resource's writes do not own status. */
  hasStatus: boolean;
  /** RFC 3339 time of the write. */
  now: string;
  /** Fields mutating admission set on a create: it runs after the managers are recorded, so no one owns them. */
  admitted?: FieldSet;
}

/**
 * The pod fields the ServiceAccount, DefaultTolerationSeconds and Priority admission plugins set
 * when the created pod's spec (as sent) leaves them unset. The create handler records managed
 * fields before mutating admission (apiserver/pkg/endpoints/handlers/create.go), so a pod's
 * creator never owns them: `kubectl run`'s entry has no f:tolerations or f:priority.
 */
export function podAdmissionFields(sentSpec: unknown): FieldSet {
  const sent = (sentSpec && typeof sentSpec === "object" ? sentSpec : {}) as Record<string, unknown>;
  const unset = (f: string) => sent[f] === undefined || sent[f] === null || sent[f] === "";
  const fields: string[] = [];
  if (unset("serviceAccountName") && unset("serviceAccount")) fields.push("serviceAccountName", "serviceAccount");
  for (const f of ["tolerations", "priority", "preemptionPolicy"]) if (unset(f)) fields.push(f);
  // One shared (never changed) set per combination: a controller's pods all carry one.
  const key = fields.join(",");
  let out = admissionSets.get(key);
  if (!out) {
    out = new FieldSet();
    for (const f of fields) out.insert(["f:spec", `f:${f}`]);
    admissionSets.set(key, out);
  }
  return out;
}

const admissionSets = new Map<string, FieldSet>();

/** More Update entries than this are folded into "ancient-changes" (capManagersManager). */
const MAX_UPDATE_MANAGERS = 10;

/** Fields no manager owns (stripMetaManager): the server sets them. */
const STRIPPED: PathElement[][] = [
  ["f:apiVersion"],
  ["f:kind"],
  ["f:metadata"],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"].map((f) => ["f:metadata", `f:${f}`]),
];

export function idOf(m: Pick<Managed, "manager" | "operation" | "apiVersion" | "subresource">): string {
  return JSON.stringify([m.manager, m.operation, m.operation === "Apply" ? "" : m.apiVersion, m.subresource ?? ""]);
}

/** The entries of an object, or undefined when they do not decode (then the live ones count). */
export function decode(entries: unknown): Managed[] | undefined {
  if (!Array.isArray(entries)) return undefined;
  const out: Managed[] = [];
  for (const e of entries as Partial<ManagedFieldsEntry>[]) {
    if (!e || typeof e !== "object") return undefined;
    if (e.operation !== "Apply" && e.operation !== "Update") return undefined;
    if (e.fieldsType !== undefined && e.fieldsType !== "FieldsV1") return undefined;
    out.push({
      manager: String(e.manager ?? ""),
      operation: e.operation,
      apiVersion: String(e.apiVersion ?? ""),
      ...(e.subresource ? { subresource: String(e.subresource) } : {}),
      ...(e.time ? { time: String(e.time) } : {}),
      set: FieldSet.fromFieldsV1(e.fieldsV1),
    });
  }
  return out;
}

/** managedFields: [] or [{}] in a write clears them (isResetManagedFields). */
function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && !!entries[0] && typeof entries[0] === "object" && Object.keys(entries[0] as object).length === 0;
}

/**
 * The managers before a write: the request's own entries when it carries decodable ones (a
 * client may edit managedFields), else the live object's (clients that do not know of them
 * must not drop them).
 */
function liveOrNew(live: KObject | undefined, next: KObject, fromRequest: boolean): Managed[] {
  const mine = next.metadata.managedFields;
  if (fromRequest) {
    if (isReset(mine)) return [];
    const d = decode(mine);
    if (d && d.length) return d;
  }
  return decode(live?.metadata.managedFields) ?? [];
}

export function withoutManaged(o: KObject | undefined): KObject | undefined {
  if (!o) return undefined;
  const { managedFields: _m, ...meta } = o.metadata;
  return { ...o, metadata: meta } as KObject;
}

/** The fields of a change this write may own: server-set metadata out, and status or all but status. */
export function ownable(s: FieldSet, a: Pick<Attribution, "subresource" | "hasStatus">): FieldSet {
  let out = s.clone();
  for (const p of STRIPPED) {
    const n = out.subtree(p);
    if (n) n.self = false;
  }
  if (a.subresource === "status") {
    const only = new FieldSet();
    const st = out.child("f:status");
    if (st) only.children.set("f:status", st);
    out = only;
  } else if (a.hasStatus) {
    out.children.delete("f:status");
  }
  return out;
}

function prune(set: FieldSet): FieldSet {
  // Sets are compared and encoded without members that became empty.
  const out = new FieldSet();
  for (const p of set.paths()) out.insert(p);
  return out;
}

/**
 * An Update (create, update, non-apply patch): the fields this write added or changed become
 * `manager`'s, and no longer anyone else's; removed fields leave every manager. Sets
 * `next.metadata.managedFields`.
 */
export function recordUpdate(live: KObject | undefined, next: KObject, a: Attribution): void {
  const managers = liveOrNew(live, next, true);
  const shape = shapeOf(a.kind);
  const before = withoutManaged(live) ?? (zeroObject(shape) as KObject);
  const after = withoutManaged(next)!;
  const cmp = compare(before, after, shape);
  let changed = ownable(cmp.added.union(cmp.modified), a);
  if (a.admitted) changed = changed.difference(a.admitted);
  const removed = cmp.removed;
  const id = idOf({ manager: a.manager, operation: "Update", apiVersion: a.apiVersion, subresource: a.subresource });
  let mine = managers.find((m) => idOf(m) === id);
  for (const m of managers) m.set = m.set.difference(changed).difference(removed);
  if (!changed.empty()) {
    if (!mine) {
      mine = { manager: a.manager, operation: "Update", apiVersion: a.apiVersion, ...(a.subresource ? { subresource: a.subresource } : {}), set: new FieldSet() };
      managers.push(mine);
    }
    mine.set = mine.set.union(changed);
    mine.time = a.now;
  }
  next.metadata.managedFields = encode(capUpdates(managers, a)) as KObject["metadata"]["managedFields"];
  if (!next.metadata.managedFields!.length) delete next.metadata.managedFields;
}

interface ApplyResult {
  /** The live object with the configuration merged in and the fields no longer applied pruned. */
  object: KObject;
  changed: boolean;
}

/**
 * A server-side apply of `config` by `a.manager` onto `live` (undefined: the object is created).
 * Throws the apiserver's 409 when it would change fields other managers own and `force` is not
 * set. The result carries its managedFields.
 */
export function recordApply(live: KObject | undefined, config: KObject, a: Attribution, force: boolean): ApplyResult {
  const shape = shapeOf(a.kind);
  const managers = decode(live?.metadata.managedFields) ?? [];
  const base = withoutManaged(live);
  let merged = (base ? merge(base, config, shape) : structuredClone(config)) as KObject;
  const configSet = ownable(toFieldSet(config, shape), a);
  const id = idOf({ manager: a.manager, operation: "Apply", apiVersion: a.apiVersion, subresource: a.subresource });
  let mine = managers.find((m) => idOf(m) === id);
  const lastSet = mine?.set;
  if (!mine) {
    mine = { manager: a.manager, operation: "Apply", apiVersion: a.apiVersion, ...(a.subresource ? { subresource: a.subresource } : {}), set: configSet };
    managers.push(mine);
  }
  mine.set = configSet;
  mine.apiVersion = a.apiVersion;
  const others = managers.filter((m) => m !== mine);
  if (lastSet) merged = pruneDropped(merged, lastSet, configSet, others, shape);

  const cmp = compare(base ?? zeroObject(shape), merged, shape);
  const changedSet = cmp.added.union(cmp.modified);
  const conflicts: { m: Managed; set: FieldSet }[] = [];
  for (const m of others) {
    const c = m.set.intersection(changedSet);
    if (!c.empty()) conflicts.push({ m, set: c });
  }
  if (conflicts.length && !force) throw conflictError(conflicts);
  for (const { m, set } of conflicts) m.set = m.set.difference(set);
  for (const m of others) m.set = m.set.difference(cmp.removed);
  const changed = !jsonEqual(base, merged);
  if (changed || !mine.time) mine.time = a.now;
  merged.metadata.managedFields = encode(capUpdates(managers, a)) as KObject["metadata"]["managedFields"];
  return { object: merged, changed };
}

/**
 * Fields the manager applied last time but not now leave the object, unless another manager
 * owns them (or something below them).
 */
function pruneDropped(obj: KObject, lastSet: FieldSet, now: FieldSet, others: Managed[], shape: Shape): KObject {
  const gone = new FieldSet();
  for (const p of lastSet.difference(now).paths()) {
    if (others.some((m) => { const t = m.set.subtree(p); return !!t && !t.empty(); })) continue;
    if (now.subtree(p) && !now.subtree(p)!.empty()) continue;
    gone.insert(p);
  }
  return gone.empty() ? obj : (removeFields(obj, gone, shape) as KObject);
}

function conflictError(conflicts: { m: Managed; set: FieldSet }[]): Error {
  const causes: StatusCause[] = [];
  const byManager = new Map<string, string[]>();
  for (const { m, set } of conflicts) {
    const who = describe(m);
    for (const p of set.paths()) {
      causes.push({ reason: "FieldManagerConflict", message: `conflict with ${who}`, field: pathString(p) });
      const list = byManager.get(who) ?? [];
      list.push(pathString(p));
      byManager.set(who, list);
    }
  }
  if (causes.length === 1) return applyConflict(`Apply failed with 1 conflict: ${causes[0].message}: ${causes[0].field}`, causes);
  // Grouped by manager, managers in the order of their identifiers' text.
  const lines: string[] = [];
  const ids = conflicts.map(({ m }) => ({ id: JSON.stringify(identifier(m)), who: describe(m) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seen = new Set<string>();
  for (const { who } of ids) {
    if (seen.has(who)) continue;
    seen.add(who);
    lines.push(`conflicts with ${who}:`);
    for (const p of byManager.get(who)!) lines.push(`- ${p}`);
  }
  return applyConflict(`Apply failed with ${causes.length} conflicts: ${lines.join("\n")}`, causes);
}

/** The manager identifier the apiserver keys entries by (BuildManagerIdentifier's JSON). */
function identifier(m: Managed): Record<string, string> {
  return { manager: m.manager, operation: m.operation, ...(m.operation === "Update" ? { apiVersion: m.apiVersion } : {}), ...(m.subresource ? { subresource: m.subresource } : {}) };
}

/** `"kubectl-client-side-apply" using apps/v1`, `"kubelet" with subresource "status" using v1`, `"kubectl"`. */
function describe(m: Managed): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === "Update") s += ` using ${m.apiVersion}`;
  return s;
}

/** At most MAX_UPDATE_MANAGERS Update entries: the oldest fold into "ancient-changes". */
export function capUpdates(managers: Managed[], a: Pick<Attribution, "apiVersion">): Managed[] {
  const live = managers.filter((m) => !m.set.empty() || (m.operation === "Apply"));
  const updates = live.filter((m) => m.operation === "Update").sort((x, y) => (x.time ?? "").localeCompare(y.time ?? ""));
  if (updates.length <= MAX_UPDATE_MANAGERS) return live.filter((m) => !m.set.empty());
  const folded = updates.slice(0, updates.length - MAX_UPDATE_MANAGERS + 1);
  const ancient: Managed = { manager: "ancient-changes", operation: "Update", apiVersion: a.apiVersion, time: folded[folded.length - 1].time, set: new FieldSet() };
  for (const m of folded) ancient.set = ancient.set.union(m.set);
  return [...live.filter((m) => !folded.includes(m)), ancient].filter((m) => !m.set.empty());
}

/** The entries in the apiserver's order: Apply before Update, then by time, manager, version, subresource. */
export function encode(managers: Managed[]): ManagedFieldsEntry[] {
  const sorted = managers
    .map((m) => ({ ...m, set: prune(m.set) }))
    .filter((m) => !m.set.empty())
    .sort((p, q) => {
      if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
      const pt = p.time ? Date.parse(p.time) : 0;
      const qt = q.time ? Date.parse(q.time) : 0;
      if (pt !== qt) return pt - qt;
      if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
      if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
      return (p.subresource ?? "") < (q.subresource ?? "") ? -1 : (p.subresource ?? "") > (q.subresource ?? "") ? 1 : 0;
    });
  return sorted.map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    ...(m.time ? { time: m.time } : {}),
    fieldsType: "FieldsV1" as const,
    fieldsV1: m.set.toFieldsV1(),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}
