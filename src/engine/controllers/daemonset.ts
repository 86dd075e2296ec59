// The DaemonSet controller (K/pkg/controller/daemon: daemon_controller.go, update.go,
// util/daemonset_util.go), as kube-controller-manager v1.33 runs it: one pod per node that the
// pod template fits (nodeSelector, required node affinity, taints against the template's
// tolerations plus the ones the controller adds itself), each pinned to its node with a
// matchFields node affinity for the default scheduler to honour; ControllerRevisions named
// `<ds>-<hash>`; RollingUpdate (maxUnavailable, or maxSurge) and OnDelete; and the status
// counters `kubectl get ds` prints.
//
// Where the real controller iterates a Go map (rolling update candidates) this one walks nodes
// in name order, so which node is replaced first is deterministic.

import { cloneJSON } from "../util/clone.js";
import { storedSelector, type Selector } from "../api/labels.js";
import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { ControllerRevision, DaemonSet, KObject, Node, Pod, PodTemplateSpec, Toleration } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import { safeEncodeString } from "../util/hash.js";
import type { Controller, ControllerContext } from "./manager.js";
import {
  controllerRef,
  findUntoleratedTaint,
  fnv32aAppend,
  getControllerOf,
  goJSON,
  goJSONStored,
  isPodAvailable,
  isPodReady,
  podAvailableAt,
  podFitsNodeAffinity,
  scaledValue,
  sortedMap,
  knownGoJSON,
  splitKey,
} from "./util.js";

const PODS = rkey(R.pods);
const NODES = rkey(R.nodes);
const DSS = rkey(R.daemonsets);
const REVISIONS = rkey(R.controllerrevisions);

/** apps.DefaultDaemonSetUniqueLabelKey */
const CONTROLLER_REVISION_HASH = "controller-revision-hash";
/** extensions.DaemonSetTemplateGenerationKey */
const POD_TEMPLATE_GENERATION = "pod-template-generation";
/** The v1 form of the internal spec.templateGeneration. */
const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";
const COMPONENT = "daemonset-controller";
/** dsc.burstReplicas */
const BURST_REPLICAS = 250;
/** failedPodsBackoff: flowcontrol.NewBackOff(1s, 15m). */
const BACKOFF_INITIAL_MS = 1000;
const BACKOFF_MAX_MS = 15 * 60 * 1000;

// Taints the controller tolerates on every daemon pod (util.AddOrUpdateDaemonPodTolerations).
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];
const NETWORK_UNAVAILABLE: Toleration = { key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" };

/** v1helper.AddOrUpdateTolerationInPodSpec: replaces a matching toleration, else appends. */
function addOrUpdateToleration(tols: Toleration[], t: Toleration): Toleration[] {
  const i = tols.findIndex((o) => (o.key ?? "") === (t.key ?? "") && (o.effect ?? "") === (t.effect ?? "") && (o.operator ?? "") === (t.operator ?? "") && (o.value ?? "") === (t.value ?? ""));
  if (i < 0) return [...tols, { ...t }];
  if (deepEqual(tols[i], t)) return tols;
  const out = [...tols];
  out[i] = { ...t };
  return out;
}

/** util.AddOrUpdateDaemonPodTolerations */
export function daemonPodTolerations(spec: { tolerations?: Toleration[] | null; hostNetwork?: boolean }): Toleration[] {
  let tols = [...(spec.tolerations ?? [])];
  for (const t of DAEMON_TOLERATIONS) tols = addOrUpdateToleration(tols, t);
  if (spec.hostNetwork) tols = addOrUpdateToleration(tols, NETWORK_UNAVAILABLE);
  return tols;
}

/** util.ReplaceDaemonSetPodNodeNameNodeAffinity: pins the pod to `nodeName` for the scheduler. */
function replaceNodeNameAffinity(affinity: unknown, nodeName: string): Record<string, unknown> {
  const terms = [{ matchFields: [{ key: "metadata.name", operator: "In", values: [nodeName] }] }];
  const aff = affinity && typeof affinity === "object" ? cloneJSON(affinity as Record<string, unknown>) : {};
  const na = (aff.nodeAffinity ?? {}) as Record<string, unknown>;
  const req = na.requiredDuringSchedulingIgnoredDuringExecution as Record<string, unknown> | undefined;
  if (req) req.nodeSelectorTerms = terms;
  else na.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: terms };
  aff.nodeAffinity = na;
  return aff;
}

/** util.GetTargetNodeName: spec.nodeName, or the node the matchFields affinity pins it to. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = (pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: { matchFields?: { key: string; operator: string; values?: string[] }[] }[] } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? []) {
    for (const f of t.matchFields ?? []) {
      if (f.key === "metadata.name" && f.operator === "In" && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/** daemonPodTolerations of a stored template spec, made once per spec (read only: never handed out). */
const tolerationsBySpec = new WeakMap<object, Toleration[]>();
function readTolerations(spec: DaemonSet["spec"]["template"]["spec"]): readonly Toleration[] {
  let t = tolerationsBySpec.get(spec);
  if (!t) tolerationsBySpec.set(spec, (t = daemonPodTolerations(spec)));
  return t;
}

/**
 * NodeShouldRunDaemonPod: [shouldRun, shouldContinueRunning]. A node whose NoSchedule taints the
 * pod does not tolerate keeps an existing pod unless a NoExecute taint is untolerated too.
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): [boolean, boolean] {
  const spec = ds.spec.template.spec;
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return [false, false];
  if (!podFitsNodeAffinity(spec, node.metadata.name!, node.metadata.labels)) return [false, false];
  const tols = readTolerations(spec);
  const taints = node.spec?.taints ?? [];
  if (findUntoleratedTaint(taints, tols, (t) => t.effect === "NoExecute" || t.effect === "NoSchedule")) {
    return [false, !findUntoleratedTaint(taints, tols, (t) => t.effect === "NoExecute")];
  }
  return [true, true];
}

/** controller.ComputeHash: FNV-1a over the template (Go hashes its spew dump; here its JSON) and the collision count. */
export function computeDaemonSetHash(template: PodTemplateSpec, collisionCount?: number | null): string {
  let h = fnv32aAppend(0x811c9dc5, new TextEncoder().encode(goJSONStored(template)));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32aAppend(h, b);
  }
  return safeEncodeString(String(h));
}

/** goJSON(daemonSetPatch(ds)), once per stored template (status writes keep the spec shared). */
const patchJSON = new WeakMap<object, string>();
function daemonSetPatchJSON(ds: DaemonSet): string {
  let s = patchJSON.get(ds.spec.template);
  if (s === undefined) {
    s = goJSON(daemonSetPatch(ds));
    patchJSON.set(ds.spec.template, s);
  }
  return s;
}

/** getPatch: the template as a strategic merge patch that replaces it, as stored in revisions. */
function daemonSetPatch(ds: DaemonSet): Record<string, unknown> {
  const template = cloneJSON(ds.spec.template) as Record<string, unknown>;
  // Go marshals metav1.Time's zero value as null and never omits it.
  template.metadata = { creationTimestamp: null, ...((template.metadata as object) ?? {}) };
  template.$patch = "replace";
  return { spec: { template } };
}

/** util.IsPodUpdated */
function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const templateMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION] === String(generation);
  const hashMatches = hash.length > 0 && labels[CONTROLLER_REVISION_HASH] === hash;
  return hashMatches || templateMatches;
}

function ts(o: KObject): number {
  return Date.parse(o.metadata.creationTimestamp ?? "") || 0;
}

/** podByCreationTimestampAndPhase: running pods first, then oldest, then by name. */
function byCreationAndPhase(a: Pod, b: Pod): number {
  const ar = a.status?.phase === "Running" ? 0 : 1;
  const br = b.status?.phase === "Running" ? 0 : 1;
  if (ar !== br) return ar - br;
  if (ts(a) !== ts(b)) return ts(a) - ts(b);
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

interface Backoff {
  last: number;
  delay: number;
}

export class DaemonSetController implements Controller {
  readonly name = "daemonset";
  private readonly backoff = new Map<string, Backoff>();

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === DSS || resource === PODS || resource === REVISIONS || resource === NODES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    switch (ev.resource) {
      case DSS:
        enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
        return;
      case PODS:
      case REVISIONS: {
        // The object and its previous version (no array per event: most pod events are not ours).
        const ref = getControllerOf(ev.object);
        if (ref?.kind === "DaemonSet") enqueue(`${ev.object.metadata.namespace}/${ref.name}`);
        const oldRef = ev.old && getControllerOf(ev.old);
        if (oldRef?.kind === "DaemonSet") enqueue(`${ev.old!.metadata.namespace}/${oldRef.name}`);
        if (ev.resource === PODS && ev.type !== "DELETED" && !ref) this.enqueueAdopters(ev.object as Pod, enqueue);
        return;
      }
      case NODES: {
        // Only what NodeShouldRunDaemonPod reads matters: labels, taints, name.
        const o = ev.old as Node | undefined;
        const n = ev.object as Node;
        if (ev.type === "MODIFIED" && o && deepEqual(o.metadata.labels, n.metadata.labels) && deepEqual(o.spec?.taints, n.spec?.taints)) return;
        for (const ds of this.ctx.store.iterate(DSS)) enqueue(`${ds.metadata.namespace}/${ds.metadata.name}`);
        return;
      }
    }
  }

  private enqueueAdopters(pod: Pod, enqueue: (key: string) => void): void {
    for (const ds of this.ctx.store.iterate(DSS)) {
      if (ds.metadata.namespace !== pod.metadata.namespace) continue;
      if (this.selector(ds as DaemonSet)?.matches(pod.metadata.labels ?? {})) enqueue(`${ds.metadata.namespace}/${ds.metadata.name}`);
    }
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(DSS).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  private selector(ds: DaemonSet): Selector | undefined {
    try {
      return storedSelector(ds.spec.selector);
    } catch {
      return undefined;
    }
  }

  private event(ds: DaemonSet, type: "Normal" | "Warning", reason: string, message: string): void {
    this.ctx.api.recordEvent({ involved: ds as KObject, involvedInfo: R.daemonsets, type, reason, message, component: COMPONENT });
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const ds = this.ctx.store.get(DSS, ns, name) as DaemonSet | undefined;
    if (!ds) {
      for (const k of [...this.backoff.keys()]) if (k.startsWith(`${key}/`)) this.backoff.delete(k);
      return;
    }
    const sel = ds.spec.selector;
    if (sel && Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
      this.event(ds, "Warning", "SelectingAll", "This daemon set is selecting all pods. A non-empty selector is required.");
      return;
    }
    if (ds.metadata.deletionTimestamp) return;
    const nodes = (this.ctx.store.list(NODES) as Node[]).slice();
    const cur = this.constructHistory(ds);
    if (!cur) return; // a hash collision bumped status.collisionCount: the status event requeues
    const fresh = this.ctx.store.get(DSS, ns, name) as DaemonSet;
    const hash = cur.metadata.labels?.[CONTROLLER_REVISION_HASH] ?? "";
    const generation = this.templateGeneration(fresh, cur);
    const changed = this.manage(fresh, nodes, hash, generation);
    // Expectations: the real controller waits to observe its own creates and deletes before a
    // rolling update step; their store events requeue this DaemonSet.
    if (!changed && (fresh.spec.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate") {
      this.rollingUpdate(fresh, nodes, hash, generation);
    }
    this.cleanupHistory(fresh);
    this.updateStatus(fresh, nodes, hash, generation);
  }

  /**
   * util.GetTemplateGeneration reads the annotation the apiserver's DaemonSet strategy keeps; when
   * it is missing, the current revision number stands in (both count template changes).
   */
  private templateGeneration(ds: DaemonSet, cur: ControllerRevision): number | undefined {
    const a = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    if (a !== undefined) {
      const n = Number(a);
      return Number.isInteger(n) ? n : undefined;
    }
    return cur.revision;
  }

  // ---------------------------------------------------------------------------------------------
  // Pods

  /** getDaemonPods: owned pods still selected, plus adopted orphans; owned ones no longer selected are released. */
  private claimPods(ds: DaemonSet): Pod[] {
    const sel = this.selector(ds);
    const out: Pod[] = [];
    for (const p of this.ctx.store.list(PODS, ds.metadata.namespace) as Pod[]) {
      const ref = getControllerOf(p);
      const matches = !!sel?.matches(p.metadata.labels ?? {});
      if (ref?.uid === ds.metadata.uid) {
        if (matches) out.push(p);
        else if (!p.metadata.deletionTimestamp) this.release(p, ds);
      } else if (!ref && matches && !p.metadata.deletionTimestamp) {
        const adopted = cloneJSON(p) as Pod;
        adopted.metadata.ownerReferences = [...(adopted.metadata.ownerReferences ?? []), controllerRef(ds as KObject, R.daemonsets)];
        out.push(this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, adopted) as Pod);
      }
    }
    return out;
  }

  private release(p: Pod, ds: DaemonSet): void {
    const next = cloneJSON(p) as Pod;
    next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== ds.metadata.uid);
    this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, next);
  }

  /** getNodesToDaemonPods, in node-name order. */
  private nodesToDaemonPods(ds: DaemonSet, includeDeletedTerminal: boolean): Map<string, Pod[]> {
    const out = new Map<string, Pod[]>();
    for (const p of this.claimPods(ds)) {
      const phase = p.status?.phase;
      if (!includeDeletedTerminal && (phase === "Succeeded" || phase === "Failed") && p.metadata.deletionTimestamp) continue;
      const node = targetNodeName(p);
      if (node === undefined) continue;
      let l = out.get(node);
      if (!l) out.set(node, (l = []));
      l.push(p);
    }
    return new Map([...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  }

  /** manage: creates missing daemon pods and deletes excess or failed ones; true if it wrote. */
  private manage(ds: DaemonSet, nodes: Node[], hash: string, generation: number | undefined): boolean {
    const byNode = this.nodesToDaemonPods(ds, false);
    const needing: string[] = [];
    const toDelete: string[] = [];
    const now = this.ctx.clock.now();
    const surge = allowsSurge(ds);
    for (const node of nodes) {
      const nodeName = node.metadata.name!;
      const [shouldRun, shouldContinue] = nodeShouldRunDaemonPod(node, ds);
      const pods = byNode.get(nodeName);
      if (shouldRun && !pods) {
        needing.push(nodeName);
      } else if (shouldContinue && pods) {
        const running: Pod[] = [];
        for (const p of pods) {
          if (p.metadata.deletionTimestamp) continue;
          const phase = p.status?.phase;
          if (phase === "Failed") {
            const bkey = `${ds.metadata.namespace}/${ds.metadata.name}/${nodeName}`;
            const b = this.backoff.get(bkey);
            if (b && now - b.last < b.delay) {
              this.ctx.requeueAt(this, `${ds.metadata.namespace}/${ds.metadata.name}`, b.last + b.delay);
              continue;
            }
            const delay = b && now - b.last <= 2 * BACKOFF_MAX_MS ? Math.min(b.delay * 2, BACKOFF_MAX_MS) : BACKOFF_INITIAL_MS;
            this.backoff.set(bkey, { last: now, delay });
            this.event(ds, "Warning", "FailedDaemonPod", `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${nodeName}, will try to kill it`);
            toDelete.push(p.metadata.name!);
          } else if (phase === "Succeeded") {
            toDelete.push(p.metadata.name!);
          } else {
            running.push(p);
          }
        }
        if (!surge) {
          if (running.length > 1) {
            running.sort(byCreationAndPhase);
            for (const p of running.slice(1)) toDelete.push(p.metadata.name!);
          }
        } else {
          // With surge two pods may share a node: the oldest new one while it is not ready, and the
          // oldest old one while it is ready and the new one not yet available.
          running.sort(byCreationAndPhase);
          let oldestNew: Pod | undefined;
          let oldestOld: Pod | undefined;
          for (const p of running) {
            if (p.metadata.labels?.[CONTROLLER_REVISION_HASH] === hash) {
              if (!oldestNew) {
                oldestNew = p;
                continue;
              }
            } else if (!oldestOld) {
              oldestOld = p;
              continue;
            }
            toDelete.push(p.metadata.name!);
          }
          if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec.minReadySeconds ?? 0, now))) {
            toDelete.push(oldestOld.metadata.name!);
          }
        }
      } else if (!shouldContinue && pods) {
        for (const p of pods) if (!p.metadata.deletionTimestamp) toDelete.push(p.metadata.name!);
      }
    }
    // getUnscheduledPodsWithoutNode: pods pinned to nodes that no longer exist.
    const names = new Set(nodes.map((n) => n.metadata.name!));
    for (const [nodeName, pods] of byNode) {
      if (names.has(nodeName)) continue;
      for (const p of pods) if (!p.spec.nodeName && !p.metadata.deletionTimestamp) toDelete.push(p.metadata.name!);
    }
    return this.syncNodes(ds, toDelete, needing, hash, generation);
  }

  /** syncNodes: creates a pod for each node in `nodes`, deletes `toDelete`; true if it wrote. */
  private syncNodes(ds: DaemonSet, toDelete: string[], nodesNeeding: string[], hash: string, generation: number | undefined): boolean {
    const creates = nodesNeeding.slice(0, BURST_REPLICAS);
    const deletes = toDelete.slice(0, BURST_REPLICAS);
    const ns = ds.metadata.namespace!;
    let wrote = false;
    if (creates.length) {
      const template = this.podTemplate(ds, hash, generation);
      for (const nodeName of creates) {
        // Shallow: the apiserver copies what it stores, and podTemplate's copy is this pass's own.
        const body = {
          metadata: { ...template.metadata, generateName: `${ds.metadata.name}-`, ownerReferences: [controllerRef(ds as KObject, R.daemonsets)] },
          spec: { ...template.spec, affinity: replaceNodeNameAffinity(template.spec.affinity, nodeName) },
        };
        try {
          const pod = this.ctx.api.create(R.pods, ns, body);
          wrote = true;
          this.event(ds, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`);
        } catch (e) {
          if (!isStatusError(e)) throw e;
          this.event(ds, "Warning", "FailedCreate", `Error creating: ${e.message}`);
          break;
        }
      }
    }
    for (const podName of deletes) {
      try {
        this.ctx.api.delete(R.pods, ns, podName);
        wrote = true;
        this.event(ds, "Normal", "SuccessfulDelete", `Deleted pod: ${podName}`);
      } catch (e) {
        if (!isStatusError(e)) throw e;
        if (e.status.code !== 404) this.event(ds, "Warning", "FailedDelete", `Error deleting: ${e.message}`);
      }
    }
    return wrote;
  }

  /** util.CreatePodTemplate: the template with the daemon tolerations and the two hash labels. */
  private podTemplate(ds: DaemonSet, hash: string, generation: number | undefined): { metadata: Record<string, unknown>; spec: Pod["spec"] } {
    const t = cloneJSON(ds.spec.template);
    const spec = t.spec;
    spec.tolerations = daemonPodTolerations(spec);
    const labels: Record<string, string> = { ...(t.metadata?.labels ?? {}) };
    if (generation !== undefined) labels[POD_TEMPLATE_GENERATION] = String(generation);
    if (hash) labels[CONTROLLER_REVISION_HASH] = hash;
    const metadata: Record<string, unknown> = { labels: sortedMap(labels) };
    if (t.metadata?.annotations && Object.keys(t.metadata.annotations).length) metadata.annotations = t.metadata.annotations;
    if (t.metadata?.finalizers?.length) metadata.finalizers = t.metadata.finalizers;
    return { metadata, spec };
  }

  // ---------------------------------------------------------------------------------------------
  // Rolling update (update.go rollingUpdate)

  private rollingUpdate(ds: DaemonSet, nodes: Node[], hash: string, generation: number | undefined): void {
    const byNode = this.nodesToDaemonPods(ds, false);
    const now = this.ctx.clock.now();
    const minReady = ds.spec.minReadySeconds ?? 0;
    let desired = 0;
    const shouldRunOn = new Map<string, boolean>();
    for (const node of nodes) {
      const [run] = nodeShouldRunDaemonPod(node, ds);
      shouldRunOn.set(node.metadata.name!, run);
      if (!run) continue;
      desired++;
      if (!byNode.has(node.metadata.name!)) byNode.set(node.metadata.name!, []);
    }
    const sortedNodes = [...byNode.keys()].sort();
    const ru = ds.spec.updateStrategy?.rollingUpdate;
    let maxUnavailable = scaledValue(ru?.maxUnavailable ?? 1, desired, true);
    const maxSurge = scaledValue(ru?.maxSurge ?? 0, desired, true);
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;

    if (maxSurge === 0) {
      let numUnavailable = 0;
      const allowed: string[] = [];
      const candidates: string[] = [];
      for (const nodeName of sortedNodes) {
        const found = findUpdatedPodsOnNode(byNode.get(nodeName)!, hash, generation);
        if (!found) {
          numUnavailable++;
          continue;
        }
        const { newPod, oldPod } = found;
        if ((!oldPod && !newPod) || (oldPod && newPod)) {
          numUnavailable++;
        } else if (newPod) {
          if (!isPodAvailable(newPod, minReady, now)) numUnavailable++;
        } else if (oldPod) {
          if (!isPodAvailable(oldPod, minReady, now)) {
            allowed.push(oldPod.metadata.name!);
            numUnavailable++;
          } else if (numUnavailable < maxUnavailable) {
            candidates.push(oldPod.metadata.name!);
          }
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      this.syncNodes(ds, [...allowed, ...candidates.slice(0, remaining)], [], hash, generation);
      return;
    }

    // Surge: new pods are created beside old ones, old ones go once the new one is available.
    const oldToDelete: string[] = [];
    const shouldNotRun: string[] = [];
    const candidateNew: string[] = [];
    const allowedNew: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    for (const nodeName of sortedNodes) {
      const found = findUpdatedPodsOnNode(byNode.get(nodeName)!, hash, generation);
      if (!found) {
        numSurge++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (oldPod) {
        if (isPodAvailable(oldPod, minReady, now)) numAvailable++;
      } else if (newPod && isPodAvailable(newPod, minReady, now)) numAvailable++;
      if (!oldPod) continue;
      if (!newPod) {
        const run = shouldRunOn.get(nodeName) ?? false;
        if (!isPodAvailable(oldPod, minReady, now)) {
          if (!run) oldToDelete.push(oldPod.metadata.name!);
          else allowedNew.push(nodeName);
        } else if (!run) {
          shouldNotRun.push(oldPod.metadata.name!);
        } else if (numSurge < maxSurge) {
          candidateNew.push(nodeName);
        }
      } else if (!isPodAvailable(newPod, minReady, now)) {
        numSurge++;
      } else {
        oldToDelete.push(oldPod.metadata.name!);
      }
    }
    const deletable = Math.min(Math.max(0, numAvailable - desired), shouldNotRun.length);
    oldToDelete.push(...shouldNotRun.slice(0, deletable));
    const remainingSurge = Math.min(Math.max(0, maxSurge - numSurge), candidateNew.length);
    this.syncNodes(ds, oldToDelete, [...allowedNew, ...candidateNew.slice(0, remainingSurge)], hash, generation);
  }

  // ---------------------------------------------------------------------------------------------
  // History (update.go constructHistory, snapshot, dedupCurHistories, cleanupHistory)

  private controlledHistories(ds: DaemonSet): ControllerRevision[] {
    return (this.ctx.store.list(REVISIONS, ds.metadata.namespace) as ControllerRevision[]).filter(
      (r) => getControllerOf(r)?.uid === ds.metadata.uid,
    );
  }

  private constructHistory(ds: DaemonSet): ControllerRevision | undefined {
    const ns = ds.metadata.namespace!;
    const patch = daemonSetPatchJSON(ds);
    const current: ControllerRevision[] = [];
    const old: ControllerRevision[] = [];
    for (let h of this.controlledHistories(ds)) {
      if (h.metadata.labels?.[CONTROLLER_REVISION_HASH] === undefined) {
        const next = cloneJSON(h);
        next.metadata.labels = { ...(next.metadata.labels ?? {}), [CONTROLLER_REVISION_HASH]: h.metadata.name! };
        h = this.ctx.api.update(R.controllerrevisions, ns, h.metadata.name!, next) as ControllerRevision;
      }
      if (goJSONStored(h.data) === patch) current.push(h);
      else old.push(h);
    }
    const currRevision = Math.max(0, ...old.map((h) => h.revision)) + 1;
    if (current.length === 0) return this.snapshot(ds, currRevision);
    const cur = this.dedupCurHistories(ds, current);
    if (cur.revision < currRevision) {
      return this.ctx.api.update(R.controllerrevisions, ns, cur.metadata.name!, { ...cloneJSON(cur), revision: currRevision }) as ControllerRevision;
    }
    return cur;
  }

  private snapshot(ds: DaemonSet, revision: number): ControllerRevision | undefined {
    const ns = ds.metadata.namespace!;
    const hash = computeDaemonSetHash(ds.spec.template, ds.status?.collisionCount);
    const name = `${ds.metadata.name}-${hash}`;
    const body: Record<string, unknown> = {
      metadata: {
        name,
        namespace: ns,
        labels: sortedMap({ ...(ds.spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash }),
        ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
        ownerReferences: [controllerRef(ds as KObject, R.daemonsets)],
      },
      // RawExtension bytes are served verbatim: Go's sorted-key JSON.
      data: JSON.parse(daemonSetPatchJSON(ds)),
      revision,
    };
    const existing = this.ctx.store.get(REVISIONS, ns, name) as ControllerRevision | undefined;
    if (!existing) {
      const created = this.ctx.api.create(R.controllerrevisions, ns, body) as ControllerRevision;
      const stored = this.ctx.store.get(REVISIONS, ns, name) as ControllerRevision | undefined;
      if (stored?.data && typeof stored.data === "object") knownGoJSON(stored.data, daemonSetPatchJSON(ds));
      return created;
    }
    if (goJSONStored(existing.data) === daemonSetPatchJSON(ds)) return existing;
    // A hash collision with a different template: bump collisionCount and try again next sync.
    const status = { ...(ds.status ?? {}), collisionCount: (ds.status?.collisionCount ?? 0) + 1 };
    this.ctx.api.update(R.daemonsets, ns, ds.metadata.name!, { ...ds, status }, { subresource: "status" });
    return undefined;
  }

  private dedupCurHistories(ds: DaemonSet, cur: ControllerRevision[]): ControllerRevision {
    if (cur.length === 1) return cur[0];
    let keep = cur[0];
    for (const h of cur) if (h.revision >= keep.revision) keep = h;
    const keepHash = keep.metadata.labels?.[CONTROLLER_REVISION_HASH];
    for (const p of this.claimPods(ds)) {
      if (p.metadata.labels?.[CONTROLLER_REVISION_HASH] === keepHash) continue;
      this.ctx.api.patch(R.pods, p.metadata.namespace, p.metadata.name!, "merge", { metadata: { labels: { [CONTROLLER_REVISION_HASH]: keepHash } } });
    }
    for (const h of cur) if (h !== keep) this.ctx.api.delete(R.controllerrevisions, ds.metadata.namespace, h.metadata.name!);
    return keep;
  }

  private cleanupHistory(ds: DaemonSet): void {
    const patch = daemonSetPatchJSON(ds);
    const old = this.controlledHistories(ds).filter((h) => goJSONStored(h.data) !== patch);
    let toKill = old.length - (ds.spec.revisionHistoryLimit ?? 10);
    if (toKill <= 0) return;
    const live = new Set<string>();
    for (const pods of this.nodesToDaemonPods(ds, true).values()) {
      for (const p of pods) {
        const h = p.metadata.labels?.[CONTROLLER_REVISION_HASH];
        if (h) live.add(h);
      }
    }
    old.sort((a, b) => a.revision - b.revision);
    for (const h of old) {
      if (toKill <= 0) break;
      if (live.has(h.metadata.labels?.[CONTROLLER_REVISION_HASH] ?? "")) continue;
      this.ctx.api.delete(R.controllerrevisions, ds.metadata.namespace, h.metadata.name!);
      toKill--;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status (updateDaemonSetStatus, storeDaemonSetStatus)

  private updateStatus(ds0: DaemonSet, nodes: Node[], hash: string, generation: number | undefined): void {
    const ds = this.ctx.store.get(DSS, ds0.metadata.namespace, ds0.metadata.name!) as DaemonSet | undefined;
    if (!ds) return;
    const byNode = this.nodesToDaemonPods(ds, false);
    const now = this.ctx.clock.now();
    const minReady = ds.spec.minReadySeconds ?? 0;
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let updated = 0;
    let available = 0;
    let nextAvailable = Infinity;
    for (const node of nodes) {
      const [shouldRun] = nodeShouldRunDaemonPod(node, ds);
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun) {
        if (pods.length) misscheduled++;
        continue;
      }
      desired++;
      if (!pods.length) continue;
      current++;
      const pod = [...pods].sort(byCreationAndPhase)[0];
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
        else {
          const at = podAvailableAt(pod, minReady);
          if (at !== undefined) nextAvailable = Math.min(nextAvailable, at);
        }
      }
      if (isPodUpdated(pod, hash, generation)) updated++;
    }
    // DaemonSetStatus: the first four are always written, the rest are omitempty.
    const status: Record<string, unknown> = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
    };
    if (ds.metadata.generation) status.observedGeneration = ds.metadata.generation;
    if (updated) status.updatedNumberScheduled = updated;
    if (available) status.numberAvailable = available;
    if (desired - available) status.numberUnavailable = desired - available;
    if (ds.status?.collisionCount !== undefined && ds.status.collisionCount !== null) status.collisionCount = ds.status.collisionCount;
    if (ds.status?.conditions?.length) status.conditions = ds.status.conditions;
    if (!deepEqual(status, ds.status ?? {})) {
      this.ctx.api.update(R.daemonsets, ds.metadata.namespace, ds.metadata.name!, { ...ds, status }, { subresource: "status" });
    }
    if (nextAvailable !== Infinity) this.ctx.requeueAt(this, `${ds.metadata.namespace}/${ds.metadata.name}`, nextAvailable);
  }
}

/** util.AllowsSurge */
function allowsSurge(ds: DaemonSet): boolean {
  const ru = ds.spec.updateStrategy?.rollingUpdate;
  if ((ds.spec.updateStrategy?.type ?? "RollingUpdate") !== "RollingUpdate" || !ru) return false;
  return scaledValue(ru.maxSurge ?? 0, 1, true) !== 0;
}

/** findUpdatedPodsOnNode: at most one new and one old live pod, or undefined when there are more. */
function findUpdatedPodsOnNode(pods: Pod[], hash: string, generation: number | undefined): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isPodUpdated(p, hash, generation)) {
      if (newPod) return undefined;
      newPod = p;
    } else {
      if (oldPod) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}
