import { describe, expect, it } from "vitest";
import type { EndpointInfo, ProxyState, ServicePortInfo } from "../types.js";
import { servicePortKey } from "../types.js";
import {
  TEST_CONFIG,
  TEST_NODE,
  TEST_SERVICE_CIDRS,
  ep,
  makeState,
  overallState,
  prng,
  randomServicePort,
  svcPort,
} from "./fixtures.test-helpers.js";
import { validateTable } from "./model.js";
import { hashAndTruncate } from "./names.js";
import { NftablesProxier } from "./proxier.js";
import { listTableLines, renderTransaction } from "./render.js";

function proxier(config = TEST_CONFIG): NftablesProxier {
  return new NftablesProxier(TEST_NODE, config, { serviceCIDRs: TEST_SERVICE_CIDRS });
}

/** The per-service part of the transaction (after the base rules). */
function txOf(state: ProxyState, config = TEST_CONFIG): string {
  const p = proxier(config);
  p.sync(state);
  const tx = renderTransaction(p);
  return tx.slice(tx.indexOf("\n# "));
}

/** The listing cut into its set/chain blocks, sorted: equal contents regardless of creation order. */
function blocks(p: NftablesProxier): string[] {
  const lines = [...listTableLines(p.table)];
  return lines.slice(2, -1).join("\n").split("\n\n").sort();
}

describe("names", () => {
  it("hashAndTruncate matches kube-proxy's test vectors", () => {
    expect(hashAndTruncate("testing/service/tcp/http")).toBe("P4ZYZVCF-testing/service/tcp/http");
    expect(hashAndTruncate("testing/service/tcp/http__10.180.0.1/80")).toBe("JO2XBXZR-testing/service/tcp/http__10.180.0.1/80");
    const long =
      "very-long-namespace-name-abcdefghijklmnopqrstuvwxyz0123456789xx/very-long-service-name-why-would-you-even-do-this-i-mean-really/sctp/port-443-providing-the-hypertext-transmission-protocol-with-tls";
    expect(hashAndTruncate(`${long}__1234.5678.9abc.def0..abcd.1234.5678/443`)).toBe(
      `CI6C53Q3-${long}__1234.5678.9abc.def0..abcd.1234...`,
    );
  });
});

describe("syncProxyRules shapes", () => {
  it("eTP Local with a local endpoint: local- chain, short-circuits, goto local-", () => {
    const tx = txOf(
      makeState([
        [
          svcPort("ns1", "svc1", {
            clusterIP: "172.30.0.41",
            nodePort: 3001,
            externalIPs: ["192.168.99.11"],
            loadBalancerVIPs: ["1.2.3.4"],
            externalPolicyLocal: true,
            healthCheckNodePort: 30000,
          }),
          [ep("10.180.0.1", 80), ep("10.180.2.1", 80, { nodeName: "test-node" })],
        ],
      ]),
    );
    const base = "ULMVA6XW-ns1/svc1/tcp/p80";
    expect(tx).toContain(`add chain ip kube-proxy local-${base}\n`);
    expect(tx).toMatch(new RegExp(`add rule ip kube-proxy local-${base} numgen random mod 1 vmap \\{ 0 : goto endpoint-[A-Z2-7]{8}-ns1/svc1/tcp/p80__10\\.180\\.2\\.1/80 \\}`));
    expect(tx).toContain(`add rule ip kube-proxy external-${base} ip saddr 10.0.0.0/8 goto service-${base} comment "short-circuit pod traffic"`);
    expect(tx).toContain(`add rule ip kube-proxy external-${base} goto local-${base}\n`);
    expect(tx).toContain(`add rule ip kube-proxy service-${base} numgen random mod 2 vmap`);
    expect(tx).not.toContain("no-endpoint");
  });

  it("no endpoints anywhere: reject elements for every destination, no chains", () => {
    const tx = txOf(
      makeState([[svcPort("ns1", "svc1", { clusterIP: "172.30.0.41", nodePort: 3001, externalIPs: ["192.168.99.11"], loadBalancerVIPs: ["1.2.3.4"] }), []]]),
    );
    expect(tx).toContain(
      [
        "# svc1",
        "add element ip kube-proxy cluster-ips { 172.30.0.41 }",
        'add element ip kube-proxy no-endpoint-services { 172.30.0.41 . tcp . 80 comment "ns1/svc1:p80" : goto reject-chain }',
        'add element ip kube-proxy no-endpoint-services { 192.168.99.11 . tcp . 80 comment "ns1/svc1:p80" : goto reject-chain }',
        'add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns1/svc1:p80" : goto reject-chain }',
        'add element ip kube-proxy no-endpoint-nodeports { tcp . 3001 comment "ns1/svc1:p80" : goto reject-chain }',
      ].join("\n"),
    );
    expect(tx).not.toContain("add chain ip kube-proxy service-");
  });

  it("iTP Local without local endpoints drops ClusterIP traffic", () => {
    const tx = txOf(makeState([[svcPort("ns1", "svc1", { clusterIP: "172.30.0.41", internalPolicyLocal: true }), [ep("10.180.0.1", 80)]]]));
    expect(tx).toContain('add element ip kube-proxy no-endpoint-services { 172.30.0.41 . tcp . 80 comment "ns1/svc1:p80" : drop }');
    expect(tx).not.toContain("add chain ip kube-proxy service-");
  });

  it("terminating endpoints are used only when no endpoint is ready", () => {
    const eps = (ready: boolean) => [
      ep("10.0.1.1", 80, { ready, serving: true, terminating: !ready }),
      ep("10.0.1.2", 80, { ready: false, serving: true, terminating: true }),
      ep("10.0.1.3", 80, { ready: false, serving: false, terminating: true }),
    ];
    expect(txOf(makeState([[svcPort("ns1", "svc1", { clusterIP: "172.30.1.1" }), eps(true)]]))).toContain("numgen random mod 1 vmap");
    const onlyTerminating = txOf(makeState([[svcPort("ns1", "svc1", { clusterIP: "172.30.1.1" }), eps(false)]]));
    expect(onlyTerminating).toContain("numgen random mod 2 vmap");
    expect(onlyTerminating).not.toContain("10.0.1.3/80");
  });

  it("masqueradeAll and no local detector", () => {
    const st = makeState([[svcPort("ns1", "svc1", { clusterIP: "172.30.0.41" }), [ep("10.180.0.1", 80)]]]);
    expect(txOf(st, { ...TEST_CONFIG, masqueradeAll: true })).toContain(
      "add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 jump mark-for-masquerade\n",
    );
    expect(txOf(st, { ...TEST_CONFIG, clusterCIDR: "" })).not.toContain("ip daddr 172.30.0.41 ");
  });

  it("LB source ranges that include the node IP also allow the LB VIPs", () => {
    const tx = txOf(
      makeState([
        [
          svcPort("ns1", "svc1", {
            clusterIP: "172.30.0.41",
            nodePort: 3001,
            loadBalancerVIPs: ["1.2.3.4", "5.6.7.8"],
            loadBalancerSourceRanges: ["192.168.0.0/24", " 203.0.113.0/25"],
          }),
          [ep("10.180.0.1", 80)],
        ],
      ]),
    );
    expect(tx).toContain("ip saddr != { 192.168.0.0/24 , 203.0.113.0/25 , 1.2.3.4 , 5.6.7.8 } drop");
  });

  it("nodePortAddresses: unset means the primary IP; 0.0.0.0/0 means all (no nodeport-ips set)", () => {
    const st = overallState();
    const full = (config: typeof TEST_CONFIG) => {
      const p = proxier(config);
      p.sync(st);
      return renderTransaction(p);
    };
    expect(full({ ...TEST_CONFIG, nodePortAddresses: [] })).toContain("add element ip kube-proxy nodeport-ips { 192.168.0.2 }");
    const all = full({ ...TEST_CONFIG, nodePortAddresses: ["0.0.0.0/0"] });
    expect(all).not.toContain("nodeport-ips");
    expect(all).toContain(
      "add rule ip kube-proxy services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports",
    );
    expect(all).toContain("add rule ip kube-proxy nodeport-endpoints-check ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports");
  });

  it("is the IPv4 proxier: IPv6 addresses and IPv6-only services are left out", () => {
    const tx = txOf(
      makeState([
        [
          svcPort("ns1", "svc1", { clusterIP: "172.30.0.41", externalIPs: ["2001:db8::5", "192.168.99.11"] }),
          [ep("10.180.0.1", 80), ep("fd00:10:180::1", 80)],
        ],
        [svcPort("ns2", "v6only", { clusterIP: "fd00:172:30::41" }), [ep("fd00:10:180::2", 80)]],
      ]),
    );
    expect(tx).not.toContain("2001:db8");
    expect(tx).not.toContain("fd00");
    expect(tx).toContain("numgen random mod 1 vmap");
    expect(tx).toContain("192.168.99.11 . tcp . 80");
  });

  it("topology: zone hints narrow cluster endpoints when every ready endpoint has one", () => {
    const node = { ...TEST_NODE, zone: "zone-a" };
    const p = new NftablesProxier(node, TEST_CONFIG, { serviceCIDRs: TEST_SERVICE_CIDRS });
    p.sync(
      makeState([
        [
          svcPort("ns1", "svc1", { clusterIP: "172.30.0.41", hintsEnabled: true }),
          [ep("10.0.0.1", 80, { zoneHints: ["zone-a"] }), ep("10.0.0.2", 80, { zoneHints: ["zone-b"] })],
        ],
      ]),
    );
    const tx = renderTransaction(p);
    expect(tx).toContain("numgen random mod 1 vmap");
    expect(tx).toContain("10.0.0.1/80");
    expect(tx).not.toContain("10.0.0.2/80");
  });
});

describe("incremental sync", () => {
  it("equals a full sync from scratch over random change sequences", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rand = prng(seed);
      const entries = new Map<string, [ServicePortInfo, EndpointInfo[]]>();
      let next = 0;
      const live = new NftablesProxier(TEST_NODE, TEST_CONFIG, { serviceCIDRs: TEST_SERVICE_CIDRS });
      for (let i = 0; i < 30; i++) {
        const e = randomServicePort(rand, next++);
        entries.set(servicePortKey(e[0].name), e);
      }
      live.sync(makeState([...entries.values()]));
      for (let step = 0; step < 40; step++) {
        const changed = new Set<string>();
        const nChanges = 1 + Math.floor(rand() * 4);
        for (let c = 0; c < nChanges; c++) {
          const keys = [...entries.keys()];
          const r = rand();
          if (r < 0.3 || keys.length === 0) {
            const e = randomServicePort(rand, next++);
            const k = servicePortKey(e[0].name);
            entries.set(k, e);
            changed.add(k);
          } else if (r < 0.5) {
            const k = keys[Math.floor(rand() * keys.length)]!;
            entries.delete(k);
            changed.add(k);
          } else {
            // Same service port (same key), new spec and endpoints.
            const k = keys[Math.floor(rand() * keys.length)]!;
            const idx = Number(entries.get(k)![0].name.name.slice(3));
            let e = randomServicePort(rand, idx, step + 1);
            while (servicePortKey(e[0].name) !== k) e = randomServicePort(rand, idx, step + 1);
            entries.set(k, e);
            changed.add(k);
          }
        }
        const state = makeState([...entries.values()]);
        const res = live.sync(state, changed);
        expect(res.full).toBe(false);
        expect(validateTable(live.table)).toEqual([]);

        const fresh = new NftablesProxier(TEST_NODE, TEST_CONFIG, { serviceCIDRs: TEST_SERVICE_CIDRS });
        fresh.sync(state);
        expect(validateTable(fresh.table)).toEqual([]);
        // Stale chains are flushed now and deleted at the next sync.
        const txLive = renderTransaction(live);
        const txFresh = renderTransaction(fresh);
        expect(txLive.split("\n# stale chains")[0]).toBe(txFresh);
        live.sync(state, new Set());
        expect(live.staleChainNames()).toEqual([]);
        expect(renderTransaction(live)).toBe(txFresh);
        expect(blocks(live)).toEqual(blocks(fresh));
      }
    }
  });

  it("a full resync of a live proxier keeps chain positions and purges removed services", () => {
    const p = proxier();
    p.sync(overallState());
    const before = [...p.table.chains.keys()];
    const st = overallState();
    const services = new Map(st.services);
    const svc1 = [...services.keys()].find((k) => k.startsWith("ns1/"))!;
    services.delete(svc1);
    p.sync({ services, endpoints: st.endpoints });
    expect([...p.table.chains.keys()]).toEqual(before);
    expect(p.staleChainNames().sort()).toEqual(["endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80", "service-ULMVA6XW-ns1/svc1/tcp/p80"]);
    p.sync({ services, endpoints: st.endpoints }, new Set());
    expect(p.table.chains.has("service-ULMVA6XW-ns1/svc1/tcp/p80")).toBe(false);
    expect(p.table.sets.get("cluster-ips")!.elements.has("172.30.0.41")).toBe(false);
  });

  it("affinity sets go away at once when affinity is turned off", () => {
    const p = proxier();
    const st = overallState();
    p.sync(st);
    const key = [...st.services.keys()].find((k) => k.startsWith("ns5/"))!;
    const services = new Map(st.services);
    services.set(key, { ...services.get(key)!, stickyMaxAgeSeconds: 0 });
    p.sync({ services, endpoints: st.endpoints }, new Set([key]));
    expect([...p.table.sets.keys()].some((n) => n.startsWith("affinity-"))).toBe(false);
    expect(validateTable(p.table)).toEqual([]);
  });
});
