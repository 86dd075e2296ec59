// kubectl describe job and cronjob (kubectl/pkg/describe/describe.go v0.33: describeJob,
// describeCronJob, describeJobTemplate, printActiveJobs).

import { humanDuration, rfc1123z } from "./duration.js";
import { annotationsMultiline, controllerOf, type DescribeSource, describeEvents, describePodTemplate, eventsFor, labelsMultiline, type PrefixWriter } from "./describe.js";
import { formatLabelSelector } from "./table.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

export function describeJob(w: PrefixWriter, job: Obj, src: DescribeSource): void {
  const spec = job.spec ?? {};
  const st = job.status ?? {};
  w.write(0, `Name:\t${job.metadata.name}\n`);
  w.write(0, `Namespace:\t${job.metadata.namespace}\n`);
  // LabelSelectorAsSelector's String(): an empty selector prints as nothing.
  const sel = formatLabelSelector(spec.selector);
  w.write(0, `Selector:\t${sel === "<none>" ? "" : sel}\n`);
  labelsMultiline(w, "Labels", job.metadata.labels);
  annotationsMultiline(w, "Annotations", job.metadata.annotations);
  const ctrl = controllerOf(job);
  if (ctrl) w.write(0, `Controlled By:\t${ctrl}\n`);
  if (spec.parallelism != null) w.write(0, `Parallelism:\t${spec.parallelism}\n`);
  w.write(0, `Completions:\t${spec.completions != null ? spec.completions : "<unset>"}\n`);
  if (spec.completionMode != null) w.write(0, `Completion Mode:\t${spec.completionMode}\n`);
  if (spec.suspend != null) w.write(0, `Suspend:\t${spec.suspend}\n`);
  if (spec.backoffLimit != null) w.write(0, `Backoff Limit:\t${spec.backoffLimit}\n`);
  if (spec.ttlSecondsAfterFinished != null) w.write(0, `TTL Seconds After Finished:\t${spec.ttlSecondsAfterFinished}\n`);
  if (st.startTime) w.write(0, `Start Time:\t${rfc1123z(st.startTime)}\n`);
  if (st.completionTime) w.write(0, `Completed At:\t${rfc1123z(st.completionTime)}\n`);
  if (st.startTime && st.completionTime) w.write(0, `Duration:\t${humanDuration(Date.parse(st.completionTime) - Date.parse(st.startTime))}\n`);
  if (spec.activeDeadlineSeconds != null) w.write(0, `Active Deadline Seconds:\t${spec.activeDeadlineSeconds}s\n`);
  if (st.ready == null) w.write(0, `Pods Statuses:\t${st.active ?? 0} Active / ${st.succeeded ?? 0} Succeeded / ${st.failed ?? 0} Failed\n`);
  else w.write(0, `Pods Statuses:\t${st.active ?? 0} Active (${st.ready} Ready) / ${st.succeeded ?? 0} Succeeded / ${st.failed ?? 0} Failed\n`);
  if (spec.completionMode === "Indexed") w.write(0, `Completed Indexes:\t${capIndexes(st.completedIndexes ?? "", 50)}\n`);
  describePodTemplate(w, spec.template);
  describeEvents(w, eventsFor(src, job, "Job"), src.now);
}

function capIndexes(indexes: string, softLimit: number): string {
  if (!indexes) return "<none>";
  let ix = softLimit;
  while (ix < indexes.length && indexes[ix] !== ",") ix++;
  return ix >= indexes.length ? indexes : `${indexes.slice(0, ix + 1)}...`;
}

export function describeCronJob(w: PrefixWriter, cj: Obj, src: DescribeSource): void {
  const spec = cj.spec ?? {};
  w.write(0, `Name:\t${cj.metadata.name}\n`);
  w.write(0, `Namespace:\t${cj.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", cj.metadata.labels);
  annotationsMultiline(w, "Annotations", cj.metadata.annotations);
  w.write(0, `Schedule:\t${spec.schedule ?? ""}\n`);
  w.write(0, `Concurrency Policy:\t${spec.concurrencyPolicy ?? ""}\n`);
  w.write(0, `Suspend:\t${spec.suspend == null ? "<unset>" : String(spec.suspend)}\n`);
  w.write(0, `Successful Job History Limit:\t${spec.successfulJobsHistoryLimit ?? "<unset>"}\n`);
  w.write(0, `Failed Job History Limit:\t${spec.failedJobsHistoryLimit ?? "<unset>"}\n`);
  w.write(0, `Starting Deadline Seconds:\t${spec.startingDeadlineSeconds != null ? `${spec.startingDeadlineSeconds}s` : "<unset>"}\n`);
  const jt = spec.jobTemplate?.spec ?? {};
  if (jt.selector) {
    const sel = formatLabelSelector(jt.selector);
    w.write(0, `Selector:\t${sel === "<none>" ? "" : sel}\n`);
  } else w.write(0, "Selector:\t<unset>\n");
  w.write(0, `Parallelism:\t${jt.parallelism ?? "<unset>"}\n`);
  w.write(0, `Completions:\t${jt.completions ?? "<unset>"}\n`);
  if (jt.activeDeadlineSeconds != null) w.write(0, `Active Deadline Seconds:\t${jt.activeDeadlineSeconds}s\n`);
  describePodTemplate(w, jt.template);
  const last = cj.status?.lastScheduleTime;
  w.write(0, `Last Schedule Time:\t${last ? rfc1123z(last) : "<unset>"}\n`);
  const active = (cj.status?.active ?? []) as Obj[];
  w.write(0, `Active Jobs:\t${active.length ? active.map((j) => j.name).join(", ") : "<none>"}\n`);
  describeEvents(w, eventsFor(src, cj, "CronJob"), src.now);
}
