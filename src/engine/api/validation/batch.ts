// batch/v1 validation: pkg/apis/batch/validation/validation.go (v1.33) for Jobs and CronJobs
// (schedules parsed as robfig/cron's standard parser, engine/cron.ts). Not checked:
// podFailurePolicy's and successPolicy's rules (kept as written, see types-batch.ts).

import { field, type FieldError, GoValue } from "../status";
import { labelSelectorAsSelector } from "../labels";
import { goMap } from "./gofmt";
import { FIELD_IMMUTABLE, nonNegative, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { validatePodTemplateSpec } from "./core";
import { isDNS1123Label, nameIsDNSSubdomain } from "./names";
import { knownTimeZone, parseStandard } from "../../cron";

/* eslint-disable @typescript-eslint/no-explicit-any */

const CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
const JOB_NAME = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID = "controller-uid";
const LEGACY_JOB_NAME = "job-name";
const MAX_PARALLELISM_INDEXED = 100_000;

const has = (v: unknown) => v !== undefined && v !== null;
/** Canonical JSON (keys sorted): equal values compare equal whatever order they were decoded in. */
const json = (v: unknown): string =>
  JSON.stringify(v ?? null, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));

/** apivalidation.ValidateHasLabel */
function hasLabel(meta: any, path: string, key: string, value: string): FieldError[] {
  const actual = meta?.labels?.[key];
  if (actual === undefined) return [field.required(`${path}.labels`, `must be '${value}'`)];
  if (actual !== value) return [field.invalid(`${path}.labels`, meta.labels, `must be '${value}'`)];
  return [];
}

/** validateGeneratedSelector (RequirePrefixedLabels: the job's own labels carry both spellings). */
function validateGeneratedSelector(job: any): FieldError[] {
  const spec = job?.spec ?? {};
  if (spec.manualSelector === true || !has(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = job?.metadata?.uid ?? "";
  const name = job?.metadata?.name ?? "";
  if (!uid) errs.push(field.required("metadata.uid"));
  const t = spec.template?.metadata;
  errs.push(...hasLabel(t, "spec.template.metadata", LEGACY_CONTROLLER_UID, uid));
  errs.push(...hasLabel(t, "spec.template.metadata", LEGACY_JOB_NAME, name));
  errs.push(...hasLabel(t, "spec.template.metadata", CONTROLLER_UID, uid));
  errs.push(...hasLabel(t, "spec.template.metadata", JOB_NAME, name));
  try {
    const sel = labelSelectorAsSelector(spec.selector);
    if (!sel.matches({ [CONTROLLER_UID]: uid, [JOB_NAME]: name, [LEGACY_CONTROLLER_UID]: uid, [LEGACY_JOB_NAME]: name })) {
      errs.push(field.invalid("spec.selector", new GoValue("&v1.LabelSelector{...}"), "`selector` not auto-generated"));
    }
  } catch {
    // An unparsable selector is reported by the spec's checks.
  }
  return errs;
}

/** ValidateJobSpec: validateJobSpec, then (withSelector) the selector and its match with the template. */
export function validateJobSpec(spec: any, path: string, withSelector = true): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.parallelism, `${path}.parallelism`));
  errs.push(...nonNegative(spec.completions, `${path}.completions`));
  errs.push(...nonNegative(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`));
  errs.push(...nonNegative(spec.backoffLimit, `${path}.backoffLimit`));
  errs.push(...nonNegative(spec.ttlSecondsAfterFinished, `${path}.ttlSecondsAfterFinished`));
  errs.push(...nonNegative(spec.backoffLimitPerIndex, `${path}.backoffLimitPerIndex`));
  if (has(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec.maxFailedIndexes, `${path}.maxFailedIndexes`));
    if (!has(spec.backoffLimitPerIndex)) errs.push(field.required(`${path}.backoffLimitPerIndex`, "when maxFailedIndexes is specified"));
  }
  const mode = spec.completionMode;
  if (has(mode)) {
    if (mode !== "NonIndexed" && mode !== "Indexed") errs.push(field.notSupported(`${path}.completionMode`, mode, ["NonIndexed", "Indexed"]));
    if (mode === "Indexed") {
      if (!has(spec.completions)) errs.push(field.required(`${path}.completions`, "when completion mode is Indexed"));
      if (has(spec.parallelism) && spec.parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(field.invalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
      }
    }
  }
  if (!has(mode) || mode === "NonIndexed") {
    if (has(spec.backoffLimitPerIndex)) errs.push(field.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, "requires indexed completion mode"));
    if (has(spec.maxFailedIndexes)) errs.push(field.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, "requires indexed completion mode"));
  }
  if (has(spec.successPolicy) && mode !== "Indexed") errs.push(field.invalid(`${path}.successPolicy`, new GoValue("batch.SuccessPolicy{...}"), "requires indexed completion mode"));
  const rpp = spec.podReplacementPolicy;
  if (has(rpp)) {
    if (has(spec.podFailurePolicy)) {
      if (rpp !== "Failed") errs.push(field.notSupported(`${path}.podReplacementPolicy`, rpp, ["Failed"]));
    } else if (rpp !== "Failed" && rpp !== "TerminatingOrFailed") {
      errs.push(field.notSupported(`${path}.podReplacementPolicy`, rpp, ["Failed", "TerminatingOrFailed"]));
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
  const rp = spec.template?.spec?.restartPolicy ?? "";
  const rpPath = `${path}.template.spec.restartPolicy`;
  if (rp === "Always" || rp === "") errs.push(field.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== "OnFailure" && rp !== "Never") errs.push(field.notSupported(rpPath, rp, ["OnFailure", "Never"]));
  else if (has(spec.podFailurePolicy) && rp !== "Never") errs.push(field.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));

  if (!withSelector) return errs;
  if (!has(spec.selector)) errs.push(field.required(`${path}.selector`));
  else errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  try {
    const sel = labelSelectorAsSelector(spec.selector);
    const labels = spec.template?.metadata?.labels;
    if (!sel.matches(labels ?? {})) errs.push(field.invalid(`${path}.template.metadata.labels`, goMap(labels ?? null), "`selector` does not match template `labels`"));
  } catch {
    // LabelSelectorAsSelector failed: reported by validateLabelSelector.
  }
  return errs;
}

export function validateJob(job: any): FieldError[] {
  const errs = validateObjectMeta(job?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validateGeneratedSelector(job));
  const spec = job?.spec ?? {};
  errs.push(...validateJobSpec(spec, "spec"));
  if (spec.completionMode === "Indexed" && has(spec.completions) && spec.completions > 0) {
    const host = `${job?.metadata?.name ?? ""}-${spec.completions - 1}`;
    if (isDNS1123Label(host).length) errs.push(field.invalid("metadata.name", job.metadata.name, `will not able to create pod with invalid DNS label: ${host}`));
  }
  return errs;
}

/**
 * ValidateJobUpdate: the spec again, then what may not change. The pod template is immutable
 * (scheduling directives may change only while the Job is suspended and never started, which
 * is not modelled); its Go dump is abbreviated.
 */
export function validateJobUpdate(job: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(job?.metadata, old?.metadata);
  const spec = job?.spec ?? {};
  const was = old?.spec ?? {};
  errs.push(...validateJobSpec(spec, "spec"));
  // validateCompletions: NonIndexed completions are immutable (ElasticIndexedJob lets Indexed move with parallelism).
  if (json(spec.completions) !== json(was.completions)) {
    if (spec.completionMode !== "Indexed") errs.push(field.invalid("spec.completions", spec.completions ?? null, FIELD_IMMUTABLE));
    else if (spec.completions !== spec.parallelism) errs.push(field.invalid("spec.completions", spec.completions ?? null, `must be equal to parallelism`));
  }
  if (json(spec.selector) !== json(was.selector)) errs.push(field.invalid("spec.selector", new GoValue("&v1.LabelSelector{...}"), FIELD_IMMUTABLE));
  if (json(spec.template) !== json(was.template)) errs.push(field.invalid("spec.template", new GoValue("core.PodTemplateSpec{...}"), FIELD_IMMUTABLE));
  const imm = (k: string, goType: string) => {
    if (json(spec[k]) !== json(was[k])) errs.push(field.invalid(`spec.${k}`, typeof spec[k] === "object" && spec[k] !== null ? new GoValue(`${goType}{...}`) : (spec[k] ?? null), FIELD_IMMUTABLE));
  };
  imm("completionMode", "");
  imm("podFailurePolicy", "&batch.PodFailurePolicy");
  imm("backoffLimitPerIndex", "");
  imm("managedBy", "");
  imm("successPolicy", "&batch.SuccessPolicy");
  return errs;
}

// ---------------------------------------------------------------------------------------------
// CronJob

const TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(tz: unknown, path: string): FieldError[] {
  if (tz === undefined || tz === null) return [];
  const z = String(tz);
  if (!z) return [field.invalid(path, "", "timeZone must be nil or non-empty string")];
  for (const part of z.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !TZ_PART.test(part)) return [field.invalid(path, z, `unknown time zone ${z}`)];
  }
  if (z.toLowerCase() === "local") return [field.invalid(path, z, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")];
  if (!knownTimeZone(z)) return [field.invalid(path, z, `unknown time zone ${z}`)];
  return [];
}

function validateCronJobSpec(spec: any, old: any | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = spec.schedule ?? "";
  if (!schedule) errs.push(field.required("spec.schedule"));
  else {
    try {
      parseStandard(schedule);
    } catch (e) {
      errs.push(field.invalid("spec.schedule", schedule, (e as Error).message));
    }
    const allowTZ = !!old && String(old.schedule ?? "").includes("TZ");
    if (allowTZ && schedule.includes("TZ") && has(spec.timeZone)) errs.push(field.invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
    else if (!allowTZ && schedule.includes("TZ")) errs.push(field.invalid("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
  }
  errs.push(...nonNegative(spec.startingDeadlineSeconds, "spec.startingDeadlineSeconds"));
  if (!old || json(old.timeZone) !== json(spec.timeZone)) errs.push(...validateTimeZone(spec.timeZone, "spec.timeZone"));
  const cp = spec.concurrencyPolicy ?? "";
  if (cp === "") errs.push(field.required("spec.concurrencyPolicy"));
  else if (!["Allow", "Forbid", "Replace"].includes(cp)) errs.push(field.notSupported("spec.concurrencyPolicy", cp, ["Allow", "Forbid", "Replace"]));
  // ValidateJobTemplateSpec: the Job's own checks without a selector, which is generated.
  const jt = spec.jobTemplate?.spec ?? {};
  errs.push(...validateJobSpec(jt, "spec.jobTemplate.spec", false));
  if (has(jt.selector)) errs.push(field.invalid("spec.jobTemplate.spec.selector", new GoValue("&v1.LabelSelector{...}"), "`selector` will be auto-generated"));
  if (jt.manualSelector === true) errs.push(field.notSupported("spec.jobTemplate.spec.manualSelector", true, ["nil", "false"]));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, "spec.successfulJobsHistoryLimit"));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, "spec.failedJobsHistoryLimit"));
  return errs;
}

export function validateCronJob(cj: any): FieldError[] {
  const errs = validateObjectMeta(cj?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validateCronJobSpec(cj?.spec ?? {}, undefined));
  const name = String(cj?.metadata?.name ?? "");
  // The controller appends an 11-character `-<minutes>` to make a Job's name (63 at most).
  if (name.length > 52) errs.push(field.invalid("metadata.name", name, "must be no more than 52 characters"));
  return errs;
}

export function validateCronJobUpdate(cj: any, old: any): FieldError[] {
  return [...validateObjectMetaUpdate(cj?.metadata, old?.metadata), ...validateCronJobSpec(cj?.spec ?? {}, old?.spec ?? {})];
}
