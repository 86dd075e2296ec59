// The service-account controller (K/pkg/controller/serviceaccount): every active namespace has a
// "default" ServiceAccount, recreated if deleted.

import { R } from "../api/resources.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

const NAMESPACES = rkey(R.namespaces);
const SAS = rkey(R.serviceaccounts);

export class ServiceAccountController implements Controller {
  readonly name = "serviceaccount";
  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === NAMESPACES || resource === SAS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === NAMESPACES && ev.type !== "DELETED") enqueue(ev.object.metadata.name!);
    else if (ev.resource === SAS && ev.type === "DELETED" && ev.object.metadata.name === "default") enqueue(ev.object.metadata.namespace!);
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(NAMESPACES).map((n) => n.metadata.name!);
  }

  reconcile(ns: string): void {
    const n = this.ctx.store.get(NAMESPACES, undefined, ns);
    if (!n || n.metadata.deletionTimestamp) return;
    if (this.ctx.store.get(SAS, ns, "default")) return;
    this.ctx.api.create(R.serviceaccounts, ns, { metadata: { name: "default" } });
  }
}
