// Who a request acts as. Every client of a cluster authenticates as kubeadm's admin
// (kubernetes-admin, bound to cluster-admin), which RBAC allows everything; a client may act as
// someone else with the Impersonate-User/Impersonate-Group headers (`kubectl --as`, `--as-group`),
// and then the request is authorized as that user, as kube-apiserver's WithImpersonation and
// WithAuthorization filters do, and refused with their 403 when RBAC does not allow it.

import { forbidden, StatusError } from "../engine/api/status.js";
import type { Cluster } from "../engine/cluster.js";
import { authorize, KUBEADM_ADMIN, type UserInfo } from "../engine/rbac/authorizer.js";

export interface Impersonation {
  user?: string;
  groups: string[];
}

/** The Impersonate-* headers' user and groups (undefined when the request impersonates no one). */
export function impersonationOf(header: (name: string) => string | undefined): Impersonation | undefined {
  const user = header("impersonate-user");
  const groups = (header("impersonate-group") ?? "").split(",").map((g) => g.trim()).filter(Boolean);
  if (user === undefined && !groups.length) return undefined;
  return { user, groups };
}

/** The user a request acts as, with the groups the apiserver adds to an impersonated one. */
export function requester(imp: Impersonation | undefined): UserInfo {
  if (!imp) return KUBEADM_ADMIN;
  const username = imp.user ?? "";
  const groups = [...imp.groups];
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(username);
  // A service account impersonated without groups gets its own (serviceaccount.MakeGroupNames).
  if (sa && !imp.groups.length) groups.push("system:serviceaccounts", `system:serviceaccounts:${sa[1]}`);
  if (username === "system:anonymous") {
    if (!groups.includes("system:unauthenticated")) groups.push("system:unauthenticated");
  } else if (!groups.includes("system:authenticated")) groups.push("system:authenticated");
  return { username, groups };
}

interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The verb RBAC sees for a REST request (requestinfo.go). */
export function verbOf(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return watch ? "watch" : named ? "get" : "list";
  }
}

/** Refuses a resource request the impersonated user may not make (admin's own requests pass). */
export function authorizeResource(cluster: Cluster, imp: Impersonation | undefined, a: RequestAttributes): void {
  if (!imp) return;
  const user = requester(imp);
  const d = authorize(cluster.store, user, { resource: { ...a } });
  if (d.allowed) return;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  throw forbidden(a.resource, a.group, a.name ?? "", `User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${where}`);
}

/** Refuses a non-resource request (discovery, /version, /openapi) the impersonated user may not make. */
export function authorizePath(cluster: Cluster, imp: Impersonation | undefined, path: string, verb: string): void {
  if (!imp) return;
  const user = requester(imp);
  if (authorize(cluster.store, user, { nonResource: { path, verb } }).allowed) return;
  const message = `forbidden: User "${user.username}" cannot ${verb} path "${path}"`;
  throw new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "Forbidden", details: {}, code: 403 });
}
