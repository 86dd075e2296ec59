import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Deployment, ReplicaSet } from "../api/types.js";
import type { Cluster } from "../cluster.js";
import { deployment, deploymentBody, podsOf, testCluster, waitRollout } from "../testing.js";
import { appendRevisionHistory } from "./deployment.js";
import { isPodAvailable, isPodReady } from "./util.js";

function events(c: Cluster, reason: string): string[] {
  return c.client
    .list(R.events, "default")
    .items.filter((e) => e.reason === reason)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
    .map((e) => e.message as string);
}

/** Steps the clock timer by timer, checking the rolling-update bounds at every instant. */
function rollChecked(c: Cluster, name: string, replicas: number, maxSurge: number, maxUnavailable: number): void {
  for (let i = 0; i < 10_000; i++) {
    const pods = podsOf(c, "default", `app=${name}`).filter((p) => !p.metadata.deletionTimestamp);
    const available = pods.filter((p) => isPodAvailable(p, 0, c.now())).length;
    expect(pods.length).toBeLessThanOrEqual(replicas + maxSurge);
    expect(available).toBeGreaterThanOrEqual(replicas - maxUnavailable);
    const d = deployment(c, "default", name);
    if (d.status?.updatedReplicas === replicas && d.status?.availableReplicas === replicas && d.status?.replicas === replicas) return;
    const next = c.manager.nextTimer();
    if (next === undefined) throw new Error("rollout stalled");
    c.advanceTo(next);
  }
  throw new Error("rollout did not finish");
}

describe("Deployment controller", () => {
  it("creates a ReplicaSet named by the template hash, with revision and replica annotations", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "httpd", 3));
    waitRollout(c, "default", "web");
    const [rs] = c.client.list(R.replicasets, "default").items as ReplicaSet[];
    const hash = rs.metadata.labels!["pod-template-hash"];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.annotations).toEqual({
      "deployment.kubernetes.io/desired-replicas": "3",
      "deployment.kubernetes.io/max-replicas": "4",
      "deployment.kubernetes.io/revision": "1",
    });
    expect(rs.spec.selector).toEqual({ matchLabels: { app: "web", "pod-template-hash": hash } });
    for (const p of podsOf(c, "default")) expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    const d = deployment(c, "default", "web");
    expect(d.metadata.annotations).toEqual({ "deployment.kubernetes.io/revision": "1" });
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(d.status!.conditions!.map((x) => `${x.type}=${x.status}/${x.reason}`)).toEqual([
      "Available=True/MinimumReplicasAvailable",
      "Progressing=True/NewReplicaSetAvailable",
    ]);
    expect(events(c, "ScalingReplicaSet")).toEqual([`Scaled up replica set web-${hash} from 0 to 3`]);
  });

  it("rolls within maxSurge 25% / maxUnavailable 25% and keeps revision history", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.28", 8));
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } } } });
    rollChecked(c, "web", 8, 2, 2);
    const rss = (c.client.list(R.replicasets, "default").items as ReplicaSet[]).sort((a, b) => Number(a.metadata.annotations!["deployment.kubernetes.io/revision"]) - Number(b.metadata.annotations!["deployment.kubernetes.io/revision"]));
    expect(rss.map((r) => r.spec.replicas)).toEqual([0, 8]);
    expect(podsOf(c, "default").every((p) => p.spec.containers[0].image === "nginx:1.29" || p.metadata.deletionTimestamp)).toBe(true);
    // Rolling back to the first template reuses its ReplicaSet with a new revision.
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.28" }] } } } });
    rollChecked(c, "web", 8, 2, 2);
    const back = c.client.get(R.replicasets, "default", rss[0].metadata.name!) as ReplicaSet;
    expect(back.spec.replicas).toBe(8);
    expect(back.metadata.annotations!["deployment.kubernetes.io/revision"]).toBe("3");
    expect(back.metadata.annotations!["deployment.kubernetes.io/revision-history"]).toBe("1");
    expect(deployment(c, "default", "web").metadata.annotations!["deployment.kubernetes.io/revision"]).toBe("3");
  });

  it("rolls one at a time with maxSurge 0, maxUnavailable 1", () => {
    const c = testCluster();
    const body = deploymentBody("web", "httpd:2.4.57", 4) as Deployment;
    body.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
    c.client.create(R.deployments, "default", body);
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "httpd", image: "httpd:2.4.58" }] } } } });
    rollChecked(c, "web", 4, 0, 1);
  });

  it("recreates: old pods gone before new ones start", () => {
    const c = testCluster();
    const body = deploymentBody("web", "httpd:2.4.57", 3) as Deployment;
    body.spec.strategy = { type: "Recreate" };
    c.client.create(R.deployments, "default", body);
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "httpd", image: "httpd:2.4.58" }] } } } });
    for (let i = 0; i < 1000; i++) {
      const pods = podsOf(c, "default");
      const images = new Set(pods.map((p) => p.spec.containers[0].image));
      expect(images.size).toBeLessThanOrEqual(1);
      const d = deployment(c, "default", "web");
      if (d.status?.updatedReplicas === 3 && d.status?.availableReplicas === 3 && d.status.replicas === 3) break;
      c.advanceTo(c.manager.nextTimer()!);
    }
    expect(podsOf(c, "default").map((p) => p.spec.containers[0].image)).toEqual(["httpd:2.4.58", "httpd:2.4.58", "httpd:2.4.58"]);
  });

  it("scales proportionally in the middle of a rollout", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.28", 10));
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } } } });
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 20 } });
    const total = (c.client.list(R.replicasets, "default").items as ReplicaSet[]).reduce((s, r) => s + (r.spec.replicas ?? 0), 0);
    expect(total).toBe(25); // 20 + maxSurge 25% of 20
    waitRollout(c, "default", "web");
    expect(podsOf(c, "default").filter((p) => !p.metadata.deletionTimestamp && isPodReady(p))).toHaveLength(20);
  });

  it("keeps revisionHistoryLimit old ReplicaSets", () => {
    const c = testCluster();
    const body = deploymentBody("web", "nginx:1.0", 1) as Deployment;
    body.spec.revisionHistoryLimit = 2;
    c.client.create(R.deployments, "default", body);
    waitRollout(c, "default", "web");
    for (let i = 1; i <= 4; i++) {
      c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: `nginx:1.${i}` }] } } } });
      waitRollout(c, "default", "web");
      c.advance(5_000);
    }
    const revisions = c.client.list(R.replicasets, "default").items.map((r) => r.metadata.annotations!["deployment.kubernetes.io/revision"]).sort();
    expect(revisions).toEqual(["3", "4", "5"]);
  });
});

describe("ReplicaSet controller", () => {
  it("replaces a deleted pod and removes extra ones newest first", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "httpd", 3));
    waitRollout(c, "default", "web");
    const [victim] = podsOf(c, "default");
    c.client.delete(R.pods, "default", victim.metadata.name!);
    expect(podsOf(c, "default").filter((p) => !p.metadata.deletionTimestamp)).toHaveLength(3);
    waitRollout(c, "default", "web");
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 1 } });
    const left = podsOf(c, "default").filter((p) => !p.metadata.deletionTimestamp);
    expect(left).toHaveLength(1);
    expect(left[0].metadata.name).not.toBe(victim.metadata.name);
  });
});

describe("revision-history", () => {
  it("appends the revision a rolled-back ReplicaSet had, dropping the oldest past 2000 characters", () => {
    expect(appendRevisionHistory(undefined, "1")).toBe("1");
    expect(appendRevisionHistory("1", "3")).toBe("1,3");
    const long = Array.from({ length: 400 }, (_, i) => String(1000 + i)).join(","); // 1999 characters
    expect(long.length).toBe(1999);
    const next = appendRevisionHistory(long, "2000")!;
    expect(next.length).toBeLessThanOrEqual(2000);
    expect(next.startsWith("1001,")).toBe(true);
    expect(next.endsWith(",1399,2000")).toBe(true);
    expect(appendRevisionHistory("1", "9".repeat(2001))).toBeUndefined();
  });
});

describe("rollback through kubectl's patch", () => {
  it("finds the old ReplicaSet when the template comes back with creationTimestamp: null, as kubectl rollout undo sends it", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.27", 1));
    waitRollout(c, "default", "web");
    const first = (c.client.list(R.replicasets, "default").items as ReplicaSet[])[0];
    c.client.patch(R.deployments, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.28" }] } } } });
    waitRollout(c, "default", "web");
    const template = JSON.parse(JSON.stringify(first.spec.template));
    delete template.metadata.labels["pod-template-hash"];
    template.metadata.creationTimestamp = null;
    c.client.patch(R.deployments, "default", "web", "json", [{ op: "replace", path: "/spec/template", value: template }]);
    waitRollout(c, "default", "web");
    const rss = c.client.list(R.replicasets, "default").items as ReplicaSet[];
    expect(rss.length).toBe(2);
    const back = c.client.get(R.replicasets, "default", first.metadata.name!) as ReplicaSet;
    expect(back.spec.replicas).toBe(1);
    expect(back.metadata.annotations).toMatchObject({ "deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1" });
  });
});

