// The default RBAC objects of a kubeadm cluster and the authorization API, through the REAL
// kubectl 1.33 (and 1.27): `kubectl get clusterroles`, `kubectl auth can-i` (SelfSubjectAccessReview
// and SelfSubjectRulesReview, sent as protobuf), `kubectl auth whoami`, and `--as` (impersonation,
// authorized by RBAC over the stored bindings). Goldens in testdata/. Skipped without kubectl; a
// failure under CI=true.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, haveKubectl, KUBECTL, startHarness } from "./harness.js";

if (!haveKubectl && process.env.CI === "true") throw new Error(`${KUBECTL} is missing: the RBAC e2e test cannot run (CI=true makes this a failure)`);

const golden = (name: string) => readFileSync(join(import.meta.dirname, "testdata", name), "utf8");
let h: Harness;

describe.skipIf(!haveKubectl)("default RBAC and kubectl auth with the real kubectl", () => {
  beforeAll(async () => {
    h = await startHarness();
  }, 120_000);
  afterAll(() => h?.stop());

  it("lists kubeadm's clusterroles, bindings, roles and rolebindings, roles with CREATED AT", { timeout: 60_000 }, async () => {
    const names = await h.kubectl(["get", "clusterroles,clusterrolebindings", "-o", "name"]);
    const ns = await h.kubectl(["get", "roles,rolebindings", "-A", "--no-headers", "-o", "custom-columns=NS:.metadata.namespace,KIND:.kind,NAME:.metadata.name"]);
    expect(names.stdout + ns.stdout).toBe(golden("default-rbac.txt"));
    const table = await h.kubectl(["get", "clusterroles"]);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME {3,}CREATED AT$/);
    expect(lines[1]).toMatch(/^admin {3,}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const wide = await h.kubectl(["get", "clusterrolebinding", "kubeadm:cluster-admins", "system:coredns", "-o", "wide"]);
    expect(wide.stdout.replace(/ +/g, " ")).toMatch(/^NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS\nkubeadm:cluster-admins ClusterRole\/cluster-admin \w+ kubeadm:cluster-admins \nsystem:coredns ClusterRole\/system:coredns \w+ kube-system\/coredns\n$/);
  });

  it("answers kubectl auth can-i and whoami as for kubeadm's admin", { timeout: 60_000 }, async () => {
    for (const k of [h.kubectl, h.kubectl.v127]) {
      expect(await k(["auth", "can-i", "create", "pods"])).toEqual({ stdout: "yes\n", stderr: "", code: 0 });
      expect(await k(["auth", "can-i", "*", "*"])).toEqual({ stdout: "yes\n", stderr: "", code: 0 });
      expect(await k(["auth", "can-i", "get", "/healthz"])).toEqual({ stdout: "yes\n", stderr: "", code: 0 });
      expect((await k(["auth", "can-i", "--list"])).stdout).toBe(golden("can-i-list.txt"));
    }
    expect(await h.kubectl(["auth", "whoami"])).toEqual({ stdout: "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [kubeadm:cluster-admins system:authenticated]\n", stderr: "", code: 0 });
    const r = await h.kubectl(["api-resources", "--api-group=authorization.k8s.io"]);
    expect(r.stdout.replace(/ +/g, " ")).toBe(
      "NAME SHORTNAMES APIVERSION NAMESPACED KIND\nlocalsubjectaccessreviews authorization.k8s.io/v1 true LocalSubjectAccessReview\nselfsubjectaccessreviews authorization.k8s.io/v1 false SelfSubjectAccessReview\nselfsubjectrulesreviews authorization.k8s.io/v1 false SelfSubjectRulesReview\nsubjectaccessreviews authorization.k8s.io/v1 false SubjectAccessReview\n",
    );
  });

  it("acts --as another user through RBAC: refused until a binding allows it", { timeout: 90_000 }, async () => {
    const k = h.kubectl;
    expect(await k(["auth", "can-i", "list", "pods", "--as=jane"])).toEqual({ stdout: "no\n", stderr: "", code: 1 });
    expect(await k(["get", "pods", "--as=jane"])).toEqual({ stdout: "", stderr: 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"\n', code: 1 });
    expect((await k(["get", "nodes", "--as=jane"])).stderr).toBe('Error from server (Forbidden): nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope\n');
    expect((await k(["auth", "can-i", "--list", "--as=jane"])).stdout).toBe(golden("can-i-list-jane.txt"));
    expect((await k(["create", "namespace", "dev"])).code).toBe(0);
    expect((await k(["create", "rolebinding", "jane-edit", "--clusterrole=edit", "--user=jane", "-n", "dev"])).stdout).toBe("rolebinding.rbac.authorization.k8s.io/jane-edit created\n");
    expect(await k(["auth", "can-i", "create", "deployments.apps", "-n", "dev", "--as=jane"])).toEqual({ stdout: "yes\n", stderr: "", code: 0 });
    expect(await k(["auth", "can-i", "create", "roles", "-n", "dev", "--as=jane"])).toEqual({ stdout: "no\n", stderr: "", code: 1 });
    expect(await k(["create", "configmap", "c", "--from-literal=a=b", "-n", "dev", "--as=jane"])).toEqual({ stdout: "configmap/c created\n", stderr: "", code: 0 });
    expect((await k(["delete", "configmap", "c", "-n", "default", "--as=jane"])).stderr).toBe('Error from server (Forbidden): configmaps "c" is forbidden: User "jane" cannot delete resource "configmaps" in API group "" in the namespace "default"\n');
    expect(await k(["auth", "can-i", "delete", "nodes", "--as=jane", "--as-group=system:masters"])).toEqual({ stdout: "yes\n", stderr: "Warning: resource 'nodes' is not namespace scoped\n\n", code: 0 });
    // A service account is its own user, with its groups.
    expect(await k(["auth", "can-i", "watch", "endpointslices.discovery.k8s.io", "--as=system:serviceaccount:kube-system:kube-proxy"])).toEqual({ stdout: "yes\n", stderr: "", code: 0 });
  });
});
