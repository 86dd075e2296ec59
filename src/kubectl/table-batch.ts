// Table rows of batch/v1 Jobs and CronJobs, as kubectl 1.33's printers.go prints them (printJob,
// printCronJob): kept apart from table.ts, which spreads them into its table of kinds.

import { humanDuration, since } from "./duration.js";
import { formatLabelSelector } from "./table.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

const col = (name: string, priority: 0 | 1 = 0) => ({ name, priority });

const holds = (o: Obj, type: string) => (o.status?.conditions ?? []).some((c: Obj) => c.type === type && c.status === "True");

/** printJob's STATUS: terminal conditions first, then a deletion, then the interim ones. */
function jobStatus(j: Obj): string {
  if (holds(j, "Complete")) return "Complete";
  if (holds(j, "Failed")) return "Failed";
  if (j.metadata.deletionTimestamp) return "Terminating";
  if (holds(j, "Suspended")) return "Suspended";
  if (holds(j, "FailureTarget")) return "FailureTarget";
  if (holds(j, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

function completions(j: Obj): string {
  const succeeded = j.status?.succeeded ?? 0;
  if (j.spec?.completions != null) return `${succeeded}/${j.spec.completions}`;
  const parallelism = j.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(j: Obj, now: number): string {
  const start = j.status?.startTime;
  if (!start) return "";
  const end = j.status?.completionTime ? Date.parse(j.status.completionTime) : now;
  return humanDuration(end - Date.parse(start));
}

function containersAndImages(spec: Obj): [string, string] {
  const cs = spec?.containers ?? [];
  return [cs.map((x: Obj) => x.name).join(","), cs.map((x: Obj) => x.image).join(",")];
}

export const BATCH_TABLES = {
  Job: {
    columns: [col("NAME"), col("STATUS"), col("COMPLETIONS"), col("DURATION"), col("AGE"), col("CONTAINERS", 1), col("IMAGES", 1), col("SELECTOR", 1)],
    row: (j: Obj, now: number) => [j.metadata.name, jobStatus(j), completions(j), jobDuration(j, now), since(j.metadata.creationTimestamp, now), ...containersAndImages(j.spec?.template?.spec), formatLabelSelector(j.spec?.selector)],
  },
  CronJob: {
    columns: [col("NAME"), col("SCHEDULE"), col("TIMEZONE"), col("SUSPEND"), col("ACTIVE"), col("LAST SCHEDULE"), col("AGE"), col("CONTAINERS", 1), col("IMAGES", 1), col("SELECTOR", 1)],
    row: (cj: Obj, now: number) => [
      cj.metadata.name,
      cj.spec?.schedule ?? "",
      cj.spec?.timeZone ?? "<none>",
      cj.spec?.suspend == null ? "<unset>" : String(cj.spec.suspend),
      String((cj.status?.active ?? []).length),
      cj.status?.lastScheduleTime ? since(cj.status.lastScheduleTime, now) : "<none>",
      since(cj.metadata.creationTimestamp, now),
      ...containersAndImages(cj.spec?.jobTemplate?.spec?.template?.spec),
      formatLabelSelector(cj.spec?.jobTemplate?.spec?.selector),
    ],
  },
};
