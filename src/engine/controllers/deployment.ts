// The Deployment controller (K/pkg/controller/deployment: sync.go, rolling.go, recreate.go,
// progress.go, util/deployment_util.go): one ReplicaSet per pod template, named by the
// template's hash; rolling updates that honour maxSurge and maxUnavailable; proportional
// scaling; revision numbers and history; status and conditions as `kubectl rollout status`
// and `kubectl describe` read them.

import { cloneJSON } from "../util/clone.js";
import { R } from "../api/resources.js";
import type { Deployment, KObject, Pod, PodTemplateSpec, ReplicaSet } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { storedSelector } from "../api/labels.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";
import { fnv32a, safeEncodeString } from "../util/hash.js";
import type { Controller, ControllerContext } from "./manager.js";
import { controllerRef, getControllerOf, scaledValue, splitKey } from "./util.js";

const DEPLOYS = rkey(R.deployments);
const RSS = rkey(R.replicasets);
const PODS = rkey(R.pods);

const REVISION = "deployment.kubernetes.io/revision";
const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
const POD_TEMPLATE_HASH = "pod-template-hash";

/** Annotations that belong to the Deployment and are not copied onto its ReplicaSets. */
const SKIPPED_ANNOTATIONS = new Set(["kubectl.kubernetes.io/last-applied-configuration", REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS]);

/** controller.ComputeHash: fnv32a over the template (and collision count), vowel-free encoded. */
function computeHash(template: PodTemplateSpec, collisionCount?: number | null): string {
  // A null creationTimestamp is the zero Time: the same template as without it.
  const meta = template.metadata as { creationTimestamp?: unknown } | undefined;
  let input = canonicalJSON(meta?.creationTimestamp === null ? { ...template, metadata: { ...template.metadata, creationTimestamp: undefined } } : template);
  if (collisionCount) input += String(collisionCount);
  return safeEncodeString(String(fnv32a(input)));
}

function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** EqualIgnoreHash: templates equal apart from the pod-template-hash label. */
function templatesEqual(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return deepEqual(withoutHash(a), withoutHash(b));
}

/**
 * The template without the pod-template-hash label: shallow copies down to the labels, the only
 * level that changes (the rest is compared as stored).
 */
function withoutHash(t: PodTemplateSpec | undefined): PodTemplateSpec {
  const labels = t?.metadata?.labels;
  // `creationTimestamp: null` (what kubectl's rollback patch and Go clients send) is the zero
  // Time, as an absent one is: Semantic.DeepEqual sees no difference.
  const nullTime = (t?.metadata as { creationTimestamp?: unknown } | undefined)?.creationTimestamp === null;
  if (!t || ((!labels || !(POD_TEMPLATE_HASH in labels)) && !nullTime)) return t ?? ({} as PodTemplateSpec);
  const metadata: Record<string, unknown> = { ...t.metadata };
  if (nullTime) metadata.creationTimestamp = undefined;
  if (labels && POD_TEMPLATE_HASH in labels) {
    const { [POD_TEMPLATE_HASH]: _hash, ...rest } = labels;
    metadata.labels = Object.keys(rest).length ? rest : undefined;
  }
  return { ...t, metadata } as PodTemplateSpec;
}

/** The sum of `f` over ReplicaSets. */
function sumOf(all: readonly ReplicaSet[], f: (rs: ReplicaSet) => number): number {
  let s = 0;
  for (const rs of all) s += f(rs);
  return s;
}

/** Oldest first, then by name (controller.ReplicaSetsByCreationTimestamp). */
function byOldest(a: ReplicaSet, b: ReplicaSet): number {
  return a.metadata.creationTimestamp! < b.metadata.creationTimestamp! ? -1 : a.metadata.creationTimestamp! > b.metadata.creationTimestamp! ? 1 : a.metadata.name! < b.metadata.name! ? -1 : 1;
}

type DeploymentCondition = { type: string; status: string; reason?: string; message?: string; lastUpdateTime?: string | null; lastTransitionTime?: string | null };

/** Sets a condition in `conds` (in place) unless it already reads so; the transition time moves with the status. */
function setCondition(conds: DeploymentCondition[], now: string, type: string, st: string, reason: string, message: string): void {
  const i = conds.findIndex((c) => c.type === type);
  const prev = i >= 0 ? conds[i] : undefined;
  if (prev && prev.status === st && prev.reason === reason && prev.message === message) return;
  const c = {
    type,
    status: st,
    lastUpdateTime: now,
    lastTransitionTime: prev && prev.status === st ? prev.lastTransitionTime : now,
    reason,
    message,
  };
  if (i >= 0) conds[i] = c;
  else conds.push(c);
}

function replicasOf(rs: ReplicaSet): number {
  return rs.spec.replicas ?? 0;
}

/** kube-controller-manager's maxRevHistoryLengthInChars: how long revision-history may grow. */
const MAX_REV_HISTORY_CHARS = 2000;

/**
 * SetNewReplicaSetAnnotations' revision history: `old` appended, the oldest revisions dropped to
 * keep it within 2000 characters (undefined when even `old` alone does not fit: left as it was).
 */
export function appendRevisionHistory(history: string | undefined, old: string): string | undefined {
  if (!history) return old;
  const revisions = history.split(",");
  let total = history.length + old.length + 1;
  let start = 0;
  while (total > MAX_REV_HISTORY_CHARS && start < revisions.length) total -= revisions[start++].length + 1;
  return total <= MAX_REV_HISTORY_CHARS ? [...revisions.slice(start), old].join(",") : undefined;
}

function revisionOf(o: KObject): number {
  return Number(o.metadata.annotations?.[REVISION] ?? 0) || 0;
}

export class DeploymentController implements Controller {
  readonly name = "deployment";
  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === DEPLOYS || resource === RSS || resource === PODS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === DEPLOYS) {
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
    } else if (ev.resource === RSS) {
      const ref = getControllerOf(ev.object);
      if (ref?.kind === "Deployment") enqueue(`${ev.object.metadata.namespace}/${ref.name}`);
    } else if (ev.resource === PODS && ev.type === "DELETED") {
      // A Recreate rollout waits for the old pods to be gone (deletePod in the real controller).
      const rsRef = getControllerOf(ev.object);
      if (rsRef?.kind !== "ReplicaSet") return;
      const rs = this.ctx.store.get(RSS, ev.object.metadata.namespace, rsRef.name);
      const dRef = rs && getControllerOf(rs);
      if (dRef?.kind !== "Deployment") return;
      const d = this.ctx.store.get(DEPLOYS, ev.object.metadata.namespace, dRef.name) as Deployment | undefined;
      if (d?.spec.strategy?.type === "Recreate") enqueue(`${ev.object.metadata.namespace}/${dRef.name}`);
    }
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(DEPLOYS).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const d = this.ctx.store.get(DEPLOYS, ns, name) as Deployment | undefined;
    if (!d || d.metadata.deletionTimestamp) return;
    const rsList = this.replicaSetsFor(d);
    if (d.spec.paused) {
      this.sync(d, rsList);
      return;
    }
    if (this.isScalingEvent(d, rsList)) {
      this.sync(d, rsList);
      return;
    }
    if (d.spec.strategy?.type === "Recreate") this.rolloutRecreate(d, rsList);
    else this.rolloutRolling(d, rsList);
  }

  private get api() {
    return this.ctx.api;
  }

  /** ReplicaSets this Deployment controls, adopting matching orphans. */
  private replicaSetsFor(d: Deployment): ReplicaSet[] {
    const sel = storedSelector(d.spec.selector);
    const out: ReplicaSet[] = [];
    for (const o of this.ctx.store.list(RSS, d.metadata.namespace)) {
      const rs = o as ReplicaSet;
      const ref = getControllerOf(rs);
      if (ref) {
        if (ref.uid === d.metadata.uid) out.push(rs);
        continue;
      }
      if (rs.metadata.deletionTimestamp || !sel.matches(rs.metadata.labels ?? {})) continue;
      const adopted = cloneJSON(rs) as ReplicaSet;
      adopted.metadata.ownerReferences = [...(adopted.metadata.ownerReferences ?? []), controllerRef(d as KObject, R.deployments)];
      out.push(this.api.update(R.replicasets, rs.metadata.namespace, rs.metadata.name!, adopted) as ReplicaSet);
    }
    return out;
  }

  private newRSOf(d: Deployment, rsList: ReplicaSet[]): ReplicaSet | undefined {
    // The oldest matching one wins, as FindNewReplicaSet sorts by creation time.
    const matching = rsList.filter((rs) => templatesEqual(rs.spec.template, d.spec.template));
    matching.sort((a, b) => (a.metadata.creationTimestamp! < b.metadata.creationTimestamp! ? -1 : a.metadata.creationTimestamp! > b.metadata.creationTimestamp! ? 1 : a.metadata.name! < b.metadata.name! ? -1 : 1));
    return matching[0];
  }

  private maxSurge(d: Deployment): number {
    if (d.spec.strategy?.type === "Recreate") return 0;
    return scaledValue(d.spec.strategy?.rollingUpdate?.maxSurge ?? "25%", d.spec.replicas ?? 1, true);
  }

  private maxUnavailable(d: Deployment): number {
    if (d.spec.strategy?.type === "Recreate") return 0;
    const replicas = d.spec.replicas ?? 1;
    const surge = this.maxSurge(d);
    let unavailable = scaledValue(d.spec.strategy?.rollingUpdate?.maxUnavailable ?? "25%", replicas, false);
    if (surge === 0 && unavailable === 0) unavailable = 1;
    return Math.min(unavailable, replicas);
  }

  /**
   * getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created if asked and missing) with
   * its revision brought up to date, and the old ones.
   */
  private newAndOld(d: Deployment, rsList: ReplicaSet[], create: boolean): { newRS?: ReplicaSet; old: ReplicaSet[] } {
    let newRS = this.newRSOf(d, rsList);
    const old = rsList.filter((rs) => rs !== newRS);
    const maxOldRevision = Math.max(0, ...old.map((rs) => revisionOf(rs as KObject)));
    const newRevision = String(maxOldRevision + 1);
    const replicas = d.spec.replicas ?? 1;
    if (newRS) {
      const annotations = { ...(newRS.metadata.annotations ?? {}) };
      let changed = false;
      const oldRevision = annotations[REVISION];
      if (!oldRevision || Number(oldRevision) < Number(newRevision)) {
        if (oldRevision) {
          // A rollback brings an old template back: remember the revisions it had.
          const history = appendRevisionHistory(annotations[REVISION_HISTORY], oldRevision);
          if (history !== undefined) annotations[REVISION_HISTORY] = history;
        }
        annotations[REVISION] = newRevision;
        changed = true;
      }
      if (annotations[DESIRED_REPLICAS] !== String(replicas) || annotations[MAX_REPLICAS] !== String(replicas + this.maxSurge(d))) {
        annotations[DESIRED_REPLICAS] = String(replicas);
        annotations[MAX_REPLICAS] = String(replicas + this.maxSurge(d));
        changed = true;
      }
      for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
        if (!SKIPPED_ANNOTATIONS.has(k) && annotations[k] !== v) {
          annotations[k] = v;
          changed = true;
        }
      }
      if (changed) {
        newRS = this.api.update(R.replicasets, newRS.metadata.namespace, newRS.metadata.name!, {
          ...newRS,
          metadata: { ...newRS.metadata, annotations },
        }) as ReplicaSet;
      }
      this.setDeploymentRevision(d, annotations[REVISION]);
      return { newRS, old };
    }
    if (!create) return { old };
    const hash = computeHash(d.spec.template, d.status?.collisionCount);
    const template = cloneJSON(d.spec.template);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
    const selector = cloneJSON(d.spec.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const annotations: Record<string, string> = {};
    for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!SKIPPED_ANNOTATIONS.has(k)) annotations[k] = v;
    annotations[DESIRED_REPLICAS] = String(replicas);
    annotations[MAX_REPLICAS] = String(replicas + this.maxSurge(d));
    annotations[REVISION] = newRevision;
    const newReplicas = this.newRSNewReplicas(d, rsList, undefined);
    const rsName = `${d.metadata.name}-${hash}`;
    const body = {
      metadata: {
        name: rsName,
        namespace: d.metadata.namespace,
        labels: template.metadata.labels,
        annotations,
        ownerReferences: [controllerRef(d as KObject, R.deployments)],
      },
      spec: { replicas: newReplicas, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
    };
    const created = this.api.create(R.replicasets, d.metadata.namespace, body) as ReplicaSet;
    if (newReplicas > 0) this.scaledEvent(d, "up", created.metadata.name!, 0, newReplicas);
    this.setDeploymentRevision(d, newRevision);
    this.setProgressing(d, "True", "NewReplicaSetCreated", `Created new replica set "${rsName}"`);
    return { newRS: created, old };
  }

  private setDeploymentRevision(d: Deployment, revision: string): void {
    const cur = this.ctx.store.get(DEPLOYS, d.metadata.namespace, d.metadata.name!) as Deployment;
    if (cur.metadata.annotations?.[REVISION] === revision) return;
    const next = cloneJSON(cur);
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [REVISION]: revision };
    this.api.update(R.deployments, d.metadata.namespace, d.metadata.name!, next);
  }

  /** NewRSNewReplicas for the rolling strategy (Recreate scales the new RS to full at once). */
  private newRSNewReplicas(d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): number {
    const replicas = d.spec.replicas ?? 1;
    if (d.spec.strategy?.type === "Recreate") return replicas;
    const current = all.reduce((s, rs) => s + replicasOf(rs), 0);
    const maxTotal = replicas + this.maxSurge(d);
    const newCount = newRS ? replicasOf(newRS) : 0;
    if (current >= maxTotal) return newCount;
    const scaleUp = Math.min(maxTotal - current, replicas - newCount);
    return newCount + Math.max(0, scaleUp);
  }

  private scaleRS(d: Deployment, rs: ReplicaSet, to: number): ReplicaSet {
    const from = replicasOf(rs);
    const annotations = { ...(rs.metadata.annotations ?? {}) };
    const replicas = d.spec.replicas ?? 1;
    annotations[DESIRED_REPLICAS] = String(replicas);
    annotations[MAX_REPLICAS] = String(replicas + this.maxSurge(d));
    if (from === to && deepEqual(annotations, rs.metadata.annotations ?? {})) return rs;
    const updated = this.api.update(R.replicasets, rs.metadata.namespace, rs.metadata.name!, {
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...rs.spec, replicas: to },
    }) as ReplicaSet;
    if (from !== to) this.scaledEvent(d, to > from ? "up" : "down", rs.metadata.name!, from, to);
    return updated;
  }

  private scaledEvent(d: Deployment, dir: "up" | "down", rsName: string, from: number, to: number): void {
    this.api.recordEvent({
      involved: d as KObject,
      involvedInfo: R.deployments,
      type: "Normal",
      reason: "ScalingReplicaSet",
      message: `Scaled ${dir} replica set ${rsName} from ${from} to ${to}`,
      component: "deployment-controller",
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Rolling update (rolling.go)

  private rolloutRolling(d: Deployment, rsList: ReplicaSet[]): void {
    let { newRS, old } = this.newAndOld(d, rsList, true);
    // reconcileNewReplicaSet
    const replicas = d.spec.replicas ?? 1;
    if (newRS) {
      if (replicasOf(newRS) > replicas) newRS = this.scaleRS(d, newRS, replicas);
      else if (replicasOf(newRS) < replicas) newRS = this.scaleRS(d, newRS, this.newRSNewReplicas(d, [newRS, ...old], newRS));
    }
    // reconcileOldReplicaSets
    old = this.reconcileOld(d, newRS!, old);
    if (replicasOf(newRS!) === replicas && old.every((rs) => replicasOf(rs) === 0)) this.cleanup(d, old);
    this.syncStatus(d, newRS, old);
  }

  private reconcileOld(d: Deployment, newRS: ReplicaSet, old: ReplicaSet[]): ReplicaSet[] {
    const oldPods = old.reduce((s, rs) => s + replicasOf(rs), 0);
    if (oldPods === 0) return old;
    const all = [newRS, ...old];
    const allPods = all.reduce((s, rs) => s + replicasOf(rs), 0);
    const replicas = d.spec.replicas ?? 1;
    const minAvailable = replicas - this.maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return old;
    // cleanupUnhealthyReplicas: scale down old RSs' unavailable pods first.
    let cleaned = 0;
    let result = [...old].sort(byOldest).map((rs) => {
      if (cleaned >= maxScaledDown || replicasOf(rs) === 0) return rs;
      const unhealthy = replicasOf(rs) - (rs.status?.availableReplicas ?? 0);
      if (unhealthy <= 0) return rs;
      const down = Math.min(maxScaledDown - cleaned, unhealthy);
      cleaned += down;
      return this.scaleRS(d, rs, replicasOf(rs) - down);
    });
    // scaleDownOldReplicaSetsForRollingUpdate
    const available = [newRS, ...result].reduce((s, rs) => s + (rs.status?.availableReplicas ?? 0), 0);
    let total = Math.min(available - minAvailable, maxScaledDown - cleaned);
    if (total <= 0) return result;
    result = result.sort(byOldest).map((rs) => {
      if (total <= 0 || replicasOf(rs) === 0) return rs;
      const down = Math.min(replicasOf(rs), total);
      total -= down;
      return this.scaleRS(d, rs, replicasOf(rs) - down);
    });
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Recreate (recreate.go)

  private rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): void {
    let { newRS, old } = this.newAndOld(d, rsList, false);
    old = old.map((rs) => (replicasOf(rs) > 0 ? this.scaleRS(d, rs, 0) : rs));
    // oldPodsRunning: any pod of an old ReplicaSet not yet Succeeded/Failed, terminating ones included.
    const oldUIDs = new Set(old.map((rs) => rs.metadata.uid));
    const oldRunning = this.ctx.store.list(PODS, d.metadata.namespace).some((p) => {
      const ref = getControllerOf(p);
      const phase = (p as Pod).status?.phase;
      return !!ref && oldUIDs.has(ref.uid) && phase !== "Succeeded" && phase !== "Failed";
    });
    if (oldRunning) {
      this.syncStatus(d, newRS, old);
      return;
    }
    if (!newRS) ({ newRS } = this.newAndOld(d, this.replicaSetsFor(d), true));
    newRS = this.scaleRS(d, newRS!, d.spec.replicas ?? 1);
    this.cleanup(d, old);
    this.syncStatus(d, newRS, old);
  }

  // ---------------------------------------------------------------------------------------------
  // Scaling (sync.go)

  private isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
    const active = rsList.filter((rs) => replicasOf(rs) > 0);
    const replicas = String(d.spec.replicas ?? 1);
    return active.some((rs) => {
      const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
      return desired !== undefined && desired !== replicas;
    });
  }

  private sync(d: Deployment, rsList: ReplicaSet[]): void {
    let { newRS, old } = this.newAndOld(d, rsList, false);
    const replicas = d.spec.replicas ?? 1;
    const active = [newRS, ...old].filter((rs): rs is ReplicaSet => !!rs && replicasOf(rs) > 0);
    if (active.length === 0 && newRS) {
      newRS = this.scaleRS(d, newRS, replicas);
    } else if (active.length === 1) {
      const rs = active[0];
      const scaled = this.scaleRS(d, rs, replicas);
      if (rs === newRS) newRS = scaled;
      else old = old.map((o) => (o === rs ? scaled : o));
    } else if (active.length > 1) {
      // Proportional scaling: spread the difference by each RS's share, leftovers to the largest.
      const allowed = replicas + this.maxSurge(d);
      const current = active.reduce((s, rs) => s + replicasOf(rs), 0);
      let toAdd = allowed - current;
      const sorted = [...active].sort((a, b) => replicasOf(b) - replicasOf(a) || (a.metadata.creationTimestamp! < b.metadata.creationTimestamp! ? 1 : -1));
      const targets = new Map<ReplicaSet, number>();
      let added = 0;
      for (const rs of sorted) {
        const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS] ?? current) || current;
        const share = toAdd === 0 ? 0 : Math.trunc((replicasOf(rs) * allowed) / annotated) - replicasOf(rs);
        const prop = toAdd > 0 ? Math.min(share, toAdd - added) : Math.max(share, toAdd - added);
        targets.set(rs, replicasOf(rs) + prop);
        added += prop;
      }
      toAdd -= added;
      if (toAdd !== 0 && sorted.length) targets.set(sorted[0], Math.max(0, targets.get(sorted[0])! + toAdd));
      for (const [rs, to] of targets) {
        const scaled = this.scaleRS(d, rs, Math.max(0, to));
        if (rs === newRS) newRS = scaled;
        else old = old.map((o) => (o === rs ? scaled : o));
      }
    }
    if (d.spec.paused) {
      this.syncStatus(d, newRS, old);
      return;
    }
    this.syncStatus(d, newRS, old);
  }

  /** Deletes old, empty ReplicaSets beyond revisionHistoryLimit, oldest first. */
  private cleanup(d: Deployment, old: ReplicaSet[]): void {
    const limit = d.spec.revisionHistoryLimit ?? 10;
    const empty = old
      .filter((rs) => replicasOf(rs) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp)
      .sort((a, b) => revisionOf(a as KObject) - revisionOf(b as KObject));
    const diff = empty.length - limit;
    for (let i = 0; i < diff; i++) {
      this.api.delete(R.replicasets, empty[i].metadata.namespace, empty[i].metadata.name!);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status and conditions (sync.go calculateStatus, progress.go)

  private syncStatus(d0: Deployment, newRS: ReplicaSet | undefined, old: ReplicaSet[]): void {
    const d = this.ctx.store.get(DEPLOYS, d0.metadata.namespace, d0.metadata.name!) as Deployment;
    const all = [newRS, ...old].filter((rs): rs is ReplicaSet => !!rs).map((rs) => (this.ctx.store.get(RSS, rs.metadata.namespace, rs.metadata.name!) as ReplicaSet) ?? rs);
    const fresh = newRS ? all[0] : undefined;
    const replicas = d.spec.replicas ?? 1;
    const available = sumOf(all, (rs) => rs.status?.availableReplicas ?? 0);
    const status: Record<string, unknown> = {
      observedGeneration: d.metadata.generation,
      replicas: sumOf(all, (rs) => rs.status?.replicas ?? 0),
      updatedReplicas: fresh?.status?.replicas ?? 0,
      readyReplicas: sumOf(all, (rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: available,
      // calculateStatus: desired replicas of all ReplicaSets minus available ones, never below 0.
      unavailableReplicas: Math.max(0, sumOf(all, (rs) => replicasOf(rs)) - available),
      conditions: cloneJSON(d.status?.conditions ?? []),
    };
    if (d.status?.collisionCount) status.collisionCount = d.status.collisionCount;
    for (const k of ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"]) if (status[k] === 0) delete status[k];

    const now = rfc3339(this.ctx.clock.now());
    const conds = status.conditions as DeploymentCondition[];
    const minAvailable = replicas - this.maxUnavailable(d);
    if (available >= minAvailable) setCondition(conds, now, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.");
    else setCondition(conds, now, "Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.");
    if (fresh) {
      const complete =
        (fresh.status?.replicas ?? 0) === replicas &&
        (fresh.status?.availableReplicas ?? 0) === replicas &&
        replicasOf(fresh) === replicas &&
        sumOf(all, (rs) => rs.status?.replicas ?? 0) === replicas;
      const name = fresh.metadata.name;
      if (complete) setCondition(conds, now, "Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "${name}" has successfully progressed.`);
      else {
        const p = conds.find((c) => c.type === "Progressing");
        if (!p) setCondition(conds, now, "Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${name}" is progressing.`);
        else if (p.reason !== "NewReplicaSetCreated" || !p.message?.includes(name!)) setCondition(conds, now, "Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${name}" is progressing.`);
      }
    }
    // syncRolloutStatus: a ReplicaSet's ReplicaFailure (the new one's first) is the
    // Deployment's, with its transition time as both times; none, and the condition goes.
    let failure: { status: string; reason?: string; message?: string; lastTransitionTime?: string | null } | undefined;
    for (const rs of fresh ? [fresh, ...all.filter((x) => x !== fresh)] : all) {
      failure = rs.status?.conditions?.find((c) => c.type === "ReplicaFailure");
      if (failure) break;
    }
    const fi = conds.findIndex((c) => c.type === "ReplicaFailure");
    if (failure) {
      const prev = fi >= 0 ? conds[fi] : undefined;
      if (!prev || prev.status !== failure.status || prev.reason !== failure.reason) {
        const at = failure.lastTransitionTime ?? now;
        const c = { type: "ReplicaFailure", status: failure.status, lastUpdateTime: at, lastTransitionTime: prev && prev.status === failure.status ? prev.lastTransitionTime : at, reason: failure.reason, message: failure.message };
        if (fi >= 0) conds.splice(fi, 1);
        conds.push(c as DeploymentCondition);
      }
    } else if (fi >= 0) conds.splice(fi, 1);
    // Conditions are listed Available first, then Progressing, as the controller appends them.
    conds.sort((a, b) => (a.type === b.type ? 0 : a.type === "Available" ? -1 : b.type === "Available" ? 1 : 0));
    if (!deepEqual(status, d.status)) {
      this.api.update(R.deployments, d.metadata.namespace, d.metadata.name!, { ...d, status }, { subresource: "status" });
    }
  }

  private setProgressing(d: Deployment, st: string, reason: string, message: string): void {
    const cur = this.ctx.store.get(DEPLOYS, d.metadata.namespace, d.metadata.name!) as Deployment;
    const conds = cloneJSON(cur.status?.conditions ?? []);
    const now = rfc3339(this.ctx.clock.now());
    const i = conds.findIndex((c) => c.type === "Progressing");
    const prev = i >= 0 ? conds[i] : undefined;
    const c = { type: "Progressing", status: st, lastUpdateTime: now, lastTransitionTime: prev && prev.status === st ? prev.lastTransitionTime : now, reason, message };
    if (i >= 0) conds[i] = c;
    else conds.push(c);
    this.api.update(R.deployments, cur.metadata.namespace, cur.metadata.name!, { ...cur, status: { ...(cur.status ?? {}), conditions: conds } }, { subresource: "status" });
  }
}
