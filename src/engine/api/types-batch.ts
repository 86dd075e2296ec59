// batch/v1 Job and CronJob in their v1 JSON shapes (k8s.io/api/batch/v1, v1.33), every field of
// the Go types listed so that an unknown one is refused as strict decoding refuses it. Kept apart
// from types.ts (which they build on) so that neither file grows past reading.

import { z } from "zod";
import { LabelSelector, ObjectMeta, ObjectReference, PodTemplateSpec } from "./types.js";

const str = z.string();
const int = z.number().int();
const int32 = z.number().int().min(-2147483648).max(2147483647);
const bool = z.boolean();
const opaque = z.unknown();
const typeMeta = { kind: str.optional(), apiVersion: str.optional() };

export const JobCondition = z.strictObject({
  type: str,
  status: str,
  lastProbeTime: str.nullable().optional(),
  lastTransitionTime: str.nullable().optional(),
  reason: str.optional(),
  message: str.optional(),
});
export type JobCondition = z.infer<typeof JobCondition>;

export const JobSpec = z.strictObject({
  parallelism: int32.nullable().optional(),
  completions: int32.nullable().optional(),
  activeDeadlineSeconds: int.nullable().optional(),
  // Accepted as written; ServiceLab's Job controller does not act on these two (said in docs/engine.md).
  podFailurePolicy: opaque.optional(),
  successPolicy: opaque.optional(),
  backoffLimit: int32.nullable().optional(),
  backoffLimitPerIndex: int32.nullable().optional(),
  maxFailedIndexes: int32.nullable().optional(),
  selector: LabelSelector.nullable().optional(),
  manualSelector: bool.nullable().optional(),
  template: PodTemplateSpec,
  ttlSecondsAfterFinished: int32.nullable().optional(),
  completionMode: str.nullable().optional(),
  suspend: bool.nullable().optional(),
  podReplacementPolicy: str.nullable().optional(),
  managedBy: str.nullable().optional(),
});
export type JobSpec = z.infer<typeof JobSpec>;

export const JobStatus = z.strictObject({
  conditions: z.array(JobCondition).nullable().optional(),
  startTime: str.nullable().optional(),
  completionTime: str.nullable().optional(),
  active: int.optional(),
  succeeded: int.optional(),
  failed: int.optional(),
  terminating: int.nullable().optional(),
  completedIndexes: str.optional(),
  failedIndexes: str.nullable().optional(),
  uncountedTerminatedPods: z
    .strictObject({ succeeded: z.array(str).nullable().optional(), failed: z.array(str).nullable().optional() })
    .nullable()
    .optional(),
  ready: int.nullable().optional(),
});
export type JobStatus = z.infer<typeof JobStatus>;

export const Job = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: JobSpec,
  status: JobStatus.optional(),
});
export type Job = z.infer<typeof Job>;

export const JobTemplateSpec = z.strictObject({
  metadata: ObjectMeta.optional(),
  spec: JobSpec,
});

export const CronJob = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    schedule: str,
    timeZone: str.nullable().optional(),
    startingDeadlineSeconds: int.nullable().optional(),
    concurrencyPolicy: str.optional(),
    suspend: bool.nullable().optional(),
    jobTemplate: JobTemplateSpec,
    successfulJobsHistoryLimit: int32.nullable().optional(),
    failedJobsHistoryLimit: int32.nullable().optional(),
  }),
  status: z
    .strictObject({
      active: z.array(ObjectReference).nullable().optional(),
      lastScheduleTime: str.nullable().optional(),
      lastSuccessfulTime: str.nullable().optional(),
    })
    .optional(),
});
export type CronJob = z.infer<typeof CronJob>;
