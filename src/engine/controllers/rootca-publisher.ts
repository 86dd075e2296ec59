// The root CA publisher (kube-controller-manager's root-ca-cert-publisher,
// pkg/controller/certificates/rootcacertpublisher): every active namespace has the ConfigMap
// kube-root-ca.crt with the cluster's CA, which every pod's service-account volume projects; it
// is created in a new namespace, recreated if deleted and put back if edited.

import { R } from "../api/resources.js";
import type { ConfigMap } from "../api/types.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

/** The ConfigMap as the publisher writes it. */
export function rootCAConfigMap(ca: string): ConfigMap {
  return { metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data: { "ca.crt": ca } } as ConfigMap;
}

const NAMESPACES = rkey(R.namespaces);
const CONFIGMAPS = rkey(R.configmaps);

export class RootCAPublisher implements Controller {
  readonly name = "root-ca-cert-publisher";
  constructor(
    private readonly ctx: ControllerContext,
    private readonly ca: string,
  ) {}

  watches(resource: string): boolean {
    return resource === NAMESPACES || resource === CONFIGMAPS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === NAMESPACES) {
      if (ev.type === "ADDED" || (ev.type === "MODIFIED" && (ev.object as { status?: { phase?: string } }).status?.phase === "Active")) enqueue(ev.object.metadata.name!);
    } else if (ev.object.metadata.name === ROOT_CA_CONFIGMAP && ev.type !== "ADDED") enqueue(ev.object.metadata.namespace!);
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(NAMESPACES).map((n) => n.metadata.name!);
  }

  reconcile(ns: string): void {
    const n = this.ctx.store.get(NAMESPACES, undefined, ns);
    // A create in a namespace that is gone or terminating is refused; the publisher does not retry it.
    if (!n || n.metadata.deletionTimestamp) return;
    const cm = this.ctx.store.get(CONFIGMAPS, ns, ROOT_CA_CONFIGMAP) as ConfigMap | undefined;
    if (!cm) {
      this.ctx.api.create(R.configmaps, ns, rootCAConfigMap(this.ca));
      return;
    }
    const data = cm.data ?? {};
    const same = Object.keys(data).length === 1 && data["ca.crt"] === this.ca && !cm.binaryData;
    if (same && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const fixed = structuredClone(cm);
    fixed.data = { "ca.crt": this.ca };
    delete fixed.binaryData;
    fixed.metadata.annotations = { ...fixed.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    this.ctx.api.update(R.configmaps, ns, ROOT_CA_CONFIGMAP, fixed);
  }
}
