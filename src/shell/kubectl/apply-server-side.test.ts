// kubectl apply --server-side in the terminal: the file as an apply configuration, the manager
// "kubectl", the apiserver's conflict with kubectl's hint after it, --force-conflicts; client-side
// apply and create -f recorded as kubectl-client-side-apply and kubectl-create (as real kubectl
// names them, checked against it in test/kubeapi).
import { describe, expect, it } from "vitest";
import { terminal } from "./testing.js";

const deploy = (replicas: number) =>
  `cat > d${replicas}.yaml <<'EOF'\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: ${replicas}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx\nEOF`;

describe("kubectl apply --server-side", () => {
  it("conflicts with client-side apply's field, then takes it with --force-conflicts", async () => {
    const t = terminal(1);
    await t(deploy(2));
    await t(deploy(3));
    expect(await t("kubectl apply -f d2.yaml")).toBe("deployment.apps/web created\n");
    expect(await t("kubectl get deploy web -o jsonpath='{.metadata.managedFields[*].manager}'")).toBe("kube-controller-manager kube-controller-manager kubectl-client-side-apply");
    const conflict = await t("kubectl apply --server-side -f d3.yaml");
    expect(conflict).toMatch(/^error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas\nPlease review the fields above--they currently have other managers\. Here\n/);
    expect(await t("kubectl apply --server-side --force-conflicts -f d3.yaml")).toBe("deployment.apps/web serverside-applied\n");
    expect(await t("kubectl get deploy web -o jsonpath='{.spec.replicas} {.metadata.managedFields[0].manager} {.metadata.managedFields[0].operation}'")).toBe("3 kubectl Apply");
    expect(await t("kubectl get deploy web -o yaml | grep -c managedFields")).toBe("0\n");
  });

  it("refuses --force-conflicts without --server-side and --dry-run=client with it, as kubectl does", async () => {
    const t = terminal(2);
    await t(deploy(2));
    expect(await t("kubectl apply --force-conflicts -f d2.yaml")).toBe("error: --force-conflicts only works with --server-side\n");
    expect(await t("kubectl apply --server-side --dry-run=client -f d2.yaml")).toBe("error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)\n");
  });
});
