// Two clusters in one process share no cache state above the data plane (see net/isolation.test.ts
// for it): the parts of pod statuses the kubelet shares among its pods, the apiserver's and the
// kubelet's timestamp texts, its image profiles and the EndpointSlice controller's port hashes
// belong to one cluster.
import { describe, expect, it } from "vitest";
import { R } from "./api/resources.js";
import type { Pod } from "./api/types.js";
import type { Cluster } from "./cluster.js";
import type { EndpointSliceController } from "./controllers/endpointslice.js";
import { deploymentBody, podsOf, testCluster, waitRollout } from "./testing.js";

function withWeb(c: Cluster): Pod[] {
  c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.27", 3));
  c.client.create(R.services, "default", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 8080, targetPort: 80 }] } });
  waitRollout(c, "default", "web");
  return podsOf(c, "default", "app=web").map((p) => c.api.peek(R.pods, "default", p.metadata.name!) as Pod);
}

function endpointSlices(c: Cluster): EndpointSliceController {
  return c.controllers.find((x) => x.name === "endpointslice") as EndpointSliceController;
}

describe("two clusters in one process", () => {
  it("share no status parts, timestamp texts or port hashes", () => {
    const a = testCluster({ seed: 7 });
    const b = testCluster({ seed: 7 });
    expect(a.kubelet.parts).not.toBe(b.kubelet.parts);
    expect(endpointSlices(a).portHashes).not.toBe(endpointSlices(b).portHashes);

    const podsA = withWeb(a);
    const podsB = withWeb(b);
    // The same writes at the same instants make the same statuses...
    expect(podsB.map((p) => p.status)).toEqual(podsA.map((p) => p.status));
    // ...within a cluster its pods share status parts (the point of the memo)...
    expect(podsA[1].status!.conditions![0]).toBe(podsA[0].status!.conditions![0]);
    // ...but no object of one cluster's pods is held by the other's.
    for (const [i, pa] of podsA.entries()) {
      const pb = podsB[i];
      pa.status!.conditions!.forEach((cond, j) => expect(pb.status!.conditions![j]).not.toBe(cond));
      expect(pb.status!.hostIPs).not.toBe(pa.status!.hostIPs);
      expect(pb.status!.containerStatuses![0].state).not.toBe(pa.status!.containerStatuses![0].state);
    }
    // What an image runs is remembered per kubelet: equal, never the same object.
    const profile = (c: Cluster) => c.kubelet["profileOf"]("nginx:1.27");
    expect(profile(b)).toEqual(profile(a));
    expect(profile(b)).not.toBe(profile(a));
    expect(profile(a)).toBe(profile(a));
  });
});
