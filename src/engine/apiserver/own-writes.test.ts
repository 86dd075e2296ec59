// The cluster's own writes in managedFields, settled when read (own-writes.ts): what each
// component owns after a rollout, a client's write on top of them, a binding that records no one,
// and a snapshot that keeps them.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { KObject } from "../api/types.js";
import { Cluster } from "../cluster.js";
import { deploymentBody, testCluster } from "../testing.js";

type Entry = { manager: string; operation: string; subresource?: string; time: string; fieldsV1: Record<string, Record<string, unknown>> };
const entries = (o: KObject) => (o.metadata.managedFields ?? []) as Entry[];
const who = (o: KObject) => entries(o).map((e) => `${e.manager}/${e.subresource ?? ""}`);

function rolledOut(): { c: Cluster; pod: () => KObject } {
  const c = testCluster();
  c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1), { fieldManager: "kubectl-create" });
  c.runUntilIdle(60_000);
  const pod = () => c.client.list(R.pods, "default").items[0];
  return { c, pod };
}

describe("the cluster's own writes in managedFields", () => {
  it("gives the pod's create to kube-controller-manager and its status to the kubelet; the binding is no one's", () => {
    const { pod } = rolledOut();
    expect(who(pod())).toEqual(["kube-controller-manager/", "kubelet/status"]);
    const [kcm, kubelet] = entries(pod());
    expect(kcm.fieldsV1["f:spec"]["f:nodeName"]).toBeUndefined();
    expect(Object.keys(kubelet.fieldsV1["f:status"]["f:conditions"] as object)).not.toContain('k:{"type":"PodScheduled"}');
    // Written by the kubelet, never changed since the create: qosClass stays no one's.
    expect(kubelet.fieldsV1["f:status"]["f:qosClass"]).toBeUndefined();
    expect(kubelet.fieldsV1["f:status"]["f:phase"]).toEqual({});
  });

  it("reads the same managedFields from every path: get, list and the stored rows", () => {
    const { c, pod } = rolledOut();
    const p = pod();
    const got = c.client.get(R.pods, "default", p.metadata.name!);
    expect(got.metadata.managedFields).toEqual(p.metadata.managedFields);
    const again = Cluster.restore(JSON.parse(JSON.stringify(c.snapshot())));
    expect(again.client.get(R.pods, "default", p.metadata.name!).metadata.managedFields).toEqual(p.metadata.managedFields);
  });

  it("a client's write lands on top of them: its own entry, and the kubelet keeps the status", () => {
    const { c, pod } = rolledOut();
    const name = pod().metadata.name!;
    c.client.patch(R.pods, "default", name, "merge", { metadata: { labels: { tier: "web" } } }, { fieldManager: "kubectl-label" });
    expect(who(pod())).toEqual(["kube-controller-manager/", "kubectl-label/", "kubelet/status"]);
    expect(entries(pod())[1].fieldsV1["f:metadata"]).toEqual({ "f:labels": { "f:tier": {} } });
    // A later status write of the kubelet's (a restart) joins its entry, which keeps its fields.
    c.advance(5_000);
    expect(who(pod())).toContain("kubelet/status");
  });

  it("a field another writer changed later leaves the earlier owner: a server-side apply takes the replicas", () => {
    const { c } = rolledOut();
    const rs = () => c.client.list(R.replicasets, "default").items[0];
    expect(who(rs())).toEqual(["kube-controller-manager/", "kube-controller-manager/status"]);
    const name = rs().metadata.name!;
    const cfg = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name }, spec: { replicas: 2 } };
    // The deployment controller owns the ReplicaSet's replicas: applying them is a conflict with it.
    expect(() => c.client.patch(R.replicasets, "default", name, "apply", JSON.stringify(cfg), { fieldManager: "me" })).toThrow(
      'Apply failed with 1 conflict: conflict with "kube-controller-manager" using apps/v1: .spec.replicas',
    );
    const applied = c.client.patch(R.replicasets, "default", name, "apply", JSON.stringify(cfg), { fieldManager: "me", force: true });
    const kcm = entries(applied).find((e) => e.manager === "kube-controller-manager" && !e.subresource)!;
    expect(kcm.fieldsV1["f:spec"]["f:replicas"]).toBeUndefined();
    expect(entries(applied).find((e) => e.manager === "me")!.fieldsV1["f:spec"]).toEqual({ "f:replicas": {} });
    // The deployment controller scales it back, and owns the replicas again.
    expect((rs().spec as { replicas: number }).replicas).toBe(1);
    expect(entries(rs()).find((e) => e.manager === "kube-controller-manager" && !e.subresource)!.fieldsV1["f:spec"]["f:replicas"]).toEqual({});
    expect(entries(rs()).find((e) => e.manager === "me")).toBeUndefined();
  });

  it("a delete's metadata is no one's, and the garbage collector's finalizer removal takes nothing", () => {
    const { c, pod } = rolledOut();
    const name = pod().metadata.name!;
    const before = entries(pod());
    c.client.delete(R.pods, "default", name, { propagationPolicy: "Foreground" });
    const terminating = c.client.get(R.pods, "default", name);
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    // The kubelet's status changes as the container stops; the create's entry stays as it was.
    expect(entries(terminating)[0]).toEqual(before[0]);
    expect(JSON.stringify(entries(terminating))).not.toContain("f:finalizers");
  });
});
