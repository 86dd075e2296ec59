// The Job controller (K/pkg/controller/job: job_controller.go, backoff_utils.go,
// tracking_utils.go) as v1.33 runs it with its default feature gates (JobPodReplacementPolicy
// and JobManagedBy on: terminal conditions wait for pods to finish terminating, after a
// SuccessCriteriaMet or FailureTarget condition). Pods `<job>-<5 random>` carry the
// batch.kubernetes.io/job-tracking finalizer until the Job has counted them, by way of
// status.uncountedTerminatedPods as the real controller's three writes do. Failed pods are
// replaced after a back-off of 10 s doubling to 10 min (MaxJobPodFailureBackOff; the docs' six
// minutes is an older figure), derived from the pods' finish times. Not modelled: Indexed
// completion (pods are made as NonIndexed), podFailurePolicy, successPolicy, backoffLimitPerIndex,
// managedBy, the orphan adoption of manualSelector Jobs.

import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { Job, JobCondition } from "../api/types-batch.js";
import type { KObject, Pod } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";
import { controllerRef, getControllerOf, isPodReady, splitKey } from "./util.js";

const PODS = rkey(R.pods);
const JOBS = rkey(R.jobs);
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
const COMPONENT = "job-controller";
const BACKOFF_BASE_MS = 10_000;
const BACKOFF_MAX_MS = 600_000;
/** MaxPodCreateDeletePerSync */
const MAX_CREATE_DELETE = 500;

const isFinished = (p: Pod) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed";
const hasTracking = (p: Pod) => !!p.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER);

/** isPodFailed: with podReplacementPolicy TerminatingOrFailed a deleted pod counts as failed at once. */
function isPodFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === "Failed") return true;
  if (onlyReplaceFailed(job)) return false;
  return !!p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded";
}

const onlyReplaceFailed = (job: Job) => job.spec.podReplacementPolicy === "Failed" || job.spec.podFailurePolicy != null;

export function jobCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

/** IsJobFinished: a Complete or Failed condition that is True. */
export function isJobFinished(job: Job): boolean {
  return !!(jobCondition(job, "Complete") ?? jobCondition(job, "Failed"));
}

/** When a pod finished: its last container's finishedAt, else its deletion, else its creation. */
function finishTime(p: Pod): number {
  let t = 0;
  for (const cs of p.status?.containerStatuses ?? []) {
    const f = cs.state?.terminated?.finishedAt;
    if (f) t = Math.max(t, Date.parse(f) || 0);
  }
  if (!t && p.metadata.deletionTimestamp) t = Date.parse(p.metadata.deletionTimestamp) || 0;
  return t || Date.parse(p.metadata.creationTimestamp ?? "") || 0;
}

export class JobController implements Controller {
  readonly name = "job";
  private readonly podsByJob = new Map<string, Set<string>>();
  private readonly jobOfPod = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === JOBS || resource === PODS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === JOBS) {
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
      return;
    }
    const pod = ev.object as Pod;
    const k = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const ref = getControllerOf(pod);
    const uid = ev.type !== "DELETED" && ref?.kind === "Job" ? ref.uid : undefined;
    const before = this.jobOfPod.get(k);
    if (before !== uid) {
      if (before) this.podsByJob.get(before)?.delete(k);
      if (uid) {
        let s = this.podsByJob.get(uid);
        if (!s) this.podsByJob.set(uid, (s = new Set()));
        s.add(k);
        this.jobOfPod.set(k, uid);
      } else this.jobOfPod.delete(k);
    }
    if (ref?.kind === "Job") enqueue(`${pod.metadata.namespace}/${ref.name}`);
    // A tracked pod whose Job is gone keeps its finalizer until someone removes it: this controller.
    if (ev.type !== "DELETED" && hasTracking(pod)) {
      const job = ref?.kind === "Job" ? (this.ctx.store.get(JOBS, pod.metadata.namespace, ref.name) as Job | undefined) : undefined;
      if (!job || job.metadata.uid !== ref?.uid) enqueue(`pod:${k}`);
    }
  }

  initialKeys(): Iterable<string> {
    const keys = this.ctx.store.list(JOBS).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    for (const p of this.ctx.store.iterate(PODS)) if (hasTracking(p as Pod)) keys.push(`pod:${p.metadata.namespace}/${p.metadata.name}`);
    return keys;
  }

  reconcile(key: string): void {
    if (key.startsWith("pod:")) return this.releaseOrphan(key.slice(4));
    const [ns, name] = splitKey(key);
    const job = this.ctx.store.get(JOBS, ns, name) as Job | undefined;
    if (!job) return;
    const pods = this.podsOf(job);
    if (isJobFinished(job)) {
      // Pods still tracked by a finished Job are released (finalizer removed) and left as they are.
      for (const p of pods) if (hasTracking(p)) this.removeFinalizer(p);
      return;
    }
    this.sync(key, job, pods);
  }

  private podsOf(job: Job): Pod[] {
    const out: Pod[] = [];
    for (const k of this.podsByJob.get(job.metadata.uid!) ?? []) {
      const [ns, n] = splitKey(k);
      const p = this.ctx.store.get(PODS, ns, n) as Pod | undefined;
      if (p && getControllerOf(p)?.uid === job.metadata.uid) out.push(p);
    }
    return out.sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") || a.metadata.name!.localeCompare(b.metadata.name!));
  }

  private releaseOrphan(k: string): void {
    const [ns, n] = splitKey(k);
    const pod = this.ctx.store.get(PODS, ns, n) as Pod | undefined;
    if (!pod || !hasTracking(pod)) return;
    const ref = getControllerOf(pod);
    const job = ref?.kind === "Job" ? (this.ctx.store.get(JOBS, ns, ref.name) as Job | undefined) : undefined;
    if (!job || job.metadata.uid !== ref?.uid) this.removeFinalizer(pod);
  }

  private removeFinalizer(p: Pod): void {
    const finalizers = (p.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    try {
      this.ctx.api.update(R.pods, p.metadata.namespace, p.metadata.name!, { ...p, metadata: { ...p.metadata, finalizers: finalizers.length ? finalizers : undefined } });
    } catch (e) {
      if (!isStatusError(e) || e.status.code !== 404) throw e;
    }
  }

  private event(job: Job, type: "Normal" | "Warning", reason: string, message: string): void {
    this.ctx.api.recordEvent({ involved: job as KObject, involvedInfo: R.jobs, type, reason, message, component: COMPONENT });
  }

  // ---------------------------------------------------------------------------------------------
  // syncJob

  private sync(key: string, job: Job, pods: Pod[]): void {
    const now = this.ctx.clock.now();
    const stamp = rfc3339(now);
    const spec = job.spec;
    const status = { ...(job.status ?? {}) };
    let conditions = [...(status.conditions ?? [])];
    const suspended = spec.suspend === true;
    const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
    const counted = new Set([...uncounted.succeeded, ...uncounted.failed]);

    // Newly finished pods go to uncountedTerminatedPods first (write 1), then lose their finalizer
    // (write 2), then are counted (write 3): no pod is counted twice or lost in between.
    const finishing: Pod[] = [];
    for (const p of pods) {
      if (!hasTracking(p) || counted.has(p.metadata.uid!)) continue;
      if (p.status?.phase === "Succeeded") uncounted.succeeded.push(p.metadata.uid!);
      else if (isPodFailed(p, job)) uncounted.failed.push(p.metadata.uid!);
      else continue;
      finishing.push(p);
    }
    const terminating = pods.filter((p) => p.metadata.deletionTimestamp && !isFinished(p)).length;
    let active = pods.filter((p) => !isFinished(p) && !p.metadata.deletionTimestamp);
    if (finishing.length) {
      this.writeStatus(job, { ...status, uncountedTerminatedPods: uncounted });
      for (const p of finishing) this.removeFinalizer(p);
      job = (this.ctx.store.get(JOBS, job.metadata.namespace, job.metadata.name!) as Job | undefined) ?? job;
    }
    const trackedUids = new Set(pods.filter((p) => hasTracking(p) && this.ctx.store.get(PODS, p.metadata.namespace, p.metadata.name!) && hasTracking(this.ctx.store.get(PODS, p.metadata.namespace, p.metadata.name!) as Pod)).map((p) => p.metadata.uid!));
    const stillSucceeded = uncounted.succeeded.filter((u) => trackedUids.has(u));
    const stillFailed = uncounted.failed.filter((u) => trackedUids.has(u));
    const succeeded = (status.succeeded ?? 0) + uncounted.succeeded.length - stillSucceeded.length;
    const failed = (status.failed ?? 0) + uncounted.failed.length - stillFailed.length;

    // A suspended Job has no start time; a resumed one starts again now.
    if (suspended) delete status.startTime;
    else if (!status.startTime) status.startTime = stamp;

    // Terminal conditions: the target first, the condition itself once no pod is terminating.
    const has = (t: string) => conditions.some((c) => c.type === t && c.status === "True");
    const add = (type: string, reason: string, message: string) => {
      conditions = [...conditions.filter((c) => c.type !== type), { type, status: "True", lastProbeTime: stamp, lastTransitionTime: stamp, reason, message }];
    };
    const completions = spec.completions ?? undefined;
    const parallelism = spec.parallelism ?? 1;
    if (!has("FailureTarget") && !has("SuccessCriteriaMet")) {
      const backoffLimit = spec.backoffLimit ?? 6;
      const deadline = this.deadline(job, status.startTime ?? undefined);
      if (failed > backoffLimit || this.pastBackoffLimitOnFailure(job, active)) {
        add("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
      } else if (deadline !== undefined && now >= deadline) {
        add("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline");
      } else if (completions != null ? succeeded >= completions : succeeded > 0 && active.length === 0) {
        add("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods");
      } else if (deadline !== undefined) {
        this.ctx.requeueAt(this, key, deadline);
      }
    }
    const failing = conditions.find((c) => c.type === "FailureTarget" && c.status === "True");
    const succeeding = has("SuccessCriteriaMet");
    if (failing || succeeding) {
      // The rest of the active pods go (deleteActivePods), then the Job finishes.
      for (const p of active) this.deletePod(job, p);
      const left = active.length + terminating;
      active = [];
      if (left === 0 && !stillSucceeded.length && !stillFailed.length) {
        if (failing) {
          add("Failed", failing.reason!, failing.message!);
          this.event(job, "Warning", failing.reason!, failing.message!);
        } else {
          add("Complete", "CompletionsReached", "Reached expected number of succeeded pods");
          status.completionTime = stamp;
          this.event(job, "Normal", "Completed", "Job completed");
        }
      }
    } else {
      conditions = this.suspension(job, conditions, stamp, suspended, active);
      if (suspended) active = [];
      else active = this.manageActive(key, job, active, pods, succeeded, terminating, completions, parallelism);
    }

    const next: Record<string, unknown> = {};
    if (conditions.length) next.conditions = conditions;
    if (status.startTime) next.startTime = status.startTime;
    if (status.completionTime) next.completionTime = status.completionTime;
    if (active.length) next.active = active.length;
    if (succeeded) next.succeeded = succeeded;
    if (failed) next.failed = failed;
    next.terminating = pods.filter((p) => {
      const cur = this.ctx.store.get(PODS, p.metadata.namespace, p.metadata.name!) as Pod | undefined;
      return cur && cur.metadata.deletionTimestamp && !isFinished(cur);
    }).length;
    next.uncountedTerminatedPods = { ...(stillSucceeded.length ? { succeeded: stillSucceeded } : {}), ...(stillFailed.length ? { failed: stillFailed } : {}) };
    next.ready = active.filter((p) => isPodReady(p)).length;
    this.writeStatus(job, next);
  }

  /** When activeDeadlineSeconds runs out, if set and the Job has started. */
  private deadline(job: Job, startTime: string | undefined): number | undefined {
    const s = job.spec.activeDeadlineSeconds;
    if (s == null || !startTime) return undefined;
    return Date.parse(startTime) + s * 1000;
  }

  /** pastBackoffLimitOnFailure: with OnFailure, the restarts of active pods count against the limit. */
  private pastBackoffLimitOnFailure(job: Job, active: Pod[]): boolean {
    if (job.spec.template.spec.restartPolicy !== "OnFailure") return false;
    let restarts = 0;
    for (const p of active) {
      if (p.status?.phase !== "Running" && p.status?.phase !== "Pending") continue;
      for (const cs of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
    }
    const limit = job.spec.backoffLimit ?? 6;
    return limit === 0 ? restarts > 0 : restarts >= limit;
  }

  /** The Suspended condition, and the events of a Job suspended or resumed. */
  private suspension(job: Job, conditions: JobCondition[], stamp: string, suspended: boolean, active: Pod[]): JobCondition[] {
    const cur = conditions.find((c) => c.type === "Suspended");
    if (suspended && cur?.status !== "True") {
      for (const p of active) this.deletePod(job, p);
      this.event(job, "Normal", "Suspended", "Job suspended");
      return [...conditions.filter((c) => c.type !== "Suspended"), { type: "Suspended", status: "True", lastProbeTime: stamp, lastTransitionTime: stamp, reason: "JobSuspended", message: "Job suspended" }];
    }
    if (!suspended && cur?.status === "True") {
      this.event(job, "Normal", "Resumed", "Job resumed");
      return conditions.map((c) => (c.type === "Suspended" ? { ...c, status: "False", lastProbeTime: stamp, lastTransitionTime: stamp, reason: "JobResumed", message: "Job resumed" } : c));
    }
    return conditions;
  }

  /**
   * manageJob: as many active pods as parallelism and the completions left allow; a failed pod's
   * replacement waits out the back-off since the last failure (none after a success).
   */
  private manageActive(key: string, job: Job, active: Pod[], pods: Pod[], succeeded: number, terminating: number, completions: number | undefined, parallelism: number): Pod[] {
    let want: number;
    if (completions == null) want = succeeded > 0 ? Math.min(active.length, parallelism) : parallelism;
    else want = Math.max(0, Math.min(completions - succeeded, parallelism));
    if (onlyReplaceFailed(job)) want = Math.max(0, want - terminating);
    if (active.length > want) {
      // The newest go first (ActivePods order: not ready, then most recently created).
      const extra = [...active].sort((a, b) => Number(isPodReady(a)) - Number(isPodReady(b)) || (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "")).slice(0, active.length - want);
      for (const p of extra) this.deletePod(job, p);
      return active.filter((p) => !extra.includes(p));
    }
    const missing = Math.min(want - active.length, MAX_CREATE_DELETE);
    if (missing <= 0) return active;
    const readyAt = this.backoffUntil(pods, job);
    if (readyAt > this.ctx.clock.now()) {
      this.ctx.requeueAt(this, key, readyAt);
      return active;
    }
    const out = [...active];
    for (let i = 0; i < missing; i++) {
      const p = this.createPod(job);
      if (!p) break;
      out.push(p);
    }
    return out;
  }

  /** backoffRecord: 10 s × 2^(failures since the last success − 1), from the last failure's time. */
  private backoffUntil(pods: Pod[], job: Job): number {
    const done = pods.filter((p) => p.status?.phase === "Succeeded" || isPodFailed(p, job)).sort((a, b) => finishTime(a) - finishTime(b));
    let failures = 0;
    let last = 0;
    for (const p of done) {
      if (p.status?.phase === "Succeeded") failures = 0;
      else {
        failures++;
        last = Math.max(last, finishTime(p));
      }
    }
    if (!failures) return 0;
    return last + Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
  }

  private createPod(job: Job): Pod | undefined {
    const t = job.spec.template;
    const metadata: Record<string, unknown> = {
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      labels: t.metadata?.labels ?? {},
      ...(t.metadata?.annotations ? { annotations: t.metadata.annotations } : {}),
      ownerReferences: [controllerRef(job as KObject, R.jobs)],
      finalizers: [JOB_TRACKING_FINALIZER],
    };
    try {
      const p = this.ctx.api.create(R.pods, job.metadata.namespace, { metadata, spec: t.spec }) as Pod;
      this.event(job, "Normal", "SuccessfulCreate", `Created pod: ${p.metadata.name}`);
      return p;
    } catch (e) {
      if (!isStatusError(e)) throw e;
      if (!e.message.endsWith("because it is being terminated")) this.event(job, "Warning", "FailedCreate", `Error creating: ${e.message}`);
      return undefined;
    }
  }

  private deletePod(job: Job, p: Pod): void {
    try {
      this.ctx.api.delete(R.pods, p.metadata.namespace, p.metadata.name!);
      this.event(job, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata.name}`);
    } catch (e) {
      if (!isStatusError(e)) throw e;
      if (e.status.code !== 404) this.event(job, "Warning", "FailedDelete", `Error deleting: ${e.message}`);
    }
  }

  private writeStatus(job0: Job, status: Record<string, unknown>): void {
    const job = this.ctx.store.get(JOBS, job0.metadata.namespace, job0.metadata.name!) as Job | undefined;
    if (!job || deepEqual(status, job.status ?? {})) return;
    this.ctx.api.update(R.jobs, job.metadata.namespace, job.metadata.name!, { ...job, status }, { subresource: "status" });
  }
}
