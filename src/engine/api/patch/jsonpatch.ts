// JSON patch (RFC 6902, application/json-patch+json) with the behaviour and error texts of
// gopkg.in/evanphx/json-patch.v4 v4.12.0, the version kube-apiserver v1.33 vendors. Its quirks
// are kept because a user of a real cluster sees them:
//  - "replace" of a missing object key adds it (partialDoc.get never fails);
//  - negative array indices count from the end (SupportNegativeIndices defaults to true);
//  - "test" of a missing key against null passes;
//  - "replace" of the whole document ("") with a scalar is silently ignored.
// Every failure is a PatchApplyError (422, the apiserver's generic wording) whose `detail` is the
// library's message, e.g. "testing value /spec/replicas failed: test failed".

import { PatchApplyError } from "./errors.js";
import { cloneJson, deepEqual, goAtoi, hasKey, isObject, jsonValueWord, setKey, type JsonObject, type JsonValue } from "./json.js";

type Container = JsonObject | JsonValue[];

/** A Go error chain flattened to its text: pkg/errors.Wrapf(err, msg) prints "msg: err". */
class OpError extends Error {}
const fail = (msg: string): never => {
  throw new OpError(msg);
};
const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

/** Applies the operations in order to a copy of `original`. */
export function jsonPatch(original: unknown, operations: readonly unknown[]): JsonValue {
  let doc = cloneJson(original);
  const ops = operations.map((o) => (isObject(o) ? (cloneJson(o) as JsonObject) : ({} as JsonObject)));
  try {
    for (const op of ops) {
      if (!isObject(doc) && !Array.isArray(doc)) fail("invalid state detected");
      const root = { doc: doc as Container };
      switch (kindOf(op)) {
        case "add":
          add(root, op);
          break;
        case "remove":
          remove(root, op);
          break;
        case "replace":
          replace(root, op);
          break;
        case "move":
          move(root, op);
          break;
        case "test":
          test(root, op);
          break;
        case "copy":
          copy(root, op);
          break;
        default:
          fail(`Unexpected kind: ${kindOf(op)}`);
      }
      doc = root.doc;
    }
  } catch (e) {
    if (e instanceof OpError) throw new PatchApplyError(e.message);
    throw e;
  }
  return doc;
}

function kindOf(op: JsonObject): string {
  const v = hasKey(op, "op") ? op.op : null;
  return typeof v === "string" ? v : "unknown";
}

/** Operation.Path / From: a missing or null field, or a non-string one (json.Unmarshal error). */
function stringField(op: JsonObject, name: "path" | "from"): { ok: true; v: string } | { ok: false; err: string } {
  const v = hasKey(op, name) ? op[name] : null;
  if (v === null) {
    const what = name === "path" ? "operation missing path field" : "operation, missing from field";
    return { ok: false, err: `${what}: ${MISSING}` };
  }
  if (typeof v !== "string") return { ok: false, err: `json: cannot unmarshal ${jsonValueWord(v)} into Go value of type string` };
  return { ok: true, v };
}

/** The op's "value": undefined when absent (Go: a nil *lazyNode), null when JSON null. */
function valueOf(op: JsonObject): JsonValue | undefined {
  return hasKey(op, "value") ? op.value : undefined;
}

const decodeKey = (k: string) => k.replace(/~1/g, "/").replace(/~0/g, "~");

/** findObject: the container holding the last token, or null if any step is missing. */
function findObject(root: { doc: Container }, path: string): [Container, string] | null {
  const split = path.split("/");
  if (split.length < 2) return null;
  const parts = split.slice(1, -1);
  const key = split[split.length - 1];
  let doc: Container = root.doc;
  for (const part of parts) {
    const next = tryGet(doc, decodeKey(part));
    if (next === undefined || next === null) return null;
    if (Array.isArray(next) || isObject(next)) doc = next;
    else return null; // a scalar cannot be descended into
  }
  return [doc, decodeKey(key)];
}

function tryGet(c: Container, key: string): JsonValue | undefined {
  try {
    return get(c, key);
  } catch (e) {
    if (e instanceof OpError) return undefined;
    throw e;
  }
}

function atoi(key: string): number {
  const r = goAtoi(key);
  if (!r.ok) fail(r.message);
  return (r as { value: number }).value;
}

function get(c: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(c)) return hasKey(c, key) ? c[key] : undefined;
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -c.length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += c.length;
  }
  if (idx >= c.length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return c[idx];
}

function set(c: Container, key: string, val: JsonValue): void {
  if (!Array.isArray(c)) return setKey(c, key, val);
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -c.length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += c.length;
  }
  c[idx] = val;
}

function addTo(c: Container, key: string, val: JsonValue): void {
  if (!Array.isArray(c)) return setKey(c, key, val);
  if (key === "-") {
    c.push(val);
    return;
  }
  const r = goAtoi(key);
  if (!r.ok) fail(`value was not a proper array index: '${key}': ${r.message}`);
  let idx = (r as { value: number }).value;
  const size = c.length + 1;
  if (idx >= size) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) {
    if (idx < -size) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += size;
  }
  c.splice(idx, 0, val);
}

function removeFrom(c: Container, key: string): void {
  if (!Array.isArray(c)) {
    if (!hasKey(c, key)) fail(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete c[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= c.length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) {
    if (idx < -c.length) fail(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    idx += c.length;
  }
  c.splice(idx, 1);
}

/** Runs a container step, prefixing its error as the library's Wrapf does. */
function wrap(prefix: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    if (e instanceof OpError) fail(`${prefix}: ${e.message}`);
    throw e;
  }
}

function add(root: { doc: Container }, op: JsonObject): void {
  const p = stringField(op, "path");
  if (!p.ok) return fail(`add operation failed to decode path: ${MISSING}`);
  const path = p.v;
  const found = findObject(root, path);
  if (!found) return fail(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  const [con, key] = found;
  wrap(`error in add for path: '${path}'`, () => addTo(con, key, valueOf(op) ?? null));
}

function remove(root: { doc: Container }, op: JsonObject): void {
  const p = stringField(op, "path");
  if (!p.ok) return fail(`remove operation failed to decode path: ${MISSING}`);
  const path = p.v;
  const found = findObject(root, path);
  if (!found) return fail(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  const [con, key] = found;
  wrap(`error in remove for path: '${path}'`, () => removeFrom(con, key));
}

function replace(root: { doc: Container }, op: JsonObject): void {
  const p = stringField(op, "path");
  if (!p.ok) return fail(`replace operation failed to decode path: ${p.err}`);
  const path = p.v;
  if (path === "") {
    const v = valueOf(op);
    // v4 wraps a nil error here, so a scalar for the whole document is a silent no-op.
    if (isObject(v) || Array.isArray(v)) root.doc = v;
    return;
  }
  const found = findObject(root, path);
  if (!found) return fail(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  const [con, key] = found;
  try {
    get(con, key);
  } catch (e) {
    if (e instanceof OpError) fail(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    throw e;
  }
  // (sic) the library says "remove" here
  wrap(`error in remove for path: '${path}'`, () => set(con, key, valueOf(op) ?? null));
}

function move(root: { doc: Container }, op: JsonObject): void {
  const f = stringField(op, "from");
  if (!f.ok) return fail(`move operation failed to decode from: ${f.err}`);
  const from = f.v;
  const src = findObject(root, from);
  if (!src) return fail(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const [scon, skey] = src;
  let val: JsonValue | undefined;
  wrap(`error in move for path: '${skey}'`, () => {
    val = get(scon, skey);
  });
  wrap(`error in move for path: '${skey}'`, () => removeFrom(scon, skey));
  const p = stringField(op, "path");
  if (!p.ok) return fail(`move operation failed to decode path: ${p.err}`);
  const path = p.v;
  const dst = findObject(root, path);
  if (!dst) return fail(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  const [dcon, dkey] = dst;
  wrap(`error in move for path: '${path}'`, () => addTo(dcon, dkey, val ?? null));
}

function test(root: { doc: Container }, op: JsonObject): void {
  const p = stringField(op, "path");
  if (!p.ok) return fail(`test operation failed to decode path: ${p.err}`);
  const path = p.v;
  const expected = valueOf(op);
  const failed = () => fail(`testing value ${path} failed: test failed`);
  if (path === "") {
    if (expected !== undefined && deepEqual(root.doc, expected)) return;
    return failed();
  }
  const found = findObject(root, path);
  if (!found) return fail(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  const [con, key] = found;
  let val: JsonValue | undefined;
  wrap(`error in test for path: '${path}'`, () => {
    val = get(con, key);
  });
  if (val === undefined || val === null) {
    // A missing key and a JSON null both read as a nil node, which only a null value matches.
    if (expected === null || expected === undefined) return;
    return failed();
  }
  if (expected === undefined) return failed();
  if (!deepEqual(val, expected)) failed();
}

function copy(root: { doc: Container }, op: JsonObject): void {
  const f = stringField(op, "from");
  if (!f.ok) return fail(`copy operation failed to decode from: ${f.err}`);
  const from = f.v;
  const src = findObject(root, from);
  if (!src) return fail(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const [scon, skey] = src;
  let val: JsonValue | undefined;
  wrap(`error in copy for from: '${from}'`, () => {
    val = get(scon, skey);
  });
  const p = stringField(op, "path");
  if (!p.ok) return fail(`copy operation failed to decode path: ${MISSING}`);
  const path = p.v;
  const dst = findObject(root, path);
  if (!dst) return fail(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  const [dcon, dkey] = dst;
  const valCopy = cloneJson(val ?? null);
  wrap("error while adding value during copy", () => addTo(dcon, dkey, valCopy));
}
