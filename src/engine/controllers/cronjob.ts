// The CronJob controller (K/pkg/controller/cronjob: cronjob_controllerv2.go, utils.go) on the
// cluster's clock: at each scheduled time a Job `<cronjob>-<scheduled time in minutes since the
// epoch>` from the job template, owned by the CronJob; concurrencyPolicy Allow, Forbid or
// Replace; startingDeadlineSeconds; status.active, lastScheduleTime and lastSuccessfulTime; the
// successful and failed history limits; events worded as the real controller's. The next
// schedule time is derived from the CronJob, so nothing is stored but the timer.

import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { CronJob, Job } from "../api/types-batch.js";
import type { KObject, ObjectReference } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { rfc3339 } from "../clock.js";
import { nextAfter, parseStandard, type Schedule } from "../cron.js";
import type { StoreEvent } from "../store/store.js";
import { isJobFinished, jobCondition } from "./job.js";
import type { Controller, ControllerContext } from "./manager.js";
import { controllerRef, getControllerOf, splitKey } from "./util.js";

const JOBS = rkey(R.jobs);
const CRONJOBS = rkey(R.cronjobs);
const COMPONENT = "cronjob-controller";
const SCHEDULED_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** time.RFC1123Z, as the MissSchedule event prints a time. */
function rfc1123z(ms: number): string {
  const d = new Date(ms);
  const p2 = (n: number) => String(n).padStart(2, "0");
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][d.getUTCDay()];
  const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  return `${day}, ${p2(d.getUTCDate())} ${mon} ${d.getUTCFullYear()} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
}

export class CronJobController implements Controller {
  readonly name = "cronjob";

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === CRONJOBS || resource === JOBS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === CRONJOBS) {
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
      return;
    }
    const ref = getControllerOf(ev.object);
    if (ref?.kind === "CronJob") enqueue(`${ev.object.metadata.namespace}/${ref.name}`);
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(CRONJOBS).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  private event(cj: CronJob, type: "Normal" | "Warning", reason: string, message: string): void {
    this.ctx.api.recordEvent({ involved: cj as KObject, involvedInfo: R.cronjobs, type, reason, message, component: COMPONENT });
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const cj0 = this.ctx.store.get(CRONJOBS, ns, name) as CronJob | undefined;
    if (!cj0) return;
    const cj = structuredClone(cj0) as CronJob;
    const status = (cj.status ??= {});
    const now = this.ctx.clock.now();
    const jobs = (this.ctx.store.list(JOBS, ns) as Job[]).filter((j) => getControllerOf(j)?.uid === cj.metadata.uid);
    let active: ObjectReference[] = [...(status.active ?? [])];
    const inActive = (uid: string | undefined) => active.some((r) => r.uid === uid);

    for (const j of jobs) {
      const found = inActive(j.metadata.uid);
      if (!found && !isJobFinished(j)) {
        this.event(cj, "Warning", "UnexpectedJob", `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
      } else if (found && isJobFinished(j)) {
        const cond = jobCondition(j, "Complete") ? "Complete" : "Failed";
        active = active.filter((r) => r.uid !== j.metadata.uid);
        this.event(cj, "Normal", "SawCompletedJob", `Saw completed job: ${j.metadata.name}, condition: ${cond}`);
      }
      // A job need not be in the active list to count as the last success.
      if (jobCondition(j, "Complete") && j.status?.completionTime) {
        const t = j.status.completionTime;
        if (!status.lastSuccessfulTime || Date.parse(t) > Date.parse(status.lastSuccessfulTime)) status.lastSuccessfulTime = t;
      }
    }
    // Active jobs that are gone.
    for (const r of [...active]) {
      if (jobs.some((j) => j.metadata.uid === r.uid)) continue;
      if (!this.ctx.store.get(JOBS, r.namespace, r.name ?? "")) {
        this.event(cj, "Normal", "MissingJob", `Active job went missing: ${r.name}`);
        active = active.filter((x) => x.uid !== r.uid);
      }
    }

    if (!cj.metadata.deletionTimestamp && !cj.spec.suspend) {
      let sched: Schedule | undefined;
      try {
        sched = parseStandard(cj.spec.schedule);
      } catch (e) {
        this.event(cj, "Warning", "UnparseableSchedule", `unparseable schedule: ${JSON.stringify(cj.spec.schedule)} : ${(e as Error).message}`);
      }
      if (sched) active = this.schedule(key, cj, sched, jobs, active, now);
    }
    status.active = active.length ? active : undefined;
    if (!status.active) delete status.active;
    this.cleanupFinished(cj, (this.ctx.store.list(JOBS, ns) as Job[]).filter((j) => getControllerOf(j)?.uid === cj.metadata.uid));
    if (!deepEqual(status, cj0.status ?? {})) {
      this.ctx.api.update(R.cronjobs, ns, name, { ...cj0, status }, { subresource: "status" });
    }
  }

  /** The scheduling half of syncCronJob: returns the active list after it. */
  private schedule(key: string, cj: CronJob, sched: Schedule, jobs: Job[], active: ObjectReference[], now: number): ObjectReference[] {
    const zone = cj.spec.timeZone ?? undefined;
    const status = cj.status!;
    // mostRecentScheduleTime: from the last schedule (or creation), not before the starting deadline.
    let earliest = Date.parse(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? "") || now;
    const sds = cj.spec.startingDeadlineSeconds;
    if (sds != null) earliest = Math.max(earliest, now - sds * 1000);
    let scheduled: number | undefined;
    let missed = 0;
    for (let t = nextAfter(sched, earliest, zone); t !== undefined && t <= now; t = nextAfter(sched, t, zone)) {
      scheduled = t;
      if (++missed > 100) {
        // The real controller works the count out without listing them; past 100 it only warns.
        this.event(cj, "Warning", "TooManyMissedTimes", `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
        break;
      }
    }
    const next = nextAfter(sched, now, zone);
    if (next !== undefined) this.ctx.requeueAt(this, key, next);
    if (scheduled === undefined) return active;
    if (sds != null && scheduled + sds * 1000 < now) {
      this.event(cj, "Warning", "MissSchedule", `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return active;
    }
    const jobName = `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;
    if (active.some((r) => r.name === jobName) || this.ctx.store.get(JOBS, cj.metadata.namespace, jobName)) return active;
    const policy = cj.spec.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && active.length) {
      this.event(cj, "Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid");
      return active;
    }
    if (policy === "Replace") {
      for (const r of active) {
        const j = this.ctx.store.get(JOBS, r.namespace, r.name ?? "");
        if (j && this.deleteJob(cj, j as Job)) active = active.filter((x) => x.uid !== r.uid);
      }
    }
    // getJobFromTemplate2
    const t = cj.spec.jobTemplate;
    const annotations = { ...(t.metadata?.annotations ?? {}), [SCHEDULED_ANNOTATION]: rfc3339(scheduled) };
    const body = {
      metadata: {
        name: jobName,
        ...(t.metadata?.labels ? { labels: t.metadata.labels } : {}),
        annotations,
        ownerReferences: [controllerRef(cj as KObject, R.cronjobs)],
      },
      spec: t.spec,
    };
    let job: Job;
    try {
      job = this.ctx.api.create(R.jobs, cj.metadata.namespace, body) as Job;
    } catch (e) {
      if (!isStatusError(e)) throw e;
      if (e.status.code !== 409) this.event(cj, "Warning", "FailedCreate", `Error creating job: ${e.message}`);
      return active;
    }
    this.event(cj, "Normal", "SuccessfulCreate", `Created job ${job.metadata.name}`);
    status.lastScheduleTime = rfc3339(scheduled);
    return [
      ...active,
      { kind: "Job", namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: "batch/v1", resourceVersion: job.metadata.resourceVersion },
    ];
  }

  private deleteJob(cj: CronJob, job: Job): boolean {
    try {
      this.ctx.api.delete(R.jobs, job.metadata.namespace, job.metadata.name!, { propagationPolicy: "Background" });
    } catch (e) {
      if (!isStatusError(e)) throw e;
      if (e.status.code !== 404) {
        this.event(cj, "Warning", "FailedDelete", `Deleted job: ${e.message}`);
        return false;
      }
    }
    this.event(cj, "Normal", "SuccessfulDelete", `Deleted job ${job.metadata.name}`);
    return true;
  }

  /** cleanupFinishedJobs: the oldest finished Jobs past each history limit go (by start time, then name). */
  private cleanupFinished(cj: CronJob, jobs: Job[]): void {
    const byStart = (a: Job, b: Job) => {
      const sa = a.status?.startTime ? Date.parse(a.status.startTime) : Infinity;
      const sb = b.status?.startTime ? Date.parse(b.status.startTime) : Infinity;
      return sa - sb || (a.metadata.name! < b.metadata.name! ? -1 : 1);
    };
    const prune = (list: Job[], limit: number | null | undefined) => {
      if (limit == null || list.length <= limit) return;
      for (const j of [...list].sort(byStart).slice(0, list.length - limit)) if (!j.metadata.deletionTimestamp) this.deleteJob(cj, j);
    };
    prune(jobs.filter((j) => jobCondition(j, "Complete")), cj.spec.successfulJobsHistoryLimit);
    prune(jobs.filter((j) => jobCondition(j, "Failed")), cj.spec.failedJobsHistoryLimit);
  }
}
