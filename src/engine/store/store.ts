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

export type StoreListener = (ev: StoreEvent) => void;

export interface StoreOptions {
  /** Deep-freeze stored objects (tests): a mutation outside the apiserver throws. */
  freeze?: boolean;
  /** How many changes the watch log keeps for resuming watches. */
  watchLogSize?: number;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rv = 0;
  private readonly buckets = new Map<string, Map<string, KObject>>();
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

  /** Reserve the next revision for an object about to be written. */
  nextRevision(): number {
    return this.rv + 1;
  }

  private bucket(resource: string): Map<string, KObject> {
    let b = this.buckets.get(resource);
    if (!b) {
      b = new Map();
      this.buckets.set(resource, b);
    }
    return b;
  }

  get(resource: string, namespace: string | undefined, name: string): KObject | undefined {
    return this.buckets.get(resource)?.get(objectKey(namespace, name));
  }

  /** Objects of a resource, optionally of one namespace, in key order (as etcd lists them). */
  list(resource: string, namespace?: string): KObject[] {
    const b = this.buckets.get(resource);
    if (!b) return [];
    const out: KObject[] = [];
    for (const o of b.values()) {
      if (namespace && o.metadata.namespace !== namespace) continue;
      out.push(o);
    }
    out.sort((x, y) => cmpKey(x, y));
    return out;
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
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const b = this.bucket(resource);
    const old = b.get(key);
    this.rv++;
    obj.metadata.resourceVersion = String(this.rv);
    if (this.freeze) deepFreeze(obj);
    b.set(key, obj);
    this.emit({ type: old ? "MODIFIED" : "ADDED", resource, object: obj, old, rv: this.rv });
    return obj;
  }

  remove(resource: string, namespace: string | undefined, name: string): KObject | undefined {
    const b = this.buckets.get(resource);
    const key = objectKey(namespace, name);
    const old = b?.get(key);
    if (!b || !old) return undefined;
    b.delete(key);
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
    this.log.push(ev);
    if (this.log.length > this.logSize) this.log.splice(0, this.log.length - this.logSize);
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
        b.set(objectKey(o.metadata.namespace, o.metadata.name!), o);
      }
    }
    this.rv = rv;
  }
}

function cmpKey(a: KObject, b: KObject): number {
  const an = a.metadata.namespace ?? "";
  const bn = b.metadata.namespace ?? "";
  if (an !== bn) return an < bn ? -1 : 1;
  const a1 = a.metadata.name ?? "";
  const b1 = b.metadata.name ?? "";
  return a1 < b1 ? -1 : a1 > b1 ? 1 : 0;
}

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object" && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}
