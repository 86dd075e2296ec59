// kubectl auth can-i / whoami in the terminal print what the real kubectl 1.33 prints against a
// ServiceLab cluster (test/kubeapi/testdata's goldens come from it: rbac.e2e.test.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { terminal } from "./testing.js";

const golden = (name: string) => readFileSync(join(import.meta.dirname, "../../../test/kubeapi/testdata", name), "utf8");

describe("kubectl auth", () => {
  it("answers can-i as for kubeadm's admin, --list as the real kubectl lays it out, and whoami", async () => {
    const t = terminal(4);
    expect(await t("kubectl auth can-i create pods; echo rc=$?")).toBe("yes\nrc=0\n");
    expect(await t("kubectl auth can-i '*' '*'")).toBe("yes\n");
    expect(await t("kubectl auth can-i get /healthz")).toBe("yes\n");
    expect(await t("kubectl auth can-i --list")).toBe(golden("can-i-list.txt"));
    expect(await t("kubectl auth whoami")).toBe("ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [kubeadm:cluster-admins system:authenticated]\n");
    // (stderr apart: the terminal's kubectl writes each stream whole.)
    expect(await t("kubectl auth can-i list nodes 2>/dev/null")).toBe("yes\n");
    expect(await t("kubectl auth can-i list nodes 2>&1 >/dev/null")).toBe("Warning: resource 'nodes' is not namespace scoped\n\n");
    expect(await t("kubectl auth can-i frob pods 2>&1 >/dev/null")).toBe("Warning: verb 'frob' is not a known verb\n\n");
    expect(await t("kubectl auth can-i get widgets 2>&1 >/dev/null")).toBe("Warning: the server doesn't have a resource type 'widgets'\n\n");
    expect(await t("kubectl auth can-i get 2>&1; echo rc=$?")).toBe("error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.\nrc=1\n");
  });

  it("says no, exit 1, once the admin's binding is gone (RBAC reads the stored bindings)", async () => {
    const t = terminal(5);
    expect(await t("kubectl delete clusterrolebinding kubeadm:cluster-admins")).toBe('clusterrolebinding.rbac.authorization.k8s.io "kubeadm:cluster-admins" deleted\n');
    expect(await t("kubectl auth can-i create pods; echo rc=$?")).toBe("no\nrc=1\n");
    expect(await t("kubectl auth can-i -q get /version; echo rc=$?")).toBe("rc=0\n");
  });
});
