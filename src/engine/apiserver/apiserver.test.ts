import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import { StatusError } from "../api/status.js";
import type { KObject, Service } from "../api/types.js";
import { ManualClock } from "../clock.js";
import { RandomStreams } from "../rng.js";
import { Store } from "../store/store.js";
import { ApiServer } from "./apiserver.js";

function setup() {
  const store = new Store({ freeze: true });
  const api = new ApiServer(store, new ManualClock(Date.UTC(2026, 0, 1)), new RandomStreams(7), {
    serviceCIDR: "10.96.0.0/12",
    nodePortRange: [30000, 32767],
  });
  for (const ns of ["default", "kube-system"]) api.create(R.namespaces, undefined, { metadata: { name: ns } });
  return { store, api };
}

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error("expected a StatusError");
}

const svc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec },
});

describe("create", () => {
  it("defaults, stamps metadata and allocates a cluster IP", () => {
    const { api } = setup();
    const s = api.create(R.services, "default", svc("web")) as Service;
    expect(s.apiVersion).toBe("v1");
    expect(s.kind).toBe("Service");
    expect(s.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(s.metadata.creationTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(s.spec!.type).toBe("ClusterIP");
    expect(s.spec!.sessionAffinity).toBe("None");
    expect(s.spec!.ports![0]).toEqual({ port: 80, protocol: "TCP", targetPort: 80 });
    expect(s.spec!.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
    expect(s.spec!.clusterIPs).toEqual([s.spec!.clusterIP]);
  });

  it("refuses a taken address and an address out of range with the apiserver's words", () => {
    const { api } = setup();
    api.create(R.services, "default", svc("a", { clusterIP: "10.96.0.10" }));
    expect(statusOf(() => api.create(R.services, "default", svc("b", { clusterIP: "10.96.0.10" }))).status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    });
    expect(statusOf(() => api.create(R.services, "default", svc("c", { clusterIP: "10.0.0.5" }))).message).toBe(
      'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
  });

  it("refuses node ports out of range or taken, and leaves nothing allocated when it refuses", () => {
    const { api, store } = setup();
    const rv = store.revision();
    expect(statusOf(() => api.create(R.services, "default", svc("bad-nodeport", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }))).message).toBe(
      'Service "bad-nodeport" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    expect(store.revision()).toBe(rv);
    api.create(R.services, "default", svc("one", { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] }));
    expect(statusOf(() => api.create(R.services, "default", svc("two", { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] }))).message).toBe(
      'Service "two" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    // A refused create with a requested cluster IP and a bad node port releases the IP too.
    expect(() => api.create(R.services, "default", svc("three", { type: "NodePort", clusterIP: "10.96.5.5", ports: [{ port: 80, nodePort: 30080 }] }))).toThrow();
    expect(api.services.ips.isAllocated("10.96.5.5")).toBe(false);
  });

  it("answers 500 when a range is full", () => {
    const store = new Store();
    const api = new ApiServer(store, new ManualClock(0), new RandomStreams(1), { serviceCIDR: "10.96.0.0/30", nodePortRange: [30000, 30001] });
    api.create(R.namespaces, undefined, { metadata: { name: "default" } });
    api.create(R.services, "default", svc("a"));
    api.create(R.services, "default", svc("b"));
    const e = statusOf(() => api.create(R.services, "default", svc("c")));
    expect(e.status).toMatchObject({ code: 500, reason: "InternalError", message: "Internal error occurred: failed to allocate a serviceIP: range is full" });
  });

  it("generates names with the 5-character alphabet", () => {
    const { api } = setup();
    const o = api.create(R.configmaps, "default", { metadata: { generateName: "web-" } });
    expect(o.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("refuses duplicates, unknown namespaces and unknown fields", () => {
    const { api } = setup();
    api.create(R.configmaps, "default", { metadata: { name: "x" } });
    expect(statusOf(() => api.create(R.configmaps, "default", { metadata: { name: "x" } })).status).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message: 'configmaps "x" already exists',
    });
    expect(statusOf(() => api.create(R.configmaps, "nope", { metadata: { name: "x" } })).message).toBe('namespaces "nope" not found');
    expect(statusOf(() => api.create(R.deployments, "default", { metadata: { name: "d" }, spec: { replica: 1 } })).status).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"',
    });
    expect(statusOf(() => api.create(R.deployments, "default", { metadata: { name: "d" }, spec: { replicas: "3" } })).message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  it("names the group in apps errors", () => {
    const { api } = setup();
    const e = statusOf(() =>
      api.create(R.deployments, "default", {
        metadata: { name: "web" },
        spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "other" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
      }),
    );
    expect(e.message).toMatch(/^Deployment\.apps "web" is invalid: spec\.template\.metadata\.labels: Invalid value: map\[string\]string\{"app":"other"\}: `selector` does not match template `labels`$/);
  });
});

describe("update, patch, delete", () => {
  it("keeps cluster IP and node ports across a patch and refuses to change the IP", () => {
    const { api } = setup();
    const s = api.create(R.services, "default", svc("web", { type: "NodePort" })) as Service;
    const np = s.spec!.ports![0].nodePort!;
    const p = api.patch(R.services, "default", "web", "strategic", { spec: { sessionAffinity: "ClientIP" } }) as Service;
    expect(p.spec!.clusterIP).toBe(s.spec!.clusterIP);
    expect(p.spec!.ports![0].nodePort).toBe(np);
    expect(p.spec!.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    const e = statusOf(() => api.patch(R.services, "default", "web", "merge", { spec: { clusterIP: "10.96.9.9", clusterIPs: ["10.96.9.9"] } }));
    expect(e.code).toBe(422);
    // Back to ClusterIP: the node port is released.
    api.patch(R.services, "default", "web", "merge", { spec: { type: "ClusterIP" } });
    expect(api.services.ports.isAllocated(np)).toBe(false);
  });

  it("does not write an unchanged object and checks resourceVersion", () => {
    const { api, store } = setup();
    const cm = api.create(R.configmaps, "default", { metadata: { name: "c" }, data: { a: "1" } });
    const rv = store.revision();
    api.update(R.configmaps, "default", "c", cm);
    expect(store.revision()).toBe(rv);
    api.update(R.configmaps, "default", "c", { ...cm, data: { a: "2" } });
    const e = statusOf(() => api.update(R.configmaps, "default", "c", { ...cm, data: { a: "3" } }));
    expect(e.status).toMatchObject({
      code: 409,
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it("bumps generation on spec changes only", () => {
    const { api } = setup();
    const d = {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    };
    expect(api.create(R.deployments, "default", d).metadata.generation).toBe(1);
    expect(api.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 3 } }).metadata.generation).toBe(2);
    expect(api.patch(R.deployments, "default", "web", "merge", { metadata: { labels: { a: "b" } } }).metadata.generation).toBe(2);
  });

  it("deletes gracefully, honours finalizers and protects system namespaces", () => {
    const { api } = setup();
    api.create(R.pods, "default", { metadata: { name: "p" }, spec: { nodeName: "node1", containers: [{ name: "c", image: "nginx" }] } });
    const p = api.delete(R.pods, "default", "p");
    expect(p.metadata.deletionTimestamp).toBe("2026-01-01T00:00:30Z");
    expect(p.metadata.deletionGracePeriodSeconds).toBe(30);
    api.delete(R.pods, "default", "p", { gracePeriodSeconds: 0 });
    expect(() => api.get(R.pods, "default", "p")).toThrow('pods "p" not found');

    api.create(R.configmaps, "default", { metadata: { name: "f", finalizers: ["example.com/keep"] } });
    expect(api.delete(R.configmaps, "default", "f").metadata.deletionTimestamp).toBeTruthy();
    const cm = api.get(R.configmaps, "default", "f") as KObject;
    api.update(R.configmaps, "default", "f", { ...cm, metadata: { ...cm.metadata, finalizers: [] } });
    expect(() => api.get(R.configmaps, "default", "f")).toThrow("not found");

    expect(statusOf(() => api.delete(R.namespaces, undefined, "default")).status).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'namespaces "default" is forbidden: this namespace may not be deleted',
    });
  });

  it("serves MetalLB's kinds only once their CRDs exist", () => {
    const { api } = setup();
    expect(statusOf(() => api.list(R.ipaddresspools, "default")).status).toMatchObject({ code: 404, message: "the server could not find the requested resource" });
    api.crds.add("ipaddresspools.metallb.io");
    expect(api.list(R.ipaddresspools, "default").items).toEqual([]);
  });

  it("filters lists by label and field selectors", () => {
    const { api } = setup();
    api.create(R.configmaps, "default", { metadata: { name: "a", labels: { app: "web", tier: "fe" } } });
    api.create(R.configmaps, "default", { metadata: { name: "b", labels: { app: "db" } } });
    expect(api.list(R.configmaps, "default", { labelSelector: "app in (web),tier" }).items.map((o) => o.metadata.name)).toEqual(["a"]);
    expect(api.list(R.configmaps, "default", { fieldSelector: "metadata.name!=a" }).items.map((o) => o.metadata.name)).toEqual(["b"]);
  });
});
