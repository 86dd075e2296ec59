// PersistentVolume and PersistentVolumeClaim validation: pkg/apis/core/validation (v1.33)
// ValidatePersistentVolumeSpec, ValidatePersistentVolumeClaimSpec and their updates, with the
// gates a 1.33 apiserver has on (RecoverVolumeExpansionFailure) and off (VolumeAttributesClass).

import { cmp, formatQuantity, parseQuantity, quantity } from "../quantity";
import { field, type FieldError, GoValue } from "../status";
import { goQ } from "./gofmt";
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { isDNS1123Subdomain, nameIsDNSSubdomain } from "./names";

/* eslint-disable @typescript-eslint/no-explicit-any */

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"];
const VOLUME_MODES = ["Block", "Filesystem"];
const HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
/** PersistentVolumeSource's members, in the order ValidatePersistentVolumeSpec checks them. */
const PV_SOURCES = [
  "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte", "cephfs", "iscsi",
  "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk", "scaleIO",
  "local", "storageos", "csi",
];
const NOT_POSITIVE = "must be greater than zero";

/** A core.ResourceList as %#v prints it (quantities abbreviated: their internals are not data). */
function goResourceList(list: Record<string, unknown> | null | undefined): GoValue {
  if (list === null || list === undefined) return new GoValue("core.ResourceList(nil)");
  const keys = Object.keys(list).sort();
  return new GoValue(`core.ResourceList{${keys.map((k) => `${goQ(k)}:resource.Quantity{s:${goQ(String(list[k]))}}`).join(", ")}}`);
}

function validateAccessModes(modes: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const m of modes) {
    if (!ACCESS_MODES.includes(m)) errs.push(field.notSupported(path, m, ACCESS_MODES));
    if (m === "ReadWriteOncePod") rwop = true;
    else if (ACCESS_MODES.includes(m)) other = true;
  }
  if (rwop && other) errs.push(field.forbidden(path, "may not use ReadWriteOncePod with other access modes"));
  return errs;
}

/** ValidatePositiveQuantityValue */
function positive(v: unknown, path: string): FieldError[] {
  const q = parseQuantity(String(v));
  return q && q.n > 0n ? [] : [field.invalid(path, q ? formatQuantity(q) : String(v), NOT_POSITIVE)];
}

function className(name: string, path: string): FieldError[] {
  return isDNS1123Subdomain(name).map((m) => field.invalid(path, name, m));
}

function validateSource(spec: any, source: string, path: string): FieldError[] {
  const s = spec[source] ?? {};
  const errs: FieldError[] = [];
  if (source === "hostPath") {
    if (!s.path) errs.push(field.required(`${path}.path`));
    else if (String(s.path).split("/").includes("..")) errs.push(field.invalid(`${path}.path`, s.path, "must not contain '..'"));
    if (!HOST_PATH_TYPES.includes(s.type ?? "")) errs.push(field.notSupported(`${path}.type`, s.type, HOST_PATH_TYPES));
  } else if (source === "nfs") {
    if (!s.server) errs.push(field.required(`${path}.server`));
    if (!s.path) errs.push(field.required(`${path}.path`));
    else if (!String(s.path).startsWith("/")) errs.push(field.invalid(`${path}.path`, s.path, "must be an absolute path"));
  } else if (source === "local") {
    if (!s.path) errs.push(field.required(`${path}.path`));
  }
  return errs;
}

function validatePersistentVolumeSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  const modes: string[] = spec.accessModes ?? [];
  if (!modes.length) errs.push(field.required("spec.accessModes"));
  errs.push(...validateAccessModes(modes, "spec.accessModes"));
  const capacity = spec.capacity;
  const keys = Object.keys(capacity ?? {});
  if (!keys.length) errs.push(field.required("spec.capacity"));
  if (!keys.includes("storage") || keys.length > 1) errs.push(field.notSupported("spec.capacity", goResourceList(capacity), ["storage"]));
  for (const k of keys.sort()) errs.push(...positive(capacity[k], `spec.capacity[${k}]`));
  const policy = spec.persistentVolumeReclaimPolicy ?? "";
  if (policy && !RECLAIM_POLICIES.includes(policy)) errs.push(field.notSupported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES));
  const hasAffinity = !!spec.nodeAffinity?.required?.nodeSelectorTerms?.length;
  let n = 0;
  for (const source of PV_SOURCES) {
    if (spec[source] === undefined || spec[source] === null) continue;
    if (n > 0 && source !== "flexVolume") {
      errs.push(field.forbidden(`spec.${source === "cephfs" ? "cephFS" : source}`, "may not specify more than 1 volume type"));
      continue;
    }
    n++;
    errs.push(...validateSource(spec, source, `spec.${source}`));
    if (source === "local" && !hasAffinity) errs.push(field.required("spec.nodeAffinity", "Local volume requires node affinity"));
  }
  if (n === 0) errs.push(field.required("spec", "must specify a volume type"));
  if (spec.hostPath?.path && spec.hostPath.path.replace(/\/+$/, "") === "" && policy === "Recycle") {
    errs.push(field.forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (spec.storageClassName) errs.push(...className(spec.storageClassName, "spec.storageClassName"));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(field.notSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  }
  return errs;
}

export function validatePersistentVolume(pv: any): FieldError[] {
  const errs = validateObjectMeta(pv?.metadata, false, nameIsDNSSubdomain);
  errs.push(...validatePersistentVolumeSpec(pv?.spec ?? {}));
  return errs;
}

/** JSON with sorted keys: equal values compare equal whatever order their keys came in. */
const json = (v: unknown): string =>
  JSON.stringify(v ?? null, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
const pick = (spec: any, keys: readonly string[]) => Object.fromEntries(keys.filter((k) => spec?.[k] !== undefined && spec?.[k] !== null).map((k) => [k, spec[k]]));

export function validatePersistentVolumeUpdate(pv: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(pv?.metadata, old?.metadata);
  errs.push(...validatePersistentVolume(pv).filter((e) => !e.field.startsWith("metadata.")));
  if (json(pick(pv?.spec, PV_SOURCES)) !== json(pick(old?.spec, PV_SOURCES))) {
    const diff = structDiff("core.PersistentVolumeSource", PV_SOURCES, pick(old?.spec, PV_SOURCES), pick(pv?.spec, PV_SOURCES));
    errs.push(field.forbidden("spec.persistentvolumesource", `spec.persistentvolumesource is immutable after creation\n${diff}`));
  }
  if ((pv?.spec?.volumeMode ?? null) !== (old?.spec?.volumeMode ?? null)) errs.push(field.invalid("volumeMode", pv?.spec?.volumeMode ?? null, "field is immutable"));
  return errs;
}

function validatePersistentVolumeClaimSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  const modes: string[] = spec.accessModes ?? [];
  if (!modes.length) errs.push(field.required("spec.accessModes", "at least 1 access mode is required"));
  if (spec.selector) errs.push(...validateLabelSelector(spec.selector, "spec.selector"));
  errs.push(...validateAccessModes(modes, "spec.accessModes"));
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined || storage === null) errs.push(field.required("spec.resources[storage]"));
  else errs.push(...positive(storage, "spec.resources[storage]"));
  if (spec.storageClassName) errs.push(...className(spec.storageClassName, "spec.storageClassName"));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(field.notSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  }
  for (const k of ["dataSource", "dataSourceRef"] as const) {
    const ds = spec[k];
    if (!ds) continue;
    if (!ds.name) errs.push(field.required(`spec.${k}.name`));
    if (!ds.kind) errs.push(field.required(`spec.${k}.kind`));
    if (!ds.apiGroup && ds.kind !== "PersistentVolumeClaim") errs.push(field.invalid(`spec.${k}`, ds.kind ?? "", "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  return errs;
}

export function validatePersistentVolumeClaim(pvc: any): FieldError[] {
  const errs = validateObjectMeta(pvc?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validatePersistentVolumeClaimSpec(pvc?.spec ?? {}));
  return errs;
}

/** PersistentVolumeClaimSpec's fields in Go order (cmp.Diff walks them so). */
const PVC_FIELDS = ["accessModes", "selector", "resources", "volumeName", "storageClassName", "volumeMode", "dataSource", "dataSourceRef", "volumeAttributesClassName"];

export function validatePersistentVolumeClaimUpdate(pvc: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(pvc?.metadata, old?.metadata);
  errs.push(...validatePersistentVolumeClaim(pvc).filter((e) => !e.field.startsWith("metadata.")));
  const next = structuredClone(pvc?.spec ?? {});
  const was = structuredClone(old?.spec ?? {});
  // The PV controller sets volumeName once; a bound claim may change its storage request.
  if (!was.volumeName) was.volumeName = next.volumeName;
  if (pvc?.status?.phase === "Bound" && next.resources?.requests) {
    if (was.resources?.requests?.storage === undefined) delete next.resources.requests.storage;
    else next.resources.requests.storage = was.resources.requests.storage;
  }
  next.volumeAttributesClassName = was.volumeAttributesClassName;
  if (json(pick(next, PVC_FIELDS)) !== json(pick(was, PVC_FIELDS))) {
    const diff = structDiff("core.PersistentVolumeClaimSpec", PVC_FIELDS, was, next);
    errs.push(field.forbidden("spec", `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff}`));
  }
  const newSize = quantity(pvc?.spec?.resources?.requests?.storage);
  const oldSize = quantity(old?.spec?.resources?.requests?.storage);
  const statusSize = quantity(old?.status?.capacity?.storage);
  // RecoverVolumeExpansionFailure (on in 1.33): down to status.capacity, not below.
  if (cmp(newSize, oldSize) < 0 && cmp(newSize, statusSize) <= 0) {
    errs.push(field.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"));
  }
  if ((pvc?.spec?.volumeMode ?? null) !== (old?.spec?.volumeMode ?? null)) errs.push(field.invalid("volumeMode", pvc?.spec?.volumeMode ?? null, "field is immutable"));
  return errs;
}

/**
 * cmp.Diff of two Go structs, as far as it can be reproduced: go-cmp randomizes its spacing on
 * purpose (so that no one depends on it), so this is its layout, not its bytes.
 */
function structDiff(type: string, fields: readonly string[], a: any, b: any): string {
  const goName = (f: string) => f.charAt(0).toUpperCase() + f.slice(1);
  const lines = [`  ${type}{`];
  let same = 0;
  const flush = () => {
    if (same) lines.push(`  \t... // ${same} identical field${same === 1 ? "" : "s"}`);
    same = 0;
  };
  for (const f of fields) {
    const x = a?.[f];
    const y = b?.[f];
    if (json(x) === json(y)) {
      same++;
      continue;
    }
    flush();
    const typed = (v: unknown) => (f === "accessModes" ? `[]core.PersistentVolumeAccessMode${goValue(v)}` : goValue(v));
    lines.push(`- \t${goName(f)}: ${x !== undefined && x !== null ? typed(x) : "nil"},`);
    lines.push(`+ \t${goName(f)}: ${y !== undefined && y !== null ? typed(y) : "nil"},`);
  }
  flush();
  lines.push("  }");
  return lines.join("\n") + "\n";
}

function goValue(v: unknown): string {
  if (typeof v === "string") return goQ(v);
  if (Array.isArray(v)) return `{${v.map(goValue).join(", ")}}`;
  if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${k.charAt(0).toUpperCase() + k.slice(1)}: ${goValue(x)}`).join(", ")}}`;
  return String(v);
}
