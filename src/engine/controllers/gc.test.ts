// The garbage collector's deletion policies end to end: a foreground deletion completes (the
// dependents go first, then the owner's foregroundDeletion finalizer), an orphaning one leaves
// the dependents without the owner reference.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import { deploymentBody, podsOf, testCluster, waitRollout } from "../testing.js";

describe("garbage collector", () => {
  it("completes a foreground deletion: pods, then the ReplicaSet, then the Deployment", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 2));
    waitRollout(c, "default", "web");
    c.client.delete(R.deployments, "default", "web", { propagationPolicy: "Foreground" });
    const d = c.api.peek(R.deployments, "default", "web");
    expect(d?.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(d?.metadata.deletionTimestamp).toBeDefined();
    c.advance(60_000);
    expect(podsOf(c, "default")).toEqual([]);
    expect(c.api.list(R.replicasets, "default").items).toEqual([]);
    expect(c.api.peek(R.deployments, "default", "web")).toBeUndefined();
  });

  it("orphans the dependents on an Orphan deletion", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1));
    waitRollout(c, "default", "web");
    c.client.delete(R.deployments, "default", "web", { propagationPolicy: "Orphan" });
    c.advance(1000);
    expect(c.api.peek(R.deployments, "default", "web")).toBeUndefined();
    const rs = c.api.list(R.replicasets, "default").items;
    expect(rs.length).toBe(1);
    expect(rs[0].metadata.ownerReferences).toBeUndefined();
  });
});
