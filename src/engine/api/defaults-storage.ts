// Defaulting and create-time admission of PersistentVolumes and PersistentVolumeClaims (v1.33):
// pkg/apis/core/v1/defaults.go (SetDefaults_PersistentVolume, _PersistentVolumeClaimSpec,
// _HostPathVolumeSource), the StorageObjectInUseProtection admission plugin's finalizers, the
// disabled VolumeAttributesClass gate's dropped fields, and quantities in their canonical form
// (the apiserver stores resource.Quantity's String()).

import { formatQuantity, parseQuantity } from "./quantity.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const PV_PROTECTION = "kubernetes.io/pv-protection";
export const PVC_PROTECTION = "kubernetes.io/pvc-protection";

/** A ResourceList's quantities as String() writes them ("1024Mi" is stored as "1Gi"). */
function canonical(list: unknown): void {
  if (!isObj(list)) return;
  for (const [k, v] of Object.entries(list)) {
    const q = parseQuantity(String(v));
    if (q) list[k] = formatQuantity(q);
    else if (typeof v === "number") list[k] = String(v);
  }
}

/** StorageObjectInUseProtection admission: the protection finalizer, on create only. */
function protect(obj: Obj, finalizer: string): void {
  const meta = isObj(obj.metadata) ? obj.metadata : (obj.metadata = {});
  const fins: string[] = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (!fins.includes(finalizer)) meta.finalizers = [...fins, finalizer];
}

export function defaultPersistentVolume(pv: Obj, old?: Obj): void {
  const spec = isObj(pv.spec) ? pv.spec : (pv.spec = {});
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = "Retain";
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = "Filesystem";
  if (isObj(spec.hostPath) && (spec.hostPath.type === undefined || spec.hostPath.type === null)) spec.hostPath.type = "";
  canonical(spec.capacity);
  if (!old) {
    delete spec.volumeAttributesClassName;
    protect(pv, PV_PROTECTION);
  }
}

export function defaultPersistentVolumeClaim(pvc: Obj, old?: Obj): void {
  const spec = isObj(pvc.spec) ? pvc.spec : (pvc.spec = {});
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = "Filesystem";
  if (isObj(spec.resources)) {
    canonical(spec.resources.requests);
    canonical(spec.resources.limits);
  }
  if (!old) {
    delete spec.volumeAttributesClassName;
    protect(pvc, PVC_PROTECTION);
  }
}
