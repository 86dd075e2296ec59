// A cordoned node carries node.kubernetes.io/unschedulable:NoSchedule with the time it was added,
// next to taints of its own, and loses it when uncordoned; new pods go elsewhere meanwhile.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Node, Pod } from "../api/types.js";
import { Cluster } from "../cluster.js";
import { rfc3339 } from "../clock.js";

const spec = (c: Cluster, name: string) => (c.client.get(R.nodes, undefined, name) as Node).spec;

describe("node lifecycle controller: the unschedulable taint", () => {
  it("follows spec.unschedulable, stamped when added, beside the node's own taints", () => {
    const c = Cluster.create({ seed: 11 });
    c.client.patch(R.nodes, undefined, "node2", "strategic", { spec: { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] } });
    c.advance(5_000);
    const at = rfc3339(c.now());
    c.client.patch(R.nodes, undefined, "node2", "strategic", { spec: { unschedulable: true } });
    expect(spec(c, "node2")?.taints).toEqual([
      { key: "dedicated", value: "db", effect: "NoSchedule" },
      { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule", timeAdded: at },
    ]);
    c.client.patch(R.nodes, undefined, "node2", "strategic", { spec: { unschedulable: null } });
    expect(spec(c, "node2")?.taints).toEqual([{ key: "dedicated", value: "db", effect: "NoSchedule" }]);
    c.client.patch(R.nodes, undefined, "node1", "strategic", { spec: { unschedulable: true } });
    c.client.patch(R.nodes, undefined, "node1", "strategic", { spec: { unschedulable: null } });
    expect(spec(c, "node1")).not.toHaveProperty("taints");
  });

  it("keeps new pods off a cordoned node while the ones there stay", () => {
    const c = Cluster.create({ seed: 11 });
    c.client.patch(R.nodes, undefined, "node1", "strategic", { spec: { unschedulable: true } });
    c.client.create(R.deployments, "default", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas: 4, selector: { matchLabels: { app: "w" } }, template: { metadata: { labels: { app: "w" } }, spec: { containers: [{ name: "w", image: "httpd" }] } } } });
    c.advance(30_000);
    const nodes = (c.client.list(R.pods, "default").items as Pod[]).map((p) => p.spec.nodeName);
    expect(nodes).toHaveLength(4);
    expect(nodes).not.toContain("node1");
    // kube-proxy, a DaemonSet pod, tolerates the taint and stays.
    expect((c.client.list(R.pods, "kube-system").items as Pod[]).some((p) => p.metadata.name?.startsWith("kube-proxy") && p.spec.nodeName === "node1")).toBe(true);
  });
});
