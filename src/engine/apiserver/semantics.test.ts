// API semantics kubectl's own test/cmd relies on: unconditional updates, Secret stringData.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import { StatusError } from "../api/status.js";
import { testCluster } from "../testing.js";

describe("update preconditions", () => {
  it('takes resourceVersion "0" (and none) as unconditional, any other stale one as a conflict', () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", { metadata: { name: "c" }, data: { a: "1" } });
    c.client.update(R.configmaps, "default", "c", { metadata: { name: "c" }, data: { a: "2" } });
    const o = c.client.update(R.configmaps, "default", "c", { metadata: { name: "c", resourceVersion: "0" }, data: { a: "3" } });
    expect(o.data).toEqual({ a: "3" });
    let err: unknown;
    try {
      c.client.update(R.configmaps, "default", "c", { metadata: { name: "c", resourceVersion: "1" }, data: { a: "4" } });
    } catch (e) {
      err = e;
    }
    expect((err as StatusError).status.code).toBe(409);
  });
});

describe("Secret", () => {
  it("merges stringData into data (base64, its values winning) and never stores it", () => {
    const c = testCluster();
    const s = c.client.create(R.secrets, "default", { metadata: { name: "s" }, data: { b: "eA==", a: "eQ==" }, stringData: { a: "héllo" } });
    expect(s.data).toEqual({ a: btoa("h\u00c3\u00a9llo"), b: "eA==" });
    expect(Object.keys(s.data as object)).toEqual(["a", "b"]);
    expect(s.stringData).toBeUndefined();
    expect(s.type).toBe("Opaque");
    const p = c.client.patch(R.secrets, "default", "s", "merge", '{"stringData":{"c":"z"}}');
    expect((p.data as Record<string, string>).c).toBe("eg==");
    expect(p.stringData).toBeUndefined();
  });
});
