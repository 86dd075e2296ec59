import { describe, expect, it } from "vitest";
import { jsonPatch } from "./jsonpatch.js";
import { deepFreeze, statusOf } from "./testutil.js";

const deploy = () =>
  deepFreeze({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" }, annotations: { "a/b": "1", "t~x": "2" } },
    spec: {
      replicas: 3,
      template: {
        spec: {
          containers: [
            { name: "nginx", image: "nginx:1.28", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }] },
          ],
        },
      },
    },
  });

const GENERIC = "the server rejected our request due to an error in our request";

/** The 422 and the library's text behind it. */
function failure(original: unknown, ops: unknown[]) {
  const s = statusOf(() => jsonPatch(original, ops));
  expect(s).toMatchObject({ code: 422, reason: "Invalid", message: GENERIC, status: "Failure", details: {} });
  return s.detail;
}

describe("jsonPatch: operations", () => {
  it("add / replace / remove on objects", () => {
    const out = jsonPatch(deploy(), [
      { op: "replace", path: "/spec/replicas", value: 5 },
      { op: "add", path: "/metadata/labels/tier", value: "fe" },
      { op: "remove", path: "/metadata/labels/app" },
    ]) as any;
    expect(out.spec.replicas).toBe(5);
    expect(out.metadata.labels).toEqual({ tier: "fe" });
  });

  it("add to a list: index inserts, '-' appends, -1 also appends (counts from len+1)", () => {
    const ops = (path: string, name: string) => ({ op: "add", path, value: { name, value: "x" } });
    const out = jsonPatch(deploy(), [
      ops("/spec/template/spec/containers/0/env/0", "Z"),
      ops("/spec/template/spec/containers/0/env/-", "Y"),
      ops("/spec/template/spec/containers/0/env/-1", "W"),
    ]) as any;
    expect(out.spec.template.spec.containers[0].env.map((e: any) => e.name)).toEqual(["Z", "A", "B", "Y", "W"]);
  });

  it("replaces the image of a container by index", () => {
    const out = jsonPatch(deploy(), [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx:1.29" }]) as any;
    expect(out.spec.template.spec.containers[0].image).toBe("nginx:1.29");
  });

  it("decodes ~1 and ~0 in tokens", () => {
    const out = jsonPatch(deploy(), [
      { op: "replace", path: "/metadata/annotations/a~1b", value: "9" },
      { op: "remove", path: "/metadata/annotations/t~0x" },
    ]) as any;
    expect(out.metadata.annotations).toEqual({ "a/b": "9" });
  });

  it("move and copy", () => {
    const out = jsonPatch(deploy(), [
      { op: "copy", from: "/metadata/labels", path: "/spec/selector" },
      { op: "move", from: "/metadata/annotations/a~1b", path: "/metadata/labels/moved" },
    ]) as any;
    expect(out.spec.selector).toEqual({ app: "web" });
    expect(out.metadata.labels).toEqual({ app: "web", moved: "1" });
    expect(out.metadata.annotations).toEqual({ "t~x": "2" });
    out.spec.selector.app = "changed";
    expect(out.metadata.labels.app).toBe("web"); // copy is deep
  });

  it("test passes on equal values (deep) and lets the patch continue", () => {
    const out = jsonPatch(deploy(), [
      { op: "test", path: "/spec/template/spec/containers/0/env/1", value: { value: "2", name: "B" } },
      { op: "test", path: "/metadata/missing", value: null },
      { op: "replace", path: "/spec/replicas", value: 1 },
    ]) as any;
    expect(out.spec.replicas).toBe(1);
  });

  it("replace of a missing object key adds it (v4 quirk)", () => {
    expect((jsonPatch(deploy(), [{ op: "replace", path: "/spec/paused", value: true }]) as any).spec.paused).toBe(true);
  });

  it("add without value stores null", () => {
    expect((jsonPatch({ a: {} }, [{ op: "add", path: "/a/b" }]) as any).a).toEqual({ b: null });
  });

  it("replace of the whole document", () => {
    expect(jsonPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({ b: 2 });
    expect(jsonPatch({ a: 1 }, [{ op: "replace", path: "", value: 3 }])).toEqual({ a: 1 });
  });

  it("never mutates deep-frozen inputs", () => {
    const ops = deepFreeze([
      { op: "add", path: "/spec/template/spec/containers/0/env/-", value: { name: "C" } },
      { op: "remove", path: "/metadata/labels/app" },
      { op: "move", from: "/spec/replicas", path: "/spec/r" },
    ]);
    expect(() => jsonPatch(deploy(), ops)).not.toThrow();
  });
});

describe("jsonPatch: failures (422, library text in detail)", () => {
  it("a failing test op", () => {
    expect(failure(deploy(), [{ op: "test", path: "/spec/replicas", value: 2 }, { op: "replace", path: "/spec/replicas", value: 9 }])).toBe(
      "testing value /spec/replicas failed: test failed",
    );
    expect(failure(deploy(), [{ op: "test", path: "/metadata/nope", value: "x" }])).toBe("testing value /metadata/nope failed: test failed");
    expect(failure(deploy(), [{ op: "test", path: "/spec/replicas" }])).toBe("testing value /spec/replicas failed: test failed");
  });

  it("a path that does not exist", () => {
    expect(failure(deploy(), [{ op: "add", path: "/spec/nope/x", value: 1 }])).toBe(
      'add operation does not apply: doc is missing path: "/spec/nope/x": missing value',
    );
    expect(failure(deploy(), [{ op: "remove", path: "/metadata/labels/nope" }])).toBe(
      "error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
    );
    expect(failure(deploy(), [{ op: "remove", path: "/nope/x" }])).toBe(
      'remove operation does not apply: doc is missing path: "/nope/x": missing value',
    );
    expect(failure(deploy(), [{ op: "replace", path: "/spec/nope/x", value: 1 }])).toBe(
      "replace operation does not apply: doc is missing path: /spec/nope/x: missing value",
    );
    expect(failure(deploy(), [{ op: "test", path: "/spec/nope/x", value: 1 }])).toBe(
      "test operation does not apply: is missing path: /spec/nope/x: missing value",
    );
    expect(failure(deploy(), [{ op: "move", from: "/nope/a", path: "/b" }])).toBe(
      "move operation does not apply: doc is missing from path: /nope/a: missing value",
    );
    expect(failure(deploy(), [{ op: "copy", from: "/metadata", path: "/nope/a" }])).toBe(
      "copy operation does not apply: doc is missing destination path: /nope/a: missing value",
    );
  });

  it("array indices", () => {
    const env = "/spec/template/spec/containers/0/env";
    expect(failure(deploy(), [{ op: "add", path: `${env}/5`, value: {} }])).toBe(
      `error in add for path: '${env}/5': Unable to access invalid index: 5: invalid index referenced`,
    );
    expect(failure(deploy(), [{ op: "add", path: `${env}/x`, value: {} }])).toBe(
      `error in add for path: '${env}/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    );
    expect(failure(deploy(), [{ op: "remove", path: `${env}/2` }])).toBe(
      `error in remove for path: '${env}/2': Unable to access invalid index: 2: invalid index referenced`,
    );
    expect(failure(deploy(), [{ op: "remove", path: `${env}/-` }])).toBe(
      `error in remove for path: '${env}/-': strconv.Atoi: parsing "-": invalid syntax`,
    );
    expect(failure(deploy(), [{ op: "replace", path: `${env}/7`, value: {} }])).toBe(
      `replace operation does not apply: doc is missing key: ${env}/7: missing value`,
    );
    expect(failure(deploy(), [{ op: "add", path: "/spec/template/spec/containers/3/image", value: "x" }])).toBe(
      'add operation does not apply: doc is missing path: "/spec/template/spec/containers/3/image": missing value',
    );
  });

  it("malformed operations", () => {
    expect(failure(deploy(), [{ op: "frobnicate", path: "/a" }])).toBe("Unexpected kind: frobnicate");
    expect(failure(deploy(), [{ path: "/a" }])).toBe("Unexpected kind: unknown");
    expect(failure(deploy(), [{ op: "add", value: 1 }])).toBe("add operation failed to decode path: missing value");
    expect(failure(deploy(), [{ op: "replace", value: 1 }])).toBe(
      "replace operation failed to decode path: operation missing path field: missing value",
    );
    expect(failure(deploy(), [{ op: "move", path: "/a" }])).toBe(
      "move operation failed to decode from: operation, missing from field: missing value",
    );
    expect(failure(deploy(), [{ op: "add", path: "", value: 1 }])).toBe(
      'add operation does not apply: doc is missing path: "": missing value',
    );
  });

  it("a failed operation leaves no partial result and the original untouched", () => {
    const d = deploy();
    failure(d, [{ op: "replace", path: "/spec/replicas", value: 9 }, { op: "remove", path: "/nope" }]);
    expect(d.spec.replicas).toBe(3);
  });
});
