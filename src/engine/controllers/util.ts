// Helpers the controllers share (K/pkg/controller/controller_utils.go, pkg/api/v1/pod/util.go).

import { apiVersionOf, type ResourceInfo } from "../api/resources.js";
import type { KObject, OwnerReference, Pod } from "../api/types.js";

export function nsName(obj: KObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name!;
}

export function splitKey(key: string): [string | undefined, string] {
  const i = key.indexOf("/");
  return i < 0 ? [undefined, key] : [key.slice(0, i), key.slice(i + 1)];
}

/** The controller OwnerReference an owner puts on what it creates. */
export function controllerRef(owner: KObject, info: ResourceInfo): OwnerReference {
  return {
    apiVersion: apiVersionOf(info),
    kind: info.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function getControllerOf(obj: KObject): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller);
}

export function isControlledBy(obj: KObject, owner: KObject): boolean {
  return getControllerOf(obj)?.uid === owner.metadata.uid;
}

export function podCondition(pod: Pod, type: string): { status: string; lastTransitionTime?: string | null } | undefined {
  return (pod.status?.conditions ?? []).find((c) => c.type === type);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, "Ready")?.status === "True";
}

export function isPodTerminating(pod: Pod): boolean {
  return !!pod.metadata.deletionTimestamp;
}

/** controller.IsPodActive: not Succeeded/Failed and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !pod.metadata.deletionTimestamp;
}

/** podutil.IsPodAvailable: ready for at least minReadySeconds at time `now`. */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const c = podCondition(pod, "Ready");
  if (c?.status !== "True") return false;
  if (minReadySeconds <= 0) return true;
  const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(t) && t + minReadySeconds * 1000 <= now;
}

/** When a ready pod becomes available (for requeueing), or undefined if it is not ready. */
export function podAvailableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const c = podCondition(pod, "Ready");
  if (c?.status !== "True") return undefined;
  const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? undefined : t + minReadySeconds * 1000;
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return Number(v) || 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}
