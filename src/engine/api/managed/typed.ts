// Server-side apply's operations on objects of a known shape (structured-merge-diff's typed
// package, re-expressed): the set of fields an object sets, the comparison of two versions of an
// object as added/modified/removed fields, the merge of an applied configuration into a live
// object, and the removal of fields. null counts as absent throughout, as a Go zero value omits it.

import { FieldSet, fieldPE, keyPE, type PathElement, valuePE } from "./fieldset.js";
import { fieldShape, type Shape } from "./schema.js";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function isListShape(s: Shape): s is Extract<Shape, { t: "list" }> | Extract<Shape, { t: "set" }> {
  return s.t === "list" || s.t === "set";
}

/** The path element of a list item; undefined when a keyed item lacks a key (it is skipped). */
function itemPE(s: Shape, item: unknown): PathElement | undefined {
  if (s.t === "set") return valuePE(item);
  if (s.t !== "list" || !isObj(item)) return undefined;
  const keys: Record<string, unknown> = {};
  for (const k of s.keys) {
    const v = present(item[k]) ? item[k] : s.defaults?.[k];
    if (v === undefined) return undefined;
    keys[k] = v;
  }
  return keyPE(keys);
}

function elemShape(s: Shape): Shape {
  return s.t === "list" ? s.elem : { t: "atomic" };
}

/** A list's items by path element, first occurrence of each, in order. */
function indexItems(s: Shape, list: unknown): Map<PathElement, unknown> {
  const m = new Map<PathElement, unknown>();
  if (!Array.isArray(list)) return m;
  for (const item of list) {
    const pe = itemPE(s, item);
    if (pe !== undefined && !m.has(pe)) m.set(pe, item);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// The set of fields a value sets (TypedValue.ToFieldSet)

export function toFieldSet(v: unknown, s: Shape): FieldSet {
  const out = new FieldSet();
  walkSet(v, s, [], out);
  return out;
}

function walkSet(v: unknown, s: Shape, path: PathElement[], out: FieldSet): void {
  if (!present(v)) return;
  if (Array.isArray(v)) {
    if (!isListShape(s)) return out.insert(path);
    for (const [pe, item] of indexItems(s, v)) {
      const p = [...path, pe];
      walkSet(item, elemShape(s), p, out);
      out.insert(p);
    }
    return;
  }
  if (!isObj(v) || s.t === "atomic" || s.t === "set" || s.t === "list") return out.insert(path);
  const keys = Object.keys(v).filter((k) => present(v[k]));
  if (keys.length === 0) return out.insert(path);
  for (const k of keys) {
    const p = [...path, fieldPE(k)];
    walkSet(v[k], fieldShape(s, k), p, out);
    // A map's entries are members themselves; a struct's fields only as leaves.
    if (s.t !== "struct" || !(k in s.fields)) out.insert(p);
  }
}

// ---------------------------------------------------------------------------------------------
// Comparison (TypedValue.Compare)

interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compare(lhs: unknown, rhs: unknown, s: Shape): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, s, [], c);
  return c;
}

function walkCompare(l: unknown, r: unknown, s: Shape, path: PathElement[], c: Comparison): void {
  // `path` is one stack pushed and popped on the way down (insert copies nothing from it).
  const lp = present(l);
  const rp = present(r);
  if (!lp && !rp) return;
  if ((!lp || Array.isArray(l)) && (!rp || Array.isArray(r)) && isListShape(s)) {
    if ((!lp || (l as unknown[]).length === 0) && (!rp || (r as unknown[]).length === 0)) return leafCompare(l, r, lp, rp, path, c);
    const li = indexItems(s, lp ? l : undefined);
    const ri = indexItems(s, rp ? r : undefined);
    const es = elemShape(s);
    for (const [pe, item] of ri) {
      path.push(pe);
      walkCompare(li.get(pe), item, es, path, c);
      path.pop();
    }
    for (const [pe, item] of li) {
      if (ri.has(pe)) continue;
      path.push(pe);
      walkCompare(item, undefined, es, path, c);
      path.pop();
    }
  } else if ((!lp || isObj(l)) && (!rp || isObj(r)) && s.t !== "atomic" && !isListShape(s)) {
    const lo = (lp ? l : {}) as Obj;
    const ro = (rp ? r : {}) as Obj;
    if (!anyPresent(lo) && !anyPresent(ro)) return leafCompare(l, r, lp, rp, path, c);
    for (const k of Object.keys(lo)) {
      path.push(fieldPE(k));
      walkCompare(lo[k], ro[k], fieldShape(s, k), path, c);
      path.pop();
    }
    for (const k of Object.keys(ro)) {
      if (Object.hasOwn(lo, k)) continue;
      path.push(fieldPE(k));
      walkCompare(undefined, ro[k], fieldShape(s, k), path, c);
      path.pop();
    }
  } else return leafCompare(l, r, lp, rp, path, c);
  if (!lp) c.added.insert(path);
  else if (!rp) c.removed.insert(path);
}

function leafCompare(l: unknown, r: unknown, lp: boolean, rp: boolean, path: PathElement[], c: Comparison): void {
  if (!lp) c.added.insert(path);
  else if (!rp) c.removed.insert(path);
  else if (!jsonEqual(l, r)) c.modified.insert(path);
}

function anyPresent(o: Obj): boolean {
  for (const k in o) if (present(o[k])) return true;
  return false;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}

// ---------------------------------------------------------------------------------------------
// Merge of an applied configuration into the live object (TypedValue.Merge): the configuration
// wins for every field it sets; keyed lists and sets merge item by item.

export function merge(live: unknown, config: unknown, s: Shape): unknown {
  if (!present(config)) return live;
  if (!present(live)) return structuredClone(config);
  if (Array.isArray(config) && Array.isArray(live) && isListShape(s)) return mergeList(live, config, s);
  if (isObj(config) && isObj(live) && s.t !== "atomic" && !isListShape(s)) {
    const out: Obj = {};
    for (const k of Object.keys(live)) out[k] = live[k];
    for (const k of Object.keys(config)) {
      const m = merge(live[k], config[k], fieldShape(s, k));
      if (m === undefined) delete out[k];
      else out[k] = m;
    }
    return out;
  }
  return structuredClone(config);
}

/**
 * Items of both lists, merged where they share a key. The configuration's items come in its
 * order; a live item it does not name keeps its place relative to the shared ones.
 */
function mergeList(live: unknown[], config: unknown[], s: Shape): unknown[] {
  const li = indexItems(s, live);
  const ri = indexItems(s, config);
  const lOrder = [...li.keys()];
  const rOrder = [...ri.keys()];
  const shared = rOrder.filter((pe) => li.has(pe));
  let next = shared.shift();
  const out: unknown[] = [];
  const elem = elemShape(s);
  let l = 0;
  let r = 0;
  while (l < lOrder.length || r < rOrder.length) {
    if (l < lOrder.length && r < rOrder.length) {
      const pe = lOrder[l];
      if (pe === rOrder[r]) {
        out.push(merge(li.get(pe), ri.get(pe), elem));
        l++;
        r++;
        next = shared.shift();
        continue;
      }
      // A shared item that comes later in the configuration: it is placed when reached there.
      if (ri.has(pe) && next !== undefined && next !== pe) {
        l++;
        continue;
      }
    }
    if (l < lOrder.length && !ri.has(lOrder[l])) {
      out.push(li.get(lOrder[l]));
      l++;
      continue;
    }
    if (r < rOrder.length) {
      const pe = rOrder[r];
      out.push(merge(li.get(pe), ri.get(pe), elem));
      r++;
      if (next === pe) next = shared.shift();
      continue;
    }
    l++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Removal of fields (prune): each member path of `fields` leaves `obj` (a copy is returned).

export function removeFields(obj: unknown, fields: FieldSet, s: Shape): unknown {
  const out = structuredClone(obj);
  for (const p of fields.paths()) removePath(out, p, s);
  return out;
}

function removePath(v: unknown, path: PathElement[], s: Shape): void {
  let node: unknown = v;
  let shape = s;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i];
    const last = i === path.length - 1;
    if (pe.startsWith("f:")) {
      if (!isObj(node)) return;
      const name = pe.slice(2);
      if (last) {
        delete node[name];
        return;
      }
      node = node[name];
      shape = fieldShape(shape, name);
    } else {
      if (!Array.isArray(node)) return;
      const idx = node.findIndex((item) => itemPE(shape, item) === pe);
      if (idx < 0) return;
      if (last) {
        node.splice(idx, 1);
        return;
      }
      node = node[idx];
      shape = elemShape(shape);
    }
  }
}
