// The default policy as the objects the apiserver stores: each body made once per process (the
// aggregated roles' rules filled as the clusterrole-aggregation controller fills them), frozen and
// shared by every cluster's bootstrap.

import { DEFAULT_POLICY, type PolicyObject, type PolicyRule } from "./bootstrap-policy.js";
import type { KObject } from "../api/types.js";
import { deepFreeze } from "../store/store.js";
import { cloneJSON } from "../util/clone.js";

const BOOTSTRAP_LABELS = { "kubernetes.io/bootstrapping": "rbac-defaults" };
const AUTOUPDATE = { "rbac.authorization.kubernetes.io/autoupdate": "true" };

interface PolicyBody {
  kind: PolicyObject["kind"];
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * The rules of an aggregated ClusterRole: the rules of every ClusterRole its selectors match, in
 * name order, each rule once (clusterroleaggregation_controller.go). Roles it matches may be
 * aggregated themselves (edit carries view's label), so those are filled first.
 */
function aggregatedRules(target: PolicyObject, roles: readonly PolicyObject[], filled: Map<string, PolicyRule[]>): PolicyRule[] {
  const hit = filled.get(target.name);
  if (hit) return hit;
  const selectors = target.aggregationRule?.clusterRoleSelectors ?? [];
  const matching = roles
    .filter((o) => o.kind === "ClusterRole" && o !== target && selectors.some((s) => Object.entries(s.matchLabels).every(([k, v]) => labelsOf(o)[k] === v)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const o of matching) {
    const rules = o.aggregationRule ? aggregatedRules(o, roles, filled) : (o.rules ?? []);
    for (const rule of rules) {
      const k = JSON.stringify(rule);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(rule);
      }
    }
  }
  filled.set(target.name, out);
  return out;
}

function labelsOf(o: PolicyObject): Record<string, string> {
  return o.bootstrap ? { ...BOOTSTRAP_LABELS, ...o.labels } : (o.labels ?? {});
}

function body(o: PolicyObject, filled: Map<string, PolicyRule[]>): PolicyBody {
  const metadata: PolicyBody["metadata"] = { name: o.name };
  if (o.namespace) metadata.namespace = o.namespace;
  const labels = labelsOf(o);
  if (Object.keys(labels).length) metadata.labels = labels;
  // Bindings made by the bootstrap policy carry the annotation too, as reconciliation sets it.
  if (o.bootstrap) metadata.annotations = { ...AUTOUPDATE };
  const b: PolicyBody = { kind: o.kind, metadata };
  if (o.kind === "ClusterRole" || o.kind === "Role") {
    b.rules = o.aggregationRule ? aggregatedRules(o, DEFAULT_POLICY, filled) : o.rules;
    if (o.aggregationRule) b.aggregationRule = o.aggregationRule;
  } else {
    b.subjects = o.subjects ?? undefined;
    b.roleRef = o.roleRef;
  }
  return b;
}

let bodies: readonly PolicyBody[] | undefined;

/** Every default policy object's body, in creation order (made on first use, then shared). */
export function defaultPolicyBodies(): readonly PolicyBody[] {
  if (!bodies) {
    const filled = new Map<string, PolicyRule[]>();
    bodies = deepFreeze(DEFAULT_POLICY.map((o) => body(o, filled)));
  }
  return bodies;
}

let kindByShared: Map<unknown, string> | undefined;
let bodyByKey: Map<string, PolicyBody> | undefined;

const keyOf = (kind: string, namespace: string | undefined, name: string | undefined) => `${kind}/${namespace ?? ""}/${name ?? ""}`;

function sharedIndex(): void {
  if (kindByShared) return;
  kindByShared = new Map();
  bodyByKey = new Map();
  for (const b of defaultPolicyBodies()) {
    // A role's rules and a binding's roleRef are the body's own objects, so they tell its kind.
    kindByShared.set(b.rules ?? b.roleRef, b.kind);
    bodyByKey.set(keyOf(b.kind, b.metadata.namespace, b.metadata.name), b);
  }
}

/** The per-object metadata the apiserver and the store add to a default body. */
const STAMPED = new Set(["uid", "creationTimestamp", "resourceVersion"]);

/**
 * The name of the default body a stored RBAC object still is, stamps apart (uid,
 * creationTimestamp, resourceVersion): never written since bootstrap, it holds the body's own
 * rules or roleRef. What a persisted row names instead of writing the object out.
 */
export function unchangedDefault(obj: KObject): string | undefined {
  const o = obj as unknown as Record<string, unknown>;
  const shared = o.rules ?? o.roleRef;
  if (!shared || typeof shared !== "object") return undefined;
  sharedIndex();
  const kind = kindByShared!.get(shared);
  if (!kind) return undefined;
  const key = keyOf(kind, obj.metadata.namespace, obj.metadata.name);
  const b = bodyByKey!.get(key);
  return b && sameBody(obj, b) ? key : undefined;
}

function sameBody(obj: KObject, b: PolicyBody): boolean {
  const o = obj as unknown as Record<string, unknown>;
  const fields = Object.keys(b).filter((k) => k !== "kind" && k !== "metadata" && b[k] !== undefined);
  const own = Object.keys(o).filter((k) => k !== "metadata" && o[k] !== undefined);
  if (own.length !== fields.length || fields.some((k, i) => own[i] !== k || o[k] !== b[k])) return false;
  const m = obj.metadata as Record<string, unknown>;
  const d = b.metadata as Record<string, unknown>;
  const keys = Object.keys(m).filter((k) => m[k] !== undefined);
  const want = [...Object.keys(d), "uid", "creationTimestamp", "resourceVersion"];
  if (keys.length !== want.length || keys.some((k, i) => k !== want[i])) return false;
  return Object.keys(d).every((k) => JSON.stringify(m[k]) === JSON.stringify(d[k])) && keys.every((k) => !STAMPED.has(k) || typeof m[k] === "string");
}

/** The object a whole-body form stands for, with its own stamped metadata. */
export function sharedObject(key: string, stamped: Record<string, unknown>): KObject | undefined {
  sharedIndex();
  const b = bodyByKey!.get(key);
  if (!b) return undefined;
  const out: Record<string, unknown> = { metadata: { ...cloneJSON(b.metadata), uid: stamped.uid, creationTimestamp: stamped.creationTimestamp, resourceVersion: stamped.resourceVersion } };
  for (const k of Object.keys(b)) if (k !== "kind" && k !== "metadata" && b[k] !== undefined) out[k] = b[k];
  return out as unknown as KObject;
}
