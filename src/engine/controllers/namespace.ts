// The namespace controller (K/pkg/controller/namespace/deletion): a Terminating namespace has
// everything in it deleted; when nothing is left its "kubernetes" finalizer is removed and the
// namespace itself goes.

import { R, RESOURCES, resourceKey } from "../api/resources.js";
import type { Namespace } from "../api/types.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

const NAMESPACES = rkey(R.namespaces);
const NAMESPACED = RESOURCES.filter((r) => r.namespaced);

export class NamespaceController implements Controller {
  readonly name = "namespace";
  constructor(private readonly ctx: ControllerContext) {}

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === NAMESPACES) {
      if (ev.type !== "DELETED" && ev.object.metadata.deletionTimestamp) enqueue(ev.object.metadata.name!);
      return;
    }
    const ns = ev.object.metadata.namespace;
    if (ev.type === "DELETED" && ns) {
      const o = this.ctx.store.get(NAMESPACES, undefined, ns);
      if (o?.metadata.deletionTimestamp) enqueue(ns);
    }
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(NAMESPACES).filter((n) => n.metadata.deletionTimestamp).map((n) => n.metadata.name!);
  }

  reconcile(name: string): void {
    const ns = this.ctx.store.get(NAMESPACES, undefined, name) as Namespace | undefined;
    if (!ns?.metadata.deletionTimestamp) return;
    let left = 0;
    for (const info of NAMESPACED) {
      for (const o of this.ctx.store.list(resourceKey(info.group, info.resource), name)) {
        left++;
        if (o.metadata.deletionTimestamp) continue;
        this.ctx.api.delete(info, name, o.metadata.name!, { propagationPolicy: "Background" });
      }
    }
    if (left > 0) {
      // Deleting may have removed everything at once (no graceful pods): look again.
      for (const info of NAMESPACED) if (this.ctx.store.count(resourceKey(info.group, info.resource)) && this.ctx.store.list(resourceKey(info.group, info.resource), name).length) return;
    }
    // Empty: finalize (spec.finalizers) and let the namespace go.
    this.ctx.api.removeNow(R.namespaces, ns);
  }
}
