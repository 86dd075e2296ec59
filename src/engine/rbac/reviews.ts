// The review kinds: answered at create and never stored (authorization.k8s.io's
// SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview and
// LocalSubjectAccessReview; authentication.k8s.io's SelfSubjectReview). `kubectl auth can-i`
// and `kubectl auth whoami` send them. Every client of a ServiceLab cluster is kubeadm's admin.

import { badRequest, field, type FieldError, invalid } from "../api/status.js";
import type { Store } from "../store/store.js";
import { authorize, KUBEADM_ADMIN, type NonResourceAttributes, type ResourceAttributes, rulesFor, type UserInfo } from "./authorizer.js";

type Body = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; spec?: Record<string, unknown> };


const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function attrsOf(spec: Record<string, unknown>, kind: string, group: string): { resource?: ResourceAttributes; nonResource?: NonResourceAttributes } {
  const ra = obj(spec.resourceAttributes);
  const nra = obj(spec.nonResourceAttributes);
  const errs: FieldError[] = [];
  // validation.go's ValidateSelfSubjectAccessReviewSpec (and the SubjectAccessReview one).
  if (ra && nra) errs.push(field.invalid("spec.nonResourceAttributes", nra, "cannot be specified in combination with resourceAttributes"));
  if (!ra && !nra) errs.push(field.invalid("spec.resourceAttributes", "null", "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (errs.length) throw invalid(kind, group, "", errs);
  if (ra) {
    const a: ResourceAttributes = {};
    for (const k of ["namespace", "verb", "group", "version", "resource", "subresource", "name"] as const) a[k] = str(ra[k]);
    return { resource: a };
  }
  return { nonResource: { path: str(nra!.path), verb: str(nra!.verb) } };
}

/** The review `body` of `kind` answered for the requesting user (kubeadm's admin). */
export function review(store: Store, kind: string, group: string, namespace: string | undefined, body: unknown, user: UserInfo = KUBEADM_ADMIN): Record<string, unknown> {
  const b = (obj(body) ?? {}) as Body;
  const spec = obj(b.spec) ?? {};
  const head = { kind, apiVersion: `${group}/v1`, metadata: { ...(obj(b.metadata) ?? {}), creationTimestamp: null } };
  switch (kind) {
    case "SelfSubjectReview":
      return { ...head, status: { userInfo: { username: user.username, groups: user.groups } } };
    case "SelfSubjectRulesReview": {
      const ns = str(spec.namespace);
      return { ...head, spec, status: { ...rulesFor(store, user, ns), incomplete: false } };
    }
    case "SelfSubjectAccessReview": {
      const d = authorize(store, user, attrsOf(spec, kind, group));
      return { ...head, spec, status: { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) } };
    }
    case "SubjectAccessReview":
    case "LocalSubjectAccessReview": {
      const attrs = attrsOf(spec, kind, group);
      if (kind === "LocalSubjectAccessReview" && attrs.resource?.namespace !== namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace ?? ""}`);
      }
      const userName = str(spec.user);
      const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === "string") : [];
      if (!userName && !groups.length) throw invalid(kind, group, "", [field.invalid("spec.user", userName, "at least one of user or group must be specified")]);
      const d = authorize(store, { username: userName, groups }, attrs);
      return { ...head, spec, status: { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) } };
    }
    default:
      throw badRequest(`${kind} is not a review`);
  }
}
