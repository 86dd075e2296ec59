// Helpers the controllers share (K/pkg/controller/controller_utils.go, pkg/api/v1/pod/util.go).

import { apiVersionOf, type ResourceInfo } from "../api/resources.js";
import type { KObject, OwnerReference, Pod } from "../api/types.js";

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
  // A loop: several controllers ask this of every pod event.
  const refs = obj.metadata.ownerReferences;
  if (refs) for (const r of refs) if (r.controller) return r;
  return undefined;
}

export function podCondition(pod: Pod, type: string): { status: string; lastTransitionTime?: string | null } | undefined {
  return (pod.status?.conditions ?? []).find((c) => c.type === type);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, "Ready")?.status === "True";
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

// ---------------------------------------------------------------------------------------------
// Controller revisions (DaemonSet, StatefulSet; the Deployment's pod-template-hash uses the same
// ComputeHash).

/**
 * encoding/json's bytes for a value that went through map[string]interface{} (as the
 * controllers' getPatch does): object keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped.
 */
/**
 * goJSON of a stored object (immutable: a change is a new object), computed once per object.
 * Revision data and templates are hashed and compared on every sync.
 */
const storedJSON = new WeakMap<object, string>();

/**
 * Records that stored object `v` has goJSON `json`, known by construction (revision data is the
 * JSON.parse of a goJSON, and goJSON of that gives the same bytes), so it is not serialized again.
 */
export function knownGoJSON(v: object, json: string): void {
  storedJSON.set(v, json);
}

export function goJSONStored(v: unknown): string {
  if (v === null || typeof v !== "object") return goJSON(v);
  let s = storedJSON.get(v);
  if (s === undefined) {
    s = goJSON(v);
    storedJSON.set(v, s);
  }
  return s;
}

export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goString(v);
  if (typeof v === "number" || typeof v === "boolean") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJSON(x)).join(",")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${goString(k)}:${goJSON(o[k])}`).join(",")}}`;
  }
  return "null";
}

function goString(s: string): string {
  // Most strings hold none of the characters Go escapes: no regular expression replace for them
  // (JSON.stringify never writes one of them into its escapes, so looking at `s` is enough).
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
    }
  }
  return JSON.stringify(s);
}

const utf8 = new TextEncoder();

/** hash/fnv New32 (FNV-1, not 1a): history.HashControllerRevision uses it. */
export function fnv32(input: string | Uint8Array, h = 0x811c9dc5): number {
  const bytes = typeof input === "string" ? utf8.encode(input) : input;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

/** Continues an FNV-1a 32-bit hash `h` with more bytes (hash.Write after hash.Write). */
export function fnv32aAppend(h: number, bytes: Uint8Array): number {
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h >>> 0;
}

/** A copy of `m` with its keys in sorted order (Go marshals maps sorted; keep stored objects alike). */
export function sortedMap(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Taints, tolerations and required node affinity (component-helpers/scheduling/corev1), shared
// by the DaemonSet controller and anything else that decides whether a pod fits a node.

interface TolerationLike {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}
interface TaintLike {
  key: string;
  value?: string;
  effect: string;
}

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(t: TolerationLike, taint: TaintLike): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "") {
    case "":
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** v1helper.FindMatchingUntoleratedTaint: the first taint passing `filter` that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly TaintLike[] | null | undefined,
  tolerations: readonly TolerationLike[] | null | undefined,
  filter: (t: TaintLike) => boolean,
): TaintLike | undefined {
  for (const taint of taints ?? []) {
    if (!filter(taint)) continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

interface NodeSelectorRequirementLike {
  key: string;
  operator: string;
  values?: readonly string[] | null;
}
interface NodeSelectorTermLike {
  matchExpressions?: readonly NodeSelectorRequirementLike[] | null;
  matchFields?: readonly NodeSelectorRequirementLike[] | null;
}

function nodeRequirementMatches(r: NodeSelectorRequirementLike, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || values.length !== 1) return false;
      const a = Number(value);
      const b = Number(values[0]);
      if (!Number.isInteger(a) || !Number.isInteger(b)) return false;
      return r.operator === "Gt" ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** nodeaffinity: one term matches when all its expressions and fields do; an empty term matches nothing. */
function nodeSelectorTermMatches(term: NodeSelectorTermLike, nodeName: string, labels: Record<string, string> | null | undefined): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  for (const e of exprs) if (!nodeRequirementMatches(e, labels?.[e.key])) return false;
  for (const f of fields) {
    if (f.key !== "metadata.name") return false;
    if (!nodeRequirementMatches(f, nodeName)) return false;
  }
  return true;
}

/**
 * nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and the required
 * node affinity terms (ORed) must both select the node.
 */
export function podFitsNodeAffinity(
  spec: { nodeSelector?: Record<string, string> | null; affinity?: unknown },
  nodeName: string,
  labels: Record<string, string> | null | undefined,
): boolean {
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels?.[k] !== v) return false;
  const required = (spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermLike[] } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, nodeName, labels));
}
