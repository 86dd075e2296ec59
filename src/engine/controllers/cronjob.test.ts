import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { CronJob, Job } from "../api/types-batch.js";
import type { KObject } from "../api/types.js";
import { Cluster } from "../cluster.js";
import { nextAfter, parseStandard } from "../cron.js";

function cronjob(name: string, schedule: string, command: string, spec: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name },
    spec: { schedule, ...spec, jobTemplate: { spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name, image: "busybox", command: ["sh", "-c", command] }] } } } } },
  };
}

interface Ev {
  involvedObject: { kind: string; name: string };
  reason: string;
  message: string;
}
const cj = (c: Cluster, name: string) => c.api.get(R.cronjobs, "default", name) as CronJob;
const jobs = (c: Cluster) => (c.api.list(R.jobs, "default").items as Job[]).map((j) => j.metadata.name!).sort();
const events = (c: Cluster, name: string) =>
  (c.api.list(R.events, "default").items as unknown as Ev[]).filter((e) => e.involvedObject.kind === "CronJob" && e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
/** The cluster's clock at the next whole minute plus `s` seconds. */
const toMinute = (c: Cluster, s = 0) => c.advance(60_000 - (c.now() % 60_000) + s * 1000);

describe("cron schedules as robfig/cron's standard parser reads them", () => {
  it("parses fields, names, steps and descriptors, and finds the next time", () => {
    const t0 = Date.parse("2026-01-01T00:00:30Z"); // a Thursday
    const next = (spec: string, from = t0) => new Date(nextAfter(parseStandard(spec), from)!).toISOString();
    expect(next("*/15 * * * *")).toBe("2026-01-01T00:15:00.000Z");
    expect(next("@hourly")).toBe("2026-01-01T01:00:00.000Z");
    expect(next("0 9 * * mon-fri")).toBe("2026-01-01T09:00:00.000Z");
    expect(next("0 0 1 feb *")).toBe("2026-02-01T00:00:00.000Z");
    expect(next("0 0 13 * 5")).toBe("2026-01-02T00:00:00.000Z"); // the 13th or any Friday
    expect(next("30 2 * * *", t0)).toBe("2026-01-01T02:30:00.000Z");
    expect(new Date(nextAfter(parseStandard("0 9 * * *"), t0, "Asia/Shanghai")!).toISOString()).toBe("2026-01-01T01:00:00.000Z");
  });

  it("refuses with robfig/cron's words", () => {
    const err = (s: string) => {
      try {
        parseStandard(s);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(err("* * * *")).toBe("expected exactly 5 fields, found 4: [* * * *]");
    expect(err("60 * * * *")).toBe("end of range (60) above maximum (59): 60");
    expect(err("x * * * *")).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(err("@fortnightly")).toBe("unrecognized descriptor: @fortnightly");
    expect(err("5-1 * * * *")).toBe("beginning of range (5) beyond end of range (1): 5-1");
    expect(err("")).toBe("empty spec string");
  });
});

describe("the CronJob controller", () => {
  it("creates <name>-<minutes> Jobs on schedule, sees them complete, and keeps three successful ones", () => {
    const c = Cluster.create({ seed: 11 });
    c.client.create(R.cronjobs, "default", cronjob("tick", "*/1 * * * *", "date; echo tick"));
    expect(cj(c, "tick").spec).toMatchObject({ concurrencyPolicy: "Allow", suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    toMinute(c, 1);
    const first = Math.floor((c.now() - 1000) / 60_000);
    expect(jobs(c)).toEqual([`tick-${first}`]);
    const job = c.api.get(R.jobs, "default", `tick-${first}`) as Job;
    expect(job.metadata.annotations).toEqual({ "batch.kubernetes.io/cronjob-scheduled-timestamp": new Date(first * 60_000).toISOString().replace(".000Z", "Z") });
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", name: "tick", controller: true, blockOwnerDeletion: true });
    expect(cj(c, "tick").status?.active?.map((r) => r.name)).toEqual([`tick-${first}`]);
    for (let i = 0; i < 4; i++) toMinute(c, 30);
    c.runUntilIdle(20_000);
    expect(jobs(c)).toEqual([1, 2, 3].map((k) => `tick-${first + k}`).concat(`tick-${first + 4}`).slice(-3));
    const s = cj(c, "tick").status!;
    expect(s.lastScheduleTime).toBe(new Date((first + 4) * 60_000).toISOString().replace(".000Z", "Z"));
    expect(s.lastSuccessfulTime).toBeDefined();
    const evs = events(c, "tick");
    expect(evs).toContain(`SuccessfulCreate: Created job tick-${first}`);
    expect(evs).toContain(`SawCompletedJob: Saw completed job: tick-${first}, condition: Complete`);
    expect(evs).toContain(`SuccessfulDelete: Deleted job tick-${first}`);
  });

  it("Forbid skips a run while one is active; Replace deletes it for the new one", () => {
    const c = Cluster.create({ seed: 12 });
    c.client.create(R.cronjobs, "default", cronjob("slow", "* * * * *", "sleep 600", { concurrencyPolicy: "Forbid" }));
    toMinute(c, 1);
    toMinute(c, 1);
    expect(jobs(c)).toHaveLength(1);
    expect(events(c, "slow")).toContain("JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid");
    const old = cj(c, "slow");
    c.client.update(R.cronjobs, "default", "slow", { ...old, spec: { ...old.spec, concurrencyPolicy: "Replace" } });
    toMinute(c, 1);
    expect(jobs(c)).toHaveLength(1);
    expect(events(c, "slow").some((e) => e.startsWith("SuccessfulDelete: Deleted job slow-"))).toBe(true);
    expect(cj(c, "slow").status?.active).toHaveLength(1);
  });

  it("a suspended CronJob starts nothing", () => {
    const c = Cluster.create({ seed: 13 });
    c.client.create(R.cronjobs, "default", cronjob("off", "* * * * *", "true", { suspend: true }));
    toMinute(c, 5);
    toMinute(c, 5);
    expect(jobs(c)).toEqual([]);
  });

  it("refuses a bad schedule, an unknown time zone and a long name as the apiserver does", () => {
    const c = Cluster.create({ seed: 14 });
    expect(() => c.client.create(R.cronjobs, "default", cronjob("bad", "61 * * * *", "true"))).toThrow('CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
    expect(() => c.client.create(R.cronjobs, "default", cronjob("tz", "* * * * *", "true", { timeZone: "Mars/Olympus" }))).toThrow('CronJob.batch "tz" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
    expect(() => c.client.create(R.cronjobs, "default", cronjob("tz", "TZ=UTC * * * * *", "true"))).toThrow("cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
    expect(() => c.client.create(R.cronjobs, "default", cronjob("x".repeat(53), "* * * * *", "true"))).toThrow("must be no more than 52 characters");
  });
});
