// JSON merge patch (RFC 7386, application/merge-patch+json) as gopkg.in/evanphx/json-patch.v4
// MergePatch applies it for the apiserver. One departure from a plain RFC reading is kept on
// purpose: v4 prunes nulls from a subtree it inserts where nothing was (and from arrays of
// objects inside it), but keeps them in an array or scalar that replaces an existing object.

import { cloneJson, hasKey, isObject, setKey, type JsonObject, type JsonValue } from "./json.js";

/** Applies `patch` to `original`; neither input is modified. */
export function mergePatch(original: unknown, patch: unknown): JsonValue {
  const p = cloneJson(patch);
  if (!isObject(p)) {
    // Not a document: the patch replaces the original wholesale (arrays lose their nested nulls).
    pruneNulls(p);
    return p;
  }
  const doc = cloneJson(original);
  if (!isObject(doc)) {
    pruneNulls(p);
    return p;
  }
  mergeDocs(doc, p);
  return doc;
}

function merge(cur: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(cur)) {
    pruneNulls(patch);
    return patch;
  }
  if (!isObject(patch)) return patch;
  mergeDocs(cur, patch);
  return cur;
}

function mergeDocs(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = hasKey(doc, k) ? doc[k] : null;
    if (cur === null) {
      pruneNulls(v);
      setKey(doc, k, v);
    } else {
      setKey(doc, k, merge(cur, v));
    }
  }
}

function pruneNulls(n: JsonValue): void {
  if (isObject(n)) {
    for (const k of Object.keys(n)) {
      if (n[k] === null) delete n[k];
      else pruneNulls(n[k]);
    }
  } else if (Array.isArray(n)) {
    for (const v of n) if (v !== null) pruneNulls(v);
  }
}
