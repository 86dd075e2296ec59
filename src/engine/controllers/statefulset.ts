// The StatefulSet controller (K/pkg/controller/statefulset: stateful_set_control.go,
// stateful_set_utils.go, stateful_pod_control.go; pkg/controller/history), as v1.33 runs it with
// its default feature gates (PodIndexLabel on, MaxUnavailableStatefulSet off): pods
// `<set>-<ordinal>` with a stable hostname under spec.serviceName, created in order and each
// waiting for its predecessors to be Running and Ready (OrderedReady) or all at once
// (Parallel), scaled down from the highest ordinal, rolled from the highest ordinal down to the
// partition, with ControllerRevisions whose names hash the revision's bytes as
// history.HashControllerRevision does.

import { cloneJSON } from "../util/clone.js";
import { storedSelector, type Selector } from "../api/labels.js";
import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { ControllerRevision, KObject, Pod, PodTemplateSpec, StatefulSet } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import { safeEncodeString } from "../util/hash.js";
import type { Controller, ControllerContext } from "./manager.js";
import { controllerRef, fnv32, getControllerOf, goJSON, goJSONStored, isPodAvailable, isPodReady, podAvailableAt, sortedMap, splitKey } from "./util.js";

const PODS = rkey(R.pods);
const SETS = rkey(R.statefulsets);
const REVISIONS = rkey(R.controllerrevisions);

/** apps.StatefulSetPodNameLabel */
const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
/** apps.PodIndexLabel (PodIndexLabel feature, on by default) */
const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
/** history.ControllerRevisionHashLabel; on pods its value is the revision's name. */
const CONTROLLER_REVISION_HASH = "controller-revision-hash";
const COMPONENT = "statefulset-controller";

const ORDINAL = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal */
function parentAndOrdinal(pod: Pod): [string, number] {
  const m = ORDINAL.exec(pod.metadata.name ?? "");
  if (!m) return ["", -1];
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? [m[1], n] : ["", -1];
}

const ordinalOf = (p: Pod) => parentAndOrdinal(p)[1];
const startOrdinal = (set: StatefulSet) => set.spec.ordinals?.start ?? 0;
const replicasOf = (set: StatefulSet) => set.spec.replicas ?? 1;
const podName = (set: StatefulSet, ordinal: number) => `${set.metadata.name}-${ordinal}`;
const isCreated = (p: Pod) => !!p.status?.phase;
const isTerminating = (p: Pod) => !!p.metadata.deletionTimestamp;
const isRunningAndReady = (p: Pod) => p.status?.phase === "Running" && isPodReady(p);
const isHealthy = (p: Pod) => isRunningAndReady(p) && !isTerminating(p);
const podRevision = (p: Pod) => p.metadata.labels?.[CONTROLLER_REVISION_HASH] ?? "";

/** The revision's data as getPatch writes it: spec.template with `$patch: replace`. */
export function statefulSetPatch(template: PodTemplateSpec): Record<string, unknown> {
  const t = cloneJSON(template) as Record<string, unknown>;
  t.metadata = { creationTimestamp: null, ...((t.metadata as object) ?? {}) };
  t.$patch = "replace";
  return { spec: { template: t } };
}

/** history.HashControllerRevision: FNV-1 over the revision's raw bytes, then the collision count in decimal. */
export function hashControllerRevision(data: unknown, probe: number | undefined): string {
  let h = fnv32(goJSON(data));
  if (probe !== undefined) h = fnv32(String(probe), h);
  return safeEncodeString(String(h));
}

/** The template a revision records (ApplyRevision applied to spec.template). */
function revisionTemplate(rev: ControllerRevision): PodTemplateSpec {
  const t = cloneJSON((rev.data as { spec: { template: Record<string, unknown> } }).spec.template);
  delete t.$patch;
  const meta = t.metadata as Record<string, unknown> | undefined;
  if (meta && meta.creationTimestamp === null) delete meta.creationTimestamp;
  if (meta && Object.keys(meta).length === 0) delete t.metadata;
  return t as unknown as PodTemplateSpec;
}

interface Status {
  observedGeneration?: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

export class StatefulSetController implements Controller {
  readonly name = "statefulset";

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === SETS || resource === PODS || resource === REVISIONS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === SETS) {
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
    } else if (ev.resource === PODS || ev.resource === REVISIONS) {
      // The object and its previous version (no array per event: most pod events are not ours).
      const ref = getControllerOf(ev.object);
      if (ref?.kind === "StatefulSet") enqueue(`${ev.object.metadata.namespace}/${ref.name}`);
      const oldRef = ev.old && getControllerOf(ev.old);
      if (oldRef?.kind === "StatefulSet") enqueue(`${ev.old!.metadata.namespace}/${oldRef.name}`);
      if (ev.resource === PODS && ev.type !== "DELETED" && !ref) {
        const [parent] = parentAndOrdinal(ev.object as Pod);
        const set = parent && this.ctx.store.get(SETS, ev.object.metadata.namespace, parent);
        if (set) enqueue(`${set.metadata.namespace}/${set.metadata.name}`);
      }
    }
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(SETS).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  private selector(set: StatefulSet): Selector | undefined {
    try {
      return storedSelector(set.spec.selector);
    } catch {
      return undefined;
    }
  }

  private podEvent(set: StatefulSet, verb: "create" | "delete" | "update", pod: string, err?: string): void {
    const title = verb[0].toUpperCase() + verb.slice(1);
    this.ctx.api.recordEvent({
      involved: set as KObject,
      involvedInfo: R.statefulsets,
      type: err ? "Warning" : "Normal",
      reason: `${err ? "Failed" : "Successful"}${title}`,
      message: err ? `${verb} Pod ${pod} in StatefulSet ${set.metadata.name} failed error: ${err}` : `${verb} Pod ${pod} in StatefulSet ${set.metadata.name} successful`,
      component: COMPONENT,
    });
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const set = this.ctx.store.get(SETS, ns, name) as StatefulSet | undefined;
    if (!set) return;
    const sel = this.selector(set);
    if (!sel) return;
    const pods = this.claimPods(set, sel);
    const revisions = this.controlledRevisions(set);
    const { current, update, status } = this.performUpdate(set, pods, revisions);
    this.truncateHistory(set, pods, revisions, current, update);
    const minReady = set.spec.minReadySeconds ?? 0;
    if (minReady > 0 && status.availableReplicas !== replicasOf(set)) {
      let next = Infinity;
      for (const p of this.claimPods(set, sel)) {
        const at = podAvailableAt(p, minReady);
        if (at !== undefined && at > this.ctx.clock.now()) next = Math.min(next, at);
      }
      if (next !== Infinity) this.ctx.requeueAt(this, key, next);
    }
  }

  /** getPodsForStatefulSet: owned members still selected; orphan members adopted; others released. */
  private claimPods(set: StatefulSet, sel: Selector): Pod[] {
    const out: Pod[] = [];
    for (const p of this.ctx.store.list(PODS, set.metadata.namespace) as Pod[]) {
      const ref = getControllerOf(p);
      const member = parentAndOrdinal(p)[0] === set.metadata.name;
      const matches = member && sel.matches(p.metadata.labels ?? {});
      if (ref?.uid === set.metadata.uid) {
        if (matches) out.push(p);
        else if (!isTerminating(p)) {
          const next = cloneJSON(p) as Pod;
          next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== set.metadata.uid);
          this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, next);
        }
      } else if (!ref && matches && !isTerminating(p) && !set.metadata.deletionTimestamp) {
        const next = cloneJSON(p) as Pod;
        next.metadata.ownerReferences = [...(next.metadata.ownerReferences ?? []), controllerRef(set as KObject, R.statefulsets)];
        out.push(this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, next) as Pod);
      }
    }
    return out;
  }

  /** ListRevisions + SortControllerRevisions (by revision, then creation, then name). */
  private controlledRevisions(set: StatefulSet): ControllerRevision[] {
    return (this.ctx.store.list(REVISIONS, set.metadata.namespace) as ControllerRevision[])
      .filter((r) => getControllerOf(r)?.uid === set.metadata.uid)
      .sort((a, b) => a.revision - b.revision || (Date.parse(a.metadata.creationTimestamp ?? "") || 0) - (Date.parse(b.metadata.creationTimestamp ?? "") || 0) || (a.metadata.name! < b.metadata.name! ? -1 : 1));
  }

  // ---------------------------------------------------------------------------------------------
  // Revisions (getStatefulSetRevisions, newRevision, history.CreateControllerRevision)

  private newRevision(set: StatefulSet, revision: number, collisionCount: number): KObject & { data: unknown; revision: number } {
    // RawExtension bytes are served verbatim: Go's sorted-key JSON.
    const data = JSON.parse(goJSON(statefulSetPatch(set.spec.template)));
    const hash = hashControllerRevision(data, collisionCount);
    const annotations = { ...(set.metadata.annotations ?? {}) };
    return {
      metadata: {
        name: `${set.metadata.name!.slice(0, 223)}-${hash}`,
        namespace: set.metadata.namespace,
        labels: sortedMap({ ...(set.spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash }),
        ...(Object.keys(annotations).length ? { annotations } : {}),
        ownerReferences: [controllerRef(set as KObject, R.statefulsets)],
      },
      data,
      revision,
    };
  }

  private getRevisions(set: StatefulSet, revisions: ControllerRevision[]): { current: ControllerRevision; update: ControllerRevision; collisionCount: number } {
    const ns = set.metadata.namespace!;
    let collisionCount = set.status?.collisionCount ?? 0;
    const next = revisions.length ? revisions[revisions.length - 1].revision + 1 : 1;
    const candidate = this.newRevision(set, next, collisionCount);
    const bytes = goJSON(candidate.data);
    const equal = revisions.filter((r) => goJSONStored(r.data) === bytes);
    let update: ControllerRevision;
    if (equal.length && revisions[revisions.length - 1] === equal[equal.length - 1]) {
      // The template did not change since the latest revision.
      update = revisions[revisions.length - 1];
    } else if (equal.length) {
      // Rolling back to an earlier template: that revision becomes the newest.
      const e = equal[equal.length - 1];
      update = this.ctx.api.update(R.controllerrevisions, ns, e.metadata.name!, { ...cloneJSON(e), revision: candidate.revision }) as ControllerRevision;
    } else {
      for (;;) {
        const name = `${set.metadata.name!.slice(0, 223)}-${hashControllerRevision(candidate.data, collisionCount)}`;
        const exists = this.ctx.store.get(REVISIONS, ns, name) as ControllerRevision | undefined;
        if (!exists) {
          update = this.ctx.api.create(R.controllerrevisions, ns, { ...candidate, metadata: { ...candidate.metadata, name } }) as ControllerRevision;
          break;
        }
        if (goJSONStored(exists.data) === bytes) {
          update = exists;
          break;
        }
        collisionCount++;
      }
    }
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  // ---------------------------------------------------------------------------------------------
  // updateStatefulSet

  private performUpdate(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[]): { current: ControllerRevision; update: ControllerRevision; status: Status } {
    const { current, update, collisionCount } = this.getRevisions(set, revisions);
    const status: Status = {
      observedGeneration: set.metadata.generation,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: current.metadata.name!,
      updateRevision: update.metadata.name!,
      collisionCount,
    };
    this.updateSet(set, current, update, pods, status);
    this.writeStatus(set, status);
    return { current, update, status };
  }

  private computeStatus(set: StatefulSet, status: Status, current: ControllerRevision, update: ControllerRevision): void {
    const minReady = set.spec.minReadySeconds ?? 0;
    const now = this.ctx.clock.now();
    const sel = this.selector(set)!;
    status.replicas = status.readyReplicas = status.currentReplicas = status.updatedReplicas = status.availableReplicas = 0;
    const start = startOrdinal(set);
    for (const p of this.claimPods(set, sel)) {
      const ord = ordinalOf(p);
      if (ord < 0) continue;
      if (isCreated(p)) status.replicas++;
      if (isRunningAndReady(p)) {
        status.readyReplicas++;
        if (isPodAvailable(p, minReady, now)) status.availableReplicas++;
      }
      if (isCreated(p) && !isTerminating(p)) {
        if (podRevision(p) === current.metadata.name) status.currentReplicas++;
        if (podRevision(p) === update.metadata.name) status.updatedReplicas++;
      }
    }
    void start;
  }

  private updateSet(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, pods: Pod[], status: Status): void {
    const ns = set.metadata.namespace!;
    const start = startOrdinal(set);
    const count = replicasOf(set);
    const end = start + count - 1;
    // By index from the start ordinal, as long as the highest pod's (not `count` slots: a set
    // may ask for 2^31-1 replicas, and only those that exist are here).
    const replicas: (Pod | undefined)[] = [];
    const condemned: Pod[] = [];
    for (const p of pods) {
      const ord = ordinalOf(p);
      if (ord >= start && ord <= end) replicas[ord - start] = p;
      else if (ord >= 0) condemned.push(p);
    }
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    this.computeStatus(set, status, current, update);

    // The first unhealthy pod: among replicas in order, else the lowest condemned one.
    let firstUnhealthy: Pod | undefined = replicas.find((p) => p && !isHealthy(p));
    let missing = replicas.findIndex((p) => !p);
    if (missing < 0 && replicas.length < count) missing = replicas.length;
    if (!firstUnhealthy && missing < 0) for (let i = condemned.length - 1; i >= 0 && !firstUnhealthy; i--) if (!isHealthy(condemned[i])) firstUnhealthy = condemned[i];
    if (set.metadata.deletionTimestamp) return;

    const monotonic = (set.spec.podManagementPolicy ?? "OrderedReady") !== "Parallel";
    const minReady = set.spec.minReadySeconds ?? 0;
    const now = this.ctx.clock.now();

    // Replicas in ordinal order.
    for (let i = 0; i < count; i++) {
      const ord = start + i;
      const pod = replicas[i];
      if (pod && (pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded")) {
        if (!isTerminating(pod)) this.deletePod(set, pod);
        if (monotonic) return this.finish(set, status, current, update);
        continue;
      }
      if (!pod) {
        // A refused create ends the pass in either mode, as the real one returns its error.
        const created = this.createPod(set, current, update, ord);
        if (monotonic || !created) return this.finish(set, status, current, update);
        continue;
      }
      if (isTerminating(pod) && monotonic) return this.finish(set, status, current, update);
      if (!isRunningAndReady(pod) && monotonic) return this.finish(set, status, current, update);
      if (!(pod.status?.phase === "Running" && isPodAvailable(pod, minReady, now)) && monotonic) return this.finish(set, status, current, update);
      if (!this.identityMatches(set, pod)) this.updateIdentity(set, pod);
    }

    // Condemned pods from the highest ordinal down; in order mode one at a time, after every
    // replica is Running and Ready.
    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return this.finish(set, status, current, update);
        continue;
      }
      if (monotonic && pod !== firstUnhealthy && !(isRunningAndReady(pod) && isPodAvailable(pod, minReady, now))) return this.finish(set, status, current, update);
      this.deletePod(set, pod);
      if (monotonic) return this.finish(set, status, current, update);
    }
    this.computeStatus(set, status, current, update);

    const strategy = set.spec.updateStrategy?.type ?? "RollingUpdate";
    if (strategy === "OnDelete") return;
    // Rolling update: the highest ordinal not at the update revision goes first, down to the
    // partition, each waiting for the one above to be healthy again.
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = count - 1; target >= partition; target--) {
      const pod = this.ctx.store.get(PODS, ns, podName(set, start + target)) as Pod | undefined;
      if (!pod) return;
      if (podRevision(pod) !== update.metadata.name && !isTerminating(pod)) {
        this.deletePod(set, pod);
        status.currentReplicas--;
        return;
      }
      if (!isHealthy(pod)) return;
    }
  }

  /** The status as updateStatefulSet returns it after an early exit. */
  private finish(set: StatefulSet, status: Status, current: ControllerRevision, update: ControllerRevision): void {
    this.computeStatus(set, status, current, update);
  }

  private identityMatches(set: StatefulSet, pod: Pod): boolean {
    const [parent, ord] = parentAndOrdinal(pod);
    return ord >= 0 && parent === set.metadata.name && pod.metadata.name === podName(set, ord) && pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name;
  }

  /** UpdateStatefulPod with updateIdentity: puts the identity labels back. */
  private updateIdentity(set: StatefulSet, pod: Pod): void {
    const next = cloneJSON(pod) as Pod;
    next.metadata.labels = sortedMap({ ...(next.metadata.labels ?? {}), [POD_NAME_LABEL]: pod.metadata.name!, [POD_INDEX_LABEL]: String(ordinalOf(pod)) });
    try {
      this.ctx.api.update(R.pods, pod.metadata.namespace, pod.metadata.name!, next);
      this.podEvent(set, "update", pod.metadata.name!);
    } catch (e) {
      if (!isStatusError(e)) throw e;
      this.podEvent(set, "update", pod.metadata.name!, e.message);
    }
  }

  /**
   * newVersionedStatefulSetPod: ordinals below the partition (or below currentReplicas without
   * a rollingUpdate block) are created at the current revision, the rest at the update revision.
   */
  private createPod(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, ordinal: number): boolean {
    const start = startOrdinal(set);
    const strategy = set.spec.updateStrategy;
    const ru = strategy?.rollingUpdate;
    const useCurrent =
      ((strategy?.type ?? "RollingUpdate") === "RollingUpdate" && !ru && ordinal < start + (set.status?.currentReplicas ?? 0)) ||
      (!!ru && ordinal < start + (ru.partition ?? 0));
    const rev = useCurrent ? current : update;
    const template = revisionTemplate(rev);
    const name = podName(set, ordinal);
    const labels: Record<string, string> = { ...(template.metadata?.labels ?? {}), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [CONTROLLER_REVISION_HASH]: rev.metadata.name! };
    const metadata: Record<string, unknown> = {
      name,
      generateName: `${set.metadata.name}-`,
      namespace: set.metadata.namespace,
      labels: sortedMap(labels),
    };
    if (template.metadata?.annotations && Object.keys(template.metadata.annotations).length) metadata.annotations = template.metadata.annotations;
    if (template.metadata?.finalizers?.length) metadata.finalizers = template.metadata.finalizers;
    metadata.ownerReferences = [controllerRef(set as KObject, R.statefulsets)];
    const spec = cloneJSON(template.spec);
    spec.hostname = name;
    if (set.spec.serviceName) spec.subdomain = set.spec.serviceName;
    // updateStorage: one volume per claim template, named after it, claiming `<claim>-<pod>`.
    const claims = (set.spec.volumeClaimTemplates ?? []) as { metadata?: { name?: string } }[];
    if (claims.length) {
      const claimNames = new Set(claims.map((c) => c.metadata?.name ?? ""));
      spec.volumes = [
        ...claims.map((c) => ({ name: c.metadata?.name ?? "", persistentVolumeClaim: { claimName: `${c.metadata?.name ?? ""}-${name}` } })),
        ...(spec.volumes ?? []).filter((v) => !claimNames.has(v.name)),
      ];
    }
    try {
      this.ctx.api.create(R.pods, set.metadata.namespace, { metadata, spec });
      this.podEvent(set, "create", name);
      return true;
    } catch (e) {
      if (!isStatusError(e)) throw e;
      this.podEvent(set, "create", name, e.message);
      return false;
    }
  }

  private deletePod(set: StatefulSet, pod: Pod): void {
    try {
      this.ctx.api.delete(R.pods, pod.metadata.namespace, pod.metadata.name!);
      this.podEvent(set, "delete", pod.metadata.name!);
    } catch (e) {
      if (!isStatusError(e)) throw e;
      if (e.status.code !== 404) this.podEvent(set, "delete", pod.metadata.name!, e.message);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status and history

  /** updateStatefulSetStatus with completeRollingUpdate. */
  private writeStatus(set0: StatefulSet, s: Status): void {
    const set = this.ctx.store.get(SETS, set0.metadata.namespace, set0.metadata.name!) as StatefulSet | undefined;
    if (!set) return;
    if ((set.spec.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate" && s.updatedReplicas === s.replicas && s.readyReplicas === s.replicas) {
      s.currentReplicas = s.updatedReplicas;
      s.currentRevision = s.updateRevision;
    }
    // StatefulSetStatus: replicas and availableReplicas are always written, the counters only when non-zero.
    const status: Record<string, unknown> = {};
    if (s.observedGeneration) status.observedGeneration = s.observedGeneration;
    status.replicas = s.replicas;
    if (s.readyReplicas) status.readyReplicas = s.readyReplicas;
    if (s.currentReplicas) status.currentReplicas = s.currentReplicas;
    if (s.updatedReplicas) status.updatedReplicas = s.updatedReplicas;
    if (s.currentRevision) status.currentRevision = s.currentRevision;
    if (s.updateRevision) status.updateRevision = s.updateRevision;
    status.collisionCount = s.collisionCount;
    if (set.status?.conditions?.length) status.conditions = set.status.conditions;
    status.availableReplicas = s.availableReplicas;
    if (!deepEqual(status, set.status ?? {})) {
      this.ctx.api.update(R.statefulsets, set.metadata.namespace, set.metadata.name!, { ...set, status }, { subresource: "status" });
    }
  }

  private truncateHistory(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[], current: ControllerRevision, update: ControllerRevision): void {
    const live = new Set([current.metadata.name!, update.metadata.name!, ...pods.map(podRevision)]);
    const history = revisions.filter((r) => !live.has(r.metadata.name!));
    const limit = set.spec.revisionHistoryLimit ?? 10;
    if (history.length <= limit) return;
    for (const r of history.slice(0, history.length - limit)) {
      if (this.ctx.store.get(REVISIONS, r.metadata.namespace, r.metadata.name!)) this.ctx.api.delete(R.controllerrevisions, r.metadata.namespace, r.metadata.name!);
    }
  }
}
