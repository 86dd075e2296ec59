// The host's limits as the apiserver's quota: refused before anything is stored, and the
// controllers stopping at them as the real ones stop at a ResourceQuota.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Deployment, ReplicaSet } from "../api/types.js";
import { isStatusError } from "../api/status.js";
import { Cluster } from "../cluster.js";
import { deploymentBody, testCluster } from "../testing.js";

function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("not refused");
}

function warnings(c: Cluster, reason: string): string[] {
  return c.client
    .list(R.events, "default")
    .items.filter((e) => e.reason === reason)
    .map((e) => e.message as string);
}

describe("the host's quota", () => {
  it("refuses a pod create past podsPerCluster before storing it, in the apiserver's words", () => {
    const c = testCluster();
    const pods = c.store.count("pods");
    c.setQuota({ pods: pods + 1, objects: 3000 });
    const pod = (name: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    c.client.create(R.pods, "default", pod("a"));
    const rv = c.store.revision();
    expect(refusal(() => c.client.create(R.pods, "default", pod("b")))).toEqual({
      code: 403,
      message: `pods "b" is forbidden: exceeded quota: podsPerCluster, requested: pods=1, used: pods=${pods + 1}, limited: pods=${pods + 1}`,
    });
    expect(c.store.revision()).toBe(rv);
  });

  it("refuses an object past objectsPerCluster (events not counted)", () => {
    const c = testCluster();
    c.setQuota({ pods: 300, objects: c.api.objectCount() + 1 });
    c.client.create(R.configmaps, "default", { metadata: { name: "one" } });
    expect(refusal(() => c.client.create(R.configmaps, "default", { metadata: { name: "two" } })).message).toMatch(
      /^configmaps "two" is forbidden: exceeded quota: objectsPerCluster, requested: objects=1, used: objects=\d+, limited: objects=\d+$/,
    );
  });

  it("a Deployment of 2^31-1 replicas stops at the limit with FailedCreate and ReplicaFailure, fast", () => {
    const c = testCluster();
    c.setQuota({ pods: 60, objects: 3000 });
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1));
    const before = c.store.count("pods");
    const t = performance.now();
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 2147483647 } });
    expect(performance.now() - t).toBeLessThan(2000);
    // The controller's client rate limit: the rest of its burst of 30 (one went on the first pod)
    // at once, then 20 a second (made together, once the second's tokens are due), until the
    // quota refuses the 61st pod.
    expect(c.store.count("pods")).toBe(before + 29);
    expect(warnings(c, "FailedCreate")).toEqual([]);
    c.advance(999);
    expect(c.store.count("pods")).toBe(before + 29);
    c.advance(1);
    expect(c.store.count("pods")).toBe(before + 49);
    c.advance(1000);
    expect(c.store.count("pods")).toBe(60);
    const failed = warnings(c, "FailedCreate");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^Error creating: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: podsPerCluster, requested: pods=1, used: pods=60, limited: pods=60$/);
    const [rs] = c.client.list(R.replicasets, "default").items as ReplicaSet[];
    const cond = rs.status?.conditions?.find((x) => x.type === "ReplicaFailure");
    expect(cond).toMatchObject({ status: "True", reason: "FailedCreate", message: failed[0].slice("Error creating: ".length) });
    // The Deployment carries its ReplicaSet's failure, as syncRolloutStatus moves it.
    const d = c.client.get(R.deployments, "default", "web") as Deployment;
    expect(d.status?.conditions?.find((x) => x.type === "ReplicaFailure")).toMatchObject({ status: "True", reason: "FailedCreate", message: cond!.message });
    // Retries back off (5 ms doubling): a minute brings a few more refusals, not one per pod event.
    c.advance(60_000);
    expect(c.store.count("pods")).toBe(60);
    expect(warnings(c, "FailedCreate").length).toBeLessThan(20);
    // Scaled back within the limit: the condition goes.
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 2 } });
    c.advance(120_000);
    const after = c.client.list(R.replicasets, "default").items[0] as ReplicaSet;
    expect(after.status?.conditions?.find((x) => x.type === "ReplicaFailure")).toBeUndefined();
    expect((c.client.get(R.deployments, "default", "web") as Deployment).status?.conditions?.find((x) => x.type === "ReplicaFailure")).toBeUndefined();
  });

  it("a pod deleted frees its place: the ReplicaSet backing off replaces it", () => {
    const c = testCluster();
    c.setQuota({ pods: 20, objects: 3000 });
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 50));
    c.advance(60_000);
    const mine = c.client.list(R.pods, "default").items.filter((p) => !p.metadata.deletionTimestamp);
    c.client.delete(R.pods, "default", mine[0].metadata.name!, { gracePeriodSeconds: 0 });
    c.advance(1000);
    expect(c.client.list(R.pods, "default").items.filter((p) => !p.metadata.deletionTimestamp)).toHaveLength(mine.length);
  });

  it("a StatefulSet of 2^31-1 Parallel replicas stops at the limit", () => {
    const c = testCluster();
    c.setQuota({ pods: 30, objects: 3000 });
    const labels = { app: "db" };
    c.client.create(R.statefulsets, "default", {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db" },
      spec: { replicas: 2147483647, podManagementPolicy: "Parallel", serviceName: "db", selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    expect(c.store.count("pods")).toBe(30);
    expect(warnings(c, "FailedCreate")[0]).toMatch(/^create Pod db-\d+ in StatefulSet db failed error: pods "db-\d+" is forbidden: exceeded quota: podsPerCluster/);
  });

  it("is restored with the cluster, before the controllers' first pass", () => {
    const c = testCluster();
    c.setQuota({ pods: 40, objects: 3000 });
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 2147483647));
    const restored = Cluster.restore(c.snapshot());
    expect(restored.api.quota).toEqual({ pods: 40, objects: 3000 });
    // The client rate limit's spent burst is restored too: both go on at 20 pods a second.
    expect(restored.store.count("pods")).toBe(c.store.count("pods"));
    c.advance(50);
    restored.advance(50);
    expect(restored.store.count("pods")).toBe(c.store.count("pods"));
    c.advance(1000);
    restored.advance(1000);
    expect(restored.store.count("pods")).toBe(40);
    expect(c.store.count("pods")).toBe(40);
  });
});
