// The cluster's storage, in the role etcd plays for the apiserver: objects by resource,
// namespace and name, one global revision counter (resourceVersion), and a bounded log of
// changes that watches resume from.
//
// Stored objects are shared, never copied on read: code outside the apiserver treats them as
// read-only and writes through the apiserver. Tests freeze them (freeze: true) to catch a slip.

import type { KObject } from "../api/types.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: WatchEventType;
  /** resourceKey: "pods", "deployments.apps", ... */
  resource: string;
  object: KObject;
  /** The object before this change (MODIFIED and DELETED). */
  old?: KObject;
  rv: number;
}

type StoreListener = (ev: StoreEvent) => void;

interface StoreOptions {
  /** Deep-freeze stored objects (tests): a mutation outside the apiserver throws. */
  freeze?: boolean;
  /** How many changes the watch log keeps for resuming watches. */
  watchLogSize?: number;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** One namespace's objects of a resource, and their name order (until the next add or remove). */
interface NsObjects {
  readonly objs: Map<string, KObject>;
  sorted: KObject[] | undefined;
}

/** One resource's objects: by namespace ("" for cluster-scoped), then by name. */
class Bucket {
  private readonly byNs = new Map<string, NsObjects>();
  size = 0;
  /** Sorted namespaces; rebuilt only after a namespace appears or goes. */
  private sortedNs: string[] | undefined;

  get(ns: string, name: string): KObject | undefined {
    return this.byNs.get(ns)?.objs.get(name);
  }

  /** Stores `obj` under (ns, name) and returns what it replaced (three lookups per write, not six). */
  set(ns: string, name: string, obj: KObject): KObject | undefined {
    let e = this.byNs.get(ns);
    if (!e) {
      e = { objs: new Map(), sorted: undefined };
      this.byNs.set(ns, e);
      this.sortedNs = undefined;
    }
    const old = e.objs.get(name);
    e.objs.set(name, obj);
    if (old === undefined) this.size++;
    // A modification keeps the order; only the cached objects go stale.
    e.sorted = undefined;
    return old;
  }

  delete(ns: string, name: string): void {
    const e = this.byNs.get(ns);
    if (!e?.objs.delete(name)) return;
    this.size--;
    e.sorted = undefined;
    if (e.objs.size === 0) {
      this.byNs.delete(ns);
      this.sortedNs = undefined;
    }
  }

  /** Objects of one namespace in name order (cached until the next write to it). */
  listNs(ns: string): KObject[] {
    const e = this.byNs.get(ns);
    if (!e) return [];
    if (!e.sorted) {
      const m = e.objs;
      const names = [...m.keys()].sort(cmpStr);
      e.sorted = names.map((n) => m.get(n)!);
    }
    return e.sorted;
  }

  namespaces(): string[] {
    if (!this.sortedNs) this.sortedNs = [...this.byNs.keys()].sort(cmpStr);
    return this.sortedNs;
  }

  *values(): IterableIterator<KObject> {
    for (const e of this.byNs.values()) yield* e.objs.values();
  }
}

export class Store {
  private rv = 0;
  private readonly buckets = new Map<string, Bucket>();
  private readonly listeners = new Set<StoreListener>();
  private readonly log: StoreEvent[] = [];
  private readonly freeze: boolean;
  private readonly logSize: number;

  constructor(opts: StoreOptions = {}) {
    this.freeze = opts.freeze ?? false;
    this.logSize = opts.watchLogSize ?? 2000;
  }

  /** The current revision (the resourceVersion of the latest write). */
  revision(): number {
    return this.rv;
  }

  private bucket(resource: string): Bucket {
    let b = this.buckets.get(resource);
    if (!b) {
      b = new Bucket();
      this.buckets.set(resource, b);
    }
    return b;
  }

  get(resource: string, namespace: string | undefined, name: string): KObject | undefined {
    return this.buckets.get(resource)?.get(namespace ?? "", name);
  }

  /** Objects of a resource, optionally of one namespace, in key order (as etcd lists them). */
  list(resource: string, namespace?: string): KObject[] {
    const b = this.buckets.get(resource);
    if (!b) return [];
    if (namespace) return [...b.listNs(namespace)];
    const out: KObject[] = [];
    for (const ns of b.namespaces()) out.push(...b.listNs(ns));
    return out;
  }

  /**
   * `list` without the copy, for readers that only look: the array is the store's own and is
   * replaced (never changed in place) by the next write to the resource.
   */
  listView(resource: string, namespace?: string): readonly KObject[] {
    const b = this.buckets.get(resource);
    if (!b) return [];
    if (namespace) return b.listNs(namespace);
    const nss = b.namespaces();
    if (nss.length === 1) return b.listNs(nss[0]);
    return this.list(resource);
  }

  /** Unsorted iteration, for controllers that index by themselves. */
  *iterate(resource: string): IterableIterator<KObject> {
    const b = this.buckets.get(resource);
    if (b) yield* b.values();
  }

  count(resource: string): number {
    return this.buckets.get(resource)?.size ?? 0;
  }

  resources(): string[] {
    return [...this.buckets.keys()];
  }

  /** Writes an object (create or replace); stamps metadata.resourceVersion. */
  put(resource: string, obj: KObject): KObject {
    const b = this.bucket(resource);
    const ns = obj.metadata.namespace ?? "";
    const name = obj.metadata.name!;
    this.rv++;
    obj.metadata.resourceVersion = String(this.rv);
    if (this.freeze) deepFreeze(obj);
    const old = b.set(ns, name, obj);
    this.emit({ type: old ? "MODIFIED" : "ADDED", resource, object: obj, old, rv: this.rv });
    return obj;
  }

  remove(resource: string, namespace: string | undefined, name: string): KObject | undefined {
    const b = this.buckets.get(resource);
    const ns = namespace ?? "";
    const old = b?.get(ns, name);
    if (!b || !old) return undefined;
    b.delete(ns, name);
    this.rv++;
    // The DELETED event carries the last state with the deletion's revision, as etcd3 watch does.
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(this.rv) } };
    if (this.freeze) deepFreeze(gone);
    this.emit({ type: "DELETED", resource, object: gone, old, rv: this.rv });
    return gone;
  }

  subscribe(fn: StoreListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Changes after revision `rv`, for a watch that resumes; undefined when `rv` is older than the
   * log keeps (the apiserver answers 410 Gone "too old resource version").
   */
  changesSince(rv: number): StoreEvent[] | undefined {
    if (rv >= this.rv) return [];
    if (rv < this.oldestResumable()) return undefined;
    return this.log.filter((e) => e.rv > rv);
  }

  /** The oldest revision a watch can resume from. */
  oldestResumable(): number {
    return this.log.length ? this.log[0].rv - 1 : this.rv;
  }

  private emit(ev: StoreEvent): void {
    // The log keeps what a resuming watch is sent (type, object, revision), not the previous
    // version: `old` would hold every logged object's prior version alive as long as the log
    // (a few MB in a 10k-pod cluster), and no watch reads it.
    this.log.push(ev.old ? { type: ev.type, resource: ev.resource, object: ev.object, rv: ev.rv } : ev);
    // Trim in chunks: shifting one element per write would be quadratic.
    if (this.log.length > this.logSize * 1.5) this.log.splice(0, this.log.length - this.logSize);
    for (const l of this.listeners) l(ev);
  }

  /** Everything, for snapshots: resource -> objects. */
  dump(): Record<string, KObject[]> {
    const out: Record<string, KObject[]> = {};
    for (const r of [...this.buckets.keys()].sort()) {
      const objs = this.list(r);
      if (objs.length) out[r] = objs;
    }
    return out;
  }

  /** Restores a dump (no events emitted); the revision continues from `rv`. */
  load(dump: Record<string, KObject[]>, rv: number): void {
    this.buckets.clear();
    this.log.length = 0;
    for (const [r, objs] of Object.entries(dump)) {
      const b = this.bucket(r);
      for (const o of objs) {
        if (this.freeze) deepFreeze(o);
        b.set(o.metadata.namespace ?? "", o.metadata.name!, o);
      }
    }
    this.rv = rv;
  }
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object" && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}
