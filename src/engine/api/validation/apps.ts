// apps/v1 validation: pkg/apis/apps/validation/validation.go (v1.33) plus the registries'
// ValidateUpdate rule that apps/v1 selectors are immutable.

import { field, type FieldError, GoValue } from "../status";
import { labelSelectorAsSelector } from "../labels";
import { goIntOrString, goLabelSelector, goMap, goPtr, goQ } from "./gofmt";
import { FIELD_IMMUTABLE, nonNegative, validateLabelSelector, validateLabels, validateAnnotations, validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { validatePodTemplateSpec } from "./core";
import { isValidPercent, nameIsDNSLabel, nameIsDNSSubdomain } from "./names";

/* eslint-disable @typescript-eslint/no-explicit-any */

function selectorOf(spec: any): { errs: FieldError[]; matches?: (l: any) => boolean } {
  try {
    const sel = labelSelectorAsSelector(spec?.selector);
    return { errs: [], matches: (l) => sel.matches(l) };
  } catch {
    return { errs: [] };
  }
}

function validateSelectorAndTemplate(spec: any, owner: "deployment" | "statefulset"): FieldError[] {
  const errs: FieldError[] = [];
  if (spec?.selector === undefined || spec?.selector === null) errs.push(field.required("spec.selector"));
  else {
    errs.push(...validateLabelSelector(spec.selector, "spec.selector"));
    const n = Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length;
    if (n === 0) errs.push(field.invalid("spec.selector", goLabelSelector(spec.selector), `empty selector is invalid for ${owner}`));
  }
  return errs;
}

function templateMatchesSelector(spec: any, invalidDetail: string): FieldError[] {
  const { matches } = selectorOf(spec);
  if (!matches) return [field.invalid("spec.selector", goLabelSelector(spec?.selector), invalidDetail)];
  const sel = spec?.selector;
  const empty = !sel || Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0;
  const labels = spec?.template?.metadata?.labels;
  if (!empty && !matches(labels ?? {})) {
    return [field.invalid("spec.template.metadata.labels", goMap(labels ?? null), "`selector` does not match template `labels`")];
  }
  return [];
}

function podTemplateForReplicaSet(spec: any, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec?.template) return [field.required("spec.template")];
  errs.push(...templateMatchesSelector(spec, "invalid label selector"));
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  const rp = spec.template?.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(field.notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined && spec.template?.spec?.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden("spec.template.spec.activeDeadlineSeconds", `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

const pctValue = (v: unknown): number | null => (typeof v === "string" && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : null);
/** getIntOrPercentValue: a non-percent string's IntValue() is its Atoi, or 0. */
const intOrPercent = (v: unknown): number => {
  const p = pctValue(v);
  if (p !== null) return p;
  if (typeof v === "number") return v;
  const n = Number.parseInt(String(v ?? ""), 10);
  return Number.isNaN(n) || !/^[+-]?[0-9]+$/.test(String(v)) ? 0 : n;
};

function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === "string") return isValidPercent(v).map((m) => field.invalid(path, goIntOrString(v), m));
  if (typeof v === "number") return nonNegative(v, path);
  return [];
}

function notMoreThan100(v: unknown, path: string): FieldError[] {
  const p = pctValue(v);
  return p !== null && p > 100 ? [field.invalid(path, goIntOrString(v), "must not be greater than 100%")] : [];
}

function validateDeploymentStrategy(s: any): FieldError[] {
  const path = "spec.strategy";
  const type = s?.type ?? "";
  if (type === "Recreate") {
    return s.rollingUpdate ? [field.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (type === "RollingUpdate") {
    const ru = s.rollingUpdate;
    if (!ru) return [field.required(`${path}.rollingUpdate`, "this should be defaulted and never be nil")];
    const errs: FieldError[] = [];
    errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
    errs.push(...validatePositiveIntOrPercent(ru.maxSurge, `${path}.rollingUpdate.maxSurge`));
    if (intOrPercent(ru.maxUnavailable) === 0 && intOrPercent(ru.maxSurge) === 0) {
      errs.push(field.invalid(`${path}.rollingUpdate.maxUnavailable`, goIntOrString(ru.maxUnavailable ?? 0), "may not be 0 when `maxSurge` is 0"));
    }
    errs.push(...notMoreThan100(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
    return errs;
  }
  return [
    field.notSupported(
      path,
      new GoValue(`apps.DeploymentStrategy{Type:${goQ(type)}, RollingUpdate:${goPtr("apps.RollingUpdateDeployment", s?.rollingUpdate)}}`),
      ["Recreate", "RollingUpdate"],
    ),
  ];
}

export function validateDeployment(d: any): FieldError[] {
  const errs = validateObjectMeta(d?.metadata, true, nameIsDNSSubdomain);
  const spec = d?.spec ?? {};
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...validateSelectorAndTemplate(spec, "deployment"));
  errs.push(...podTemplateForReplicaSet(spec, "ReplicaSet"));
  errs.push(...validateDeploymentStrategy(spec.strategy));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  if (spec.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  if (spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds !== null) {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds"));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(field.invalid("spec.progressDeadlineSeconds", spec.progressDeadlineSeconds, "must be greater than minReadySeconds"));
    }
  }
  return errs;
}

export function validateReplicaSet(rs: any): FieldError[] {
  const errs = validateObjectMeta(rs?.metadata, true, nameIsDNSSubdomain);
  const spec = rs?.spec ?? {};
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  // "for deployment" is upstream's wording for ReplicaSets too.
  errs.push(...validateSelectorAndTemplate(spec, "deployment"));
  errs.push(...podTemplateForReplicaSet(spec, "ReplicaSet"));
  return errs;
}

function validateDaemonSetUpdateStrategy(s: any): FieldError[] {
  const path = "spec.updateStrategy";
  const type = s?.type ?? "";
  if (type === "OnDelete") return [];
  if (type === "RollingUpdate") {
    const ru = s.rollingUpdate;
    if (!ru) return [field.required(`${path}.rollingUpdate`)];
    const p = `${path}.rollingUpdate`;
    const errs: FieldError[] = [];
    errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`));
    errs.push(...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
    errs.push(...notMoreThan100(ru.maxUnavailable, `${p}.maxUnavailable`));
    errs.push(...notMoreThan100(ru.maxSurge, `${p}.maxSurge`));
    const hasU = intOrPercent(ru.maxUnavailable) !== 0;
    const hasS = intOrPercent(ru.maxSurge) !== 0;
    if (hasU && hasS) errs.push(field.invalid(`${p}.maxSurge`, goIntOrString(ru.maxSurge), "may not be set when maxUnavailable is non-zero"));
    if (!hasU && !hasS) errs.push(field.required(`${p}.maxUnavailable`, "cannot be 0 when maxSurge is 0"));
    return errs;
  }
  return [
    field.notSupported(
      path,
      new GoValue(`apps.DaemonSetUpdateStrategy{Type:${goQ(type)}, RollingUpdate:${goPtr("apps.RollingUpdateDaemonSet", s?.rollingUpdate)}}`),
      ["RollingUpdate", "OnDelete"],
    ),
  ];
}

export function validateDaemonSet(ds: any): FieldError[] {
  const errs = validateObjectMeta(ds?.metadata, true, nameIsDNSSubdomain);
  const spec = ds?.spec ?? {};
  errs.push(...validateLabelSelector(spec.selector, "spec.selector"));
  const { matches } = selectorOf(spec);
  if (matches && !matches(spec.template?.metadata?.labels ?? {})) {
    errs.push(field.invalid("spec.template.metadata.labels", goMap(spec.template?.metadata?.labels ?? null), "`selector` does not match template `labels`"));
  }
  if (spec.selector && Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
    errs.push(field.invalid("spec.selector", goLabelSelector(spec.selector), "empty selector is invalid for daemonset"));
  }
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  const rp = spec.template?.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(field.notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined && spec.template?.spec?.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in DaemonSet is not Supported"));
  }
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  errs.push(...validateDaemonSetUpdateStrategy(spec.updateStrategy));
  if (spec.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  return errs;
}

export function validateStatefulSet(ss: any): FieldError[] {
  const errs = validateObjectMeta(ss?.metadata, true, nameIsDNSLabel);
  errs.push(...validateStatefulSetSpec(ss?.spec ?? {}));
  return errs;
}

function validateStatefulSetSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  const pmp = spec.podManagementPolicy ?? "";
  if (pmp === "") errs.push(field.required("spec.podManagementPolicy"));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") errs.push(field.invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"));
  const us = spec.updateStrategy ?? {};
  const ut = us.type ?? "";
  if (ut === "") errs.push(field.required("spec.updateStrategy"));
  else if (ut === "OnDelete") {
    if (us.rollingUpdate) {
      errs.push(
        field.invalid(
          "spec.updateStrategy.rollingUpdate",
          new GoValue(`&apps.RollingUpdateStatefulSetStrategy{Partition:${us.rollingUpdate.partition ?? 0}, MaxUnavailable:${goPtr("intstr.IntOrString", us.rollingUpdate.maxUnavailable)}}`),
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
    }
  } else if (ut === "RollingUpdate") {
    if (us.rollingUpdate) {
      errs.push(...nonNegative(us.rollingUpdate.partition, "spec.updateStrategy.rollingUpdate.partition"));
      const mu = us.rollingUpdate.maxUnavailable;
      if (mu !== undefined && mu !== null) {
        const p = "spec.updateStrategy.rollingUpdate.maxUnavailable";
        errs.push(...validatePositiveIntOrPercent(mu, p));
        if (intOrPercent(mu) === 0) errs.push(field.invalid(p, goIntOrString(mu), "cannot be 0"));
        errs.push(...notMoreThan100(mu, p));
      }
    }
  } else {
    errs.push(
      field.invalid(
        "spec.updateStrategy",
        new GoValue(`apps.StatefulSetUpdateStrategy{Type:${goQ(ut)}, RollingUpdate:${goPtr("apps.RollingUpdateStatefulSetStrategy", us.rollingUpdate)}}`),
        "must be 'RollingUpdate' or 'OnDelete'",
      ),
    );
  }
  const pvc = spec.persistentVolumeClaimRetentionPolicy;
  if (pvc) {
    for (const k of ["whenDeleted", "whenScaled"]) {
      const v = pvc[k] ?? "";
      if (v !== "Retain" && v !== "Delete") errs.push(field.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, v, ["Retain", "Delete"]));
    }
  }
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  if (spec.ordinals) errs.push(...nonNegative(spec.ordinals.start, "spec.ordinals.start"));
  errs.push(...validateSelectorAndTemplate(spec, "statefulset"));
  const { matches } = selectorOf(spec);
  if (!matches) errs.push(field.invalid("spec.selector", goLabelSelector(spec.selector), ""));
  else if (spec.template) {
    const sel = spec.selector;
    const empty = !sel || Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0;
    const labels = spec.template.metadata?.labels;
    if (!empty && !matches(labels ?? {})) {
      errs.push(field.invalid("spec.template.metadata.labels", goMap(labels ?? null), "`selector` does not match template `labels`"));
    }
    errs.push(...validateLabels(labels, "spec.template.labels"));
    errs.push(...validateAnnotations(spec.template.metadata?.annotations, "spec.template.annotations"));
  } else errs.push(field.required("spec.template"));
  const rp = spec.template?.spec?.restartPolicy ?? "";
  if (rp !== "Always") errs.push(field.notSupported("spec.template.spec.restartPolicy", rp, ["Always"]));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined && spec.template?.spec?.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  return errs;
}

const json = (v: unknown) => JSON.stringify(sortKeys(v ?? null));
function sortKeys(v: any): any {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

/** The apps/v1 registries refuse selector changes (extensions/v1beta1 and apps/v1beta1 allowed them). */
function selectorImmutable(obj: any, old: any): FieldError[] {
  if (json(obj?.spec?.selector) !== json(old?.spec?.selector)) {
    return [field.invalid("spec.selector", goLabelSelector(obj?.spec?.selector), FIELD_IMMUTABLE)];
  }
  return [];
}

export function validateDeploymentUpdate(d: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(d?.metadata, old?.metadata);
  errs.push(...validateDeployment(d).filter((e) => !e.field.startsWith("metadata.")));
  errs.push(...selectorImmutable(d, old));
  return errs;
}

export function validateReplicaSetUpdate(rs: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(rs?.metadata, old?.metadata);
  errs.push(...validateReplicaSet(rs).filter((e) => !e.field.startsWith("metadata.")));
  errs.push(...selectorImmutable(rs, old));
  return errs;
}

export function validateDaemonSetUpdate(ds: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(ds?.metadata, old?.metadata);
  errs.push(...validateDaemonSet(ds).filter((e) => !e.field.startsWith("metadata.")));
  errs.push(...selectorImmutable(ds, old));
  return errs;
}

export function validateStatefulSetUpdate(ss: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(ss?.metadata, old?.metadata);
  errs.push(...validateStatefulSetSpec(ss?.spec ?? {}));
  const strip = (s: any) => {
    const c = { ...(s ?? {}) };
    for (const k of ["replicas", "template", "updateStrategy", "minReadySeconds", "ordinals", "persistentVolumeClaimRetentionPolicy"]) delete c[k];
    return json(c);
  };
  if (strip(ss?.spec) !== strip(old?.spec)) {
    errs.push(
      field.forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

export function validateControllerRevision(cr: any): FieldError[] {
  const errs = validateObjectMeta(cr?.metadata, true, nameIsDNSSubdomain);
  if (cr?.data === undefined || cr?.data === null) errs.push(field.required("data", "data is mandatory"));
  errs.push(...nonNegative(cr?.revision, "revision"));
  return errs;
}

export function validateControllerRevisionUpdate(cr: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(cr?.metadata, old?.metadata);
  errs.push(...validateControllerRevision(cr).filter((e) => !e.field.startsWith("metadata.")));
  if (json(cr?.data) !== json(old?.data)) errs.push(field.invalid("data", new GoValue("runtime.RawExtension{...}"), FIELD_IMMUTABLE));
  return errs;
}
