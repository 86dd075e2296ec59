// The PersistentVolume controller's binder for statically created volumes, as
// K/pkg/controller/volume/persistentvolume (pv_controller.go) does it in a kubeadm cluster, which
// has no StorageClass and no dynamic provisioner: an unbound claim binds the smallest Available
// volume that fits it (access modes, capacity, volume mode, class, selector), else stays Pending
// with the controller's event, repeated at each resync (15 s); a volume whose claim is gone is
// Released and reclaimed by its policy. The protection finalizers are removed as the
// pvc-protection and pv-protection controllers do.

import { PV_PROTECTION, PVC_PROTECTION } from "../api/defaults-storage.js";
import { labelSelectorAsSelector } from "../api/labels.js";
import { cmp, quantity } from "../api/quantity.js";
import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { KObject, Pod } from "../api/types.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../api/types-storage.js";
import { key as rkey } from "../apiserver/apiserver.js";
import { rfc3339 } from "../clock.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";
import { splitKey } from "./util.js";

const PVS = rkey(R.persistentvolumes);
const PVCS = rkey(R.persistentvolumeclaims);
const PODS = rkey(R.pods);
const COMPONENT = "persistentvolume-controller";
/** --pvclaimbinder-sync-period: every claim and volume is synced again this often. */
const RESYNC_MS = 15_000;
const BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
const BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
const BETA_CLASS = "volume.beta.kubernetes.io/storage-class";

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation, then the field. */
export function claimClass(pvc: PersistentVolumeClaim): string {
  return pvc.metadata.annotations?.[BETA_CLASS] ?? pvc.spec?.storageClassName ?? "";
}

function volumeClass(pv: PersistentVolume): string {
  return pv.metadata.annotations?.[BETA_CLASS] ?? pv.spec?.storageClassName ?? "";
}

/** IsVolumeBoundToClaim: the claimRef names the claim (and its uid, when it has one). */
function boundTo(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref || ref.name !== pvc.metadata.name || ref.namespace !== pvc.metadata.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata.uid;
}

/**
 * findBestMatchForClaim: the volumes indexed by their access modes, sets holding the claim's
 * modes tried from the fewest modes up; in each, a volume pre-bound to the claim wins, else the
 * smallest Available one of the claim's class whose labels its selector matches.
 */
export function findBestMatch(pvc: PersistentVolumeClaim, volumes: readonly PersistentVolume[]): PersistentVolume | undefined {
  const want = new Set(pvc.spec?.accessModes ?? []);
  const requested = quantity(String(pvc.spec?.resources?.requests?.storage ?? "0"));
  const cls = claimClass(pvc);
  const selector = pvc.spec?.selector ? labelSelectorAsSelector(pvc.spec.selector) : undefined;
  const modeKey = (pv: PersistentVolume) => [...new Set(pv.spec?.accessModes ?? [])].sort().join(",");
  const groups = new Map<string, PersistentVolume[]>();
  for (const pv of volumes) {
    const modes = pv.spec?.accessModes ?? [];
    if (![...want].every((m) => modes.includes(m))) continue;
    const k = modeKey(pv);
    groups.set(k, [...(groups.get(k) ?? []), pv]);
  }
  const ordered = [...groups.entries()].sort((a, b) => a[0].split(",").length - b[0].split(",").length);
  for (const [, group] of ordered) {
    let best: PersistentVolume | undefined;
    for (const pv of group) {
      if (pv.spec?.claimRef && !boundTo(pv, pvc)) continue;
      const size = quantity(String(pv.spec?.capacity?.storage ?? "0"));
      if (cmp(size, requested) < 0) continue;
      if ((pv.spec?.volumeMode ?? "Filesystem") !== (pvc.spec?.volumeMode ?? "Filesystem")) continue;
      if (pv.metadata.deletionTimestamp) continue;
      if (boundTo(pv, pvc)) return pv;
      if (pv.status?.phase !== "Available") continue;
      if (selector && !selector.matches(pv.metadata.labels ?? {})) continue;
      if (volumeClass(pv) !== cls) continue;
      if (!best || cmp(quantity(String(best.spec?.capacity?.storage ?? "0")), size) > 0) best = pv;
    }
    if (best) return best;
  }
  return undefined;
}

export class PersistentVolumeController implements Controller {
  readonly name = "persistentvolume-binder";

  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === PVS || resource === PVCS || resource === PODS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === PVS) {
      const pv = ev.object as PersistentVolume;
      enqueue(`pv/${pv.metadata.name}`);
      const ref = pv.spec?.claimRef;
      if (ref?.name) enqueue(`pvc/${ref.namespace}/${ref.name}`);
      // A volume that appears or frees up may fit a claim still waiting.
      if (ev.type !== "DELETED") for (const c of this.ctx.store.iterate(PVCS)) if (!(c as PersistentVolumeClaim).spec?.volumeName) enqueue(`pvc/${c.metadata.namespace}/${c.metadata.name}`);
    } else if (ev.resource === PVCS) {
      const pvc = ev.object as PersistentVolumeClaim;
      enqueue(`pvc/${pvc.metadata.namespace}/${pvc.metadata.name}`);
      for (const pv of this.ctx.store.iterate(PVS)) {
        const ref = (pv as PersistentVolume).spec?.claimRef;
        if (ref && ref.name === pvc.metadata.name && ref.namespace === pvc.metadata.namespace) enqueue(`pv/${pv.metadata.name}`);
      }
    } else if (ev.type === "DELETED" || (ev.object as Pod).status?.phase === "Succeeded" || (ev.object as Pod).status?.phase === "Failed") {
      // pvc-protection: a claim being deleted waits for the pods that use it.
      const pod = ev.object as Pod;
      for (const v of pod.spec.volumes ?? []) {
        const name = (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName;
        if (name) enqueue(`pvc/${pod.metadata.namespace}/${name}`);
      }
    }
  }

  initialKeys(): Iterable<string> {
    const keys: string[] = [];
    for (const pv of this.ctx.store.iterate(PVS)) keys.push(`pv/${pv.metadata.name}`);
    for (const c of this.ctx.store.iterate(PVCS)) keys.push(`pvc/${c.metadata.namespace}/${c.metadata.name}`);
    return keys;
  }

  reconcile(key: string): void {
    if (key.startsWith("pv/")) this.syncVolume(key.slice(3));
    else {
      const [ns, name] = splitKey(key.slice(4));
      this.syncClaim(ns!, name);
    }
  }

  // -------------------------------------------------------------------------------------------
  // claims

  private syncClaim(ns: string, name: string): void {
    const pvc = this.ctx.store.get(PVCS, ns, name) as PersistentVolumeClaim | undefined;
    if (!pvc) return;
    if (pvc.metadata.deletionTimestamp) {
      this.releaseClaimFinalizer(pvc);
      return;
    }
    const volumeName = pvc.spec?.volumeName ?? "";
    if (!volumeName) {
      const pv = findBestMatch(pvc, this.ctx.store.listView(PVS) as readonly PersistentVolume[]);
      if (pv) return this.bind(pv, pvc);
      if (claimClass(pvc)) {
        // provisionClaimOperation: the class is looked up first, and a kubeadm cluster has none.
        this.event(pvc, R.persistentvolumeclaims, "Warning", "ProvisioningFailed", `storageclass.storage.k8s.io "${claimClass(pvc)}" not found`);
      } else {
        this.event(pvc, R.persistentvolumeclaims, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set");
      }
      this.claimStatus(pvc, "Pending");
      this.ctx.requeueAt(this, `pvc/${ns}/${name}`, this.ctx.clock.now() + RESYNC_MS);
      return;
    }
    const pv = this.ctx.store.get(PVS, undefined, volumeName) as PersistentVolume | undefined;
    const completed = pvc.metadata.annotations?.[BIND_COMPLETED] !== undefined;
    if (!pv) {
      if (completed && pvc.status?.phase !== "Lost") {
        this.claimStatus(pvc, "Lost");
        this.event(pvc, R.persistentvolumeclaims, "Warning", "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!");
      } else if (!completed) this.claimStatus(pvc, "Pending");
      return;
    }
    if (!pv.spec?.claimRef || boundTo(pv, pvc)) return this.bind(pv, pvc);
    if (!completed) {
      this.event(pvc, R.persistentvolumeclaims, "Warning", "FailedBinding", `volume "${volumeName}" already bound to a different claim.`);
      this.claimStatus(pvc, "Pending");
    }
  }

  /** bindVolumeToClaim, then bindClaimToVolume, then their phases (each a write, in that order). */
  private bind(pv0: PersistentVolume, pvc0: PersistentVolumeClaim): void {
    let pv = pv0;
    if (!pv.spec?.claimRef?.uid) {
      const prebound = boundTo(pv, pvc0);
      const next = structuredClone(pv) as PersistentVolume;
      next.spec!.claimRef = {
        kind: "PersistentVolumeClaim",
        namespace: pvc0.metadata.namespace,
        name: pvc0.metadata.name,
        uid: pvc0.metadata.uid,
        apiVersion: "v1",
        resourceVersion: pvc0.metadata.resourceVersion,
      };
      if (!prebound) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [BOUND_BY_CONTROLLER]: "yes" };
      pv = this.ctx.api.update(R.persistentvolumes, undefined, pv.metadata.name!, next) as PersistentVolume;
    }
    pv = this.volumeStatus(pv, "Bound");
    let pvc = pvc0;
    if (pvc.spec?.volumeName !== pv.metadata.name || pvc.metadata.annotations?.[BIND_COMPLETED] === undefined) {
      const next = structuredClone(pvc) as PersistentVolumeClaim;
      const ann = { ...(next.metadata.annotations ?? {}) };
      if (!next.spec!.volumeName) ann[BOUND_BY_CONTROLLER] = "yes";
      ann[BIND_COMPLETED] = "yes";
      next.metadata.annotations = ann;
      next.spec!.volumeName = pv.metadata.name;
      pvc = this.ctx.api.update(R.persistentvolumeclaims, pvc.metadata.namespace, pvc.metadata.name!, next) as PersistentVolumeClaim;
    }
    this.claimStatus(pvc, "Bound", pv);
  }

  private claimStatus(pvc: PersistentVolumeClaim, phase: string, pv?: PersistentVolume): void {
    const status: Record<string, unknown> = { ...(pvc.status ?? {}), phase };
    if (pv) {
      status.accessModes = pv.spec?.accessModes ?? [];
      status.capacity = { ...(pv.spec?.capacity ?? {}) };
    }
    if (JSON.stringify(status) === JSON.stringify(pvc.status)) return;
    this.ctx.api.update(R.persistentvolumeclaims, pvc.metadata.namespace, pvc.metadata.name!, { ...pvc, status }, { subresource: "status" });
  }

  /** pvc-protection: the finalizer goes once no scheduled pod uses the claim. */
  private releaseClaimFinalizer(pvc: PersistentVolumeClaim): void {
    if (!pvc.metadata.finalizers?.includes(PVC_PROTECTION)) return;
    for (const p of this.ctx.store.listView(PODS, pvc.metadata.namespace)) {
      const pod = p as Pod;
      if (!pod.spec.nodeName) continue;
      if ((pod.spec.volumes ?? []).some((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName === pvc.metadata.name)) return;
    }
    this.dropFinalizer(R.persistentvolumeclaims, pvc, PVC_PROTECTION);
  }

  // -------------------------------------------------------------------------------------------
  // volumes

  private syncVolume(name: string): void {
    let pv = this.ctx.store.get(PVS, undefined, name) as PersistentVolume | undefined;
    if (!pv) return;
    const ref = pv.spec?.claimRef;
    if (!ref || !ref.uid) {
      pv = this.volumeStatus(pv, "Available");
    } else {
      const pvc = this.ctx.store.get(PVCS, ref.namespace, ref.name!) as PersistentVolumeClaim | undefined;
      if (!pvc || pvc.metadata.uid !== ref.uid) {
        if (pv.status?.phase !== "Released" && pv.status?.phase !== "Failed") pv = this.volumeStatus(pv, "Released");
        pv = this.reclaim(pv);
        if (!pv) return;
      } else if (pvc.spec?.volumeName === pv.metadata.name) {
        pv = this.volumeStatus(pv, "Bound");
      }
    }
    // pv-protection: a volume being deleted keeps its finalizer while it is Bound.
    if (pv.metadata.deletionTimestamp && pv.status?.phase !== "Bound" && pv.metadata.finalizers?.includes(PV_PROTECTION)) {
      this.dropFinalizer(R.persistentvolumes, pv, PV_PROTECTION);
    }
  }

  /** reclaimVolume: Retain keeps the volume; Delete asks the volume's plugin, as in-tree plugins answer. */
  private reclaim(pv: PersistentVolume): PersistentVolume | undefined {
    if (pv.spec?.persistentVolumeReclaimPolicy !== "Delete" || pv.status?.phase === "Failed" || pv.metadata.deletionTimestamp) return pv;
    let error: string;
    const path = pv.spec.hostPath?.path;
    if (path !== undefined) {
      if (/\/tmp\/./.test(path)) {
        try {
          this.ctx.api.delete(R.persistentvolumes, undefined, pv.metadata.name!);
        } catch (e) {
          if (!isStatusError(e)) throw e;
        }
        return undefined;
      }
      error = `host_path deleter only supports /tmp/.+ but received provided ${path}`;
    } else {
      error = `error getting deleter volume plugin for volume "${pv.metadata.name}": no deletable volume plugin matched`;
    }
    this.event(pv, R.persistentvolumes, "Warning", "VolumeFailedDelete", error);
    return this.volumeStatus(pv, "Failed", error);
  }

  /** updateVolumePhase, with the registry's lastPhaseTransitionTime when the phase moves. */
  private volumeStatus(pv: PersistentVolume, phase: string, message?: string): PersistentVolume {
    if (pv.status?.phase === phase && (message === undefined || pv.status.message === message)) return pv;
    const status: Record<string, unknown> = { phase };
    if (message !== undefined) status.message = message;
    status.lastPhaseTransitionTime = pv.status?.phase === phase ? pv.status.lastPhaseTransitionTime : rfc3339(this.ctx.clock.now());
    return this.ctx.api.update(R.persistentvolumes, undefined, pv.metadata.name!, { ...pv, status }, { subresource: "status" }) as PersistentVolume;
  }

  private dropFinalizer(info: typeof R.persistentvolumes, obj: KObject, finalizer: string): void {
    const next = structuredClone(obj);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.ctx.api.update(info, obj.metadata.namespace, obj.metadata.name!, next);
  }

  private event(obj: KObject, info: typeof R.persistentvolumes, type: "Normal" | "Warning", reason: string, message: string): void {
    this.ctx.api.recordEvent({ involved: obj, involvedInfo: info, type, reason, message, component: COMPONENT });
  }
}
