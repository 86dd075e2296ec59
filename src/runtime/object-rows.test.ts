// Persisted rows of objects: the default RBAC objects name their shared definitions.
import { describe, expect, it } from "vitest";
import { lookupResource } from "../engine/api/resources.js";
import { Cluster } from "../engine/cluster.js";
import { decodeObjectRow, encodeObjectRow } from "./object-rows.js";

const CR = lookupResource("rbac.authorization.k8s.io", "clusterroles")!;
const RB = lookupResource("rbac.authorization.k8s.io", "rolebindings")!;
const get = (c: Cluster, r: string, ns: string | undefined, n: string) => c.store.get(`${r}.rbac.authorization.k8s.io`, ns, n)!;

describe("object rows", () => {
  it("name a default object's whole body, and a restored cluster shares it again, its fields in the same order", () => {
    const c = Cluster.create();
    for (const o of [get(c, "clusterroles", undefined, "view"), get(c, "rolebindings", "kube-system", "kube-proxy"), get(c, "clusterrolebindings", undefined, "system:node")]) {
      const row = encodeObjectRow(o);
      expect(row).toMatch(/^@(ClusterRole|RoleBinding|ClusterRoleBinding)\/(kube-system)?\/[^\n]+\n\{"uid":"[-0-9a-f]+","creationTimestamp":"[^"]+","resourceVersion":"\d+"\}$/);
      const back = decodeObjectRow(row);
      expect(JSON.stringify(back)).toBe(JSON.stringify(o));
      const shared = (x: unknown) => (x as { rules?: unknown; roleRef?: unknown }).rules ?? (x as { roleRef?: unknown }).roleRef;
      expect(shared(back)).toBe(shared(o));
    }
    const cm = c.store.get("configmaps", "kube-system", "coredns")!;
    expect(encodeObjectRow(cm)).toBe(JSON.stringify(cm));
  });

  it("write a default object changed since as its JSON", () => {
    const c = Cluster.create();
    c.client.patch(CR, undefined, "view", "merge", { metadata: { labels: { x: "y" } } });
    c.client.patch(RB, "kube-system", "kube-proxy", "merge", { metadata: { labels: { x: "y" } } });
    for (const o of [get(c, "clusterroles", undefined, "view"), get(c, "rolebindings", "kube-system", "kube-proxy")]) {
      expect(encodeObjectRow(o)).toBe(JSON.stringify(o));
      expect(decodeObjectRow(JSON.stringify(o))).toEqual(o);
    }
    expect(encodeObjectRow(get(c, "clusterroles", undefined, "edit")).startsWith("@ClusterRole//edit\n")).toBe(true);
  });
});
