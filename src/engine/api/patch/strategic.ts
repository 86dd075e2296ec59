// Strategic merge patch (application/strategic-merge-patch+json): the apply half of
// k8s.io/apimachinery/pkg/util/strategicpatch (v0.33), i.e. StrategicMergeMapPatch with
// MergeParallelList and IgnoreUnmatchedNulls set, driven by PatchMeta data instead of Go
// reflection. Errors map to Status as interpretStrategicMergePatchError does: the format errors
// are 400 BadRequest, lists of lists 422, anything else a 500 with the library's text.
//
// Directives: `$patch: replace|delete` in a map or a list element (`$patch: merge` is refused as
// upstream refuses it), `$retainKeys`, `$deleteFromPrimitiveList/<field>`,
// `$setElementOrder/<field>`; a null value deletes the key.

import { badRequest, type StatusError } from "../status.js";
import { PatchApplyError, unknownServerError } from "./errors.js";
import { cloneJson, deepEqual, goS, goTypeName, goV, hasKey, isObject, setKey, type JsonObject, type JsonValue } from "./json.js";
import { lookupField, type PatchMeta, type PatchStrategy } from "./meta.js";

const DIRECTIVE = "$patch";
const DELETE = "delete";
const REPLACE = "replace";
const MERGE = "merge";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
const RETAIN_KEYS = "$retainKeys";
const SET_ELEMENT_ORDER = "$setElementOrder";

// mergepatch's sentinel errors and how the apiserver answers each.
const ERR_BAD_JSON_DOC = "invalid JSON document";
const ERR_NO_LIST_OF_LISTS = "lists of lists are not supported";
const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = "invalid patch format of primitive list";
const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = "invalid patch format of retainKeys";
const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = "invalid patch format of setElementOrder list";
const ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS = "patch content doesn't match retainKeys list";
const ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = "strategic merge patch format is not supported";

const BAD_REQUEST = new Set([
  ERR_BAD_JSON_DOC,
  ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
  ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
  ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
  ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT,
]);
const UNPROCESSABLE = new Set([ERR_NO_LIST_OF_LISTS, ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS]);

class SmpError extends Error {}
const fail = (msg: string): never => {
  throw new SmpError(msg);
};

function toStatus(message: string): StatusError {
  if (BAD_REQUEST.has(message)) return badRequest(message);
  if (UNPROCESSABLE.has(message)) return new PatchApplyError(message);
  return unknownServerError(message);
}

const errNoMergeKey = (m: JsonObject, k: string) => `map: ${goV(m)} does not contain declared merge key: ${k}`;
const errBadArgType = (expected: string, actual: JsonValue | undefined) =>
  `expected a ${expected}, but received a ${goTypeName(actual)}`;
const errBadPatchType = (t: JsonValue, m: JsonObject) => `unknown patch type: ${goS(t)} in map: ${goV(m)}`;
const MAP_T = "map[string]interface {}";
const SLICE_T = "[]interface {}";

/**
 * Where in the PatchMeta the value being merged sits. `client` is the merge that
 * CreateThreeWayMergePatch runs between two patches (MergeOptions{}: no MergeParallelList, no
 * IgnoreUnmatchedNulls): directives and nulls are kept for the server, not applied.
 */
export interface Schema {
  readonly meta: PatchMeta;
  readonly path: string;
  readonly client?: boolean;
}
const child = (s: Schema, key: string): Schema => ({ meta: s.meta, path: s.path ? `${s.path}.${key}` : key, client: s.client });
export const elements = (s: Schema): Schema => ({ meta: s.meta, path: `${s.path}[]`, client: s.client });

export function lookup(s: Schema, key: string): { sub: Schema; strategy: string; mergeKey: string; retainKeys: boolean } {
  const sub = child(s, key);
  const f = lookupField(s.meta, sub.path);
  return { sub, strategy: extractRetainKeysPatchStrategy(f.strategies), mergeKey: f.mergeKey ?? "", retainKeys: f.strategies.includes("retainKeys") };
}

function extractRetainKeysPatchStrategy(strategies: readonly PatchStrategy[]): string {
  if (strategies.length === 0) return "";
  if (strategies.length === 1) return strategies[0] === "retainKeys" ? "" : strategies[0];
  if (strategies.length === 2) {
    if (strategies[0] === "retainKeys") return strategies[1];
    if (strategies[1] === "retainKeys") return strategies[0];
  }
  return fail(`unexpected patch strategy: [${strategies.join(" ")}]`);
}

/** Go's reflect type of a decoded value, as the library compares them. */
export function goType(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "nil";
  if (Array.isArray(v)) return "slice";
  if (typeof v === "object") return "map";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return typeof v;
}

/** `==` on two interface{} values holding scalars. */
function goEq(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeof a === "object" || typeof b === "object") return false;
  return a === b && goType(a) === goType(b);
}

/**
 * Applies a strategic merge patch. `original` and `patch` are JSON objects; neither is modified.
 * Throws StatusError as the apiserver would answer.
 */
export function strategicMergePatch(original: unknown, patch: unknown, meta: PatchMeta): JsonValue {
  const o = cloneJson(original);
  const p = cloneJson(patch);
  if (p === null) return o; // json.Unmarshal of null into a map leaves a nil map: nothing to apply
  if (!isObject(o) || !isObject(p)) throw badRequest(ERR_BAD_JSON_DOC);
  try {
    return mergeMap(o, p, { meta, path: "" });
  } catch (e) {
    if (e instanceof SmpError) throw toStatus(e.message);
    throw e;
  }
}

/**
 * mergeMap with MergeOptions{} as CreateThreeWayMergePatch calls it: merges the additions and
 * changes (`delta`) into the deletions patch, keeping nulls and parallel lists for the server.
 * Both are modified.
 */
export function mergeClientPatches(deletions: JsonObject, delta: JsonObject, meta: PatchMeta): JsonObject {
  try {
    return mergeMap(deletions, delta, { meta, path: "", client: true });
  } catch (e) {
    if (e instanceof SmpError) throw new Error(e.message);
    throw e;
  }
}

function mergeMap(original: JsonObject | null, patch: JsonObject, schema: Schema): JsonObject {
  if (hasKey(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE], patch);
  const orig = original ?? {};
  applyRetainKeysDirective(orig, patch, schema);
  mergePatchIntoOriginal(orig, patch, schema);

  for (const k0 of Object.keys(patch)) {
    const patchV = patch[k0];
    let k = k0;
    let isDeleteList = false;
    if (k0.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      if (schema.client) {
        // Not merging parallel lists: the deletion list goes to the server as it is.
        setKey(orig, k0, patchV);
        continue;
      }
      k = extractKey(k0, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      // IgnoreUnmatchedNulls (the server): a null deletes the key and is never kept; the
      // client keeps it, an explicit delete for the server.
      delete orig[k];
      if (!schema.client) continue;
    }
    if (!hasKey(orig, k) || goType(orig[k]) !== goType(patchV)) {
      if (!isDeleteList) {
        if (!schema.client) discardNullValuesFromPatch(patchV);
        const [v, keep] = removeDirectives(patchV);
        if (keep) setKey(orig, k, v);
        else delete orig[k];
      }
      continue;
    }
    const cur = orig[k];
    if (isObject(cur)) {
      const { sub, strategy } = lookup(schema, k);
      setKey(orig, k, strategy !== REPLACE ? mergeMap(cur, patchV as JsonObject, sub) : patchV);
    } else if (Array.isArray(cur)) {
      const { sub, strategy, mergeKey } = lookup(schema, k);
      setKey(orig, k, mergeSliceHandler(cur, patchV as JsonValue[], elements(sub), strategy, mergeKey, isDeleteList));
    } else {
      const [v, keep] = removeDirectives(patchV);
      if (keep) setKey(orig, k, v);
      else delete orig[k];
    }
  }
  return orig;
}

function handleDirectiveInMergeMap(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === REPLACE) {
    // The patch is used as it is (its own nulls and nested directives included).
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  return fail(errBadPatchType(directive, patch));
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf("/");
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) fail(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST);
    if (prefix === SET_ELEMENT_ORDER) fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST);
    fail(`fail to find unknown prefix "${prefix}" in ${s}\n`);
  }
  return s.slice(slash + 1);
}

function applyRetainKeysDirective(original: JsonObject, patch: JsonObject, schema: Schema): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (schema.client) {
    // Both patches must agree on the directive; the merged patch carries it.
    if (!hasKey(original, RETAIN_KEYS)) setKey(original, RETAIN_KEYS, retain);
    else if (!deepEqual(original[RETAIN_KEYS], retain)) {
      fail(`${goV(original[RETAIN_KEYS])} and ${goV(retain)} are not deep equal: this may happen when calculating the 3-way diff patch`);
    }
    return;
  }
  if (!Array.isArray(retain)) return fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  const keep = (k: string) => retain.some((r) => goEq(r, k));
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep(k)) fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!keep(k)) delete original[k];
}

/** Processes every `$setElementOrder/<field>` with its list, then drops both from the patch. */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: Schema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    if (schema.client) {
      // The directive stays in the merged patch (once: both patches must agree on it).
      if (!hasKey(original, key)) setKey(original, key, order);
      else if (!deepEqual(original[key], order)) fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST);
    }
    delete patch[key];
    if (!Array.isArray(order)) return fail(errBadArgType(SLICE_T, order));
    const originalKey = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasKey(original, originalKey);
    const foundPatch = hasKey(patch, originalKey);
    let originalList: JsonValue[] = [];
    let patchList: JsonValue[] = [];
    if (foundOriginal) {
      const v = original[originalKey];
      if (!Array.isArray(v)) return fail(errBadArgType(SLICE_T, v));
      originalList = v;
    }
    if (foundPatch) {
      const v = patch[originalKey];
      if (!Array.isArray(v)) return fail(errBadArgType(SLICE_T, v));
      patchList = v;
    }
    const { sub, strategy, mergeKey } = lookup(schema, originalKey);
    validatePatchWithSetOrderList(foundPatch ? patchList : null, order, mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as JsonValue[];
    else if (foundOriginal && foundPatch)
      merged = mergeSliceHandler(originalList, patchList, elements(sub), strategy, mergeKey, false);
    else continue;

    const [patchItems, serverOnly] = mergeKey
      ? partitionMapsByPresentInList(merged, order, mergeKey)
      : partitionPrimitivesByPresentInList(merged, order);
    const kind = sliceElementType(originalList, patchList);
    setKey(original, originalKey, normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind));
    delete patch[originalKey];
  }
}

function validatePatchWithSetOrderList(patchList: JsonValue[] | null, order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList === null || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let pi = 0;
  let si = 0;
  while (pi < nonDelete.length && si < order.length) {
    const item = nonDelete[pi];
    if (isObject(item) && hasKey(item, DIRECTIVE)) {
      pi++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[si], mergeKey)) pi++;
    si++;
  }
  if (pi < nonDelete.length && si >= order.length) {
    fail(`The order in patch list:\n${goV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goV(order)}\n`);
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (!mergeKey) return goEq(left, right);
  if (!isObject(left)) return fail(errBadArgType(MAP_T, left));
  if (!isObject(right)) return fail(errBadArgType(MAP_T, right));
  if (!hasKey(left, mergeKey)) return fail(errNoMergeKey(left, mergeKey));
  if (!hasKey(right, mergeKey)) return fail(errNoMergeKey(right, mergeKey));
  return goEq(left[mergeKey], right[mergeKey]);
}

function mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  schema: Schema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  if (strategy === MERGE || isDeleteList) return mergeSlice(original, patch, schema, mergeKey, isDeleteList);
  return patch;
}

function mergeSlice(original: JsonValue[], patch: JsonValue[], schema: Schema, mergeKey: string, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: JsonValue[];
  let orig = original;
  let pat = patch;
  if (kind !== "map") {
    if (isDeleteList) return orig.filter((v) => !pat.some((d) => goEq(v, d)));
    merged = deduplicateScalars([...orig, ...pat]);
  } else {
    if (!mergeKey) return fail("cannot merge lists without merge key for struct");
    [orig, pat] = mergeSliceWithSpecialElements(orig, pat, mergeKey);
    merged = mergeSliceWithoutSpecialElements(orig, pat, mergeKey, schema);
  }
  const [patchItems, serverOnly] = mergeKey
    ? partitionMapsByPresentInList(merged, pat, mergeKey)
    : partitionPrimitivesByPresentInList(merged, pat);
  return normalizeElementOrder(patchItems, serverOnly, pat, orig, mergeKey, kind);
}

/** Applies `$patch: delete` / `$patch: replace` elements; returns the new original and the rest. */
function mergeSliceWithSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const rest: JsonValue[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasKey(m, DIRECTIVE)) {
      rest.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === DELETE) {
      if (!hasKey(m, mergeKey)) return fail(errNoMergeKey(m, mergeKey));
      const value = m[mergeKey];
      orig = orig.filter((x) => {
        if (!isObject(x)) return fail(`value for key ${orig.indexOf(x)} is not a map`);
        return !(hasKey(x, mergeKey) && goEq(x[mergeKey], value));
      });
    } else if (directive === REPLACE) {
      replace = true; // keep scanning so that other directives are still checked
    } else if (directive === MERGE) {
      return fail("merging lists cannot yet be specified in the patch");
    } else {
      return fail(errBadPatchType(directive, m));
    }
  }
  return replace ? [rest, []] : [orig, rest];
}

function mergeSliceWithoutSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string, schema: Schema): JsonValue[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasKey(m, mergeKey)) return fail(errNoMergeKey(m, mergeKey));
    const idx = findMapInSlice(out, mergeKey, m[mergeKey]);
    if (idx >= 0) out[idx] = mergeMap(out[idx] as JsonObject, m, schema);
    else out.push(v);
  }
  return out;
}

function findMapInSlice(list: JsonValue[], key: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (!isObject(m)) return fail(`value for key ${i} is not a map`);
    if (hasKey(m, key) && goEq(m[key], value)) return i;
  }
  return -1;
}

/** Upstream's in-place deduplication: a duplicate is overwritten by the last element. */
export function deduplicateScalars(s: JsonValue[]): JsonValue[] {
  const out = [...s];
  let length = out.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEq(out[i], out[j])) {
        out[j] = out[length];
        out.length = length;
        length--;
        j--;
      }
    }
  }
  return out;
}

export function sliceElementType(...slices: JsonValue[][]): string {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goType(v);
      if (prev === undefined) {
        prev = t;
        if (t === "slice") fail(ERR_NO_LIST_OF_LISTS);
      } else if (prev !== t) {
        fail(`list element types are not identical: ${goV(slices)}`);
      }
    }
  }
  if (prev === undefined) return fail("no elements in any of the given slices");
  return prev;
}

function partitionPrimitivesByPresentInList(list: JsonValue[], by: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of list) (by.some((b) => goEq(b, v)) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

function partitionMapsByPresentInList(list: JsonValue[], by: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) return fail(errBadArgType(MAP_T, v));
    if (!hasKey(v, mergeKey)) return fail(errNoMergeKey(v, mergeKey));
    (findMapInSlice(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const del: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) return fail(errBadArgType(MAP_T, v));
    (hasKey(v, DIRECTIVE) && v[DIRECTIVE] === DELETE ? del : keep).push(v);
  }
  return [keep, del];
}

function indexIn(list: JsonValue[], item: JsonValue, mergeKey: string, kind: string): number {
  const val = (x: JsonValue): JsonValue | undefined => (kind === "map" ? (isObject(x) ? x[mergeKey] : null) : x);
  const want = val(item);
  return list.findIndex((x) => goEq(val(x), want));
}

/**
 * Sorts the patch items by the patch's order and the server-only items by the live order, then
 * interleaves them: the patch decides the relative order of what it names, the live list the rest.
 */
function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: string,
): JsonValue[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

export function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  let items = toSort;
  let toDelete: JsonValue[] = [];
  if (kind === "map") {
    for (const list of [toSort, order]) {
      for (const item of list) {
        if (!isObject(item)) return fail(errBadArgType(MAP_T, item));
        if (!hasKey(item, mergeKey)) return fail(errNoMergeKey(item, mergeKey));
      }
    }
    [items, toDelete] = extractToDeleteItems(toSort);
  }
  // Every item is found in `order` where upstream calls this, so a stable sort by position
  // gives the order Go's sort.SliceStable gives.
  const pos = (x: JsonValue) => {
    const i = indexIn(order, x, mergeKey, kind);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const sorted = items.map((x, i) => ({ x, i, p: pos(x) })).sort((a, b) => a.p - b.p || a.i - b.i);
  return [...sorted.map((e) => e.x), ...toDelete];
}

function mergeSortedSlice(left: JsonValue[], right: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Drops every map carrying `$patch` (and the key holding it); may modify `obj`. */
function removeDirectives(obj: JsonValue): [JsonValue, boolean] {
  if (isObject(obj)) {
    if (hasKey(obj, DIRECTIVE)) return [null, false];
    for (const k of Object.keys(obj)) {
      const [v, keep] = removeDirectives(obj[k]);
      if (keep) setKey(obj, k, v);
      else delete obj[k];
    }
    return [obj, true];
  }
  if (Array.isArray(obj)) {
    const res: JsonValue[] = [];
    for (const v of obj) {
      const [nv, keep] = removeDirectives(v);
      if (keep) res.push(nv);
    }
    return [res, true];
  }
  return [obj, true];
}

function discardNullValuesFromPatch(v: JsonValue): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  }
}
