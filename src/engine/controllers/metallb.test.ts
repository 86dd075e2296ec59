import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { IPAddressPool, Service } from "../api/types.js";
import { sha256 } from "../util/hash.js";
import { type ControllerContext, ControllerManager } from "./manager.js";
import { MetalLBController } from "./metallb.js";
import { eventsOf, type Harness, newHarness } from "./testdata/harness.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Compares with testdata/<name>.json; writes it when missing or when UPDATE_GOLDEN is set. */
function golden(name: string, value: unknown): void {
  const file = join(here, "testdata", `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN || (!existsSync(file) && process.env.CI !== "true")) writeFileSync(file, text);
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(file, "utf8")));
}

function setup(): Harness {
  return newHarness((ctx) => [new MetalLBController(ctx)]);
}

function pool(h: Harness, name: string, addresses: string[], extra: Record<string, unknown> = {}): void {
  h.api.create(R.ipaddresspools, "metallb-system", { apiVersion: "metallb.io/v1beta1", kind: "IPAddressPool", metadata: { name }, spec: { addresses, ...extra } });
  h.settle();
}

function l2(h: Harness, name = "example", spec?: Record<string, unknown>): void {
  h.api.create(R.l2advertisements, "metallb-system", { metadata: { name }, ...(spec ? { spec } : {}) });
  h.settle();
}

function lb(h: Harness, name: string, opts: { ns?: string; annotations?: Record<string, string>; port?: number; spec?: Record<string, unknown>; labels?: Record<string, string> } = {}): Service {
  const ns = opts.ns ?? "default";
  h.api.create(R.services, ns, {
    metadata: { name, ...(opts.annotations ? { annotations: opts.annotations } : {}), ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: { type: "LoadBalancer", selector: { app: name }, ports: [{ port: opts.port ?? 80, targetPort: 80 }], ...(opts.spec ?? {}) },
  });
  h.settle();
  return h.api.get(R.services, ns, name) as Service;
}

const svc = (h: Harness, name: string, ns = "default") => h.api.get(R.services, ns, name) as Service;
const ipOf = (s: Service) => s.status?.loadBalancer?.ingress?.[0]?.ip;
const evs = (h: Harness, name: string, ns = "default") => eventsOf(h, ns).filter((e) => e.object === `Service/${name}`).map((e) => [e.type, e.reason, e.message, e.component]);

function endpoints(h: Harness, service: string, nodes: string[], ready = true): void {
  h.api.create(R.endpointslices, "default", {
    metadata: { name: `${service}-abcde`, labels: { "kubernetes.io/service-name": service } },
    addressType: "IPv4",
    endpoints: nodes.map((n, i) => ({ addresses: [`10.244.1.${i + 2}`], conditions: { ready }, nodeName: n })),
    ports: [{ name: "", port: 80, protocol: "TCP" }],
  });
  h.settle();
}

/** The layer 2 election, computed independently: sha256(node#ip), lowest first. */
function elected(nodes: string[], ip: string): string {
  const hex = (n: string) => [...sha256(`${n}#${ip}`)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return [...nodes].sort((a, b) => (hex(a) < hex(b) ? -1 : 1))[0];
}

describe("MetalLBController", () => {
  it("does nothing while no IPAddressPool exists", () => {
    const h = setup();
    const s = lb(h, "web");
    expect(s.status).toEqual({ loadBalancer: {} });
    expect(h.events("default")).toHaveLength(0);
  });

  it("follows the lab: .40, then .41, exhaustion leaves <pending> with AllocationFailed, a delete frees an address for it", () => {
    const h = setup();
    lb(h, "early"); // created before MetalLB is configured: picked up when the pool appears
    pool(h, "first-pool", ["10.1.8.40-10.1.8.80"]);
    l2(h);
    expect(ipOf(svc(h, "early"))).toBe("10.1.8.40");
    const web = lb(h, "web");
    expect(web.status).toEqual({ loadBalancer: { ingress: [{ ip: "10.1.8.41", ipMode: "VIP" }] } });
    expect(web.metadata.annotations).toEqual({ "metallb.io/ip-allocated-from-pool": "first-pool" });
    expect(evs(h, "web")).toEqual([["Normal", "IPAllocated", 'Assigned IP ["10.1.8.41"]', "metallb-controller"]]);

    // No ready endpoint yet: nobody announces. Then one on node1: the election picks a worker
    // (master carries exclude-from-external-load-balancers).
    endpoints(h, "web", ["node1"]);
    const node = elected(["node1", "node2"], "10.1.8.41");
    expect(evs(h, "web")).toEqual([
      ["Normal", "IPAllocated", 'Assigned IP ["10.1.8.41"]', "metallb-controller"],
      ["Normal", "nodeAssigned", `announcing from node "${node}" with protocol "layer2"`, "metallb-speaker"],
    ]);
    golden("metallb-web", { service: svc(h, "web"), events: evs(h, "web") });

    for (let i = 2; i <= 40; i++) lb(h, `svc${i}`);
    expect(ipOf(svc(h, "svc40"))).toBe("10.1.8.80");
    expect((h.api.get(R.ipaddresspools, "metallb-system", "first-pool") as IPAddressPool).status).toEqual({
      assignedIPv4: 41,
      assignedIPv6: 0,
      availableIPv4: 0,
      availableIPv6: 0,
    });
    const late = lb(h, "late");
    expect(late.status).toEqual({ loadBalancer: {} });
    expect(late.metadata.annotations).toBeUndefined();
    expect(evs(h, "late")).toEqual([["Warning", "AllocationFailed", 'Failed to allocate IP for "default/late": no available IPs', "metallb-controller"]]);

    h.api.delete(R.services, "default", "svc7");
    h.settle();
    expect(svc(h, "late").status).toEqual({ loadBalancer: { ingress: [{ ip: "10.1.8.47", ipMode: "VIP" }] } });
    expect(evs(h, "late").map((e) => e[1])).toEqual(["AllocationFailed", "IPAllocated"]);
    expect((h.api.get(R.ipaddresspools, "metallb-system", "first-pool") as IPAddressPool).status).toMatchObject({ assignedIPv4: 41, availableIPv4: 0 });

    // Leaving type LoadBalancer gives the address back.
    const s = svc(h, "svc10");
    h.api.update(R.services, "default", "svc10", { ...s, spec: { ...s.spec, type: "ClusterIP", allocateLoadBalancerNodePorts: undefined, externalTrafficPolicy: undefined, ports: [{ port: 80, targetPort: 80, protocol: "TCP" }] } });
    h.settle();
    expect(svc(h, "svc10").status).toEqual({ loadBalancer: {} });
    expect(svc(h, "svc10").metadata.annotations).toBeUndefined();
    expect((h.api.get(R.ipaddresspools, "metallb-system", "first-pool") as IPAddressPool).status).toMatchObject({ assignedIPv4: 40, availableIPv4: 1 });
  });

  it("honours requested IPs and reports bad requests as the controller words them", () => {
    const h = setup();
    pool(h, "first-pool", ["10.1.8.40-10.1.8.80"]);
    expect(ipOf(lb(h, "a", { annotations: { "metallb.io/loadBalancerIPs": "10.1.8.50" } }))).toBe("10.1.8.50");
    expect(ipOf(lb(h, "b", { annotations: { "metallb.universe.tf/loadBalancerIPs": "10.1.8.51" } }))).toBe("10.1.8.51");
    expect(ipOf(lb(h, "c", { spec: { loadBalancerIP: "10.1.8.52" } }))).toBe("10.1.8.52");
    expect(ipOf(lb(h, "d"))).toBe("10.1.8.40");
    lb(h, "both", { annotations: { "metallb.io/loadBalancerIPs": "10.1.8.60" }, spec: { loadBalancerIP: "10.1.8.61" } });
    lb(h, "outside", { annotations: { "metallb.io/loadBalancerIPs": "192.168.1.1" } });
    lb(h, "taken", { annotations: { "metallb.io/loadBalancerIPs": "10.1.8.50" } });
    lb(h, "bad", { annotations: { "metallb.io/loadBalancerIPs": "10.1.8.x" } });
    lb(h, "nopool", { annotations: { "metallb.io/address-pool": "nope" } });
    expect(eventsOf(h, "default").filter((e) => e.type === "Warning").map((e) => [e.object, e.message])).toEqual([
      ["Service/both", 'Failed to allocate IP for "default/both": service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP'],
      ["Service/outside", 'Failed to allocate IP for "default/outside": ["192.168.1.1"] is not allowed in config'],
      ["Service/taken", 'Failed to allocate IP for "default/taken": can\'t change sharing key for "default/taken", address also in use by default/a'],
      ["Service/bad", 'Failed to allocate IP for "default/bad": invalid metallb.io/loadBalancerIPs: "10.1.8.x"'],
      ["Service/nopool", 'Failed to allocate IP for "default/nopool": unknown pool "nope"'],
    ]);

    // Changing the requested IP of an allocated Service moves it.
    h.api.patch(R.services, "default", "a", "merge", { metadata: { annotations: { "metallb.io/loadBalancerIPs": "10.1.8.55" } } });
    h.settle();
    expect(ipOf(svc(h, "a"))).toBe("10.1.8.55");
    // ... and freed .50, which "taken" was waiting for.
    expect(ipOf(svc(h, "taken"))).toBe("10.1.8.50");
  });

  it("shares an address between Services with the same allow-shared-ip key and distinct ports", () => {
    const h = setup();
    pool(h, "first-pool", ["10.1.8.40-10.1.8.80"]);
    const shared = { "metallb.io/allow-shared-ip": "key1" };
    expect(ipOf(lb(h, "dns-tcp", { annotations: shared, port: 53 }))).toBe("10.1.8.40");
    expect(ipOf(lb(h, "dns-udp", { annotations: shared, port: 54 }))).toBe("10.1.8.40");
    // Same port: the next address.
    expect(ipOf(lb(h, "dns-dup", { annotations: shared, port: 53 }))).toBe("10.1.8.41");
    // Another key or no key: never the shared one.
    expect(ipOf(lb(h, "other", { annotations: { "metallb.io/allow-shared-ip": "key2" }, port: 99 }))).toBe("10.1.8.42");
    expect((h.api.get(R.ipaddresspools, "metallb-system", "first-pool") as IPAddressPool).status).toEqual({ assignedIPv4: 3, assignedIPv6: 0, availableIPv4: 38, availableIPv6: 0 });
    // Deleting one sharer keeps the address for the other.
    h.api.delete(R.services, "default", "dns-tcp");
    h.settle();
    expect(ipOf(lb(h, "plain"))).toBe("10.1.8.43");
  });

  it("picks pools by annotation, serviceAllocation priority and namespaces, autoAssign and avoidBuggyIPs", () => {
    const h = setup();
    pool(h, "a-manual", ["10.1.9.0/24"], { autoAssign: false });
    pool(h, "b-buggy", ["10.1.10.0/31"], { avoidBuggyIPs: true });
    pool(h, "c-plain", ["10.1.11.0/24", "fc00:f853:ccd:e799::/124"]);
    pool(h, "d-team", ["10.1.12.8/29"], { serviceAllocation: { priority: 1, namespaces: ["team-a"] } });
    h.api.create(R.namespaces, undefined, { metadata: { name: "team-a" } });
    // b-buggy has 10.1.10.0 and .1: .0 is skipped, .1 taken first.
    expect(ipOf(lb(h, "x"))).toBe("10.1.10.1");
    expect(ipOf(lb(h, "y"))).toBe("10.1.11.0");
    expect(ipOf(lb(h, "m", { annotations: { "metallb.io/address-pool": "a-manual" } }))).toBe("10.1.9.0");
    expect(ipOf(lb(h, "t", { ns: "team-a" }))).toBe("10.1.12.8");
    expect(svc(h, "t", "team-a").metadata.annotations).toEqual({ "metallb.io/ip-allocated-from-pool": "d-team" });
    expect((h.api.get(R.ipaddresspools, "metallb-system", "c-plain") as IPAddressPool).status).toEqual({ assignedIPv4: 1, assignedIPv6: 0, availableIPv4: 255, availableIPv6: 16 });
    expect((h.api.get(R.ipaddresspools, "metallb-system", "b-buggy") as IPAddressPool).status).toEqual({ assignedIPv4: 1, assignedIPv6: 0, availableIPv4: 0, availableIPv6: 0 });

    // Removing the pool an address came from: ClearAssignment, then a new address elsewhere.
    h.api.delete(R.ipaddresspools, "metallb-system", "c-plain");
    h.settle();
    expect(evs(h, "y").map((e) => [e[1], e[2]])).toEqual([
      ["IPAllocated", 'Assigned IP ["10.1.11.0"]'],
      ["ClearAssignment", 'current IP for "default/y" not allowed by config, will attempt for new IP assignment: ["10.1.11.0"] is not allowed in config'],
      ["AllocationFailed", 'Failed to allocate IP for "default/y": no available IPs'],
    ]);
    expect(svc(h, "y").status).toEqual({ loadBalancer: {} });
  });

  it("announces only from nodes an L2Advertisement selects, and only with one covering the pool", () => {
    const h = setup();
    pool(h, "first-pool", ["10.1.8.40-10.1.8.80"]);
    l2(h, "other", { ipAddressPools: ["not-this-one"] });
    lb(h, "web");
    endpoints(h, "web", ["node1", "node2"]);
    expect(evs(h, "web").map((e) => e[1])).toEqual(["IPAllocated"]);
    l2(h, "node2-only", { ipAddressPools: ["first-pool"], nodeSelectors: [{ matchLabels: { "kubernetes.io/hostname": "node2" } }] });
    expect(evs(h, "web").at(-1)).toEqual(["Normal", "nodeAssigned", 'announcing from node "node2" with protocol "layer2"', "metallb-speaker"]);
  });

  it("announces only from nodes with a ready speaker, and for externalTrafficPolicy Local only where an endpoint is", () => {
    const h = setup();
    pool(h, "first-pool", ["10.1.8.40-10.1.8.80"]);
    l2(h);
    for (const node of ["node1", "node2"]) {
      h.api.create(R.pods, "metallb-system", {
        metadata: { name: `speaker-${node}`, labels: { app: "metallb", component: "speaker" } },
        spec: { nodeName: node, containers: [{ name: "speaker", image: "quay.io/metallb/speaker:v0.14.8" }] },
      });
    }
    const p = h.api.get(R.pods, "metallb-system", "speaker-node1");
    h.api.update(R.pods, "metallb-system", "speaker-node1", { ...p, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }, { subresource: "status" });
    h.settle();
    lb(h, "web");
    endpoints(h, "web", ["node1", "node2"]);
    expect(evs(h, "web").at(-1)?.[2]).toBe('announcing from node "node1" with protocol "layer2"');

    lb(h, "local", { spec: { externalTrafficPolicy: "Local" } });
    h.api.create(R.endpointslices, "default", {
      metadata: { name: "local-xyz", labels: { "kubernetes.io/service-name": "local" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.2.9"], conditions: { ready: true }, nodeName: "node2" }],
    });
    h.settle();
    // node2's speaker is not ready and node1 has no local endpoint: nobody announces.
    expect(evs(h, "local").map((e) => e[1])).toEqual(["IPAllocated"]);
    const p2 = h.api.get(R.pods, "metallb-system", "speaker-node2");
    h.api.update(R.pods, "metallb-system", "speaker-node2", { ...p2, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }, { subresource: "status" });
    h.settle();
    expect(evs(h, "local").at(-1)?.[2]).toBe('announcing from node "node2" with protocol "layer2"');
  });

  it("rebuilds its allocations from Service status after a restart before handing out addresses", () => {
    const h = setup();
    pool(h, "first-pool", ["10.1.8.40-10.1.8.41"]);
    lb(h, "a");
    lb(h, "b");
    // A fresh controller and manager over the same store (a restored cluster).
    const m2 = new ControllerManager(h.store, h.clock);
    const ctx2: ControllerContext = { ...h.ctx, requeueAt: (c, k, at) => m2.requeueAt(c, k, at) };
    m2.add(new MetalLBController(ctx2));
    m2.resyncAll();
    m2.settle();
    h.api.create(R.services, "default", { metadata: { name: "c" }, spec: { type: "LoadBalancer", selector: { app: "c" }, ports: [{ port: 80 }] } });
    m2.settle();
    expect([ipOf(svc(h, "a")), ipOf(svc(h, "b")), ipOf(svc(h, "c"))]).toEqual(["10.1.8.40", "10.1.8.41", undefined]);
    expect(eventsOf(h, "default").filter((e) => e.object === "Service/c").map((e) => e.reason)).toEqual(["AllocationFailed"]);
  });
});
