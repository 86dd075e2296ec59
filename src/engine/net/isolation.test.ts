// Two clusters in one process share no cache: what one tenant's traffic parses and remembers
// belongs to its own cluster's data plane, and the other cluster neither sees it nor routes
// differently for it.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Service } from "../api/types.js";
import type { Cluster } from "../cluster.js";
import { deploymentBody, testCluster, waitRollout } from "../testing.js";
import { dataplaneOf } from "./cluster-env.js";

function withWeb(c: Cluster): string {
  c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.27", 3));
  const svc = c.client.create(R.services, "default", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 8080, targetPort: 80 }] } }) as Service;
  waitRollout(c, "default", "web");
  return svc.spec!.clusterIP!;
}

function traffic(c: Cluster, ip: string): string[] {
  const dp = dataplaneOf(c);
  const out: string[] = [];
  for (let i = 0; i < 30; i++) {
    const r = dp.connect({ kind: "node", node: "node1" }, ip, 8080);
    out.push(`${r.verdict} ${r.pod} ${r.rules}`);
  }
  return out;
}

describe("two clusters in one process", () => {
  it("share no cache state", () => {
    const a = testCluster({ seed: 7 });
    const b = testCluster({ seed: 7 });
    expect(dataplaneOf(a)).not.toBe(dataplaneOf(b));
    expect(dataplaneOf(a).specs).not.toBe(dataplaneOf(b).specs);

    const seenByA = traffic(a, withWeb(a));
    expect(seenByA.every((l) => l.startsWith("established default/web-"))).toBe(true);
    expect(dataplaneOf(a).specs.size).toBeGreaterThan(0);
    // A's traffic filled A's caches only.
    expect(dataplaneOf(b).specs.size).toBe(0);

    // B, given the same writes, routes as A did: nothing A left behind changes B's answers.
    expect(traffic(b, withWeb(b))).toEqual(seenByA);
    expect(dataplaneOf(b).specs.size).toBe(dataplaneOf(a).specs.size);
  });
});
