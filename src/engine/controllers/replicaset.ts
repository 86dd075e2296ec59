// The ReplicaSet controller (K/pkg/controller/replicaset/replica_set.go): keeps the number of
// active pods it controls at spec.replicas, deleting the least valuable pods first, adopts
// matching orphans, and reports replicas, ready and available counts. Its pod creates and
// deletes spend its client's rate limit (client-rate-limit.ts): 30 at once, then 20 a second.
// The replication manager (K/pkg/controller/replication) is this controller over
// ReplicationControllers, whose selector is a label map: one class, two flavors.

import { tokensDueAt } from "./client-rate-limit.js";
import { memoize } from "../util/memo.js";
import { type Selector, storedSelector } from "../api/labels.js";
import { R, type ResourceInfo } from "../api/resources.js";
import type { KObject, Pod, ReplicaSet, ReplicationController } from "../api/types.js";
import { isStatusError } from "../api/status.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";
import {
  controllerRef,
  getControllerOf,
  isPodActive,
  isPodReady,
  podCondition,
  splitKey,
} from "./util.js";

const PODS = rkey(R.pods);
/** No labels object checked yet (see updateStatus). */
const NOT_CHECKED = {};
/** The controller's burstReplicas: at most this many pods created or deleted in one sync. */
const BURST_REPLICAS = 500;
/** controller.SlowStartInitialBatchSize: creates go in batches of 1, 2, 4, ... */
const SLOW_START_INITIAL_BATCH = 1;
/** The workqueue's per-item back-off after a failed sync (DefaultControllerRateLimiter): 5 ms doubling to 1000 s. */
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 1_000_000;

/** A ReplicaSet whose last create was refused: the error, and when its rate-limited retry comes. */
interface Failing {
  failures: number;
  retryAt: number;
  error: string;
}

/** What the ReplicaSet controller and the replication manager differ in. */
export interface ReplicaSetFlavor {
  /** The controller's name (its client rate limit's too). */
  name: string;
  info: ResourceInfo;
  /** Its events' source component. */
  component: string;
  selector(obj: ReplicaSet): Selector;
}

export const REPLICA_SETS: ReplicaSetFlavor = {
  name: "replicaset",
  info: R.replicasets,
  component: "replicaset-controller",
  selector: (rs) => storedSelector(rs.spec.selector),
};

/** An RC's label map as a selector, made once per stored map (it selects nothing when empty). */
const setSelectors = new WeakMap<object, Selector>();

export const REPLICATION_CONTROLLERS: ReplicaSetFlavor = {
  name: "replicationcontroller",
  info: R.replicationcontrollers,
  component: "replication-controller",
  selector(obj) {
    const set = (obj as unknown as ReplicationController).spec?.selector;
    // Validation refuses an empty selector: a stored one always has a pair.
    if (!set || !Object.keys(set).length) return storedSelector(null);
    let s = setSelectors.get(set);
    if (s === undefined) setSelectors.set(set, (s = storedSelector({ matchLabels: set })));
    return s;
  },
};

export class ReplicaSetController implements Controller {
  readonly name: string;
  /** The kind's resource key ("replicasets.apps", "replicationcontrollers"). */
  private readonly resource: string;
  /** Pods by owning ReplicaSet uid, kept from store events. */
  private readonly podsByOwner = new Map<string, Set<string>>();
  /** Date.parse of a condition's time, remembered: a thousand pods share a few seconds' strings. */
  private readonly parseTime = memoize(Date.parse, 4096);
  private readonly ownerOfPod = new Map<string, string>();
  /** Pods without a controller: candidates for adoption. */
  private readonly orphans = new Set<string>();
  private readonly generateNames = new Map<string, string>();
  /** ReplicaSets (by key) whose pod creates are being refused (a quota), backing off. */
  private readonly failing = new Map<string, Failing>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly flavor: ReplicaSetFlavor = REPLICA_SETS,
  ) {
    this.name = flavor.name;
    this.resource = rkey(flavor.info);
    for (const p of ctx.store.iterate(PODS)) this.index(p as Pod, false);
  }

  private index(pod: Pod, deleted: boolean): void {
    const k = `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (!deleted && !getControllerOf(pod)) this.orphans.add(k);
    else this.orphans.delete(k);
    const before = this.ownerOfPod.get(k);
    const ref = getControllerOf(pod);
    const after = !deleted && ref?.kind === this.flavor.info.kind ? ref.uid : undefined;
    if (before === after) return;
    if (before) {
      this.podsByOwner.get(before)?.delete(k);
      this.ownerOfPod.delete(k);
    }
    if (after) {
      let s = this.podsByOwner.get(after);
      if (!s) this.podsByOwner.set(after, (s = new Set()));
      s.add(k);
      this.ownerOfPod.set(k, after);
    }
  }

  watches(resource: string): boolean {
    return resource === this.resource || resource === PODS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === this.resource) {
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
    } else if (ev.resource === PODS) {
      const pod = ev.object as Pod;
      // A pod gone frees quota: ReplicaSets backing off after a refused create try again now
      // (the real controller retries on each sync; here a retry waits for its back-off or this).
      if (ev.type === "DELETED" && this.failing.size) {
        for (const [k, f] of this.failing) {
          f.retryAt = 0;
          enqueue(k);
        }
      }
      // Status writes share the owner references: the index stays as it is.
      if (ev.type !== "MODIFIED" || ev.old?.metadata.ownerReferences !== pod.metadata.ownerReferences) this.index(pod, ev.type === "DELETED");
      const ref = getControllerOf(pod);
      if (ref?.kind === this.flavor.info.kind) enqueue(`${pod.metadata.namespace}/${ref.name}`);
      else if (!ref && ev.type !== "DELETED") {
        // An orphan may be adopted by a ReplicaSet whose selector matches it.
        for (const rs of this.ctx.store.list(this.resource, pod.metadata.namespace)) {
          const sel = this.flavor.selector(rs as ReplicaSet);
          if (sel.matches(pod.metadata.labels ?? {})) enqueue(`${rs.metadata.namespace}/${rs.metadata.name}`);
        }
      }
    }
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(this.resource).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const rs = this.ctx.store.get(this.resource, ns, name) as ReplicaSet | undefined;
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = this.claimPods(rs);
    const active = pods.filter(isPodActive);
    const want = rs.spec.replicas ?? 1;
    const diff = active.length - want;
    let error: string | undefined;
    if (diff < 0) {
      error = this.createPods(key, rs, Math.min(-diff, BURST_REPLICAS));
    } else {
      this.failing.delete(key);
    }
    if (diff > 0) {
      const doomed = podsToDelete(active, Math.min(diff, BURST_REPLICAS));
      for (const [i, p] of doomed.entries()) {
        if (!this.token(key, doomed.length - i)) break;
        this.ctx.api.delete(R.pods, ns, p.metadata.name!);
        this.ctx.api.recordEvent({
          involved: rs as KObject,
          involvedInfo: this.flavor.info,
          type: "Normal",
          reason: "SuccessfulDelete",
          message: `Deleted pod: ${p.metadata.name}`,
          component: this.flavor.component,
        });
      }
    }
    this.updateStatus(rs, error);
  }

  /**
   * manageReplicas' creates: slowStartBatch (batches of 1, 2, 4, ... while every create of a
   * batch succeeds), at most burstReplicas per sync. A refused create (the pod quota) ends the
   * sync with its error, reported as the FailedCreate event and the ReplicaFailure condition,
   * and the ReplicaSet is retried after the workqueue's exponential back-off. (The real batch's
   * creates run concurrently and all fail alike once one does; in sequence the batch stops at
   * the first refusal, as one event says what the others would.) Returns the error, if any.
   */
  private createPods(key: string, rs: ReplicaSet, n: number): string | undefined {
    const now = this.ctx.clock.now();
    const failing = this.failing.get(key);
    if (failing && now < failing.retryAt) return failing.error;
    let remaining = n;
    for (let batch = Math.min(remaining, SLOW_START_INITIAL_BATCH); batch > 0; batch = Math.min(2 * batch, remaining)) {
      for (let i = 0; i < batch; i++) {
        // The client's rate limit: the rest waits for the next tokens (the status says what is).
        if (!this.token(key, remaining - i)) return failing?.error;
        const refused = this.createPod(rs);
        if (refused === undefined) continue;
        if (refused === TERMINATING) return undefined;
        const failures = (failing?.failures ?? 0) + 1;
        const retryAt = now + Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
        this.failing.set(key, { failures, retryAt, error: refused });
        this.ctx.requeueAt(this, key, retryAt);
        return refused;
      }
      remaining -= batch;
    }
    this.failing.delete(key);
    return undefined;
  }

  /**
   * A token of this controller's client for one pod create or delete, of `wanted` still to make;
   * without one, the sync stops and the ReplicaSet is synced again once the tokens for the next
   * writes are due (up to a second's worth), where client-go's calls would block for each.
   * Syncing again for every single token cost a full sync of every pod per pod: 1000 pods took
   * seconds of CPU.
   */
  private token(key: string, wanted: number): boolean {
    const retryAt = this.ctx.takeToken(this);
    if (retryAt === undefined) return true;
    this.ctx.requeueAt(this, key, tokensDueAt(retryAt, wanted));
    return false;
  }

  /** Owned pods plus matching orphans (adopted by adding the controller reference). */
  private claimPods(rs: ReplicaSet): Pod[] {
    const out: Pod[] = [];
    for (const k of this.podsByOwner.get(rs.metadata.uid!) ?? []) {
      const [ns, n] = splitKey(k);
      const p = this.ctx.store.get(PODS, ns, n) as Pod | undefined;
      if (p) out.push(p);
    }
    const sel = this.flavor.selector(rs);
    for (const k of [...this.orphans]) {
      const [ns, n] = splitKey(k);
      if (ns !== rs.metadata.namespace) continue;
      const p = this.ctx.store.get(PODS, ns, n) as Pod | undefined;
      if (!p || getControllerOf(p) || p.metadata.deletionTimestamp || !sel.matches(p.metadata.labels ?? {})) continue;
      const adopted = structuredClone(p) as Pod;
      adopted.metadata.ownerReferences = [...(adopted.metadata.ownerReferences ?? []), controllerRef(rs as KObject, this.flavor.info)];
      out.push(this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, adopted) as Pod);
    }
    return out;
  }

  /** "<rs name>-", one string per ReplicaSet: each pod stores it (metadata.generateName). */
  private generateName(name: string): string {
    let g = this.generateNames.get(name);
    if (g === undefined) {
      if (this.generateNames.size >= 4096) this.generateNames.clear();
      this.generateNames.set(name, (g = `${name}-`));
    }
    return g;
  }

  /** Creates one pod; returns the apiserver's refusal (after its FailedCreate event), if any. */
  private createPod(rs: ReplicaSet): string | undefined {
    // No copy: the apiserver never changes a body (it decodes or copies what it stores).
    const tmpl = rs.spec.template!;
    const pod = {
      metadata: {
        generateName: this.generateName(rs.metadata.name!),
        namespace: rs.metadata.namespace,
        labels: tmpl.metadata?.labels ?? {},
        ...(tmpl.metadata?.annotations ? { annotations: tmpl.metadata.annotations } : {}),
        ownerReferences: [controllerRef(rs as KObject, this.flavor.info)],
      },
      spec: tmpl.spec,
    };
    let created;
    try {
      created = this.ctx.api.create(R.pods, rs.metadata.namespace, pod);
    } catch (e) {
      if (!isStatusError(e)) throw e;
      // Every create fails alike in a namespace being deleted: no event, nothing to retry.
      if (e.message.endsWith("because it is being terminated")) return TERMINATING;
      this.ctx.api.recordEvent({
        involved: rs as KObject,
        involvedInfo: this.flavor.info,
        type: "Warning",
        reason: "FailedCreate",
        message: `Error creating: ${e.message}`,
        component: this.flavor.component,
      });
      return e.message;
    }
    this.ctx.api.recordEvent({
      involved: rs as KObject,
      involvedInfo: this.flavor.info,
      type: "Normal",
      reason: "SuccessfulCreate",
      message: `Created pod: ${created.metadata.name}`,
      component: this.flavor.component,
    });
    return undefined;
  }

  private updateStatus(rs0: ReplicaSet, error: string | undefined): void {
    const rs = this.ctx.store.get(this.resource, rs0.metadata.namespace, rs0.metadata.name!) as ReplicaSet;
    const minReady = rs.spec.minReadySeconds ?? 0;
    const now = this.ctx.clock.now();
    const templateLabels = Object.entries(rs.spec.template?.metadata?.labels ?? {});
    // One pass over the owned pods, counting (no arrays of pods per count: this runs after every
    // pass of a 1000-pod scale), with the Ready condition looked up once per pod.
    let replicas = 0;
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    let nextAvailable = Infinity;
    // A controller's pods share one labels object: the template's labels are checked against it
    // once, not once per pod (a closure per pod).
    let checked: unknown = NOT_CHECKED;
    let full = false;
    for (const k of this.podsByOwner.get(rs.metadata.uid!) ?? []) {
      const [ns, n] = splitKey(k);
      const p = this.ctx.store.get(PODS, ns, n) as Pod | undefined;
      if (!p || !isPodActive(p)) continue;
      replicas++;
      const labels = p.metadata.labels;
      if (labels !== checked) {
        checked = labels;
        full = templateLabels.every(([lk, v]) => labels?.[lk] === v);
      }
      if (full) fullyLabeled++;
      const c = podCondition(p, "Ready");
      if (c?.status !== "True") continue;
      ready++;
      // podutil.IsPodAvailable, and when a ready pod becomes available (for the requeue).
      const t = c.lastTransitionTime ? this.parseTime(c.lastTransitionTime) : NaN;
      if (minReady <= 0 || (!Number.isNaN(t) && t + minReady * 1000 <= now)) available++;
      if (!Number.isNaN(t) && t + minReady * 1000 > now) nextAvailable = Math.min(nextAvailable, t + minReady * 1000);
    }
    const status: Record<string, unknown> = {
      replicas,
      fullyLabeledReplicas: fullyLabeled,
      readyReplicas: ready,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    };
    for (const k of ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"]) if (status[k] === 0) delete status[k];
    // calculateStatus: a failed sync sets ReplicaFailure (once: it stays as it was while the
    // failure lasts), a sync that succeeds removes it.
    const conditions = rs.status?.conditions ?? undefined;
    const failure = conditions?.find((c) => c.type === "ReplicaFailure");
    if (error !== undefined && !failure) {
      status.conditions = [
        ...(conditions ?? []),
        { type: "ReplicaFailure", status: "True", lastTransitionTime: rfc3339(now), reason: "FailedCreate", message: error },
      ];
    } else if (error === undefined && failure) {
      const rest = conditions!.filter((c) => c.type !== "ReplicaFailure");
      if (rest.length) status.conditions = rest;
    } else if (conditions?.length) status.conditions = conditions;
    if (!deepEqual(status, rs.status)) {
      this.ctx.api.update(this.flavor.info, rs.metadata.namespace, rs.metadata.name!, { ...rs, status }, { subresource: "status" });
    }
    if (nextAvailable !== Infinity) this.ctx.requeueAt(this, `${rs.metadata.namespace}/${rs.metadata.name}`, nextAvailable);
  }
}

/** createPod's answer in a namespace being deleted (a create there fails without an event). */
const TERMINATING = "\0terminating";

/** controller.ActivePodsWithRanks ordering: the pods a scale-down removes first. */
function podsToDelete(pods: Pod[], n: number): Pod[] {
  // Each pod's sort keys are computed once: a comparator runs n log n times, and Date.parse is
  // not cheap.
  const ranked = pods.map(rankOf);
  ranked.sort(deletionOrder);
  const out: Pod[] = [];
  for (let i = 0; i < n && i < ranked.length; i++) out.push(ranked[i].pod);
  return out;
}

interface Ranked {
  pod: Pod;
  assigned: number;
  phase: number;
  ready: number;
  restarts: number;
  created: number;
}

function rankOf(pod: Pod): Ranked {
  const phase = pod.status?.phase === "Pending" ? 0 : pod.status?.phase === "Unknown" ? 1 : 2;
  let restarts = 0;
  for (const c of pod.status?.containerStatuses ?? []) if (c.restartCount > restarts) restarts = c.restartCount;
  return {
    pod,
    assigned: pod.spec.nodeName ? 1 : 0,
    phase,
    ready: isPodReady(pod) ? 1 : 0,
    restarts,
    created: Date.parse(pod.metadata.creationTimestamp ?? "") || 0,
  };
}

function deletionOrder(a: Ranked, b: Ranked): number {
  if (a.assigned !== b.assigned) return a.assigned - b.assigned;
  if (a.phase !== b.phase) return a.phase - b.phase;
  if (a.ready !== b.ready) return a.ready - b.ready;
  if (a.restarts !== b.restarts) return b.restarts - a.restarts;
  // Newer pods go first.
  if (a.created !== b.created) return b.created - a.created;
  return a.pod.metadata.name! < b.pod.metadata.name! ? 1 : -1;
}
