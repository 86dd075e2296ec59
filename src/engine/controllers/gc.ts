// The garbage collector (K/pkg/controller/garbagecollector): an object whose owners are all gone
// is deleted; an owner deleted in the foreground waits for its blocking dependents; an orphaning
// delete strips the owner reference from dependents before the owner goes.

import { RESOURCES, resourceKey, type ResourceInfo } from "../api/resources.js";
import type { KObject } from "../api/types.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

interface Ref {
  resource: string;
  namespace: string | undefined;
  name: string;
}

const infoByResource = new Map<string, ResourceInfo>(RESOURCES.map((r) => [resourceKey(r.group, r.resource), r]));
const infoByKind = new Map<string, ResourceInfo>(RESOURCES.map((r) => [`${r.group}/${r.kind}`, r]));

const EVENTS = resourceKey("", "events");

function sameOwners(a: KObject, b: KObject): boolean {
  const x = a.metadata.ownerReferences ?? [];
  const y = b.metadata.ownerReferences ?? [];
  return x.length === y.length && x.every((r, i) => r.uid === y[i].uid);
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

function encode(r: Ref): string {
  // One flat string (a template literal is a rope of its parts, flattened again when hashed):
  // each object's key is kept for as long as it exists.
  return [r.resource, r.namespace ?? "", r.name].join("|");
}

function decode(k: string): Ref {
  const [resource, namespace, name] = k.split("|");
  return { resource, namespace: namespace || undefined, name };
}

export class GarbageCollector implements Controller {
  readonly name = "garbagecollector";
  /** owner uid -> dependents */
  private readonly dependents = new Map<string, Set<string>>();
  /** uid -> where the object lives, for every object that exists. */
  private readonly byUID = new Map<string, string>();
  /** uids of objects being deleted in the foreground (they wait for their dependents). */
  private readonly foreground = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {
    for (const resource of ctx.store.resources()) {
      if (resource === EVENTS) continue;
      for (const o of ctx.store.iterate(resource)) {
        this.track(resource, o, false);
        if (o.metadata.deletionTimestamp && o.metadata.finalizers?.includes("foregroundDeletion")) this.foreground.add(o.metadata.uid!);
      }
    }
  }

  private track(resource: string, obj: KObject, deleted: boolean): void {
    const k = encode({ resource, namespace: obj.metadata.namespace, name: obj.metadata.name! });
    const uid = obj.metadata.uid;
    if (uid) {
      if (deleted) this.byUID.delete(uid);
      else this.byUID.set(uid, k);
    }
    for (const ref of obj.metadata.ownerReferences ?? []) {
      let s = this.dependents.get(ref.uid);
      if (!s) this.dependents.set(ref.uid, (s = new Set()));
      if (deleted) s.delete(k);
      else s.add(k);
      if (s.size === 0) this.dependents.delete(ref.uid);
    }
  }

  watches(resource: string): boolean {
    // Events neither own nor are owned.
    return resource !== EVENTS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === EVENTS) return;
    if (ev.type === "MODIFIED" && ev.old) {
      // Most modifications keep the owner references (and the uid, and so the key): nothing to
      // re-index, and only a terminating object has more to look at.
      if (ev.old.metadata.ownerReferences === ev.object.metadata.ownerReferences || sameOwners(ev.old, ev.object)) {
        if (!ev.object.metadata.deletionTimestamp) return;
      } else {
        this.track(ev.resource, ev.old, true);
        this.track(ev.resource, ev.object, false);
      }
    } else this.track(ev.resource, ev.object, ev.type === "DELETED");
    const meta = ev.object.metadata;
    const uid = meta.uid!;
    if (ev.type === "DELETED") {
      this.foreground.delete(uid);
      // An owner deleted in the foreground waits for this dependent: it may now be done.
      for (const ref of meta.ownerReferences ?? []) {
        const owner = this.foreground.has(ref.uid) ? this.byUID.get(ref.uid) : undefined;
        if (owner) enqueue(owner);
      }
      // Everything this object owned may now be an orphan.
      for (const d of this.dependents.get(uid) ?? []) enqueue(d);
      return;
    }
    const finalizers = meta.finalizers;
    if (meta.deletionTimestamp && finalizers?.includes("foregroundDeletion")) this.foreground.add(uid);
    else this.foreground.delete(uid);
    // An object whose owners all exist and none is being deleted in the foreground has nothing to
    // collect: reconcile would find that too. Were an owner to go or start a foreground deletion,
    // its own event queues this object then (as a dependent).
    if (meta.ownerReferences?.length && !this.ownersSettled(meta.ownerReferences)) enqueue(this.keyOf(ev));
    if (meta.deletionTimestamp) {
      // Only orphaning and foreground deletion give a terminating object's sync work to do.
      if (finalizers?.includes("orphan") || finalizers?.includes("foregroundDeletion")) enqueue(this.keyOf(ev));
      for (const d of this.dependents.get(uid) ?? []) enqueue(d);
    }
  }

  private keyOf(ev: StoreEvent): string {
    return encode({ resource: ev.resource, namespace: ev.object.metadata.namespace, name: ev.object.metadata.name! });
  }

  /** Every owner is a known, existing object, and none is being deleted in the foreground. */
  private ownersSettled(owners: { uid: string }[]): boolean {
    for (const o of owners) if (!this.byUID.has(o.uid) || this.foreground.has(o.uid)) return false;
    return true;
  }

  initialKeys(): Iterable<string> {
    const keys: string[] = [];
    for (const resource of this.ctx.store.resources()) {
      for (const o of this.ctx.store.iterate(resource)) {
        if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) {
          keys.push(encode({ resource, namespace: o.metadata.namespace, name: o.metadata.name! }));
        }
      }
    }
    return keys;
  }

  reconcile(key: string): void {
    const ref = decode(key);
    const info = infoByResource.get(ref.resource);
    const obj = this.ctx.store.get(ref.resource, ref.namespace, ref.name);
    if (!obj || !info) return;
    if (obj.metadata.deletionTimestamp) this.processDeleting(info, obj);
    const owners = obj.metadata.ownerReferences ?? [];
    if (owners.length === 0 || obj.metadata.deletionTimestamp) return;
    const alive = owners.filter((o) => this.ownerExists(o.uid, o.kind, groupOf(o.apiVersion), obj.metadata.namespace, o.name));
    if (alive.length === 0) {
      // Every owner is gone: delete in the background, as the collector does.
      this.ctx.api.delete(info, obj.metadata.namespace, obj.metadata.name!, { propagationPolicy: "Background" });
      return;
    }
    // An owner deleting in the foreground waits for its blocking dependents: delete them first.
    for (const o of alive) {
      const ownerKey = this.byUID.get(o.uid);
      const owner = ownerKey ? this.ctx.store.get(decode(ownerKey).resource, decode(ownerKey).namespace, decode(ownerKey).name) : undefined;
      if (owner?.metadata.deletionTimestamp && owner.metadata.finalizers?.includes("foregroundDeletion")) {
        this.ctx.api.delete(info, obj.metadata.namespace, obj.metadata.name!, { propagationPolicy: "Foreground" });
        return;
      }
    }
  }

  private ownerExists(uid: string, kind: string, group: string, namespace: string | undefined, name: string): boolean {
    const k = this.byUID.get(uid);
    if (k) return true;
    const info = infoByKind.get(`${group}/${kind}`);
    if (!info) return true; // an owner of a kind we do not serve: leave the dependent alone
    const o = this.ctx.store.get(resourceKey(info.group, info.resource), info.namespaced ? namespace : undefined, name);
    return !!o && o.metadata.uid === uid;
  }

  private processDeleting(info: ResourceInfo, obj: KObject): void {
    const finalizers = obj.metadata.finalizers ?? [];
    const uid = obj.metadata.uid!;
    if (finalizers.includes("orphan")) {
      for (const d of [...(this.dependents.get(uid) ?? [])]) {
        const r = decode(d);
        const dep = this.ctx.store.get(r.resource, r.namespace, r.name);
        const dinfo = infoByResource.get(r.resource);
        if (!dep || !dinfo) continue;
        const next = structuredClone(dep);
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid);
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.ctx.api.update(dinfo, r.namespace, r.name, next);
      }
      this.removeFinalizer(info, obj, "orphan");
      return;
    }
    if (finalizers.includes("foregroundDeletion")) {
      const remaining = [...(this.dependents.get(uid) ?? [])].filter((d) => {
        const r = decode(d);
        const dep = this.ctx.store.get(r.resource, r.namespace, r.name);
        if (!dep) return false;
        const ref = (dep.metadata.ownerReferences ?? []).find((o) => o.uid === uid);
        if (!dep.metadata.deletionTimestamp) {
          const dinfo = infoByResource.get(r.resource);
          if (dinfo) this.ctx.api.delete(dinfo, r.namespace, r.name, { propagationPolicy: "Foreground" });
        }
        return !!ref?.blockOwnerDeletion;
      });
      if (remaining.length === 0) this.removeFinalizer(info, obj, "foregroundDeletion");
    }
  }

  private removeFinalizer(info: ResourceInfo, obj: KObject, f: string): void {
    const cur = this.ctx.store.get(resourceKey(info.group, info.resource), obj.metadata.namespace, obj.metadata.name!);
    if (!cur) return;
    const next = structuredClone(cur);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((x) => x !== f);
    this.ctx.api.update(info, obj.metadata.namespace, obj.metadata.name!, next);
  }
}
