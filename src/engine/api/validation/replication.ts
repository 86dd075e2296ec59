// core/v1 ReplicationController validation: pkg/apis/core/validation (v1.33)
// ValidateReplicationController and ValidatePodTemplateSpecForRC. Unlike apps/v1 selectors, an
// RC's selector (a label map) may change on update.

import { field, type FieldError } from "../status";
import { goMap } from "./gofmt";
import { validatePodTemplateSpec } from "./core";
import { nonNegative, validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { nameIsDNSSubdomain } from "./names";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** labels.Set(selector).AsSelector().Matches(labels): every pair present. */
function matchesSet(selector: Record<string, string>, labels: Record<string, string> | null | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

function validatePodTemplateSpecForRC(template: any, selector: Record<string, string>): FieldError[] {
  const path = "spec.template";
  if (template === undefined || template === null) return [field.required(path)];
  const errs: FieldError[] = [];
  if (Object.keys(selector).length && !matchesSet(selector, template.metadata?.labels)) {
    errs.push(field.invalid(`${path}.metadata.labels`, goMap(template.metadata?.labels ?? null), "`selector` does not match template `labels`"));
  }
  errs.push(...validatePodTemplateSpec(template, path));
  const rp = template.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(field.notSupported(`${path}.spec.restartPolicy`, rp, ["Always"]));
  if (template.spec?.activeDeadlineSeconds !== undefined && template.spec?.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden(`${path}.spec.activeDeadlineSeconds`, "activeDeadlineSeconds in ReplicationController is not Supported"));
  }
  return errs;
}

function validateReplicationControllerSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  const selector: Record<string, string> = spec.selector ?? {};
  // ValidateNonEmptySelector
  if (!Object.keys(selector).length) errs.push(field.required("spec.selector"));
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...validatePodTemplateSpecForRC(spec.template, selector));
  return errs;
}

export function validateReplicationController(rc: any): FieldError[] {
  const errs = validateObjectMeta(rc?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validateReplicationControllerSpec(rc?.spec ?? {}));
  return errs;
}

export function validateReplicationControllerUpdate(rc: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(rc?.metadata, old?.metadata);
  errs.push(...validateReplicationControllerSpec(rc?.spec ?? {}));
  return errs;
}
