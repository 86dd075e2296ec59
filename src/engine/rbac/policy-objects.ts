// The default policy as the objects the apiserver stores: each body made once per process (the
// aggregated roles' rules filled as the clusterrole-aggregation controller fills them), frozen and
// shared by every cluster's bootstrap.

import { DEFAULT_POLICY, type PolicyObject, type PolicyRule } from "./bootstrap-policy.js";
import { deepFreeze } from "../store/store.js";

const BOOTSTRAP_LABELS = { "kubernetes.io/bootstrapping": "rbac-defaults" };
const AUTOUPDATE = { "rbac.authorization.kubernetes.io/autoupdate": "true" };

export interface PolicyBody {
  kind: PolicyObject["kind"];
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * The rules of an aggregated ClusterRole: the rules of every ClusterRole its selectors match, in
 * name order, each rule once (clusterroleaggregation_controller.go). Roles it matches may be
 * aggregated themselves (edit carries view's label), so those are filled first.
 */
export function aggregatedRules(target: PolicyObject, roles: readonly PolicyObject[], filled: Map<string, PolicyRule[]>): PolicyRule[] {
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

let rulesByArray: Map<unknown, string> | undefined;
let rulesByKey: Map<string, readonly PolicyRule[]> | undefined;

function sharedIndex(): void {
  if (rulesByArray) return;
  rulesByArray = new Map();
  rulesByKey = new Map();
  for (const b of defaultPolicyBodies()) {
    if (!Array.isArray(b.rules)) continue;
    const k = `${b.kind}/${b.metadata.namespace ?? ""}/${b.metadata.name}`;
    rulesByArray.set(b.rules, k);
    rulesByKey.set(k, b.rules as PolicyRule[]);
  }
}

/**
 * The name of the shared rules a stored role holds, when it still holds the default policy's own
 * array (a role written since holds a copy of its own): what a persisted row names instead of them.
 */
export function sharedRulesKey(obj: { rules?: unknown }): string | undefined {
  if (!Array.isArray(obj.rules)) return undefined;
  sharedIndex();
  return rulesByArray!.get(obj.rules);
}

/** The shared rules a row names (undefined for a name this version's policy does not have). */
export function sharedRules(key: string): readonly PolicyRule[] | undefined {
  sharedIndex();
  return rulesByKey!.get(key);
}
