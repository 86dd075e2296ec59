// The cluster's own writes in managedFields (kube-controller-manager, kubelet, kube-scheduler,
// MetalLB's controller), recorded when someone reads them rather than on every write.
//
// A client's write is attributed at once (fieldmanager.ts). The cluster's own writes are the hot
// path (a thousand pods, each created, bound and written by its kubelet a few times) and almost
// never read, so each stored version only carries the list of such writes since its managedFields
// were last settled: who wrote, when, and the object before the write. Consecutive writes of one
// manager share one entry. Reading a version settles the list, newest write first: a write owns
// what it changed between its base and the current object, less what the writes after it changed
// or removed; the settled entries lose what any of the writes changed or removed. That is what
// attributing each write in turn gives, without keeping every version in between.

import { FieldSet } from "../api/managed/fieldset.js";
import { shapeOf, type Shape, zeroObject } from "../api/managed/schema.js";
import { compare } from "../api/managed/typed.js";
import type { KObject } from "../api/types.js";
import { type Attribution, capUpdates, decode, encode, idOf, type Managed, ownable, withoutManaged } from "./fieldmanager.js";

/** Who wrote, and how: one shared record per combination (a cluster holds few). */
interface Writer {
  /** Undefined: a write recorded for no one (the scheduler's binding, a delete's metadata). */
  manager: string | undefined;
  apiVersion: string;
  kind: string;
  subresource: string | undefined;
  hasStatus: boolean;
  /** Its identity in the keys of shared lists. */
  key: string;
}

/** One write (or run of one writer's consecutive writes) not yet in managedFields. */
interface OwnWrite {
  who: Writer;
  /** The time of the run's last write. */
  time: string;
  /**
   * The object before the run, or only its status for a status write (the hot path: the kubelet's
   * and controllers' status writes keep nothing else alive); undefined: the write created it.
   */
  base: unknown;
  /** Fields pod admission set on the create: no one owns them. */
  admitted?: FieldSet;
  /** The fields the write changed, when known without a comparison (the binding's). */
  known?: FieldSet;
}

/** Each stored version's writes since its managedFields were settled; versions without any are absent. */
const unsettled = new WeakMap<KObject, readonly OwnWrite[]>();
/** Each version read so far, with its managedFields settled. */
const settled = new WeakMap<KObject, KObject>();
const writers = new Map<string, Writer>();

/** The last writer asked for: a controller's writes come in runs of one kind. */
let lastWriter: Writer | undefined;

function writer(a: Pick<Attribution, "manager" | "apiVersion" | "kind" | "subresource" | "hasStatus">): Writer {
  const manager = a.manager || undefined;
  const l = lastWriter;
  if (l && l.manager === manager && l.kind === a.kind && l.subresource === a.subresource && l.apiVersion === a.apiVersion && l.hasStatus === a.hasStatus) return l;
  const key = `${manager ?? ""}\n${a.apiVersion}\n${a.kind}\n${a.subresource ?? ""}\n${a.hasStatus}`;
  let w = writers.get(key);
  if (!w) writers.set(key, (w = { manager, apiVersion: a.apiVersion, kind: a.kind, subresource: a.subresource || undefined, hasStatus: a.hasStatus, key }));
  return (lastWriter = w);
}

/**
 * Records a write of the cluster's own components from `old` (undefined: a create) to `next`,
 * the object about to be stored; `a.manager` "" records it for no one.
 */
export function deferOwnWrite(old: KObject | undefined, next: KObject, a: Attribution): void {
  const before = old ? unsettled.get(old) ?? NONE : NONE;
  const who = writer(a);
  const last = before[before.length - 1];
  if (last && !last.known && last.who === who) {
    const prefix = before.slice(0, -1);
    unsettled.set(next, last.time === a.now ? before : extend(prefix, keyOf(prefix), { ...last, time: a.now }));
    return;
  }
  const write: OwnWrite = { who, time: a.now, base: old && a.subresource === "status" ? sharedStatus(old.status) : old };
  if (a.admitted && !a.admitted.empty()) write.admitted = a.admitted;
  unsettled.set(next, extend(before, chainKeys.get(before), write));
}

/** Records a write no one is recorded for whose changed fields are known (the binding). */
export function deferKnownWrite(old: KObject, next: KObject, known: FieldSet, a: Pick<Attribution, "apiVersion" | "kind" | "hasStatus" | "now">): void {
  const before = unsettled.get(old) ?? NONE;
  unsettled.set(next, extend(before, chainKeys.get(before), { who: writer({ ...a, manager: "" }), time: a.now, base: undefined, known }));
}

// A controller's pods made in one second go through equal writes: their lists are shared, so
// ten thousand pods hold a few hundred lists between them, not ten thousand. A list, a status
// base and a field set have an identity key once shared; only those are shared (never changed).

const NONE: readonly OwnWrite[] = [];
const chainKeys = new WeakMap<readonly OwnWrite[], string>([[NONE, "0"]]);
const chains = new Map<string, readonly OwnWrite[]>();
const statuses = new Map<string, { id: number; status: unknown }>();
const statusIds = new WeakMap<object, number>();
const setIds = new WeakMap<FieldSet, number>();
let lastId = 0;
/** Past this many shared lists or statuses, sharing starts over (the shared ones stay where used). */
const MAX_SHARED = 256;

function idOfSet(s: FieldSet): number {
  let id = setIds.get(s);
  if (id === undefined) setIds.set(s, (id = ++lastId));
  return id;
}

/** The status a status write started from, shared with equal ones (undefined: none). */
function sharedStatus(status: unknown): unknown {
  if (!status || typeof status !== "object") return status;
  const json = JSON.stringify(status);
  let e = statuses.get(json);
  if (!e) {
    if (statuses.size >= MAX_SHARED) statuses.clear();
    statuses.set(json, (e = { id: ++lastId, status }));
    statusIds.set(status, e.id);
  }
  return e.status;
}

/** The key of a write, when everything it holds is shared; undefined otherwise. */
function writeKey(w: OwnWrite): string | undefined {
  let base: number | string = "";
  if (w.base !== undefined) {
    const id = w.base && typeof w.base === "object" ? statusIds.get(w.base) : undefined;
    if (id === undefined) return undefined;
    base = id;
  }
  return `${w.who.key}\n${w.time}\n${base}\n${w.admitted ? idOfSet(w.admitted) : ""}\n${w.known ? idOfSet(w.known) : ""}`;
}

/** A list's key, found by sharing its writes one by one; undefined when one cannot be shared. */
function keyOf(list: readonly OwnWrite[]): string | undefined {
  let key: string | undefined = "0";
  let out = NONE;
  for (const w of list) {
    out = extend(out, key, w);
    key = chainKeys.get(out);
    if (key === undefined) return undefined;
  }
  return key;
}

/** `before` and then `w`: the shared list when one is known, else a new one (shared if it can be). */
function extend(before: readonly OwnWrite[], beforeKey: string | undefined, w: OwnWrite): readonly OwnWrite[] {
  const wk = beforeKey === undefined ? undefined : writeKey(w);
  if (wk === undefined) return [...before, w];
  const key = `${beforeKey}\u0001${wk}`;
  const known = chains.get(key);
  if (known) return known;
  if (chains.size >= MAX_SHARED) chains.clear();
  const list = [...before, w];
  chains.set(key, list);
  chainKeys.set(list, `c${++lastId}`);
  return list;
}

/** The version as clients read it: with its own writes settled into managedFields. */
export function withOwnWrites(obj: KObject): KObject {
  const writes = unsettled.get(obj);
  if (!writes) return obj;
  let view = settled.get(obj);
  if (!view) {
    const entries = settle(obj, writes);
    const { managedFields: _m, ...meta } = obj.metadata;
    view = { ...obj, metadata: entries.length ? { ...meta, managedFields: entries as KObject["metadata"]["managedFields"] } : meta } as KObject;
    settled.set(obj, view);
  }
  return view;
}

function settle(obj: KObject, writes: readonly OwnWrite[]): ReturnType<typeof encode> {
  const shape = shapeOf(writes[0].who.kind);
  const current = withoutManaged(obj)!;
  const managers = decode(obj.metadata.managedFields) ?? [];
  // Newest first: what each write owns, and what the writes after it changed or removed.
  let later = new FieldSet();
  const owned: { w: OwnWrite; set: FieldSet }[] = [];
  for (let i = writes.length - 1; i >= 0; i--) {
    const w = writes[i];
    let touched: FieldSet;
    if (w.known) {
      touched = w.known;
    } else {
      const cmp = compare(...parts(w, current, shape), shape);
      const changed = cmp.added.union(cmp.modified);
      if (w.who.manager !== undefined) {
        let mine = ownable(changed, w.who).difference(later);
        if (w.admitted) mine = mine.difference(w.admitted);
        owned.push({ w, set: mine });
      }
      touched = changed.union(cmp.removed);
    }
    later = later.union(touched);
  }
  for (const m of managers) m.set = m.set.difference(later);
  for (let i = owned.length - 1; i >= 0; i--) {
    const { w, set } = owned[i];
    if (set.empty()) continue;
    const { manager, apiVersion, subresource } = w.who;
    const id = idOf({ manager: manager!, operation: "Update", apiVersion, subresource });
    let mine: Managed | undefined = managers.find((m) => idOf(m) === id);
    if (!mine) {
      mine = { manager: manager!, operation: "Update", apiVersion, ...(subresource ? { subresource } : {}), set: new FieldSet() };
      managers.push(mine);
    }
    mine.set = mine.set.union(set);
    mine.time = w.time;
  }
  return encode(capUpdates(managers, writes[0].who));
}

/**
 * What a write is compared on: a status write changes nothing but status, and a write to the
 * main resource of a kind with a status subresource cannot own status.
 */
function parts(w: OwnWrite, current: KObject, shape: Shape): [unknown, unknown] {
  if (w.who.subresource === "status") return [{ status: w.base }, { status: current.status }];
  const before = w.base ? withoutManaged(w.base as KObject)! : (zeroObject(shape) as KObject);
  if (!w.who.hasStatus) return [before, current];
  const { status: _b, ...b } = before;
  const { status: _c, ...c } = current;
  return [b, c];
}

/** What the scheduler's binding changes: the node, and the PodScheduled condition. */
export const BINDING_FIELDS: FieldSet = (() => {
  const s = new FieldSet();
  s.insert(["f:spec", "f:nodeName"]);
  const cond = ["f:status", "f:conditions", 'k:{"type":"PodScheduled"}'];
  s.insert(cond);
  for (const f of ["type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"]) s.insert([...cond, `f:${f}`]);
  return s;
})();
