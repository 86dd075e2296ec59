// The RBAC authorizer over the cluster's stored roles and bindings (pkg/registry/rbac/validation
// and plugin/pkg/auth/authorizer/rbac): whether a user may make a request, with the binding that
// allows it, and every rule a user holds in a namespace (what SelfSubjectRulesReview lists).
// kube-apiserver's authorizer chain first allows system:masters outright (the privileged group).

import type { KObject } from "../api/types.js";
import type { Store } from "../store/store.js";
import type { PolicyRule, Subject } from "./bootstrap-policy.js";

export interface UserInfo {
  username: string;
  groups: string[];
}

/** admin.conf's user: since v1.29 kubeadm's admin is bound through kubeadm:cluster-admins, not system:masters. */
export const KUBEADM_ADMIN: UserInfo = { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] };

const MASTERS = "system:masters";

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

interface Decision {
  allowed: boolean;
  reason: string;
}

const CRB = "clusterrolebindings.rbac.authorization.k8s.io";
const RB = "rolebindings.rbac.authorization.k8s.io";
const CR = "clusterroles.rbac.authorization.k8s.io";
const ROLE = "roles.rbac.authorization.k8s.io";

interface Binding extends KObject {
  subjects?: Subject[];
  roleRef?: { kind?: string; name?: string };
}

function appliesTo(s: Subject, user: UserInfo, bindingNs: string): boolean {
  switch (s.kind) {
    case "User":
      return s.name === user.username;
    case "Group":
      return user.groups.includes(s.name);
    case "ServiceAccount": {
      // A subject without a namespace means the binding's own (RoleBindings only).
      const ns = s.namespace || bindingNs;
      return ns !== "" && user.username === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

function rulesOf(store: Store, ref: Binding["roleRef"], ns: string): PolicyRule[] | undefined {
  if (!ref?.name) return undefined;
  const role = ref.kind === "Role" ? store.get(ROLE, ns, ref.name) : ref.kind === "ClusterRole" ? store.get(CR, undefined, ref.name) : undefined;
  const rules = (role as { rules?: unknown } | undefined)?.rules;
  return Array.isArray(rules) ? (rules as PolicyRule[]) : role ? [] : undefined;
}

/** The bindings that apply to `user` in `ns` (cluster bindings first), with their rules. */
function* visit(store: Store, user: UserInfo, ns: string): Generator<{ binding: Binding; kind: string; subject: Subject; rules: PolicyRule[] }> {
  const sources: Array<[string, string | undefined, string]> = [[CRB, undefined, "ClusterRoleBinding"]];
  if (ns) sources.push([RB, ns, "RoleBinding"]);
  for (const [resource, inNs, kind] of sources) {
    for (const b of store.listView(resource, inNs) as Binding[]) {
      const subject = (b.subjects ?? []).find((s) => appliesTo(s, user, b.metadata.namespace ?? ""));
      if (!subject) continue;
      const rules = rulesOf(store, b.roleRef, b.metadata.namespace ?? "");
      if (rules) yield { binding: b, kind, subject, rules };
    }
  }
}

const has = (list: readonly string[] | undefined, v: string): boolean => !!list && (list.includes("*") || list.includes(v));

function resourceMatches(rule: PolicyRule, resource: string, sub: string): boolean {
  const combined = sub ? `${resource}/${sub}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    // "*/scale" allows the scale subresource of every resource.
    if (sub && r === `*/${sub}`) return true;
  }
  return false;
}

function ruleAllows(rule: PolicyRule, a: ResourceAttributes): boolean {
  if (!has(rule.verbs, a.verb ?? "")) return false;
  if (!has(rule.apiGroups, a.group ?? "")) return false;
  if (!resourceMatches(rule, a.resource ?? "", a.subresource ?? "")) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(a.name ?? "");
}

function nonResourceRuleAllows(rule: PolicyRule, a: NonResourceAttributes): boolean {
  if (!has(rule.verbs, a.verb ?? "")) return false;
  const path = a.path ?? "";
  return (rule.nonResourceURLs ?? []).some((u) => u === "*" || u === path || (u.endsWith("*") && path.startsWith(u.slice(0, -1))));
}

function allowedBy(kind: string, b: Binding, s: Subject): string {
  const ns = b.metadata.namespace ?? "";
  const name = kind === "RoleBinding" ? `${b.metadata.name}/${ns}` : b.metadata.name;
  // describeSubject: a ServiceAccount as name/namespace (a ClusterRoleBinding's namespace is "").
  const sub = s.kind === "ServiceAccount" ? `${s.kind} "${s.name}/${s.namespace || ns}"` : `${s.kind} "${s.name}"`;
  return `RBAC: allowed by ${kind} "${name}" of ${b.roleRef?.kind} "${b.roleRef?.name}" to ${sub}`;
}

/** The authorizer chain's answer: allowed with the binding that says so, or denied with no reason. */
export function authorize(store: Store, user: UserInfo, attrs: { resource?: ResourceAttributes; nonResource?: NonResourceAttributes }): Decision {
  if (user.groups.includes(MASTERS)) return { allowed: true, reason: "" };
  const ns = attrs.resource?.namespace ?? "";
  for (const { binding, kind, subject, rules } of visit(store, user, ns)) {
    const ok = attrs.resource ? rules.some((r) => ruleAllows(r, attrs.resource!)) : rules.some((r) => attrs.nonResource && r.nonResourceURLs && nonResourceRuleAllows(r, attrs.nonResource));
    if (ok) return { allowed: true, reason: allowedBy(kind, binding, subject) };
  }
  return { allowed: false, reason: "" };
}

interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** Every rule `user` holds in `ns`, as SelfSubjectRulesReview's status lists them. */
export function rulesFor(store: Store, user: UserInfo, ns: string): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  if (user.groups.includes(MASTERS)) {
    resourceRules.push({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
    nonResourceRules.push({ verbs: ["*"], nonResourceURLs: ["*"] });
  }
  for (const { rules } of visit(store, user, ns)) {
    for (const r of rules) {
      if (r.resources?.length) {
        const out: ResourceRule = { verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources };
        if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
        resourceRules.push(out);
      }
      if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
  }
  return { resourceRules, nonResourceRules };
}
