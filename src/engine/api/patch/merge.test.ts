import { describe, expect, it } from "vitest";
import { mergePatch } from "./merge.js";
import { deepFreeze } from "./testutil.js";

const svc = () =>
  deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default", labels: { app: "web", tier: "frontend" } },
    spec: {
      type: "ClusterIP",
      selector: { app: "web" },
      ports: [{ name: "8080-80", port: 8080, protocol: "TCP", targetPort: 80 }],
      sessionAffinity: "None",
    },
  });

describe("mergePatch (RFC 7386 as json-patch v4 applies it)", () => {
  it("sets a scalar: kubectl patch svc web --type=merge -p sessionAffinity", () => {
    const out = mergePatch(svc(), { spec: { sessionAffinity: "ClientIP" } }) as any;
    expect(out.spec.sessionAffinity).toBe("ClientIP");
    expect(out.spec.ports).toEqual(svc().spec.ports);
  });

  it("null deletes a key, deep", () => {
    const out = mergePatch(svc(), { metadata: { labels: { tier: null } }, spec: { sessionAffinity: null } }) as any;
    expect(out.metadata.labels).toEqual({ app: "web" });
    expect("sessionAffinity" in out.spec).toBe(false);
  });

  it("null for a missing key is a no-op", () => {
    expect(mergePatch({ a: 1 }, { b: null })).toEqual({ a: 1 });
  });

  it("replaces lists wholesale", () => {
    const out = mergePatch(svc(), { spec: { ports: [{ port: 80 }] } }) as any;
    expect(out.spec.ports).toEqual([{ port: 80 }]);
  });

  it("prunes nulls from a subtree it inserts, including objects inside arrays", () => {
    expect(mergePatch({}, { a: { b: null, c: 1 }, l: [{ x: null, y: 2 }, null] })).toEqual({
      a: { c: 1 },
      l: [{ y: 2 }, null],
    });
  });

  it("replaces a scalar by an object (pruned) and an object by a scalar", () => {
    expect(mergePatch({ a: "s", b: { c: 1 } }, { a: { d: null, e: 1 }, b: 7 })).toEqual({ a: { e: 1 }, b: 7 });
  });

  it("keeps nulls inside an array that replaces an existing object (v4 quirk)", () => {
    expect(mergePatch({ a: { b: 1 } }, { a: [{ x: null }] })).toEqual({ a: [{ x: null }] });
  });

  it("an empty patch changes nothing", () => {
    expect(mergePatch(svc(), {})).toEqual(svc());
  });

  it("a non-object patch replaces the document", () => {
    expect(mergePatch({ a: 1 }, [{ b: null }])).toEqual([{}]);
  });

  it("never mutates its inputs (both deep-frozen)", () => {
    const patch = deepFreeze({ metadata: { labels: { x: "y", app: null } }, spec: { type: "NodePort" } });
    expect(() => mergePatch(svc(), patch)).not.toThrow();
  });
});
