// The node lifecycle controller's NoSchedule tainting pass (K/pkg/controller/nodelifecycle,
// doNoScheduleTaintingPass) for a cordoned node: spec.unschedulable (kubectl cordon) carries the
// node.kubernetes.io/unschedulable:NoSchedule taint, appended with its timeAdded (as
// SwapNodeControllerTaint stamps the taints it adds) and removed when the node is schedulable
// again. The condition taints of the same pass (not-ready, memory-pressure, ...) are not made
// here: ServiceLab's kubelets report their nodes Ready and without pressure.

import { R } from "../api/resources.js";
import type { Node } from "../api/types.js";
import { key as rkey } from "../apiserver/apiserver.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

const NODES = rkey(R.nodes);
const TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

type Taint = NonNullable<NonNullable<Node["spec"]>["taints"]>[number];
const isUnschedulableTaint = (t: Taint) => t.key === TAINT_UNSCHEDULABLE && t.effect === "NoSchedule";

export class NodeLifecycleController implements Controller {
  readonly name = "nodelifecycle";
  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === NODES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === NODES && ev.type !== "DELETED") enqueue(ev.object.metadata.name!);
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(NODES).map((n) => n.metadata.name!);
  }

  reconcile(name: string): void {
    const node = this.ctx.store.get(NODES, undefined, name) as Node | undefined;
    if (!node) return;
    const taints = node.spec?.taints ?? [];
    const want = node.spec?.unschedulable === true;
    if (want === taints.some(isUnschedulableTaint)) return;
    const next = want ? [...taints, { key: TAINT_UNSCHEDULABLE, effect: "NoSchedule", timeAdded: rfc3339(this.ctx.clock.now()) }] : taints.filter((t) => !isUnschedulableTaint(t));
    // No taints left: the field goes (omitempty), as the controller's update writes it.
    const { taints: _old, ...rest } = node.spec ?? {};
    const spec = next.length ? { ...rest, taints: next } : rest;
    this.ctx.api.update(R.nodes, undefined, name, { ...node, spec });
  }
}
