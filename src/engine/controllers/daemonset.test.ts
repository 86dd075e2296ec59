import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { ControllerRevision, DaemonSet, KObject, Pod } from "../api/types.js";
import { addNode, eventsOf, type Harness, newHarness, runPods } from "./testdata/harness.js";
import { computeDaemonSetHash, DaemonSetController, daemonPodTolerations, nodeShouldRunDaemonPod } from "./daemonset.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Compares with testdata/<name>.json; writes it when missing or when UPDATE_GOLDEN is set. */
function golden(name: string, value: unknown): void {
  const file = join(here, "testdata", `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN || (!existsSync(file) && process.env.CI !== "true")) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(file, "utf8")));
}

function kubeProxy(): KObject {
  return {
    metadata: { name: "kube-proxy", labels: { "k8s-app": "kube-proxy" } },
    spec: {
      selector: { matchLabels: { "k8s-app": "kube-proxy" } },
      template: {
        metadata: { labels: { "k8s-app": "kube-proxy" } },
        spec: {
          containers: [{ name: "kube-proxy", image: "registry.k8s.io/kube-proxy:v1.33.5", imagePullPolicy: "IfNotPresent" }],
          hostNetwork: true,
          nodeSelector: { "kubernetes.io/os": "linux" },
          priorityClassName: "system-node-critical",
          serviceAccountName: "kube-proxy",
          tolerations: [{ operator: "Exists" }],
        },
      },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    },
  };
}

function setup(): Harness {
  return newHarness((ctx) => [new DaemonSetController(ctx)]);
}

const ds = (h: Harness, ns = "kube-system", name = "kube-proxy") => h.api.get(R.daemonsets, ns, name) as DaemonSet;
const podsOf = (h: Harness, ns = "kube-system") => h.pods(ns).filter((p) => !p.metadata.deletionTimestamp);
const nodeOf = (p: Pod) =>
  (p.spec.affinity as { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: { matchFields: { values: string[] }[] }[] } } }).nodeAffinity
    .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];

describe("DaemonSetController", () => {
  it("runs kube-proxy on all three nodes, the tainted control plane included", () => {
    const h = setup();
    h.api.create(R.daemonsets, "kube-system", kubeProxy());
    h.settle();
    const pods = h.pods("kube-system");
    expect(pods.map(nodeOf).sort()).toEqual(["master", "node1", "node2"]);
    const d = ds(h);
    const rev = h.api.list(R.controllerrevisions, "kube-system").items as ControllerRevision[];
    expect(rev).toHaveLength(1);
    const hash = computeDaemonSetHash(d.spec.template, undefined);
    expect(rev[0].metadata.name).toBe(`kube-proxy-${hash}`);
    expect(rev[0].revision).toBe(1);
    expect(rev[0].metadata.labels).toEqual({ "controller-revision-hash": hash, "k8s-app": "kube-proxy" });
    for (const p of pods) {
      expect(p.metadata.name).toMatch(/^kube-proxy-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.metadata.generateName).toBe("kube-proxy-");
      expect(p.metadata.labels).toEqual({ "controller-revision-hash": hash, "k8s-app": "kube-proxy", "pod-template-generation": "1" });
      expect(p.metadata.ownerReferences).toEqual([
        { apiVersion: "apps/v1", kind: "DaemonSet", name: "kube-proxy", uid: d.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
      // The template's catch-all toleration comes first; the controller's follow in its order.
      expect(p.spec.tolerations).toEqual([
        { operator: "Exists" },
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
        { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
        { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
        { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
        { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
        { key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" },
      ]);
      expect(p.spec.affinity).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [nodeOf(p)] }] }],
          },
        },
      });
      expect(p.spec.nodeName).toBeUndefined();
    }
    expect(d.status).toEqual({ currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 0, observedGeneration: 1, updatedNumberScheduled: 3, numberUnavailable: 3 });

    runPods(h);
    expect(ds(h).status).toEqual({ currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, observedGeneration: 1, updatedNumberScheduled: 3, numberAvailable: 3 });
    const evs = eventsOf(h, "kube-system");
    expect(evs).toHaveLength(3);
    expect(evs.map((e) => e.message).sort()).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
    for (const e of evs) expect(e).toMatchObject({ reason: "SuccessfulCreate", type: "Normal", component: "daemonset-controller", object: "DaemonSet/kube-proxy", count: 1 });
    golden("daemonset-kube-proxy", { daemonset: ds(h), revisions: h.api.list(R.controllerrevisions, "kube-system").items, pods: h.pods("kube-system") });
  });

  it("skips the tainted master without the catch-all toleration, and follows nodeSelector and node label changes", () => {
    const h = setup();
    const body = kubeProxy() as KObject & { spec: { template: { spec: Record<string, unknown> } } };
    body.metadata.name = "agent";
    body.spec.template.spec.tolerations = [];
    body.spec.template.spec.hostNetwork = false;
    h.api.create(R.daemonsets, "default", body);
    h.settle();
    expect(podsOf(h, "default").map(nodeOf).sort()).toEqual(["node1", "node2"]);
    expect(podsOf(h, "default")[0].spec.tolerations?.map((t) => t.key)).not.toContain("node.kubernetes.io/network-unavailable");

    // nodeSelector disk=ssd: only node2 once labelled; node1's pod goes away.
    const d = ds(h, "default", "agent");
    h.api.update(R.daemonsets, "default", "agent", { ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, nodeSelector: { disk: "ssd" } } } } });
    h.settle();
    runPods(h);
    expect(podsOf(h, "default")).toHaveLength(0);
    expect(ds(h, "default", "agent").status).toMatchObject({ desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0 });
    h.api.patch(R.nodes, undefined, "node2", "merge", { metadata: { labels: { disk: "ssd" } } });
    h.settle();
    expect(podsOf(h, "default").map(nodeOf)).toEqual(["node2"]);
    expect(podsOf(h, "default")[0].metadata.labels?.["pod-template-generation"]).toBe("2");
    // A new node that matches gets a pod too.
    addNode(h.api, h.clock, "node3", "10.1.8.33", false, { disk: "ssd" });
    h.settle();
    expect(podsOf(h, "default").map(nodeOf).sort()).toEqual(["node2", "node3"]);
    // The label goes: the pod is misscheduled until deleted, then gone.
    h.api.patch(R.nodes, undefined, "node3", "merge", { metadata: { labels: { disk: null } } });
    h.settle();
    expect(podsOf(h, "default").map(nodeOf)).toEqual(["node2"]);
    expect(eventsOf(h, "default").filter((e) => e.reason === "SuccessfulDelete")).toHaveLength(3);
  });

  it("NodeShouldRunDaemonPod keeps a pod on a NoSchedule-tainted node it no longer fits, not on a NoExecute one", () => {
    const node = (taints: { key: string; effect: string }[]) => ({ metadata: { name: "n", labels: {} }, spec: { taints } }) as never;
    const d = { spec: { template: { spec: { containers: [] } } } } as unknown as DaemonSet;
    expect(nodeShouldRunDaemonPod(node([]), d)).toEqual([true, true]);
    expect(nodeShouldRunDaemonPod(node([{ key: "x", effect: "NoSchedule" }]), d)).toEqual([false, true]);
    expect(nodeShouldRunDaemonPod(node([{ key: "x", effect: "NoExecute" }]), d)).toEqual([false, false]);
    // The controller's own tolerations cover the node-condition taints.
    expect(nodeShouldRunDaemonPod(node([{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }]), d)).toEqual([true, true]);
    expect(nodeShouldRunDaemonPod(node([{ key: "node.kubernetes.io/network-unavailable", effect: "NoSchedule" }]), d)).toEqual([false, true]);
    expect(daemonPodTolerations({ hostNetwork: true, tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }] })[0]).toEqual({
      key: "node.kubernetes.io/not-ready",
      operator: "Exists",
      effect: "NoExecute",
    });
  });

  it("rollout restart replaces one node at a time, each new pod available before the next old one goes", () => {
    const h = setup();
    h.api.create(R.daemonsets, "kube-system", kubeProxy());
    h.settle();
    runPods(h);
    const before = new Map(podsOf(h).map((p) => [nodeOf(p), p.metadata.name!]));
    const oldHash = podsOf(h)[0].metadata.labels!["controller-revision-hash"];

    // kubectl rollout restart ds kube-proxy
    h.api.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", {
      spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z" } } } },
    });
    h.settle();
    // One old pod is terminating (master first in node order); nothing new yet: the node still has it.
    let terminating = h.pods().filter((p) => p.metadata.deletionTimestamp);
    expect(terminating.map((p) => p.metadata.name)).toEqual([before.get("master")]);
    expect(podsOf(h)).toHaveLength(2);
    // The terminating pod still counts until it is gone (its Ready condition is still True).
    expect(ds(h).status).toEqual({ currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, observedGeneration: 2, numberAvailable: 3 });

    const order: string[] = [];
    for (let step = 0; step < 3; step++) {
      // The kubelet finishes the graceful stop: the controller creates the replacement, pending.
      runPods(h, { ready: () => false });
      const fresh = podsOf(h).filter((p) => p.metadata.labels!["controller-revision-hash"] !== oldHash);
      const newest = fresh.find((p) => p.status?.phase === "Pending")!;
      order.push(nodeOf(newest));
      expect(newest.metadata.annotations).toEqual({ "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z" });
      expect(newest.metadata.labels!["pod-template-generation"]).toBe("2");
      // While it is not ready, no other old pod is touched (maxUnavailable 1).
      expect(h.pods().filter((p) => p.metadata.deletionTimestamp)).toHaveLength(0);
      runPods(h, { finishDeletes: false });
      terminating = h.pods().filter((p) => p.metadata.deletionTimestamp);
      expect(terminating.length).toBe(step < 2 ? 1 : 0);
    }
    expect(order).toEqual(["master", "node1", "node2"]);
    const revs = (h.api.list(R.controllerrevisions, "kube-system").items as ControllerRevision[]).map((r) => r.revision).sort();
    expect(revs).toEqual([1, 2]);
    expect(ds(h).status).toEqual({ currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, observedGeneration: 2, updatedNumberScheduled: 3, numberAvailable: 3 });
    const reasons = eventsOf(h, "kube-system").map((e) => e.reason);
    expect(reasons.filter((r) => r === "SuccessfulDelete")).toHaveLength(3);
    expect(reasons.filter((r) => r === "SuccessfulCreate")).toHaveLength(6);
  });

  it("honours maxUnavailable 2 and OnDelete", () => {
    const h = setup();
    const body = kubeProxy() as KObject & { spec: { updateStrategy: unknown } };
    body.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } };
    h.api.create(R.daemonsets, "kube-system", body);
    h.settle();
    runPods(h);
    h.api.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", { spec: { template: { metadata: { annotations: { a: "1" } } } } });
    h.settle();
    expect(h.pods().filter((p) => p.metadata.deletionTimestamp).map(nodeOf).sort()).toEqual(["master", "node1"]);

    runPods(h);
    h.api.patch(R.daemonsets, "kube-system", "kube-proxy", "merge", { spec: { updateStrategy: { type: "OnDelete", rollingUpdate: null }, template: { metadata: { annotations: { a: "2" } } } } });
    h.settle();
    expect(h.pods().filter((p) => p.metadata.deletionTimestamp)).toHaveLength(0);
    expect(ds(h).status).toMatchObject({ numberAvailable: 3 });
    expect(ds(h).status).not.toHaveProperty("updatedNumberScheduled");
    // Deleting a pod by hand brings it back at the new revision.
    const victim = podsOf(h).find((p) => nodeOf(p) === "node2")!;
    h.api.delete(R.pods, "kube-system", victim.metadata.name!);
    runPods(h);
    expect(ds(h).status).toMatchObject({ updatedNumberScheduled: 1, numberAvailable: 3 });
  });

  it("adopts a matching orphan, rolls it, and replaces a failed pod with a FailedDaemonPod warning", () => {
    const h = setup();
    h.api.create(R.pods, "kube-system", {
      metadata: { name: "stray", labels: { "k8s-app": "kube-proxy" } },
      spec: { nodeName: "node1", containers: [{ name: "c", image: "x" }] },
    });
    h.api.create(R.daemonsets, "kube-system", kubeProxy());
    h.settle();
    const stray = h.api.get(R.pods, "kube-system", "stray") as Pod;
    expect(stray.metadata.ownerReferences?.[0].name).toBe("kube-proxy");
    // node1 already has the orphan (now adopted): only master and node2 get new pods.
    expect(podsOf(h).filter((p) => p.metadata.name !== "stray").map(nodeOf).sort()).toEqual(["master", "node2"]);

    // The adopted pod is not of the current revision: the rolling update replaces it.
    runPods(h);
    expect(h.pods("kube-system").map((p) => p.metadata.name)).not.toContain("stray");
    expect(eventsOf(h, "kube-system").map((e) => e.message)).toContain("Deleted pod: stray");
    const p = podsOf(h).find((x) => nodeOf(x) === "node1")!;
    h.api.update(R.pods, "kube-system", p.metadata.name!, { ...p, status: { ...p.status, phase: "Failed" } }, { subresource: "status" });
    h.settle();
    const ev = eventsOf(h, "kube-system").find((e) => e.reason === "FailedDaemonPod");
    expect(ev).toEqual({
      reason: "FailedDaemonPod",
      message: `Found failed daemon pod kube-system/${p.metadata.name} on node node1, will try to kill it`,
      type: "Warning",
      component: "daemonset-controller",
      object: "DaemonSet/kube-proxy",
      count: 1,
    });
    runPods(h);
    expect(podsOf(h).map(nodeOf).sort()).toEqual(["master", "node1", "node2"]);

  });
});
