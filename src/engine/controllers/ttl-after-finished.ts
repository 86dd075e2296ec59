// The TTL-after-finished controller (K/pkg/controller/ttlafterfinished): a finished Job with
// spec.ttlSecondsAfterFinished is deleted (foreground, so its pods go first) that many seconds
// after its Complete or Failed condition's transition time. The timer is derived from the Job.

import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { Job } from "../api/types-batch.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import { jobCondition } from "./job.js";
import type { Controller, ControllerContext } from "./manager.js";
import { splitKey } from "./util.js";

const JOBS = rkey(R.jobs);

export class TTLAfterFinishedController implements Controller {
  readonly name = "ttl-after-finished";

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === JOBS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    const job = ev.object as Job;
    if (ev.type !== "DELETED" && job.spec?.ttlSecondsAfterFinished != null) enqueue(`${job.metadata.namespace}/${job.metadata.name}`);
  }

  initialKeys(): Iterable<string> {
    return this.ctx.store.list(JOBS).filter((j) => (j as Job).spec.ttlSecondsAfterFinished != null).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key);
    const job = this.ctx.store.get(JOBS, ns, name) as Job | undefined;
    const ttl = job?.spec.ttlSecondsAfterFinished;
    if (!job || ttl == null || job.metadata.deletionTimestamp) return;
    // timeLeft: from the finish time (the terminal condition's lastTransitionTime).
    const done = jobCondition(job, "Complete") ?? jobCondition(job, "Failed");
    if (!done?.lastTransitionTime) return;
    const expireAt = Date.parse(done.lastTransitionTime) + ttl * 1000;
    if (this.ctx.clock.now() < expireAt) {
      this.ctx.requeueAt(this, key, expireAt);
      return;
    }
    try {
      this.ctx.api.delete(R.jobs, ns, name, { propagationPolicy: "Foreground", preconditions: { uid: job.metadata.uid } });
    } catch (e) {
      if (!isStatusError(e) || (e.status.code !== 404 && e.status.code !== 409)) throw e;
    }
  }
}
