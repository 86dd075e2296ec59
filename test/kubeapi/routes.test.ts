// The REST surface through Hono's app.request, on an in-memory cluster: discovery, CRUD, Table,
// protobuf bodies, field validation warnings, scale, dry runs and watch framing.
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { Cluster } from "../../src/engine/cluster.js";
import { kubeApi } from "../../src/kubeapi/app.js";
import { streamPlan } from "../../src/kubeapi/remotecommand.js";
import { serveKube, type KubeRequest } from "../../src/kubeapi/serve.js";
import { watchPlan, WatchStream } from "../../src/kubeapi/watch.js";
import { DEFAULT_LIMITS } from "../../src/runtime/limits.js";
import type { ClusterHost } from "../../src/runtime/host.js";

let cluster: Cluster;
let app: Hono;
const base = "http://x/k8s/c1";
const auth = { authorization: "Bearer t" };

beforeAll(() => {
  cluster = Cluster.create({ seed: "kubeapi" });
  app = new Hono();
  app.route(
    "/k8s/:id",
    kubeApi({
      host: {} as ClusterHost,
      access: async () => DEFAULT_LIMITS,
      backend: {
        request: async (_id, req) => serveKube(cluster, req),
        watch: async () => ({ stop() {} }),
        follow: async () => ({ stop() {} }),
        streamPlan: async (_id, req) => streamPlan(cluster, req),
        podExec: async () => undefined,
      },
    }),
  );
});

const get = (path: string, headers: Record<string, string> = {}) => app.request(base + path, { headers: { ...auth, ...headers } });
const send = (method: string, path: string, body: BodyInit, contentType = "application/json") =>
  app.request(base + path, { method, body, headers: { ...auth, "content-type": contentType } });

// ---- a protobuf writer for the tests (the server only reads) ----
function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const str = (num: number, s: string) => {
  const b = [...new TextEncoder().encode(s)];
  return [...varint((num << 3) | 2), ...varint(b.length), ...b];
};
const msg = (num: number, body: number[]) => [...varint((num << 3) | 2), ...varint(body.length), ...body];
const int = (num: number, v: number) => [...varint(num << 3), ...varint(v)];
const entry = (num: number, k: string, v: string) => msg(num, [...str(1, k), ...str(2, v)]);
function envelope(apiVersion: string, kind: string, raw: number[]): Uint8Array {
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...msg(1, [...str(1, apiVersion), ...str(2, kind)]), ...msg(2, raw)]);
}

describe("discovery", () => {
  it("answers /version without a token, as kube-apiserver does", async () => {
    const r = await app.request(base + "/version");
    expect(r.status).toBe(200);
    const v = (await r.json()) as { gitVersion: string; platform: string; major: string; minor: string };
    expect(v).toMatchObject({ gitVersion: "v1.33.5", platform: "linux/amd64", major: "1", minor: "33" });
  });

  it("serves aggregated discovery when kubectl 1.33 asks for it, legacy otherwise", async () => {
    const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    const agg = await get("/apis", { accept });
    expect(agg.headers.get("content-type")).toBe("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    const body = (await agg.json()) as { items: Array<{ metadata: { name: string }; versions: Array<{ resources: Array<{ resource: string; subresources?: Array<{ subresource: string }> }> }> }> };
    const apps = body.items.find((i) => i.metadata.name === "apps")!;
    const deploy = apps.versions[0].resources.find((r) => r.resource === "deployments")!;
    expect(deploy.subresources?.map((s) => s.subresource)).toEqual(["scale", "status"]);
    // MetalLB's kinds are served only once their CRDs exist.
    expect(body.items.some((i) => i.metadata.name === "metallb.io")).toBe(false);
    const legacy = (await (await get("/api")).json()) as { kind: string; versions: string[] };
    expect(legacy).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const v1 = (await (await get("/api/v1")).json()) as { resources: Array<{ name: string; shortNames?: string[]; verbs: string[] }> };
    expect(v1.resources.find((r) => r.name === "services")).toMatchObject({ shortNames: ["svc"] });
    expect(v1.resources.some((r) => r.name === "pods/log")).toBe(true);
  });

  it("serves the OpenAPI v3 index (paths under the cluster prefix) and PATCH operations that declare fieldValidation", async () => {
    const idx = (await (await get("/openapi/v3")).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(idx.paths["apis/apps/v1"].serverRelativeURL).toMatch(/^\/k8s\/c1\/openapi\/v3\/apis\/apps\/v1\?hash=/);
    const doc = (await (await get("/openapi/v3/apis/apps/v1")).json()) as { paths: Record<string, { patch?: { parameters: Array<{ name: string }>; requestBody: { content: Record<string, unknown> } } }> };
    const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].patch!;
    expect(patch.parameters.map((p) => p.name)).toContain("fieldValidation");
    // Left out on purpose: kubectl then builds its patch from its compiled-in types.
    expect(Object.keys(patch.requestBody.content)).not.toContain("application/strategic-merge-patch+json");
  });

  it("serves /openapi/v2 derived from the same documents, in JSON and in gnostic protobuf", async () => {
    const v2 = (await (await get("/openapi/v2")).json()) as { swagger: string; paths: Record<string, { patch?: Record<string, unknown> }>; definitions: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
    expect(v2.swagger).toBe("2.0");
    const patch = v2.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].patch!;
    expect((patch.parameters as Array<{ name: string; in: string }>).filter((p) => p.in === "query").map((p) => p.name)).toContain("fieldValidation");
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    // The patch strategies of k8s.io/api's tags, for kubectl 1.27's strategic merge patch.
    expect(v2.definitions["io.k8s.api.core.v1.PodSpec"].properties!.containers).toMatchObject({ "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge" });
    const pb = await get("/openapi/v2", { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" });
    expect(pb.headers.get("content-type")).toBe("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    const bytes = new Uint8Array(await pb.arrayBuffer());
    // Document.swagger (field 1, "2.0") comes first.
    expect([...bytes.slice(0, 5)]).toEqual([0x0a, 3, 0x32, 0x2e, 0x30]);
  });
});

describe("resources", () => {
  it("lists as a Table with the terminal's columns and metadata objects", async () => {
    const r = await get("/api/v1/nodes", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json" });
    expect(r.headers.get("content-type")).toBe("application/json;as=Table;v=v1;g=meta.k8s.io");
    const t = (await r.json()) as { kind: string; columnDefinitions: Array<{ name: string; priority: number }>; rows: Array<{ cells: string[]; object: { kind: string } }> };
    expect(t.kind).toBe("Table");
    expect(t.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    expect(t.rows.map((r) => r.cells[0])).toEqual(["master", "node1", "node2"]);
    expect(t.rows[0].object.kind).toBe("PartialObjectMetadata");
  });

  it("creates a Deployment sent as protobuf (kubectl 1.32+ create deployment) and answers JSON", async () => {
    const labels = entry(1, "app", "pbweb");
    const container = [...str(1, "httpd"), ...str(2, "httpd")];
    const raw = [
      ...msg(1, [...str(1, "pbweb"), ...str(2, ""), ...str(3, ""), ...entry(11, "app", "pbweb"), ...msg(8, [...int(1, -62135596800)])]),
      ...msg(2, [...int(1, 3), ...msg(2, labels), ...msg(3, [...msg(1, [...entry(11, "app", "pbweb")]), ...msg(2, [...msg(2, container)])]), ...msg(4, [])]),
      ...msg(3, []),
    ];
    const r = await send("POST", "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict", envelope("apps/v1", "Deployment", raw), "application/vnd.kubernetes.protobuf");
    expect(r.status).toBe(201);
    const d = (await r.json()) as { metadata: { name: string; labels: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: Array<{ name: string; image: string }> } } } };
    expect(d.metadata).toMatchObject({ name: "pbweb", labels: { app: "pbweb" } });
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.template.spec.containers[0]).toMatchObject({ name: "httpd", image: "httpd" });
    expect(cluster.store.list("pods", "default").filter((p) => p.metadata.labels?.app === "pbweb")).toHaveLength(3);
  });

  it("creates a ConfigMap and a Namespace sent as protobuf, keeping empty map values", async () => {
    const cm = await send("POST", "/api/v1/namespaces/default/configmaps", envelope("v1", "ConfigMap", [...msg(1, str(1, "pbcfg")), ...entry(2, "a", "1"), ...entry(2, "empty", "")]), "application/vnd.kubernetes.protobuf");
    expect(cm.status).toBe(201);
    expect(((await cm.json()) as { data: Record<string, string> }).data).toEqual({ a: "1", empty: "" });
    const ns = await send("POST", "/api/v1/namespaces", envelope("v1", "Namespace", [...msg(1, str(1, "pbns")), ...msg(2, []), ...msg(3, [])]), "application/vnd.kubernetes.protobuf");
    expect(ns.status).toBe(201);
  });

  it("answers NotFound with the apiserver's Status", async () => {
    const r = await get("/api/v1/namespaces/default/services/nope");
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ kind: "Status", reason: "NotFound", message: 'services "nope" not found', code: 404 });
    expect((await get("/apis/apps/v1/namespaces/default/nothings")).status).toBe(404);
  });

  it("refuses unknown fields with fieldValidation=Strict and warns with Warn (Warning: 299)", async () => {
    const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fv" }, data: { a: "1" }, bogus: 1 });
    const strict = await send("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", cm);
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as { message: string }).message).toContain('unknown field "bogus"');
    const warn = await send("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Warn", cm);
    expect(warn.status).toBe(201);
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"bogus\\""');
  });

  it("warns that v1 Endpoints is deprecated", async () => {
    const r = await get("/api/v1/namespaces/default/endpoints");
    expect(r.headers.get("warning")).toBe('299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"');
  });

  it("reads and patches the scale subresource (kubectl scale)", async () => {
    const s = (await (await get("/apis/apps/v1/namespaces/default/deployments/pbweb/scale")).json()) as { kind: string; spec: { replicas: number }; status: { selector: string } };
    expect(s).toMatchObject({ kind: "Scale", spec: { replicas: 3 }, status: { selector: "app=pbweb" } });
    const p = await send("PATCH", "/apis/apps/v1/namespaces/default/deployments/pbweb/scale", JSON.stringify({ spec: { replicas: 5 } }), "application/merge-patch+json");
    expect(p.status).toBe(200);
    expect(((await p.json()) as { spec: { replicas: number } }).spec.replicas).toBe(5);
  });

  it("patches with a strategic merge patch; server-side apply needs a field manager and a well-formed body", async () => {
    const svc = JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "pbweb" }, spec: { selector: { app: "pbweb" }, ports: [{ port: 80 }] } });
    expect((await send("POST", "/api/v1/namespaces/default/services", svc)).status).toBe(201);
    const p = await send("PATCH", "/api/v1/namespaces/default/services/pbweb", JSON.stringify({ spec: { sessionAffinity: "ClientIP" } }), "application/strategic-merge-patch+json");
    expect(((await p.json()) as { spec: { sessionAffinity: string } }).spec.sessionAffinity).toBe("ClientIP");
    const cfg = "apiVersion: v1\nkind: Service\nmetadata:\n  name: pbweb\nspec:\n  sessionAffinity: None\n";
    const ssa = await send("PATCH", "/api/v1/namespaces/default/services/pbweb?fieldManager=mine&force=true", cfg, "application/apply-patch+yaml");
    expect(ssa.status).toBe(200);
    const applied = (await ssa.json()) as { spec: { sessionAffinity: string }; metadata: { managedFields: Array<{ manager: string; operation: string }> } };
    expect(applied.spec.sessionAffinity).toBe("None");
    expect(applied.metadata.managedFields.map((m) => [m.manager, m.operation])).toContainEqual(["mine", "Apply"]);
    const noManager = await send("PATCH", "/api/v1/namespaces/default/services/pbweb", cfg, "application/apply-patch+yaml");
    expect(noManager.status).toBe(422);
    expect(((await noManager.json()) as { message: string }).message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const forced = await send("PATCH", "/api/v1/namespaces/default/services/pbweb?force=true", "{}", "application/merge-patch+json");
    expect(((await forced.json()) as { message: string }).message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const bad = await send("PATCH", "/api/v1/namespaces/default/services/pbweb?fieldManager=mine", "kind: [", "application/apply-patch+yaml");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { kind: string; message: string }).message).toMatch(/^error decoding YAML: /);
  });

  it("does not store a dryRun=All create", async () => {
    const cm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } });
    expect((await send("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm)).status).toBe(201);
    expect((await get("/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
  });

  it("deletes with DeleteOptions in the body; an immediate delete answers a Success Status", async () => {
    const r = await send("DELETE", "/api/v1/namespaces/default/configmaps/pbcfg", JSON.stringify({ propagationPolicy: "Background" }));
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ kind: "Status", status: "Success", details: { name: "pbcfg", kind: "configmaps" } });
  });

  it("serves pods/log as text", async () => {
    const pod = cluster.store.list("pods", "kube-system").find((p) => p.metadata.name?.startsWith("kube-proxy"))!;
    const r = await get(`/api/v1/namespaces/kube-system/pods/${pod.metadata.name}/log?tailLines=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain");
    expect((await r.text()).split("\n")).toHaveLength(2);
  });

  it("pages a list with limit and continue", async () => {
    const first = (await (await get("/api/v1/pods?limit=2")).json()) as { items: unknown[]; metadata: { continue: string; remainingItemCount: number } };
    expect(first.items).toHaveLength(2);
    const next = (await (await get(`/api/v1/pods?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json()) as { items: Array<{ metadata: { name: string } }> };
    expect(next.items).toHaveLength(2);
  });
});

describe("watch", () => {
  const req = (query: Record<string, string>): KubeRequest => ({ method: "GET", path: "/api/v1/namespaces/default/configmaps", query: { watch: "true", ...query }, prefix: "/k8s/c1" });

  it("starts with ADDED for what exists, then MODIFIED/DELETED of matching objects", () => {
    const ws = new WatchStream(watchPlan(cluster, req({ labelSelector: "w=1" })), () => cluster.now());
    const cm = (name: string, labels: Record<string, string>) => ({ metadata: { name, namespace: "default", labels, resourceVersion: "9" } });
    const reset = ws.onMessage({ type: "reset", rv: 9, objects: { configmaps: [cm("a", { w: "1" }), cm("b", {})] } });
    expect(reset.map((l) => JSON.parse(l) as { type: string; object: { kind: string; metadata: { name: string } } }).map((e) => [e.type, e.object.kind, e.object.metadata.name])).toEqual([["ADDED", "ConfigMap", "a"]]);
    expect(ws.onMessage({ type: "change", rv: 10, verb: "MODIFIED", resource: "configmaps", object: cm("a", {}) }).map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(["DELETED"]);
    expect(ws.onMessage({ type: "change", rv: 11, verb: "ADDED", resource: "pods", object: cm("a", { w: "1" }) })).toEqual([]);
  });

  it("answers a too old resourceVersion with an ERROR event carrying 410 Expired", () => {
    const ws = new WatchStream(watchPlan(cluster, req({ resourceVersion: "3" })), () => cluster.now());
    const lines = ws.onMessage({ type: "reset", rv: 500, objects: {} });
    expect(JSON.parse(lines[0])).toEqual({ type: "ERROR", object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "too old resource version: 3 (500)", reason: "Expired", code: 410 } });
    expect(ws.done).toBe(true);
  });
});
