import { describe, expect, it } from "vitest";
import { applyPatch, MAX_JSON_PATCH_OPERATIONS, patchTypeForContentType } from "./index.js";
import { deepFreeze, statusOf } from "./testutil.js";

const svc = () =>
  deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default" },
    spec: { type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }], sessionAffinity: "None" },
  });

const pool = () =>
  deepFreeze({
    apiVersion: "metallb.io/v1beta1",
    kind: "IPAddressPool",
    metadata: { name: "first-pool", namespace: "metallb-system" },
    spec: { addresses: ["192.168.1.240-192.168.1.250"] },
  });

describe("applyPatch: the three types from raw bodies", () => {
  it("strategic (kubectl patch's default) from the lab guide", () => {
    const out = applyPatch("Service", svc(), "strategic", '{"spec":{"sessionAffinity":"ClientIP"}}') as any;
    expect(out.spec.sessionAffinity).toBe("ClientIP");
  });

  it("merge: type NodePort", () => {
    const out = applyPatch("Service", svc(), "merge", '{"spec":{"type":"NodePort"}}') as any;
    expect(out.spec.type).toBe("NodePort");
  });

  it("json: replace and test", () => {
    const body = '[{"op":"test","path":"/spec/type","value":"ClusterIP"},{"op":"replace","path":"/spec/type","value":"LoadBalancer"}]';
    expect((applyPatch("Service", svc(), "json", body) as any).spec.type).toBe("LoadBalancer");
  });

  it("json and merge work on custom resources", () => {
    const out = applyPatch("IPAddressPool", pool(), "merge", { spec: { autoAssign: false } }) as any;
    expect(out.spec).toEqual({ addresses: ["192.168.1.240-192.168.1.250"], autoAssign: false });
    const out2 = applyPatch("IPAddressPool", pool(), "json", [{ op: "add", path: "/spec/addresses/-", value: "10.0.0.0/24" }]) as any;
    expect(out2.spec.addresses).toHaveLength(2);
  });

  it("a null body changes nothing (json, strategic)", () => {
    expect(applyPatch("Service", svc(), "json", "null")).toEqual(svc());
    expect(applyPatch("Service", svc(), "strategic", "null")).toEqual(svc());
  });
});

describe("applyPatch: refusals worded as the apiserver", () => {
  it("a custom resource refuses a strategic merge patch with 415", () => {
    expect(statusOf(() => applyPatch("IPAddressPool", pool(), "strategic", '{"spec":{}}'))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      reason: "UnsupportedMediaType",
      code: 415,
    });
    // the Content-Type check precedes reading the body
    expect(statusOf(() => applyPatch("IPAddressPool", pool(), "strategic", "{oops")).code).toBe(415);
  });

  it("malformed JSON is a 400 with encoding/json's text", () => {
    expect(statusOf(() => applyPatch("Service", svc(), "strategic", "{spec:1}"))).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: "invalid character 's' looking for beginning of object key string",
    });
    expect(statusOf(() => applyPatch("Service", svc(), "json", '[{"op":"add"'))).toMatchObject({
      code: 400,
      message: "error decoding patch: unexpected end of JSON input",
    });
    expect(statusOf(() => applyPatch("Service", svc(), "merge", "{'spec':1}"))).toMatchObject({
      code: 400,
      message: "error decoding patch: invalid character '\\'' looking for beginning of object key string",
    });
  });

  it("with fieldValidation=Ignore the libraries' own texts show", () => {
    const ignore = { fieldValidation: "Ignore" as const };
    expect(statusOf(() => applyPatch("Service", svc(), "merge", "{x", ignore))).toMatchObject({ code: 400, message: "Invalid JSON Patch" });
    expect(statusOf(() => applyPatch("Service", svc(), "json", '{"op":"add"}', ignore))).toMatchObject({
      code: 400,
      message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    });
    expect(statusOf(() => applyPatch("Service", svc(), "json", "[1]", ignore)).message).toBe(
      "json: cannot unmarshal number into Go value of type jsonpatch.Operation",
    );
  });

  it("bodies of the wrong shape", () => {
    expect(statusOf(() => applyPatch("Service", svc(), "json", '{"op":"add"}')).message).toBe(
      "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
    );
    expect(statusOf(() => applyPatch("Service", svc(), "json", '[{"op":"add","path":3}]')).message).toBe(
      "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string",
    );
    expect(statusOf(() => applyPatch("Service", svc(), "merge", "[1]")).message).toBe(
      "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}",
    );
    expect(statusOf(() => applyPatch("Service", svc(), "merge", "null"))).toMatchObject({ code: 400, message: "Invalid JSON Patch" });
    expect(statusOf(() => applyPatch("Service", svc(), "strategic", "[]"))).toMatchObject({
      code: 400,
      message: "json: cannot unmarshal array into Go value of type map[string]interface {}",
    });
  });

  it("a failing json patch is the generic 422", () => {
    const s = statusOf(() => applyPatch("Service", svc(), "json", '[{"op":"test","path":"/spec/type","value":"NodePort"}]'));
    expect(s).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      detail: "testing value /spec/type failed: test failed",
    });
    const missing = statusOf(() => applyPatch("Service", svc(), "json", [{ op: "replace", path: "/spec/nope/x", value: 1 }]));
    expect(missing.detail).toBe("replace operation does not apply: doc is missing path: /spec/nope/x: missing value");
  });

  it("too many operations is a 413", () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: "test", path: "/kind", value: "Service" }));
    expect(statusOf(() => applyPatch("Service", svc(), "json", ops))).toMatchObject({
      code: 413,
      message: "The allowed maximum operations in a JSON patch is 10000, got 10001",
    });
  });

  it("a patch whose result is not an object cannot be decoded (422)", () => {
    const s = statusOf(() => applyPatch("Service", svc(), "json", [{ op: "replace", path: "", value: [] }]));
    expect(s.code).toBe(422);
    expect(s.message).toContain("patch: Invalid value: \"[]\": couldn't get version/kind");
  });
});

describe("patchTypeForContentType", () => {
  it("maps the four content types for built-in kinds", () => {
    expect(patchTypeForContentType("application/strategic-merge-patch+json", "Deployment")).toBe("strategic");
    expect(patchTypeForContentType("application/merge-patch+json; charset=utf-8", "Service")).toBe("merge");
    expect(patchTypeForContentType("application/json-patch+json", "Pod")).toBe("json");
    expect(patchTypeForContentType("application/apply-patch+yaml", "Pod")).toBe("apply");
  });
  it("refuses others with the accepted list", () => {
    expect(statusOf(() => patchTypeForContentType("application/json", "Pod")).message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    );
    expect(statusOf(() => patchTypeForContentType("application/strategic-merge-patch+json", "IPAddressPool")).code).toBe(415);
  });
});
