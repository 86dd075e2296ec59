// The scale subresource (autoscaling/v1 Scale) of Deployments, ReplicaSets, StatefulSets and
// ReplicationControllers, as the registry's scaleFrom* functions make it, and the apiserver's
// refusal of a patched Scale whose replicas do not fit the int32 field: shared by the REST API
// (src/kubeapi) and the terminal's kubectl scale, which sends the same merge patch.

import type { ResourceInfo } from "./resources.js";
import { field, invalid, type StatusError } from "./status.js";
import type { KObject } from "./types.js";

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function isInt32(n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX;
}

/** The Scale of `obj`, fields in the order the apiserver encodes them. */
export function scaleOf(info: ResourceInfo, obj: KObject): Record<string, unknown> {
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } };
  const status = (obj.status ?? {}) as { replicas?: number };
  // An RC's selector is the label map itself (scaleFromRC: labels.SelectorFromSet).
  const ml = (info.kind === "ReplicationController" ? (spec.selector as Record<string, string> | undefined) : spec.selector?.matchLabels) ?? {};
  const selector = Object.keys(ml)
    .sort()
    .map((k) => `${k}=${ml[k]}`)
    .join(",");
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, ...(selector ? { selector } : {}) },
  };
}

/**
 * A merge-patched Scale whose spec.replicas is a number no int32 holds: the json patcher's
 * decode fails, and the apiserver answers 422 with the patched document as the value of
 * `patch` (errors.NewInvalid with no kind or name). The document is the one json-patch wrote:
 * the top level and the patched spec re-encoded from maps (keys sorted), the rest as encoded.
 */
export function scaleReplicasInvalid(patched: Record<string, unknown>): StatusError {
  const replicas = (patched.spec as { replicas?: unknown } | undefined)?.replicas;
  const doc: Record<string, unknown> = {};
  for (const k of Object.keys(patched).sort()) doc[k] = patched[k];
  const spec = patched.spec as Record<string, unknown> | undefined;
  if (spec && typeof spec === "object") {
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(spec).sort()) sorted[k] = spec[k];
    doc.spec = sorted;
  }
  return invalid("", "", "", [
    field.invalid("patch", JSON.stringify(doc), `json: cannot unmarshal number ${String(replicas)} into Go struct field ScaleSpec.spec.replicas of type int32`),
  ]);
}
