// managedFields and server-side apply through the apiserver: the entries a real apiserver
// records for kubectl's writes (FieldsV1 as kube-apiserver 1.33 encodes them), apply's merge,
// prune and conflicts with the apiserver's 409 text.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import { StatusError } from "../api/status.js";
import type { KObject } from "../api/types.js";
import { testCluster, deploymentBody } from "../testing.js";

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error("expected a StatusError");
}

const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", ...extra }, data });

describe("managedFields of Update writes", () => {
  it("records kubectl create's fields of a deployment as a real apiserver does, defaults included", () => {
    const c = testCluster();
    const d = c.client.create(R.deployments, "default", deploymentBody("web", "nginx:1.27"), { fieldManager: "kubectl-create" });
    const mf = d.metadata.managedFields as Array<Record<string, unknown>>;
    const mine = mf.find((e) => e.manager === "kubectl-create")!;
    expect(mine).toMatchObject({ manager: "kubectl-create", operation: "Update", apiVersion: "apps/v1", fieldsType: "FieldsV1" });
    expect(Object.keys(mine)).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
    const f = mine.fieldsV1 as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(f["f:metadata"]).toEqual({ "f:labels": { ".": {}, "f:app": {} } });
    expect(f["f:spec"]["f:selector"]).toEqual({});
    // A pointer struct (rollingUpdate) is added with its fields: it carries "."; strategy (a value) does not.
    expect(f["f:spec"]["f:strategy"]).toEqual({ "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} }, "f:type": {} });
    const container = f["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}'];
    expect(container["."]).toEqual({});
    expect(container["f:imagePullPolicy"]).toEqual({});
    expect(f["f:status"]).toBeUndefined();
  });

  it("moves a changed field to the manager that changed it and keeps the others' fields", () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", cm({ a: "1", b: "2" }), { fieldManager: "kubectl-create" });
    const o = c.client.patch(R.configmaps, "default", "cfg", "merge", '{"data":{"b":"3"}}', { fieldManager: "kubectl-patch" });
    const mf = o.metadata.managedFields as Array<{ manager: string; fieldsV1: unknown }>;
    expect(mf.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["kubectl-create", { "f:data": { ".": {}, "f:a": {} } }],
      ["kubectl-patch", { "f:data": { "f:b": {} } }],
    ]);
  });

  it("keeps the live entries when a write carries none, and clears them on managedFields: []", () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", cm({ a: "1" }), { fieldManager: "kubectl-create" });
    const kept = c.client.update(R.configmaps, "default", "cfg", cm({ a: "1" }), { fieldManager: "kubectl-replace" });
    expect((kept.metadata.managedFields as unknown[]).length).toBe(1);
    const cleared = c.client.update(R.configmaps, "default", "cfg", cm({ a: "1" }, { managedFields: [] }), { fieldManager: "x" });
    expect(cleared.metadata.managedFields).toBeUndefined();
  });
});

describe("server-side apply", () => {
  it("creates, owns exactly its fields, and prunes what it stops applying", () => {
    const c = testCluster();
    const body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: '1'\n  b: '2'\n";
    const o = c.client.patch(R.configmaps, "default", "cfg", "apply", body, { fieldManager: "kubectl" });
    expect(o.data).toEqual({ a: "1", b: "2" });
    expect(o.metadata.managedFields).toEqual([
      { manager: "kubectl", operation: "Apply", apiVersion: "v1", time: expect.any(String), fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } } },
    ]);
    c.client.patch(R.configmaps, "default", "cfg", "merge", '{"data":{"c":"3"}}', { fieldManager: "kubectl-patch" });
    const after = c.client.patch(R.configmaps, "default", "cfg", "apply", body.replace("  b: '2'\n", ""), { fieldManager: "kubectl" });
    expect(after.data).toEqual({ a: "1", c: "3" });
  });

  it("refuses to change another manager's field with the apiserver's 409, and takes it with force", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1), { fieldManager: "kubectl-client-side-apply" });
    const cfg = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } };
    const e = statusOf(() => c.client.patch(R.deployments, "default", "web", "apply", JSON.stringify(cfg), { fieldManager: "kubectl" }));
    expect(e.status.code).toBe(409);
    expect(e.status.reason).toBe("Conflict");
    expect(e.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
    expect(e.status.details?.causes).toEqual([{ reason: "FieldManagerConflict", message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: ".spec.replicas" }]);
    const forced = c.client.patch(R.deployments, "default", "web", "apply", JSON.stringify(cfg), { fieldManager: "kubectl", force: true }) as KObject & { spec: { replicas: number } };
    expect(forced.spec.replicas).toBe(3);
    const owners = (forced.metadata.managedFields as Array<{ manager: string; fieldsV1: Record<string, any> }>).map((m) => [m.manager, !!m.fieldsV1["f:spec"]?.["f:replicas"]]); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(owners).toEqual([
      ["kubectl", true],
      // The deployment controller's revision annotation and its status.
      ["kube-controller-manager", false],
      ["kube-controller-manager", false],
      ["kubectl-client-side-apply", false],
    ]);
  });

  it("lists several conflicts grouped by manager", () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", cm({ a: "1", b: "2" }), { fieldManager: "kubectl-create" });
    const e = statusOf(() => c.client.patch(R.configmaps, "default", "cfg", "apply", JSON.stringify(cm({ a: "x", b: "y" })), { fieldManager: "mine" }));
    expect(e.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b');
  });

  it("shares a field set to the same value without a conflict", () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", cm({ a: "1" }), { fieldManager: "kubectl-create" });
    const o = c.client.patch(R.configmaps, "default", "cfg", "apply", JSON.stringify(cm({ a: "1" })), { fieldManager: "mine" });
    expect((o.metadata.managedFields as unknown[]).length).toBe(2);
  });

  it("merges keyed lists item by item", () => {
    const c = testCluster();
    c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1), { fieldManager: "kubectl-create" });
    const cfg = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "side", image: "busybox" }] } } },
    };
    const o = c.client.patch(R.deployments, "default", "web", "apply", JSON.stringify(cfg), { fieldManager: "mine" }) as KObject & { spec: { template: { spec: { containers: { name: string }[] } } } };
    expect(o.spec.template.spec.containers.map((x) => x.name)).toEqual(["nginx", "side"]);
  });

  it("refuses bad apply bodies with a 400 Status", () => {
    const c = testCluster();
    const bad = (body: string) => statusOf(() => c.client.patch(R.configmaps, "default", "cfg", "apply", body, { fieldManager: "m" }));
    expect(bad("a: [").status.code).toBe(400);
    expect(bad("a: [").message).toMatch(/^error decoding YAML: /);
    expect(bad("[1]").message).toBe("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}");
    expect(bad("apiVersion: v2\nkind: ConfigMap\n").message).toBe("Incorrect version specified in apply patch. Specified patch version: v2, expected: v1");
    expect(bad("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  managedFields: []\n").message).toBe("metadata.managedFields must be nil");
  });
});
