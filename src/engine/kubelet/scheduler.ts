// The default scheduler, reduced to what decides placement in a small lab cluster: node name,
// unschedulable nodes, taints and tolerations, nodeSelector, required node affinity (DaemonSet
// pods are pinned with matchFields), then spreading: fewest pods of the same owner, then fewest
// pods, with a seeded random tie-break as the real scheduler's selectHost does. VolumeBinding's
// PreFilter holds a pod whose claims are missing, being deleted or not yet bound.

import { R } from "../api/resources.js";
import type { KObject, Node, Pod, Taint, Toleration } from "../api/types.js";
import type { PersistentVolumeClaim } from "../api/types-storage.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { Controller, ControllerContext } from "../controllers/manager.js";
import { getControllerOf, podFitsNodeAffinity, splitKey, toleratesTaint } from "../controllers/util.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";

const PODS = rkey(R.pods);
const NODES = rkey(R.nodes);
const PVCS = rkey(R.persistentvolumeclaims);

/**
 * VolumeBinding's PreFilter (podHasPVCs, then the unbound immediate claims): why the pod's
 * claims keep it from every node, or undefined. No StorageClass exists, so no claim waits for
 * its first consumer: an unbound claim is an immediate one.
 */
function volumeBindingFailure(pod: Pod, claim: (name: string) => PersistentVolumeClaim | undefined): string | undefined {
  let unbound = false;
  for (const v of pod.spec.volumes ?? []) {
    const name = (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName;
    if (!name) continue;
    const pvc = claim(name);
    if (!pvc) return `persistentvolumeclaim "${name}" not found`;
    if (pvc.status?.phase === "Lost") return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ""}"`;
    if (pvc.metadata.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
    if (!pvc.spec?.volumeName || pvc.status?.phase !== "Bound") unbound = true;
  }
  return unbound ? "pod has unbound immediate PersistentVolumeClaims" : undefined;
}

/** Does any of the tolerations tolerate the taint (v1.Toleration.ToleratesTaint)? */
function tolerates(tolerations: readonly Toleration[] | null | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

type FitFailure = "unschedulable" | "taint" | "selector" | "notReady" | "tooManyPods";

/** Why `pod` cannot run on `node`, or undefined when it can. */
function fitFailure(pod: Pod, node: Node): { reason: FitFailure; taint?: Taint } | undefined {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === "Ready")?.status === "True";
  if (!ready && !tolerates(pod.spec.tolerations, { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" })) {
    return { reason: "notReady" };
  }
  if (node.spec?.unschedulable && !tolerates(pod.spec.tolerations, { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" })) {
    return { reason: "unschedulable" };
  }
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect === "PreferNoSchedule") continue;
    if (!tolerates(pod.spec.tolerations, taint)) return { reason: "taint", taint };
  }
  if (!podFitsNodeAffinity(pod.spec, node.metadata.name!, node.metadata.labels)) return { reason: "selector" };
  return undefined;
}

/**
 * Where a pod counts for spreading: its node and its controller, while it is not finished. One
 * object per (owner, node), shared by the pods placed there and counting them.
 */
interface Placement {
  node: string;
  owner: string | undefined;
  /** Owned pods of this placement. */
  pods: number;
}

export class Scheduler implements Controller {
  readonly name = "scheduler";
  readonly fieldManager = "kube-scheduler";
  /**
   * Pods per node, and pods per (owner, node): kept from store events, never recounted. Pods are
   * known by uid (a string every pod already holds, where "ns/name" was one more per pod).
   */
  private readonly placed = new Map<string, Placement>();
  private readonly perNode = new Map<string, number>();
  /** Owned placements by owner uid, then node; unowned ones by node. */
  private readonly placements = new Map<string, Map<string, Placement>>();
  private readonly unowned = new Map<string, Placement>();
  /**
   * fitFailure by node for the pod spec last scheduled (both stored objects, never changed): a
   * controller's pods share one spec until they are bound and are scheduled one after another,
   * and fitFailure reads nothing else of the pod. One spec only: a table per template spec cost
   * ~3 KB per Deployment in a 100-node cluster.
   */
  private fitSpec: object | undefined;
  private fits = new WeakMap<Node, ReturnType<typeof fitFailure> | null>();

  constructor(private readonly ctx: ControllerContext) {
    for (const p of ctx.store.iterate(PODS)) this.track(p.metadata.uid!, p as Pod);
  }

  private placementOf(pod: Pod): Placement | undefined {
    const node = pod.spec.nodeName;
    if (!node || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return undefined;
    const owner = getControllerOf(pod)?.uid;
    if (!owner) {
      let p = this.unowned.get(node);
      if (!p) this.unowned.set(node, (p = { node, owner: undefined, pods: 0 }));
      return p;
    }
    let byNode = this.placements.get(owner);
    if (!byNode) this.placements.set(owner, (byNode = new Map()));
    let p = byNode.get(node);
    if (!p) byNode.set(node, (p = { node, owner, pods: 0 }));
    return p;
  }

  private fit(pod: Pod, node: Node): ReturnType<typeof fitFailure> {
    if (pod.spec !== this.fitSpec) {
      this.fitSpec = pod.spec;
      this.fits = new WeakMap();
    }
    let f = this.fits.get(node);
    if (f === undefined) this.fits.set(node, (f = fitFailure(pod, node) ?? null));
    return f ?? undefined;
  }

  private track(uid: string, pod: Pod | undefined): void {
    const before = this.placed.get(uid);
    const after = pod ? this.placementOf(pod) : undefined;
    if (before === after) return;
    if (before) {
      this.perNode.set(before.node, (this.perNode.get(before.node) ?? 1) - 1);
      if (before.owner && --before.pods <= 0) {
        const byNode = this.placements.get(before.owner)!;
        byNode.delete(before.node);
        if (byNode.size === 0) this.placements.delete(before.owner);
      }
      this.placed.delete(uid);
    }
    if (after) {
      this.perNode.set(after.node, (this.perNode.get(after.node) ?? 0) + 1);
      if (after.owner) after.pods++;
      this.placed.set(uid, after);
    }
  }

  watches(resource: string): boolean {
    return resource === PODS || resource === NODES || resource === PVCS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === PODS) {
      const pod = ev.object as Pod;
      const old = ev.old as Pod | undefined;
      // A placement is (node, owner, finished): a write that keeps spec, owners and phase keeps it.
      const same =
        ev.type === "MODIFIED" &&
        old !== undefined &&
        old.spec === pod.spec &&
        old.metadata.ownerReferences === pod.metadata.ownerReferences &&
        old.status?.phase === pod.status?.phase;
      if (!same) this.track(pod.metadata.uid!, ev.type === "DELETED" ? undefined : pod);
      if (ev.type !== "DELETED" && !pod.spec.nodeName && !pod.metadata.deletionTimestamp) {
        enqueue(`${pod.metadata.namespace}/${pod.metadata.name}`);
      }
    } else if (ev.resource === PVCS) {
      // A claim bound (or created) may let the namespace's pending pods schedule.
      for (const p of this.ctx.store.listView(PODS, ev.object.metadata.namespace)) {
        const pod = p as Pod;
        if (!pod.spec.nodeName && !pod.metadata.deletionTimestamp && pod.spec.volumes?.length) enqueue(`${pod.metadata.namespace}/${pod.metadata.name}`);
      }
    } else if (ev.resource === NODES) {
      // A node that appears or changes may fit pods that are still pending.
      for (const p of this.ctx.store.iterate(PODS)) {
        const pod = p as Pod;
        if (!pod.spec.nodeName && !pod.metadata.deletionTimestamp) enqueue(`${pod.metadata.namespace}/${pod.metadata.name}`);
      }
    }
  }

  initialKeys(): Iterable<string> {
    const keys: string[] = [];
    for (const p of this.ctx.store.iterate(PODS)) {
      const pod = p as Pod;
      if (!pod.spec.nodeName) keys.push(`${pod.metadata.namespace}/${pod.metadata.name}`);
    }
    return keys;
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const pod = this.ctx.store.get(PODS, ns, name) as Pod | undefined;
    if (!pod || pod.spec.nodeName || pod.metadata.deletionTimestamp) return;
    if ((pod.spec.schedulerName ?? "default-scheduler") !== "default-scheduler") return;
    const nodes = this.ctx.store.listView(NODES) as readonly Node[];
    const volumes = pod.spec.volumes?.length ? volumeBindingFailure(pod, (n) => this.ctx.store.get(PVCS, ns, n) as PersistentVolumeClaim | undefined) : undefined;
    if (volumes) {
      this.unschedulable(pod, nodes.length, volumes);
      return;
    }
    const fits: Node[] = [];
    // Why the other nodes do not fit, in node order; their messages are made only when no node
    // fits (most pods fit, and the control-plane node's taint was a new text per pod).
    let failed: { reason: FitFailure; taint?: Taint }[] | undefined;
    for (const n of nodes) {
      // NodeResourcesFit: a node holds at most status.allocatable.pods pods.
      const maxPods = Number(n.status?.allocatable?.pods ?? 110);
      const f = this.fit(pod, n) ?? ((this.perNode.get(n.metadata.name!) ?? 0) >= maxPods ? { reason: "tooManyPods" as const } : undefined);
      if (!f) fits.push(n);
      else (failed ??= []).push(f);
    }
    if (fits.length === 0) {
      const failures = new Map<string, number>();
      for (const f of failed ?? []) {
        const msg = failureMessage(f);
        failures.set(msg, (failures.get(msg) ?? 0) + 1);
      }
      // FitError.Error: "<count> <reason>" strings, sort.Strings'd (so the count leads the order).
      const parts = [...failures.entries()].map(([m, n]) => `${n} ${m}`).sort();
      this.unschedulable(pod, nodes.length, parts.join(", "));
      return;
    }
    const node = this.pick(pod, fits);
    // The binding also sets PodScheduled=True (one write, as the real apiserver does it).
    const bound = this.ctx.api.bind(ns!, name, node.metadata.name!);
    this.ctx.api.recordEvent({
      involved: bound,
      involvedInfo: R.pods,
      type: "Normal",
      reason: "Scheduled",
      message: `Successfully assigned ${ns}/${name} to ${node.metadata.name}`,
      component: "default-scheduler",
    });
  }

  private pick(pod: Pod, fits: Node[]): Node {
    const owner = getControllerOf(pod)?.uid;
    const owned = owner ? this.placements.get(owner) : undefined;
    let best: Node[] = [];
    let bestOwned = Infinity;
    let bestAll = Infinity;
    for (const n of fits) {
      const name = n.metadata.name!;
      const ownedHere = owned?.get(name)?.pods ?? 0;
      const all = this.perNode.get(name) ?? 0;
      const cmp = ownedHere - bestOwned || all - bestAll;
      if (cmp < 0) {
        best = [n];
        bestOwned = ownedHere;
        bestAll = all;
      } else if (cmp === 0) best.push(n);
    }
    return best.length === 1 ? best[0] : best[this.ctx.rng.get("schedule").int(best.length)];
  }

  /** FitError: the PreFilter's message or the nodes' reasons, then DefaultPreemption's. */
  private unschedulable(pod: Pod, nodeCount: number, reasons: string): void {
    const message = `0/${nodeCount} nodes are available: ${reasons}. preemption: 0/${nodeCount} nodes are available: ${nodeCount} Preemption is not helpful for scheduling.`;
    const cond = (pod.status?.conditions ?? []).find((c) => c.type === "PodScheduled");
    if (cond?.status === "False" && cond.message === message) return;
    const next = structuredClone(pod) as Pod;
    const conds = (next.status!.conditions ?? []).filter((c) => c.type !== "PodScheduled");
    conds.push({ type: "PodScheduled", status: "False", lastProbeTime: null, lastTransitionTime: nowTime(this.ctx), reason: "Unschedulable", message });
    next.status!.conditions = conds;
    this.ctx.api.update(R.pods, pod.metadata.namespace, pod.metadata.name!, next, { subresource: "status" });
    this.ctx.api.recordEvent({
      involved: pod as KObject,
      involvedInfo: R.pods,
      type: "Warning",
      reason: "FailedScheduling",
      message,
      component: "default-scheduler",
    });
  }
}

function failureMessage(f: { reason: FitFailure; taint?: Taint }): string {
  switch (f.reason) {
    case "taint":
      return `node(s) had untolerated taint {${f.taint!.key}: ${f.taint!.value ?? ""}}`;
    case "selector":
      return "node(s) didn't match Pod's node affinity/selector";
    case "unschedulable":
      return "node(s) were unschedulable";
    case "notReady":
      return "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";
    case "tooManyPods":
      return "Too many pods";
  }
}

function nowTime(ctx: ControllerContext): string {
  return rfc3339(ctx.clock.now());
}
