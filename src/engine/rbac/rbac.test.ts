// The default policy a new cluster holds and the RBAC authorizer's answers over it.
import { describe, expect, it } from "vitest";
import { lookupResource } from "../api/resources.js";
import { testCluster } from "../testing.js";
import { authorize, KUBEADM_ADMIN, rulesFor } from "./authorizer.js";
import { DEFAULT_POLICY } from "./bootstrap-policy.js";
import { defaultPolicyBodies } from "./policy-objects.js";
import { review } from "./reviews.js";

const CR = lookupResource("rbac.authorization.k8s.io", "clusterroles")!;
const CRB = lookupResource("rbac.authorization.k8s.io", "clusterrolebindings")!;
const RB = lookupResource("rbac.authorization.k8s.io", "rolebindings")!;
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[] };

describe("the default policy", () => {
  it("is in every new cluster: the apiserver's roles and bindings and kubeadm's, each once", () => {
    const c = testCluster();
    const names = (r: string) => c.store.list(`${r}.rbac.authorization.k8s.io`).map((o) => `${r}:${o.metadata.namespace ?? ""}/${o.metadata.name}`);
    const all = [...names("clusterroles"), ...names("clusterrolebindings"), ...names("roles"), ...names("rolebindings")];
    expect(all.length).toBe(DEFAULT_POLICY.length);
    expect(new Set(all).size).toBe(all.length);
    for (const n of ["cluster-admin", "admin", "edit", "view", "system:node", "system:controller:deployment-controller", "system:coredns"]) expect(all).toContain(`clusterroles:/${n}`);
    for (const n of ["cluster-admin", "kubeadm:cluster-admins", "system:node", "system:controller:deployment-controller", "system:coredns"]) expect(all).toContain(`clusterrolebindings:/${n}`);
    expect(all).toContain("roles:kube-system/kube-proxy");
    expect(all).toContain("rolebindings:kube-public/kubeadm:bootstrap-signer-clusterinfo");
    const admin = c.api.get(CR, undefined, "cluster-admin");
    expect(admin.metadata.labels).toEqual({ "kubernetes.io/bootstrapping": "rbac-defaults" });
    expect(admin.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    expect(c.api.get(CRB, undefined, "kubeadm:cluster-admins")).toMatchObject({ roleRef: { kind: "ClusterRole", name: "cluster-admin" }, subjects: [{ kind: "Group", name: "kubeadm:cluster-admins" }] });
    expect(c.api.get(CRB, undefined, "kubeadm:cluster-admins").metadata.labels).toBeUndefined();
  });

  it("fills admin, edit and view as the aggregation controller does: each rule once, the roles in name order", () => {
    const c = testCluster();
    const rules = (n: string) => (c.api.get(CR, undefined, n) as unknown as { rules: Rule[] }).rules;
    const view = rules("view");
    expect(view).toEqual(rules("system:aggregate-to-view"));
    // edit = system:aggregate-to-edit's rules, then view's ("system:aggregate-to-edit" < "view").
    expect(rules("edit")).toEqual([...rules("system:aggregate-to-edit"), ...view]);
    expect(rules("admin")).toEqual([...rules("edit"), ...rules("system:aggregate-to-admin")]);
    expect(c.api.get(CR, undefined, "admin").aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { "rbac.authorization.k8s.io/aggregate-to-admin": "true" } }] });
  });

  it("shares one frozen copy of the rules between clusters, and a write gives the role its own", () => {
    const a = testCluster();
    const b = testCluster({ seed: 7 });
    const ra = a.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view") as unknown as { rules: Rule[] };
    const rb = b.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view") as unknown as { rules: Rule[] };
    expect(ra.rules).toBe(rb.rules);
    expect(Object.isFrozen(ra.rules[0].verbs)).toBe(true);
    expect(a.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view")!.metadata.uid).not.toBe(b.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view")!.metadata.uid);
    a.client.patch(CR, undefined, "system:heapster", "merge", { metadata: { labels: { x: "y" } }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    expect((a.api.get(CR, undefined, "system:heapster") as unknown as { rules: Rule[] }).rules).toEqual([{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
    expect(defaultPolicyBodies().find((o) => o.metadata.name === "view")!.rules).toBe(rb.rules);
    // An aggregated role's rules are the controller's: an edit of them is put back.
    a.client.patch(CR, undefined, "view", "merge", { rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    expect((a.api.get(CR, undefined, "view") as unknown as { rules: Rule[] }).rules).toEqual(rb.rules);
    expect(rb.rules.length).toBeGreaterThan(1);
  });
});

describe("the RBAC authorizer", () => {
  it("allows kubeadm's admin everything through kubeadm:cluster-admins, with the binding as the reason", () => {
    const c = testCluster();
    expect(authorize(c.store, KUBEADM_ADMIN, { resource: { verb: "create", resource: "pods", namespace: "default" } })).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
    });
    expect(authorize(c.store, KUBEADM_ADMIN, { nonResource: { verb: "get", path: "/metrics" } }).allowed).toBe(true);
    // Without its binding the admin is an authenticated user like any other.
    c.client.delete(CRB, undefined, "kubeadm:cluster-admins");
    expect(authorize(c.store, KUBEADM_ADMIN, { resource: { verb: "create", resource: "pods", namespace: "default" } })).toEqual({ allowed: false, reason: "" });
    expect(authorize(c.store, KUBEADM_ADMIN, { nonResource: { verb: "get", path: "/version" } })).toMatchObject({ allowed: true });
    // system:masters is allowed before RBAC is asked.
    expect(authorize(c.store, { username: "x", groups: ["system:masters"] }, { resource: { verb: "delete", resource: "nodes" } })).toEqual({ allowed: true, reason: "" });
  });

  it("matches subresources, resource names, */scale and service accounts as rbac's RuleAllows does", () => {
    const c = testCluster();
    const sa = (ns: string, n: string) => ({ username: `system:serviceaccount:${ns}:${n}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"] });
    const hpa = sa("kube-system", "horizontal-pod-autoscaler");
    expect(authorize(c.store, hpa, { resource: { verb: "update", group: "apps", resource: "deployments", subresource: "scale", namespace: "default" } }).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "system:controller:horizontal-pod-autoscaler" of ClusterRole "system:controller:horizontal-pod-autoscaler" to ServiceAccount "horizontal-pod-autoscaler/kube-system"',
    );
    expect(authorize(c.store, hpa, { resource: { verb: "update", group: "apps", resource: "deployments", namespace: "default" } }).allowed).toBe(false);
    const kcm = { username: "system:kube-controller-manager", groups: ["system:authenticated"] };
    expect(authorize(c.store, kcm, { resource: { verb: "update", group: "coordination.k8s.io", resource: "leases", name: "kube-controller-manager", namespace: "kube-system" } }).allowed).toBe(true);
    expect(authorize(c.store, kcm, { resource: { verb: "update", group: "coordination.k8s.io", resource: "leases", name: "other", namespace: "default" } }).allowed).toBe(false);
    const proxy = sa("kube-system", "kube-proxy");
    expect(authorize(c.store, proxy, { resource: { verb: "watch", group: "discovery.k8s.io", resource: "endpointslices" } }).reason).toContain('ClusterRoleBinding "kubeadm:node-proxier"');
    // A RoleBinding applies in its namespace only, and names itself name/namespace.
    c.client.create(lookupResource("", "namespaces")!, undefined, { metadata: { name: "dev" } });
    c.client.create(RB, "dev", { metadata: { name: "jane-edit" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" }, subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }] }, {}).metadata;
    const jane = { username: "jane", groups: ["system:authenticated"] };
    expect(authorize(c.store, jane, { resource: { verb: "create", resource: "pods", subresource: "exec", namespace: "dev" } }).reason).toBe('RBAC: allowed by RoleBinding "jane-edit/dev" of ClusterRole "edit" to User "jane"');
    expect(authorize(c.store, jane, { resource: { verb: "create", resource: "pods", namespace: "default" } }).allowed).toBe(false);
    expect(authorize(c.store, jane, { resource: { verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "dev" } }).allowed).toBe(false);
  });

  it("lists a user's rules for SelfSubjectRulesReview, and answers the review kinds", () => {
    const c = testCluster();
    const basic = rulesFor(c.store, { username: "nobody", groups: ["system:authenticated"] }, "default");
    expect(basic.resourceRules).toEqual([
      { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] },
      { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
    ]);
    expect(basic.nonResourceRules.map((r) => r.nonResourceURLs!.join(","))).toEqual(["/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/", "/healthz,/livez,/readyz,/version,/version/"]);
    expect(review(c.store, "SelfSubjectReview", "authentication.k8s.io", undefined, {})).toEqual({
      kind: "SelfSubjectReview",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] } },
    });
    const ssar = review(c.store, "SelfSubjectAccessReview", "authorization.k8s.io", undefined, { spec: { resourceAttributes: { verb: "*", resource: "*", group: "*" } } });
    expect(ssar.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"' });
    expect(() => review(c.store, "SelfSubjectAccessReview", "authorization.k8s.io", undefined, { spec: {} })).toThrow(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const sar = review(c.store, "SubjectAccessReview", "authorization.k8s.io", undefined, { spec: { user: "system:kube-scheduler", resourceAttributes: { verb: "create", resource: "pods", subresource: "binding", namespace: "default" } } });
    expect(sar.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"' });
  });
});

describe("the clusterrole-aggregation controller", () => {
  it("widens view, edit and admin with a role labelled aggregate-to-view, and narrows them when it goes", () => {
    const c = testCluster();
    const view0 = c.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view") as unknown as { rules: Rule[]; metadata: { resourceVersion: string } };
    // A new cluster's aggregated roles are already what the controller makes: nothing written, rules still shared.
    expect(view0.rules).toBe(defaultPolicyBodies().find((o) => o.metadata.name === "view")!.rules);
    const crd = { verbs: ["get", "list", "watch"], apiGroups: ["stable.example.com"], resources: ["crontabs"] };
    c.client.create(CR, undefined, { metadata: { name: "crontab-reader", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } }, rules: [crd] });
    const rules = (n: string) => (c.api.get(CR, undefined, n) as unknown as { rules: Rule[] }).rules;
    // In name order: "crontab-reader" < "system:aggregate-to-view".
    expect(rules("view")).toEqual([crd, ...view0.rules]);
    expect(rules("edit")).toContainEqual(crd);
    expect(rules("admin")).toContainEqual(crd);
    const jane = { username: "jane", groups: ["system:authenticated"] };
    c.client.create(CRB, undefined, { metadata: { name: "jane-view" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }] });
    expect(authorize(c.store, jane, { resource: { verb: "list", group: "stable.example.com", resource: "crontabs", namespace: "default" } }).allowed).toBe(true);
    c.client.delete(CR, undefined, "crontab-reader");
    expect(rules("view")).toEqual(view0.rules);
    expect(rules("admin")).not.toContainEqual(crd);
  });
});

