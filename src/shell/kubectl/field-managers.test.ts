// The terminal's kubectl names its field managers as the real kubectl 1.33 does (kubectl-label,
// kubectl-annotate, kubectl-rollout, kubectl-set, kubectl-edit... and "kubectl" for scale, through
// the scale subresource), so --show-managed-fields and server-side apply's conflicts read as on a
// kubeadm cluster. Checked against the real kubectl in test/kubeapi/testcmd-cases.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { terminal } from "./testing.js";

const managers = "-o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource};{end}'";

describe("field managers of the terminal's kubectl", () => {
  it("records each verb's manager with operation Update", async () => {
    const t = terminal(3);
    expect(await t("kubectl create deployment web --image=nginx")).toBe("deployment.apps/web created\n");
    await t("kubectl label deploy web tier=front");
    await t("kubectl annotate deploy web note=x");
    await t("kubectl scale deploy web --replicas=2");
    await t("kubectl set image deploy/web nginx=nginx:1.28");
    await t("kubectl rollout restart deploy/web");
    expect(await t(`kubectl get deploy web ${managers}`)).toBe(
      // All in one second: in the apiserver's order for equal times, by manager, then subresource.
      // The deployment controller's revision annotation and status are kube-controller-manager's.
      "kube-controller-manager/Update/;kube-controller-manager/Update/status;kubectl/Update/scale;kubectl-annotate/Update/;kubectl-create/Update/;kubectl-label/Update/;kubectl-rollout/Update/;kubectl-set/Update/;",
    );
  });

  it("leaves what pod admission sets unowned: the creator owns what it sent and what defaulting filled", async () => {
    const t = terminal(3);
    await t("kubectl run nginx --image=nginx");
    const owned = await t("kubectl get pod nginx -o jsonpath='{.metadata.managedFields[0].fieldsV1.f:spec}'");
    for (const f of ["f:dnsPolicy", "f:enableServiceLinks", "f:restartPolicy", "f:schedulerName", "f:terminationGracePeriodSeconds"]) expect(owned).toContain(`"${f}"`);
    // The ServiceAccount, DefaultTolerationSeconds and Priority plugins run after the managers are recorded.
    for (const f of ["f:serviceAccountName", "f:serviceAccount", "f:tolerations", "f:priority", "f:preemptionPolicy"]) expect(owned).not.toContain(`"${f}"`);
    expect(await t("kubectl get pod nginx -o jsonpath='{.spec.serviceAccountName} {.spec.priority} {.spec.tolerations[0].key}'")).toBe("default 0 node.kubernetes.io/not-ready");
    // Sent, they are the creator's.
    await t(`kubectl run sa --image=redis --overrides='{"spec":{"serviceAccountName":"default"}}'`);
    expect(await t("kubectl get pod sa -o jsonpath='{.metadata.managedFields[0].fieldsV1.f:spec}'")).toContain('"f:serviceAccountName"');
  });
});

describe("field managers of the cluster's own components", () => {
  it("records kube-controller-manager and kubelet as a kubeadm cluster does after a rollout", async () => {
    const t = terminal(3);
    await t("kubectl create deployment web --image=nginx");
    await t("kubectl rollout status deploy/web");
    type Obj = { metadata: { uid: string; managedFields: unknown }; status: { hostIP?: string; podIP?: string; conditions?: { type: string; lastTransitionTime: string }[] } };
    const get = async (what: string) => JSON.parse(await t(`kubectl get ${what} -o json --show-managed-fields`)) as { items: Obj[] };
    const [d] = (await get("deploy")).items;
    const [rs] = (await get("rs")).items;
    const [pod] = (await get("pod")).items;
    const available = d.status.conditions!.find((c) => c.type === "Available")!.lastTransitionTime;
    const text = readFileSync(new URL("./testdata/create-deployment-managers.yaml", import.meta.url), "utf8")
      .replaceAll("AVAILABLE", JSON.stringify(available))
      .replaceAll("DEPLOYMENT-UID", d.metadata.uid)
      .replaceAll("REPLICASET-UID", rs.metadata.uid)
      .replaceAll("HOST-IP", pod.status.hostIP!)
      .replaceAll("POD-IP", pod.status.podIP!);
    const want = parse(text) as Record<string, unknown>;
    expect(d.metadata.managedFields).toEqual(want.deployment);
    expect(rs.metadata.managedFields).toEqual(want.replicaset);
    expect(pod.metadata.managedFields).toEqual(want.pod);
  });
});
