// ObjectMeta, labels, annotations and label-selector validation:
// k8s.io/apimachinery/pkg/api/validation/objectmeta.go and pkg/apis/meta/v1/validation, plus the
// finalizer-name check core's ValidateObjectMeta adds.

import { field, type FieldError } from "../status";
import { goQ } from "./gofmt";
import { byteLen, isQualifiedName, isValidLabelValue, type NameFn, nameIsDNSLabel } from "./names";
import { GoValue } from "../status";

/* eslint-disable @typescript-eslint/no-explicit-any */

export const FIELD_IMMUTABLE = "field is immutable";
const IS_NEGATIVE = "must be greater than or equal to 0";
const TOTAL_ANNOTATION_SIZE = 256 * (1 << 10);

/** field.TooLong as apimachinery v0.33 prints it: the value is omitted. */
export function tooLong(path: string, max: number): FieldError {
  return { type: "FieldValueTooLong", field: path, hasValue: false, detail: `may not be more than ${max} bytes` };
}

export function nonNegative(value: number | undefined | null, path: string): FieldError[] {
  return typeof value === "number" && value < 0 ? [field.invalid(path, value, IS_NEGATIVE)] : [];
}

export function validateLabelName(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((m) => field.invalid(path, key, m));
}

/** Go ranges over the map in random order; keys are taken sorted here for stable output. */
export function validateLabels(labels: Record<string, string> | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(labels ?? {}).sort()) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(labels![k])) errs.push(field.invalid(path, labels![k], m));
  }
  return errs;
}

export function validateAnnotations(ann: Record<string, string> | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const k of Object.keys(ann ?? {}).sort()) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, m));
    total += byteLen(k) + byteLen(ann![k] ?? "");
  }
  if (total > TOTAL_ANNOTATION_SIZE) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE));
  return errs;
}

export function validateLabelSelector(sel: any, path: string): FieldError[] {
  if (sel === null || sel === undefined) return [];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []).forEach((e: any, i: number) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values: string[] = Array.isArray(e?.values) ? e.values : [];
    switch (e?.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) errs.push(field.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) errs.push(field.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(field.invalid(`${p}.operator`, e?.operator ?? "", "not a valid selector operator"));
    }
    errs.push(...validateLabelName(e?.key ?? "", `${p}.key`));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(v)) errs.push(field.invalid(`${p}.values[${j}]`, v, m));
    });
  });
  return errs;
}

const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

function validateKubeFinalizerName(name: string, path: string): FieldError[] {
  if (name.split("/").length === 1 && !STANDARD_FINALIZERS.has(name)) {
    return [field.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")];
  }
  return [];
}

function validateFinalizers(fins: string[] | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = fins ?? [];
  for (const f of list) for (const m of isQualifiedName(f)) errs.push(field.invalid(path, f, m));
  if (list.includes("orphan") && list.includes("foregroundDeletion")) {
    errs.push(field.invalid(path, new GoValue(`[]string{${list.map(goQ).join(", ")}}`), "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

function validateOwnerReferences(refs: any[] | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  for (const r of refs ?? []) {
    const apiVersion: string = r?.apiVersion ?? "";
    const version = apiVersion.includes("/") ? apiVersion.split("/")[1] : apiVersion;
    if (!version) errs.push(field.invalid(`${path}.apiVersion`, apiVersion, "version must not be empty"));
    if (!r?.kind) errs.push(field.invalid(`${path}.kind`, r?.kind ?? "", "kind must not be empty"));
    if (!r?.name) errs.push(field.invalid(`${path}.name`, r?.name ?? "", "name must not be empty"));
    if (!r?.uid) errs.push(field.invalid(`${path}.uid`, r?.uid ?? "", "uid must not be empty"));
    if (r?.controller === true) {
      const cur = `${r.kind}/${r.name}`;
      if (firstController) {
        errs.push(
          field.invalid(path, new GoValue("[]v1.OwnerReference{...}"), `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`),
        );
      } else firstController = cur;
    }
  }
  return errs;
}

/** core ValidateObjectMeta (apimachinery's plus the kube finalizer-name check). */
export function validateObjectMeta(meta: any, namespaced: boolean, nameFn: NameFn, path = "metadata"): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if (m.generateName) for (const msg of nameFn(m.generateName, true)) errs.push(field.invalid(`${path}.generateName`, m.generateName, msg));
  if (!m.name) errs.push(field.required(`${path}.name`, "name or generateName is required"));
  else for (const msg of nameFn(m.name, false)) errs.push(field.invalid(`${path}.name`, m.name, msg));
  if (namespaced) {
    if (!m.namespace) errs.push(field.required(`${path}.namespace`));
    else for (const msg of nameIsDNSLabel(m.namespace, false)) errs.push(field.invalid(`${path}.namespace`, m.namespace, msg));
  } else if (m.namespace) {
    errs.push(field.forbidden(`${path}.namespace`, "not allowed on this type"));
  }
  errs.push(...nonNegative(m.generation, `${path}.generation`));
  errs.push(...validateLabels(m.labels, `${path}.labels`));
  errs.push(...validateAnnotations(m.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(m.finalizers, `${path}.finalizers`));
  (m.finalizers ?? []).forEach((f: string, i: number) => errs.push(...validateKubeFinalizerName(f, `${path}.finalizers[${i}]`)));
  return errs;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * ValidateObjectMetaUpdate. The "resourceVersion must be specified for an update" check is left
 * to the store: the real apiserver fills the stored resourceVersion into unconditional updates
 * before validation runs, so a client never sees it.
 */
export function validateObjectMetaUpdate(meta: any, old: any, path = "metadata"): FieldError[] {
  const m = meta ?? {};
  const o = old ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const extra = [...new Set<string>(m.finalizers ?? [])].filter((f) => !(o.finalizers ?? []).includes(f)).sort();
    if (extra.length) {
      errs.push(
        field.forbidden(`${path}.finalizers`, `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQ).join(", ")}}`),
      );
    }
  }
  if ((m.generation ?? 0) < (o.generation ?? 0)) errs.push(field.invalid(`${path}.generation`, m.generation ?? 0, "must not be decremented"));
  const imm = (k: string) => {
    if (!same(m[k], o[k])) errs.push(field.invalid(`${path}.${k}`, m[k] ?? "", FIELD_IMMUTABLE));
  };
  imm("name");
  imm("namespace");
  imm("uid");
  if (m.creationTimestamp !== undefined && !same(m.creationTimestamp, o.creationTimestamp)) imm("creationTimestamp");
  if (m.deletionTimestamp !== undefined && !same(m.deletionTimestamp, o.deletionTimestamp)) imm("deletionTimestamp");
  errs.push(...validateLabels(m.labels, `${path}.labels`));
  errs.push(...validateAnnotations(m.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`));
  (m.finalizers ?? []).forEach((f: string, i: number) => errs.push(...validateKubeFinalizerName(f, `${path}.finalizers[${i}]`)));
  return errs;
}
