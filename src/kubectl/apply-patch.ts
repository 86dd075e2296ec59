// kubectl apply's client-side patch (kubectl pkg/cmd/apply/patcher.go): the three-way merge of
// the last-applied configuration (original), the file (modified) and the live object (current).
// Built-in kinds get apimachinery's strategicpatch.CreateThreeWayMergePatch, driven by the same
// PatchMeta the apiserver merges with; custom resources (no strategic information) get
// jsonmergepatch.CreateThreeWayJSONMergePatch. The patch is what kubectl sends: additions and
// changes from current to modified, deletions from original to modified, with `$patch: delete`,
// `$deleteFromPrimitiveList/`, `$setElementOrder/`, `$retainKeys` and nulls.

import {
  deduplicateScalars,
  elements,
  goType,
  lookup,
  mergeClientPatches,
  normalizeSliceOrder,
  type Schema,
  sliceElementType,
} from "../engine/api/patch/strategic.js";
import { cloneJson, deepEqual, goV, hasKey, isObject, setKey, type JsonObject, type JsonValue } from "../engine/api/patch/json.js";
import type { PatchMeta } from "../engine/api/patch/meta.js";
import { mergePatch } from "../engine/api/patch/merge.js";
import { patchMetaFor } from "../engine/api/patch/meta.js";
import { goSortArray } from "./gosort.js";
import { goCompactJson } from "./output.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * The last-applied-configuration annotation as kubectl's GetModifiedConfiguration writes it: the
 * object of the file, with the namespace it is applied to, its other annotations (`{}` when it
 * has none) and without the annotation itself, marshalled as Go marshals a map (keys sorted,
 * HTML characters escaped) by json.Encoder (a newline after).
 */
export function lastAppliedOf(obj: JsonObject, ns: string | undefined): string {
  const copy = cloneJson(obj) as JsonObject;
  const meta = (isObject(copy.metadata) ? copy.metadata : (copy.metadata = {})) as JsonObject;
  if (ns !== undefined && !meta.namespace) meta.namespace = ns;
  const annotations = { ...(isObject(meta.annotations) ? meta.annotations : {}) };
  delete annotations[LAST_APPLIED];
  meta.annotations = annotations;
  return goCompactJson(sortKeys(copy)) + "\n";
}

/** The file's object as kubectl sends it: its namespace set and the annotation added. */
export function withLastApplied(obj: JsonObject, ns: string | undefined): JsonObject {
  const copy = cloneJson(obj) as JsonObject;
  const meta = (isObject(copy.metadata) ? copy.metadata : (copy.metadata = {})) as JsonObject;
  if (ns !== undefined && !meta.namespace) meta.namespace = ns;
  meta.annotations = { ...(isObject(meta.annotations) ? meta.annotations : {}), [LAST_APPLIED]: lastAppliedOf(obj, ns) };
  return copy;
}

/**
 * kubectl apply's patch for a live object (patcher.go's patchSimple): three-way from its
 * annotation (original), the file's object with the annotation (`modified`, withLastApplied) and
 * the live object; strategic for built-in kinds, JSON merge for custom resources. An empty patch
 * (`{}`) means "unchanged": kubectl sends nothing.
 */
export function kubectlApplyPatch(info: { kind: string; crd?: unknown }, live: JsonObject, modified: JsonObject): { type: "strategic" | "merge"; patch: JsonObject } {
  const liveMeta = isObject(live.metadata) ? live.metadata : {};
  const text = isObject(liveMeta.annotations) ? liveMeta.annotations[LAST_APPLIED] : undefined;
  let original: JsonObject | undefined;
  if (typeof text === "string" && text) {
    try {
      original = JSON.parse(text);
    } catch {
      fail("invalid JSON document");
    }
  }
  const meta = info.crd ? undefined : patchMetaFor(info.kind);
  if (meta) return { type: "strategic", patch: threeWayStrategicPatch(original, modified, live, meta) };
  return { type: "merge", patch: threeWayJsonMergePatch(original, modified, live) };
}

interface DiffOptions {
  /** Generate the $setElementOrder parallel lists. */
  setElementOrder?: boolean;
  ignoreChangesAndAdditions?: boolean;
  ignoreDeletions?: boolean;
  buildRetainKeysDirective?: boolean;
}

/** A failure computing the patch, in the library's words (kubectl prints it after "error: "). */
export class ApplyPatchError extends Error {}
const fail = (msg: string): never => {
  throw new ApplyPatchError(msg);
};

/** Go's json.Marshal of a map: keys sorted at every level (the wire form of the patch). */
function sortKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) {
    const o: JsonObject = {};
    for (const k of Object.keys(v).sort()) setKey(o, k, sortKeys(v[k]));
    return o;
  }
  return v;
}

/**
 * strategicpatch.CreateThreeWayMergePatch with overwrite (kubectl apply's default): the patch as
 * kubectl would marshal it (keys sorted). `original` is undefined when the live object has no
 * last-applied annotation.
 */
export function threeWayStrategicPatch(original: JsonObject | undefined, modified: JsonObject, current: JsonObject, meta: PatchMeta): JsonObject {
  const root: Schema = { meta, path: "" };
  const mod = cloneJson(modified) as JsonObject;
  const delta = diffMaps(cloneJson(current) as JsonObject, mod, root, { ignoreDeletions: true, setElementOrder: true });
  const deletions = diffMaps(cloneJson(original ?? {}) as JsonObject, cloneJson(modified) as JsonObject, root, { setElementOrder: true, ignoreChangesAndAdditions: true });
  let patch: JsonObject;
  try {
    patch = mergeClientPatches(deletions, delta, meta);
  } catch (e) {
    throw new ApplyPatchError((e as Error).message);
  }
  return sortKeys(patch) as JsonObject;
}

function diffMaps(original: JsonObject, modified: JsonObject, s: Schema, o: DiffOptions): JsonObject {
  const patch: JsonObject = {};
  const retainKeys: string[] = [];
  for (const key of Object.keys(modified)) {
    const mv = modified[key];
    if (o.buildRetainKeysDirective && mv !== null) retainKeys.push(key);
    if (!hasKey(original, key)) {
      if (!o.ignoreChangesAndAdditions) setKey(patch, key, mv);
      continue;
    }
    const ov = original[key];
    if (key === "$patch") {
      if (typeof ov !== "string" || typeof mv !== "string") fail("invalid value for special key: $patch");
      if (ov !== mv) setKey(patch, key, mv);
      continue;
    }
    if (goType(ov) !== goType(mv)) {
      if (!o.ignoreChangesAndAdditions) setKey(patch, key, mv);
      continue;
    }
    if (isObject(ov)) handleMapDiff(key, ov, mv as JsonObject, patch, s, o);
    else if (Array.isArray(ov)) handleSliceDiff(key, ov, mv as JsonValue[], patch, s, o);
    else replaceIfNotEqual(key, ov, mv, patch, o);
  }
  if (!o.ignoreDeletions) {
    for (const key of Object.keys(original)) if (!hasKey(modified, key)) setKey(patch, key, null);
  }
  if (retainKeys.length && (Object.keys(patch).length || hasAdditionalNewField(original, modified))) {
    setKey(patch, "$retainKeys", sortScalars(retainKeys));
  }
  return patch;
}

function hasAdditionalNewField(original: JsonObject, modified: JsonObject): boolean {
  return Object.keys(original).some((k) => original[k] !== null && !hasKey(modified, k));
}

function handleMapDiff(key: string, ov: JsonObject, mv: JsonObject, patch: JsonObject, s: Schema, o: DiffOptions): void {
  const { sub, strategy, retainKeys } = lookup(s, key);
  if (strategy === "replace") {
    if (!o.ignoreChangesAndAdditions) setKey(patch, key, mv);
    return;
  }
  const pv = diffMaps(ov, mv, sub, { ...o, buildRetainKeysDirective: retainKeys });
  if (Object.keys(pv).length) setKey(patch, key, pv);
}

function handleSliceDiff(key: string, ov: JsonValue[], mv: JsonValue[], patch: JsonObject, s: Schema, o: DiffOptions): void {
  const { sub, strategy, mergeKey, retainKeys } = lookup(s, key);
  if (strategy !== "merge") {
    replaceIfNotEqual(key, ov, mv, patch, o);
    return;
  }
  const [add, del, order] = diffLists(ov, mv, elements(sub), mergeKey, { ...o, buildRetainKeysDirective: retainKeys });
  if (add.length) setKey(patch, key, add);
  if (del.length) setKey(patch, `$deleteFromPrimitiveList/${key}`, del);
  if (order.length) setKey(patch, `$setElementOrder/${key}`, order);
}

function replaceIfNotEqual(key: string, ov: JsonValue, mv: JsonValue, patch: JsonObject, o: DiffOptions): void {
  if (o.ignoreChangesAndAdditions || deepEqual(ov, mv)) return;
  setKey(patch, key, mv);
}

/** The patch list, the parallel deletion list (scalars) and the $setElementOrder list. */
function diffLists(original: JsonValue[], modified: JsonValue[], s: Schema, mergeKey: string, o: DiffOptions): [JsonValue[], JsonValue[], JsonValue[]] {
  if (original.length === 0) {
    if (modified.length === 0 || o.ignoreChangesAndAdditions) return [[], [], []];
    return [modified, [], []];
  }
  const kind = elementKind(original, modified);
  let order: JsonValue[] = [];
  if (kind === "map") {
    const [changes, deletes] = diffListsOfMaps(original, modified, s, mergeKey, o);
    let list = orderBy(changes, modified, mergeKey, kind);
    const orderSame = isOrderSame(original, modified, mergeKey);
    list = [...list, ...deletes];
    if (o.setElementOrder && ((!o.ignoreChangesAndAdditions && (list.length > 0 || !orderSame)) || (!o.ignoreDeletions && list.length > 0))) {
      order = modified.map((v) => ({ [mergeKey]: (v as JsonObject)[mergeKey] ?? null }));
    }
    return [list, [], order];
  }
  if (kind === "slice") fail("lists of lists are not supported");
  const [adds, deletes] = diffListsOfScalars(original, modified, o);
  const list = orderBy(adds, modified, "", kind);
  if (o.setElementOrder && ((!o.ignoreDeletions && deletes.length > 0) || (!o.ignoreChangesAndAdditions && !deepEqual(original, modified)))) order = modified;
  return [list, deletes, order];
}

function elementKind(...lists: JsonValue[][]): string {
  try {
    return sliceElementType(...lists);
  } catch (e) {
    throw new ApplyPatchError((e as Error).message);
  }
}

function orderBy(list: JsonValue[], order: JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  try {
    return normalizeSliceOrder(list, order, mergeKey, kind);
  } catch (e) {
    throw new ApplyPatchError((e as Error).message);
  }
}

function isOrderSame(original: JsonValue[], modified: JsonValue[], mergeKey: string): boolean {
  if (original.length !== modified.length) return false;
  return modified.every((m, i) => {
    const a = original[i] as JsonObject;
    const b = m as JsonObject;
    return hasKey(a, mergeKey) && hasKey(b, mergeKey) && scalarEq(a[mergeKey], b[mergeKey]);
  });
}

/** Go's == on interface{} scalars (an int64 is never a float64 or a string). */
function scalarEq(a: JsonValue, b: JsonValue): boolean {
  return a === b && goType(a) === goType(b);
}

/** sortScalars: sort.Sort by each value's %v. */
function sortScalars(list: JsonValue[]): JsonValue[] {
  return goSortArray([...list], (a, b) => goV(a) < goV(b));
}

function diffListsOfScalars(original: JsonValue[], modified: JsonValue[], o: DiffOptions): [JsonValue[], JsonValue[]] {
  const os = sortScalars(original);
  const ms = sortScalars(modified);
  const add: JsonValue[] = [];
  const del: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < os.length || j < ms.length) {
    const oIn = i < os.length;
    const mIn = j < ms.length;
    const a = oIn ? goV(os[i]) : "";
    const b = mIn ? goV(ms[j]) : "";
    if (oIn && mIn && a === b) {
      i++;
      j++;
    } else if (!oIn || (mIn && a > b)) {
      if (!o.ignoreChangesAndAdditions) add.push(ms[j]);
      j++;
    } else {
      if (!o.ignoreDeletions) del.push(os[i]);
      i++;
    }
  }
  return [add, deduplicateScalars(del)];
}

/** sortMapsBasedOnField: sort.Sort with StringsAreSorted([a, b]) (a <= b) on the merge key's %v. */
function sortByMergeKey(list: JsonValue[], mergeKey: string): JsonValue[] {
  return goSortArray([...list], (a, b) => goV((a as JsonObject)[mergeKey]) <= goV((b as JsonObject)[mergeKey]));
}

function mapAndKey(list: JsonValue[], i: number, mergeKey: string): [JsonObject, JsonValue] {
  const m = list[i];
  if (!isObject(m)) return fail(`expected a map[string]interface {}, but received a ${goV(m)}`);
  if (!hasKey(m, mergeKey)) return fail(`map: ${goV(m)} does not contain declared merge key: ${mergeKey}`);
  return [m, m[mergeKey]];
}

function diffListsOfMaps(original: JsonValue[], modified: JsonValue[], s: Schema, mergeKey: string, o: DiffOptions): [JsonValue[], JsonValue[]] {
  const patch: JsonValue[] = [];
  const deletions: JsonValue[] = [];
  const os = sortByMergeKey(original, mergeKey);
  const ms = sortByMergeKey(modified, mergeKey);
  let i = 0;
  let j = 0;
  while (i < os.length || j < ms.length) {
    const oIn = i < os.length;
    const mIn = j < ms.length;
    const [oe, ok] = oIn ? mapAndKey(os, i, mergeKey) : [{}, null];
    const [me, mk] = mIn ? mapAndKey(ms, j, mergeKey) : [{}, null];
    const a = oIn ? goV(ok) : "";
    const b = mIn ? goV(mk) : "";
    if (oIn && mIn && a === b) {
      const pv = diffMaps(oe, me, s, o);
      if (Object.keys(pv).length) {
        setKey(pv, mergeKey, mk);
        patch.push(pv);
      }
      i++;
      j++;
    } else if (!oIn || (mIn && a > b)) {
      if (!o.ignoreChangesAndAdditions) patch.push(me);
      j++;
    } else {
      if (!o.ignoreDeletions) deletions.push({ [mergeKey]: ok, $patch: "delete" });
      i++;
    }
  }
  return [patch, deletions];
}


// ---------------------------------------------------------------------------------------------
// jsonmergepatch.CreateThreeWayJSONMergePatch (custom resources)

/** evanphx/json-patch CreateMergePatch of two objects: what turns `a` into `b` (nulls delete). */
function createMergePatch(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(b)) {
    const bv = b[k];
    if (!hasKey(a, k)) {
      setKey(out, k, bv);
      continue;
    }
    const av = a[k];
    if (isObject(av) && isObject(bv)) {
      const d = createMergePatch(av, bv);
      if (Object.keys(d).length) setKey(out, k, d);
    } else if (!deepEqual(av, bv) || goType(av) !== goType(bv)) {
      setKey(out, k, bv);
    }
  }
  for (const k of Object.keys(a)) if (!hasKey(b, k)) setKey(out, k, null);
  return out;
}

/** keepOrDeleteNullInObj: only the nulls (deletions), or everything but them (additions and changes). */
function keepOrDeleteNull(m: JsonObject, keepNull: boolean): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(m)) {
    const v = m[k];
    if (v === null) {
      if (keepNull) setKey(out, k, null);
    } else if (isObject(v)) {
      // An explicitly empty map is a value, not an empty patch.
      if (Object.keys(v).length === 0) {
        if (!keepNull) setKey(out, k, v);
        continue;
      }
      const sub = keepOrDeleteNull(v, keepNull);
      if (Object.keys(sub).length) setKey(out, k, sub);
    } else if (!keepNull) {
      setKey(out, k, v);
    }
  }
  return out;
}

/** mergepatch.HasConflicts: the same key changed differently by the two patches. */
function hasConflicts(left: JsonValue, right: JsonValue): boolean {
  if (isObject(left) && isObject(right)) {
    for (const k of Object.keys(left)) if (hasKey(right, k) && hasConflicts(left[k], right[k])) return true;
    return false;
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    if (left.length !== right.length) return true;
    return left.some((v, i) => hasConflicts(v, right[i]));
  }
  if (isObject(left) || isObject(right) || Array.isArray(left) || Array.isArray(right)) return true;
  return !(left === right && goType(left) === goType(right));
}

export function threeWayJsonMergePatch(original: JsonObject | undefined, modified: JsonObject, current: JsonObject): JsonObject {
  const addAndChange = keepOrDeleteNull(createMergePatch(current, modified), false);
  const deletions = keepOrDeleteNull(createMergePatch(original ?? {}, modified), true);
  if (hasConflicts(addAndChange, deletions)) fail("invalid JSON document");
  // jsonpatch.MergePatch(deletePatch, addAndChangePatch): the nulls of the first stay.
  const merged = mergeKeepingNulls(deletions, addAndChange);
  return sortKeys(merged) as JsonObject;
}

function mergeKeepingNulls(doc: JsonObject, patch: JsonObject): JsonObject {
  const out = cloneJson(doc) as JsonObject;
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    const cur = hasKey(out, k) ? out[k] : null;
    if (isObject(cur) && isObject(pv)) setKey(out, k, mergeKeepingNulls(cur, pv));
    else setKey(out, k, isObject(pv) ? (mergePatch({}, pv) as JsonValue) : pv);
  }
  return out;
}
