// Persisted rows of objects: the default roles' shared rules named, not written out.
import { describe, expect, it } from "vitest";
import { lookupResource } from "../engine/api/resources.js";
import { Cluster } from "../engine/cluster.js";
import { decodeObjectRow, encodeObjectRow } from "./object-rows.js";

describe("object rows", () => {
  it("name the default policy's rules, and a restored cluster shares them again with the same fields in the same order", () => {
    const c = Cluster.create();
    const view = c.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view")!;
    const row = encodeObjectRow(view);
    expect(row.startsWith("=ClusterRole//view\n{")).toBe(true);
    expect(row.length).toBeLessThan(JSON.stringify(view).length / 2);
    const back = decodeObjectRow(row);
    expect(JSON.stringify(back)).toBe(JSON.stringify(view));
    expect((back as unknown as { rules: unknown }).rules).toBe((view as unknown as { rules: unknown }).rules);
    // Any other object, or a role written since (its rules its own), is its JSON.
    const cm = c.store.get("configmaps", "kube-system", "coredns")!;
    expect(encodeObjectRow(cm)).toBe(JSON.stringify(cm));
    c.client.patch(lookupResource("rbac.authorization.k8s.io", "clusterroles")!, undefined, "view", "merge", { rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    const changed = c.store.get("clusterroles.rbac.authorization.k8s.io", undefined, "view")!;
    expect(encodeObjectRow(changed)).toBe(JSON.stringify(changed));
    expect(decodeObjectRow(JSON.stringify(changed))).toEqual(changed);
  });
});
