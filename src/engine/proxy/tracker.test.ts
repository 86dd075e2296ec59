import { describe, expect, it } from "vitest";
import type { EndpointSlice, Service } from "../api/types.js";
import type { StoreEvent } from "../store/store.js";
import { ENDPOINTSLICES_RESOURCE, ProxyTracker, SERVICES_RESOURCE } from "./tracker.js";

function svc(name: string, spec: Service["spec"], extra: Partial<Service> = {}): Service {
  return { apiVersion: "v1", kind: "Service", metadata: { name, namespace: "default" }, spec, ...extra } as Service;
}

function slice(name: string, service: string, eps: { ip: string; node?: string; ready?: boolean; terminating?: boolean }[], port = 80): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: "default", labels: { "kubernetes.io/service-name": service } },
    addressType: "IPv4",
    ports: [{ name: "http", port, protocol: "TCP" }],
    endpoints: eps.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true, serving: e.ready ?? true, terminating: e.terminating ?? false },
      nodeName: e.node ?? "node1",
    })),
  } as EndpointSlice;
}

const ev = (resource: string, object: unknown, type: StoreEvent["type"] = "ADDED"): StoreEvent => ({ type, resource, object: object as never, rv: 1 });
const WEB = svc("web", { clusterIP: "10.96.0.50", ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }], type: "ClusterIP" });
const KEY = "default/web:http/TCP";

describe("ProxyTracker", () => {
  it("merges the slices of a service, de-duplicated by IP:port and sorted as kube-proxy sorts them", () => {
    const t = new ProxyTracker();
    t.onEvent(ev(SERVICES_RESOURCE, WEB));
    t.onEvent(ev(ENDPOINTSLICES_RESOURCE, slice("web-b", "web", [{ ip: "10.244.1.9" }, { ip: "10.244.2.3", node: "node2" }])));
    t.onEvent(ev(ENDPOINTSLICES_RESOURCE, slice("web-a", "web", [{ ip: "10.244.1.10" }, { ip: "10.244.2.3", node: "node2" }])));
    const eps = t.endpointLists.get(KEY)!;
    expect(eps.map((e) => `${e.ip}:${e.port}`)).toEqual(["10.244.1.10:80", "10.244.1.9:80", "10.244.2.3:80"]);
    const n1 = t.view("node1").state.endpoints.get(KEY)!;
    expect(n1.map((e) => e.isLocal)).toEqual([true, true, false]);
    const n2 = t.view("node2").state.endpoints.get(KEY)!;
    expect(n2.map((e) => e.isLocal)).toEqual([false, false, true]);
    // A node without local endpoints shares the tracker's list.
    expect(t.view("master").state.endpoints.get(KEY)).toBe(eps);
  });

  it("reports the changed service-port keys per node since its last take", () => {
    const t = new ProxyTracker();
    const v = t.view("node1");
    t.onEvent(ev(SERVICES_RESOURCE, WEB));
    expect([...v.takeChanged()]).toEqual([KEY]);
    // The same slice written again changes nothing.
    const s = slice("web-a", "web", [{ ip: "10.244.1.10" }]);
    t.onEvent(ev(ENDPOINTSLICES_RESOURCE, s));
    expect([...v.takeChanged()]).toEqual([KEY]);
    expect(t.onEvent(ev(ENDPOINTSLICES_RESOURCE, s, "MODIFIED"))).toEqual([]);
    expect(v.takeChanged().size).toBe(0);
    // A readiness flip changes the endpoint list.
    t.onEvent(ev(ENDPOINTSLICES_RESOURCE, slice("web-a", "web", [{ ip: "10.244.1.10", ready: false, terminating: true }]), "MODIFIED"));
    const e = v.state.endpoints.get(KEY)![0];
    expect([e.ready, e.serving, e.terminating]).toEqual([false, false, true]);
    expect([...v.takeChanged()]).toEqual([KEY]);
    // Deleting the service and its slice removes both.
    t.onEvent(ev(SERVICES_RESOURCE, WEB, "DELETED"));
    t.onEvent(ev(ENDPOINTSLICES_RESOURCE, s, "DELETED"));
    expect(t.services.has(KEY)).toBe(false);
    expect(t.endpointLists.has(KEY)).toBe(false);
    expect([...v.takeChanged()]).toEqual([KEY]);
  });

  it("skips headless, ExternalName and cluster-IP-less services", () => {
    const t = new ProxyTracker();
    t.onEvent(ev(SERVICES_RESOURCE, svc("h", { clusterIP: "None", ports: [{ port: 80 }] })));
    t.onEvent(ev(SERVICES_RESOURCE, svc("x", { type: "ExternalName", externalName: "example.com", ports: [{ port: 80 }] })));
    t.onEvent(ev(SERVICES_RESOURCE, svc("e", { clusterIP: "", ports: [{ port: 80 }] })));
    expect(t.services.size).toBe(0);
  });

  it("reads node ports, LB VIPs (ipMode VIP only), policies, affinity and hints", () => {
    const t = new ProxyTracker();
    t.onEvent(
      ev(
        SERVICES_RESOURCE,
        svc(
          "lb",
          {
            type: "LoadBalancer",
            clusterIP: "10.96.0.60",
            ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080 }],
            externalTrafficPolicy: "Local",
            healthCheckNodePort: 31000,
            sessionAffinity: "ClientIP",
            sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
            trafficDistribution: "PreferClose",
            loadBalancerSourceRanges: ["192.168.0.0/16"],
          },
          { status: { loadBalancer: { ingress: [{ ip: "192.168.1.240", ipMode: "VIP" }, { ip: "192.168.1.241", ipMode: "Proxy" }] } } },
        ),
      ),
    );
    const s = t.services.get("default/lb:http/TCP")!;
    expect(s).toMatchObject({
      nodePort: 30080,
      loadBalancerVIPs: ["192.168.1.240"],
      healthCheckNodePort: 31000,
      externalPolicyLocal: true,
      stickyMaxAgeSeconds: 600,
      hintsEnabled: true,
      loadBalancerSourceRanges: ["192.168.0.0/16"],
    });
  });
});
