import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Job } from "../api/types-batch.js";
import type { KObject, Pod } from "../api/types.js";
import { Cluster } from "../cluster.js";
import { JOB_TRACKING_FINALIZER } from "./job.js";

function job(name: string, command: string, spec: Record<string, unknown> = {}, restartPolicy = "Never"): KObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: { ...spec, template: { spec: { restartPolicy, containers: [{ name, image: "busybox", command: ["sh", "-c", command] }] } } },
  };
}

const get = (c: Cluster, name: string) => c.api.get(R.jobs, "default", name) as Job;
const podsOf = (c: Cluster, name: string) => (c.api.list(R.pods, "default", { labelSelector: `job-name=${name}` }).items as Pod[]);
interface Ev {
  involvedObject: { kind: string; name: string };
  reason: string;
  message: string;
}
const events = (c: Cluster, name: string) =>
  (c.api.list(R.events, "default").items as unknown as Ev[]).filter((e) => e.involvedObject.kind === "Job" && e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
const conds = (j: Job) => (j.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}`);

describe("the Job controller", () => {
  it("runs completions with parallelism, counting through uncountedTerminatedPods and the tracking finalizer", () => {
    const c = Cluster.create({ seed: 1 });
    c.client.create(R.jobs, "default", job("work", "echo working; sleep 5", { completions: 5, parallelism: 2 }));
    const j0 = get(c, "work");
    expect(j0.spec.selector).toEqual({ matchLabels: { "batch.kubernetes.io/controller-uid": j0.metadata.uid } });
    expect(j0.metadata.labels).toEqual(j0.spec.template.metadata!.labels);
    expect(Object.keys(j0.spec.template.metadata!.labels!)).toEqual(["batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name"]);
    let pods = podsOf(c, "work");
    expect(pods).toHaveLength(2);
    expect(pods[0].metadata.name).toMatch(/^work-[a-z0-9]{5}$/);
    expect(pods[0].metadata.finalizers).toEqual([JOB_TRACKING_FINALIZER]);
    expect(get(c, "work").status).toMatchObject({ active: 2, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    c.runUntilIdle(120_000);
    const j = get(c, "work");
    expect(conds(j)).toEqual(["SuccessCriteriaMet=True CompletionsReached", "Complete=True CompletionsReached"]);
    expect(j.status).toMatchObject({ succeeded: 5, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(j.status?.active).toBeUndefined();
    expect(j.status?.completionTime).toBeDefined();
    pods = podsOf(c, "work");
    expect(pods).toHaveLength(5);
    expect(pods.every((p) => p.status?.phase === "Succeeded" && !p.metadata.finalizers)).toBe(true);
    expect(events(c, "work").filter((e) => e.startsWith("SuccessfulCreate"))).toHaveLength(5);
    expect(events(c, "work").at(-1)).toBe("Completed: Job completed");
    // Each pod ran for its 5 s sleep: the Job took three rounds (2 + 2 + 1).
    const took = Date.parse(j.status!.completionTime!) - Date.parse(j.status!.startTime!);
    expect(took).toBeGreaterThanOrEqual(15_000);
    expect(took).toBeLessThan(30_000);
  });

  it("replaces failed pods after a back-off of 10 s doubling, until BackoffLimitExceeded", () => {
    const c = Cluster.create({ seed: 2 });
    c.client.create(R.jobs, "default", job("fail", "echo oops; exit 1", { backoffLimit: 2 }));
    const created: number[] = [];
    for (let t = 0; t < 120 && !conds(get(c, "fail")).includes("Failed=True BackoffLimitExceeded"); t++) {
      for (const p of podsOf(c, "fail")) {
        const at = Date.parse(p.metadata.creationTimestamp!);
        if (!created.includes(at)) created.push(at);
      }
      c.advance(1000);
    }
    const j = get(c, "fail");
    expect(conds(j)).toEqual(["FailureTarget=True BackoffLimitExceeded", "Failed=True BackoffLimitExceeded"]);
    expect(j.status).toMatchObject({ failed: 3, ready: 0, terminating: 0 });
    expect(created).toHaveLength(3);
    // The gaps between pods are the back-off after each failure (10 s, then 20 s) plus the run.
    expect(created[1] - created[0]).toBeGreaterThanOrEqual(10_000);
    expect(created[2] - created[1]).toBeGreaterThanOrEqual(20_000);
    expect(events(c, "fail").at(-1)).toBe("BackoffLimitExceeded: Job has reached the specified backoff limit");
    expect(podsOf(c, "fail").every((p) => p.status?.phase === "Failed")).toBe(true);
  });

  it("fails a Job past activeDeadlineSeconds and deletes its running pod", () => {
    const c = Cluster.create({ seed: 3 });
    c.client.create(R.jobs, "default", job("slow", "sleep 3600", { activeDeadlineSeconds: 10 }));
    c.advance(9_000);
    expect(get(c, "slow").status?.active).toBe(1);
    c.advance(2_000);
    expect(conds(get(c, "slow"))).toEqual(["FailureTarget=True DeadlineExceeded"]);
    expect(events(c, "slow")).toContain(`SuccessfulDelete: Deleted pod: ${podsOf(c, "slow")[0].metadata.name}`);
    c.runUntilIdle(60_000);
    const j = get(c, "slow");
    expect(conds(j)).toEqual(["FailureTarget=True DeadlineExceeded", "Failed=True DeadlineExceeded"]);
    expect(j.status).toMatchObject({ failed: 1, terminating: 0 });
    expect(events(c, "slow").at(-1)).toBe("DeadlineExceeded: Job was active longer than specified deadline");
  });

  it("deletes a finished Job with its pods ttlSecondsAfterFinished later", () => {
    const c = Cluster.create({ seed: 4 });
    c.client.create(R.jobs, "default", job("short", "echo done", { ttlSecondsAfterFinished: 30 }));
    c.advance(5_000);
    expect(conds(get(c, "short"))).toContain("Complete=True CompletionsReached");
    c.advance(20_000);
    expect(get(c, "short")).toBeDefined();
    c.advance(10_000);
    c.runUntilIdle(5_000);
    expect(() => get(c, "short")).toThrow(/not found/);
    expect(podsOf(c, "short")).toHaveLength(0);
  });

  it("releases a deleted Job's pods: the garbage collector removes them once their finalizer is gone", () => {
    const c = Cluster.create({ seed: 5 });
    c.client.create(R.jobs, "default", job("gone", "sleep 3600"));
    c.advance(5_000);
    expect(podsOf(c, "gone")).toHaveLength(1);
    c.client.delete(R.jobs, "default", "gone", { propagationPolicy: "Background" });
    c.runUntilIdle(60_000);
    expect(podsOf(c, "gone")).toHaveLength(0);
  });

  it("refuses what the apiserver refuses", () => {
    const c = Cluster.create({ seed: 6 });
    expect(() => c.client.create(R.jobs, "default", job("always", "true", {}, "Always"))).toThrow(
      'Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    expect(() => c.client.create(R.jobs, "default", job("bad", "true", {}, "Sometimes"))).toThrow(
      'Job.batch "bad" is invalid: [spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"]',
    );
    c.client.create(R.jobs, "default", job("imm", "sleep 60"));
    const j = get(c, "imm");
    const changed = structuredClone(j) as Job;
    changed.spec.template.spec.containers[0].image = "busybox:1.36";
    expect(() => c.client.update(R.jobs, "default", "imm", changed)).toThrow('Job.batch "imm" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable');
  });
});
