import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { Endpoints } from "../api/types.js";
import { EndpointsController, md5Hex, repackSubsets } from "./endpoints.js";
import { harness } from "./testdata/endpoints-harness.js";

const golden = (name: string, obj: unknown) => {
  const path = fileURLToPath(new URL(`./testdata/${name}`, import.meta.url));
  const text = JSON.stringify(obj, null, 2) + "\n";
  if (process.env.UPDATE_GOLDEN || (!existsSync(path) && process.env.CI !== "true")) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, "utf8"));
};

function setup() {
  const h = harness((ctx) => [new EndpointsController(ctx)]);
  h.node("node1");
  h.node("node2");
  return h;
}
const ep = (h: ReturnType<typeof setup>, name: string) => h.api.peek(R.endpoints, "default", name) as Endpoints | undefined;
const ips = (l: { ip: string }[] | null | undefined) => (l ?? []).map((a) => a.ip);

describe("md5", () => {
  it("matches RFC 1321 vectors", () => {
    expect(md5Hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(md5Hex("abc")).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890")).toBe("57edf4a22be3c955ac49da2e2107b67a");
  });
});

describe("EndpointsController", () => {
  it("writes one Endpoints per selector Service, field by field", () => {
    const h = setup();
    h.service("web", { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] }, { labels: { tier: "front" } });
    const e0 = ep(h, "web")!;
    expect(e0.metadata.labels).toEqual({ tier: "front" });
    expect(e0.metadata.annotations).toEqual({ "endpoints.kubernetes.io/last-change-trigger-time": "2026-01-01T00:00:00Z" });
    expect(e0.subsets).toBeUndefined();

    h.clock.advance(5000);
    h.pod("web-a", { ip: "10.244.1.5" });
    h.clock.advance(1000);
    h.pod("web-b", { ip: "10.244.2.7", node: "node2", ready: false });
    const e = ep(h, "web")!;
    expect(e.subsets).toHaveLength(1);
    const s = e.subsets![0];
    expect(s.addresses).toEqual([
      { ip: "10.244.1.5", nodeName: "node1", targetRef: { kind: "Pod", namespace: "default", name: "web-a", uid: (h.api.peek(R.pods, "default", "web-a")!).metadata.uid } },
    ]);
    expect(ips(s.notReadyAddresses)).toEqual(["10.244.2.7"]);
    expect(s.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
    // The last sync saw web-b's Ready condition appear at 00:00:06.
    expect(e.metadata.annotations!["endpoints.kubernetes.io/last-change-trigger-time"]).toBe("2026-01-01T00:00:06Z");
    golden("endpoints-web.json", e);
  });

  it("moves a pod between addresses and notReadyAddresses and never rewrites an unchanged object", () => {
    const h = setup();
    h.service("web", { selector: { app: "web" }, ports: [{ port: 80 }] });
    h.pod("web-a", { ip: "10.244.1.5" });
    h.pod("web-b", { ip: "10.244.1.6" });
    h.events = [];
    h.clock.advance(3000);
    h.setStatus("web-b", { ready: false });
    h.settle();
    expect(h.writes("endpoints")).toHaveLength(1);
    expect(ips(ep(h, "web")!.subsets![0].addresses)).toEqual(["10.244.1.5"]);
    expect(ips(ep(h, "web")!.subsets![0].notReadyAddresses)).toEqual(["10.244.1.6"]);
    expect(ep(h, "web")!.metadata.annotations!["endpoints.kubernetes.io/last-change-trigger-time"]).toBe("2026-01-01T00:00:03Z");
    // A pod change that does not touch endpoints: labels unrelated to the selector stay, no write.
    h.events = [];
    const cur = h.api.peek(R.pods, "default", "web-a")!;
    h.api.update(R.pods, "default", "web-a", { ...cur, metadata: { ...cur.metadata, annotations: { note: "x" } } });
    h.settle();
    expect(h.writes("endpoints")).toHaveLength(0);
  });

  it("terminating pods leave the Endpoints unless publishNotReadyAddresses", () => {
    const h = setup();
    h.service("web", { selector: { app: "web" }, ports: [{ port: 80 }] });
    h.service("pub", { selector: { app: "web" }, ports: [{ port: 80 }], publishNotReadyAddresses: true });
    h.pod("web-a", { ip: "10.244.1.5" });
    h.pod("web-b", { ip: "10.244.1.6", ready: false });
    expect(ips(ep(h, "pub")!.subsets![0].addresses)).toEqual(["10.244.1.5", "10.244.1.6"]);
    h.api.delete(R.pods, "default", "web-a");
    h.settle();
    expect(ep(h, "web")!.subsets![0].addresses).toBeUndefined();
    expect(ips(ep(h, "web")!.subsets![0].notReadyAddresses)).toEqual(["10.244.1.6"]);
    expect(ips(ep(h, "pub")!.subsets![0].addresses)).toEqual(["10.244.1.5", "10.244.1.6"]);
    // Failed pods are out for both.
    h.setStatus("web-b", { ready: false, phase: "Failed" });
    h.settle();
    expect(ep(h, "web")!.subsets).toBeUndefined();
    expect(ips(ep(h, "pub")!.subsets![0].addresses)).toEqual(["10.244.1.5"]);
  });

  it("resolves named target ports per pod, skipping pods without the port, and repacks subsets", () => {
    const h = setup();
    h.service("web", {
      selector: { app: "web" },
      ports: [
        { name: "http", port: 80, targetPort: "web" },
        { name: "metrics", port: 9090, targetPort: 9090 },
      ],
    });
    h.pod("a", { ip: "10.244.1.2", ports: [{ name: "web", containerPort: 8080 }] });
    h.pod("b", { ip: "10.244.1.3", ports: [{ name: "web", containerPort: 8081 }] });
    h.pod("c", { ip: "10.244.1.4" });
    const e = ep(h, "web")!;
    // c only offers metrics; a and b differ on http: three subsets, in md5 order (the md5 of
    // spew dumps that include the pods' uids, so the order follows the seed's uid stream).
    expect(e.subsets!.map((s) => [ips(s.addresses), (s.ports ?? []).map((p) => `${p.name}:${p.port}`)])).toEqual([
      [["10.244.1.2", "10.244.1.3", "10.244.1.4"], ["metrics:9090"]],
      [["10.244.1.2"], ["http:8080"]],
      [["10.244.1.3"], ["http:8081"]],
    ]);
    golden("endpoints-named-ports.json", e.subsets);
    // Repacking is idempotent.
    expect(repackSubsets(structuredClone(e.subsets!))).toEqual(e.subsets);
  });

  it("headless: hostname when subdomain names the Service, headless label, no ports", () => {
    const h = setup();
    h.service("nginx", { selector: { app: "web" }, clusterIP: "None" }, { labels: { app: "nginx" } });
    h.pod("web-0", { ip: "10.244.1.10", hostname: "web-0", subdomain: "nginx" });
    h.pod("web-1", { ip: "10.244.1.11", hostname: "web-1", subdomain: "other" });
    const e = ep(h, "nginx")!;
    expect(e.metadata.labels).toEqual({ app: "nginx", "service.kubernetes.io/headless": "" });
    expect(e.subsets).toHaveLength(1);
    expect(e.subsets![0].ports).toBeUndefined();
    expect(e.subsets![0].addresses!.map((a) => [a.ip, a.hostname])).toEqual([
      ["10.244.1.10", "web-0"],
      ["10.244.1.11", undefined],
    ]);
    golden("endpoints-headless.json", e);
  });

  it("follows selector changes (pods leave and join) and pod label changes", () => {
    const h = setup();
    h.service("web", { selector: { app: "web" }, ports: [{ port: 80 }] });
    h.pod("a", { ip: "10.244.1.2", labels: { app: "web" } });
    h.pod("b", { ip: "10.244.1.3", labels: { app: "api" } });
    expect(ips(ep(h, "web")!.subsets![0].addresses)).toEqual(["10.244.1.2"]);
    const svc = h.api.peek(R.services, "default", "web")!;
    h.api.update(R.services, "default", "web", { ...svc, spec: { ...(svc.spec as object), selector: { app: "api" } } });
    h.settle();
    expect(ips(ep(h, "web")!.subsets![0].addresses)).toEqual(["10.244.1.3"]);
    const a = h.api.peek(R.pods, "default", "a")!;
    h.api.update(R.pods, "default", "a", { ...a, metadata: { ...a.metadata, labels: { app: "api" } } });
    h.settle();
    expect(ips(ep(h, "web")!.subsets![0].addresses)).toEqual(["10.244.1.2", "10.244.1.3"]);
  });

  it("deletes the Endpoints with the Service and leaves selectorless Services' Endpoints alone", () => {
    const h = setup();
    h.service("web", { selector: { app: "web" }, ports: [{ port: 80 }] });
    h.service("ext", { ports: [{ port: 80 }] });
    h.api.create(R.endpoints, "default", { metadata: { name: "ext" }, subsets: [{ addresses: [{ ip: "192.0.2.1" }], ports: [{ port: 80 }] }] });
    h.settle();
    expect(ep(h, "ext")!.subsets![0].addresses).toEqual([{ ip: "192.0.2.1" }]);
    h.api.delete(R.services, "default", "web");
    h.settle();
    expect(ep(h, "web")).toBeUndefined();
    // Deleting a managed Endpoints brings it back.
    h.service("web2", { selector: { app: "web" }, ports: [{ port: 80 }] });
    h.api.delete(R.endpoints, "default", "web2");
    h.settle();
    expect(ep(h, "web2")).toBeDefined();
  });

  it("truncates to 1000 addresses with the over-capacity annotation, ready first", () => {
    const h = setup();
    h.service("big", { selector: { app: "web" }, ports: [{ port: 80 }] });
    for (let i = 0; i < 1003; i++) {
      h.pod(`p${i}`, { ip: `10.244.${1 + (i >> 8)}.${i & 255}`, ready: i >= 3, settle: false });
    }
    h.settle();
    const e = ep(h, "big")!;
    expect(e.metadata.annotations!["endpoints.kubernetes.io/over-capacity"]).toBe("truncated");
    expect(e.subsets![0].addresses).toHaveLength(1000);
    expect(e.subsets![0].notReadyAddresses).toBeUndefined();
    // Back under capacity: annotation removed.
    for (let i = 0; i < 4; i++) h.api.delete(R.pods, "default", `p${i + 10}`, { gracePeriodSeconds: 0 });
    h.settle();
    const e2 = ep(h, "big")!;
    expect(e2.metadata.annotations?.["endpoints.kubernetes.io/over-capacity"]).toBeUndefined();
    expect(e2.subsets![0].addresses).toHaveLength(996);
    expect(e2.subsets![0].notReadyAddresses).toHaveLength(3);
  });

  it("ignores ExternalName Services and leaves the bootstrap kubernetes Endpoints alone", () => {
    const h = setup();
    h.service("kubernetes", { ports: [{ name: "https", port: 443, targetPort: 6443 }] });
    h.api.create(R.endpoints, "default", { metadata: { name: "kubernetes" }, subsets: [{ addresses: [{ ip: "10.1.8.30" }], ports: [{ name: "https", port: 6443 }] }] });
    h.service("ext", { type: "ExternalName", externalName: "example.com", selector: { app: "web" } });
    h.pod("a", { ip: "10.244.1.2" });
    h.events = [];
    h.manager.resyncAll();
    h.settle();
    expect(h.writes("endpoints")).toHaveLength(0);
    expect(ep(h, "ext")).toBeUndefined();
  });
});
