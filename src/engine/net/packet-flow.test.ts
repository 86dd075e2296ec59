// One packet-flow table, run against every proxy mode: who connects, to what, which endpoints
// may answer, whether the pod sees a masqueraded source, and how the connection ends.
import { describe, expect, it } from "vitest";
import { ep, svc } from "../proxy/iptables/testing.js";
import type { EndpointInfo, ProxyMode } from "../proxy/types.js";
import type { ConnectOptions } from "./dataplane.js";
import type { L4, Source, Verdict } from "./packet.js";
import { SimNet, type SimOptions, type SimPod } from "./sim.js";

const at = (ip: string, node: string, port = 80, o: Partial<EndpointInfo> = {}) => ep(ip, port, { nodeName: node, ...o });

const WEB = ["10.244.1.2", "10.244.2.2", "10.244.0.2"];
const services: SimOptions["services"] = [
  [
    svc({ ns: "default", name: "web", clusterIP: "10.96.0.100", port: 8080, nodePort: 31917, loadBalancerVIPs: ["10.1.8.40"], externalIPs: ["10.1.8.50"] }),
    [at(WEB[0], "node1"), at(WEB[1], "node2"), at(WEB[2], "master")],
  ],
  [svc({ ns: "default", name: "loc", clusterIP: "10.96.0.101", nodePort: 31000, externalPolicyLocal: true, healthCheckNodePort: 32000 }), [at("10.244.1.3", "node1")]],
  [svc({ ns: "default", name: "empty", clusterIP: "10.96.0.102", nodePort: 31001 }), []],
  [svc({ ns: "default", name: "itp", clusterIP: "10.96.0.103", internalPolicyLocal: true }), [at("10.244.1.4", "node1")]],
  [svc({ ns: "default", name: "sticky", clusterIP: "10.96.0.104", stickyMaxAgeSeconds: 10800 }), [at(WEB[0], "node1"), at(WEB[1], "node2"), at(WEB[2], "master")]],
  [svc({ ns: "default", name: "db", clusterIP: "10.96.0.105", port: 3306 }), [at("10.244.1.5", "node1", 3306)]],
  [svc({ ns: "default", name: "solo", clusterIP: "10.96.0.106" }), [at("10.244.1.6", "node1")]],
  [
    svc({ ns: "default", name: "term", clusterIP: "10.96.0.107" }),
    [at("10.244.2.7", "node2", 80, { ready: false, serving: true, terminating: true })],
  ],
];
const pods: SimPod[] = [
  { key: "default/web-a", ip: WEB[0], node: "node1" },
  { key: "default/web-b", ip: WEB[1], node: "node2" },
  { key: "default/web-c", ip: WEB[2], node: "master" },
  { key: "default/loc-a", ip: "10.244.1.3", node: "node1" },
  { key: "default/itp-a", ip: "10.244.1.4", node: "node1" },
  { key: "default/db-a", ip: "10.244.1.5", node: "node1", tcp: [80] },
  { key: "default/solo", ip: "10.244.1.6", node: "node1" },
  { key: "default/term", ip: "10.244.2.7", node: "node2" },
  { key: "default/client1", ip: "10.244.1.10", node: "node1" },
  { key: "default/client2", ip: "10.244.2.10", node: "node2" },
];
const ANY_WEB = ["default/web-a", "default/web-b", "default/web-c"];

const client1: Source = { kind: "pod", ip: "10.244.1.10", node: "node1" };
const client2: Source = { kind: "pod", ip: "10.244.2.10", node: "node2" };
const outside = (entryNode?: string): Source => ({ kind: "external", ip: "192.168.1.5", entryNode });

interface Row {
  name: string;
  from: Source;
  to: string;
  port: number;
  proto?: L4;
  opts?: ConnectOptions;
  /** Pods that may answer (empty: none). */
  pods: string[];
  masq?: boolean;
  /** The source address the pod must see, when fixed. */
  seen?: string | string[];
  verdict: Verdict | Partial<Record<ProxyMode, Verdict>>;
}

const rows: Row[] = [
  { name: "pod -> ClusterIP", from: client1, to: "10.96.0.100", port: 8080, pods: ANY_WEB, masq: false, seen: "10.244.1.10", verdict: "established" },
  { name: "node -> ClusterIP (masquerade)", from: { kind: "node", node: "master" }, to: "10.96.0.100", port: 8080, pods: ANY_WEB, masq: true, seen: ["10.244.0.1", "10.244.0.0"], verdict: "established" },
  { name: "external -> NodePort on master (ETP Cluster)", from: outside(), to: "10.1.8.30", port: 31917, pods: ANY_WEB, masq: true, seen: ["10.244.0.1", "10.244.0.0"], verdict: "established" },
  { name: "external -> NodePort on node1", from: outside(), to: "10.1.8.31", port: 31917, pods: ANY_WEB, masq: true, seen: ["10.244.1.1", "10.244.1.0"], verdict: "established" },
  { name: "external -> NodePort on node2", from: outside(), to: "10.1.8.32", port: 31917, pods: ANY_WEB, masq: true, seen: ["10.244.2.1", "10.244.2.0"], verdict: "established" },
  { name: "external -> NodePort ETP Local, node with the endpoint", from: outside(), to: "10.1.8.31", port: 31000, pods: ["default/loc-a"], masq: false, seen: "192.168.1.5", verdict: "established" },
  // iptables/nftables DROP; IPVS has a virtual server without real servers, which answers ICMP port unreachable.
  { name: "external -> NodePort ETP Local, node without endpoints (DROP)", from: outside(), to: "10.1.8.32", port: 31000, pods: [], verdict: { iptables: "timeout", nftables: "timeout", ipvs: "refused" } },
  { name: "external -> LoadBalancer IP (announced by node1)", from: outside(), to: "10.1.8.40", port: 8080, pods: ANY_WEB, masq: true, verdict: "established" },
  { name: "external -> externalIP", from: outside("node2"), to: "10.1.8.50", port: 8080, pods: ANY_WEB, masq: true, verdict: "established" },
  { name: "pod -> LoadBalancer IP (captured on the pod's node)", from: client2, to: "10.1.8.40", port: 8080, pods: ANY_WEB, masq: true, verdict: "established" },
  { name: "pod -> service without endpoints (REJECT)", from: client1, to: "10.96.0.102", port: 80, pods: [], verdict: "refused" },
  { name: "external -> NodePort without endpoints (REJECT)", from: outside(), to: "10.1.8.31", port: 31001, pods: [], verdict: "refused" },
  { name: "internalTrafficPolicy Local, local endpoint", from: client1, to: "10.96.0.103", port: 80, pods: ["default/itp-a"], masq: false, verdict: "established" },
  { name: "internalTrafficPolicy Local, no local endpoint (DROP)", from: client2, to: "10.96.0.103", port: 80, pods: [], verdict: { iptables: "timeout", nftables: "timeout", ipvs: "refused" } },
  { name: "pod app refuses the port", from: client1, to: "10.96.0.105", port: 3306, pods: ["default/db-a"], masq: false, verdict: "refused" },
  { name: "hairpin: pod -> its own service (masquerade)", from: { kind: "pod", ip: "10.244.1.6", node: "node1" }, to: "10.96.0.106", port: 80, pods: ["default/solo"], masq: true, seen: "10.244.1.1", verdict: "established" },
  { name: "pod -> pod IP on another node", from: client1, to: "10.244.2.2", port: 80, pods: ["default/web-b"], masq: false, seen: "10.244.1.10", verdict: "established" },
  { name: "terminating endpoints serve when nothing is ready", from: client1, to: "10.96.0.107", port: 80, pods: ["default/term"], masq: false, verdict: "established" },
  {
    name: "ClusterIP on a port it does not have",
    from: client1,
    to: "10.96.0.100",
    port: 9999,
    pods: [],
    // iptables: no rule, default route, nothing answers. nftables: cluster-ips-check rejects. IPVS: bound address, RST.
    verdict: { iptables: "timeout", nftables: "refused", ipvs: "refused" },
  },
  // IPVS binds the ClusterIP to kube-ipvs0, but since v1.29 KUBE-IPVS-FILTER rejects new traffic to
  // it that is not for a service port, ICMP included.
  { name: "ping ClusterIP", from: client1, to: "10.96.0.100", port: 0, proto: "icmp", pods: [], verdict: { iptables: "timeout", nftables: "refused", ipvs: "refused" } },
  { name: "ping pod IP", from: client1, to: "10.244.2.2", port: 0, proto: "icmp", pods: ["default/web-b"], verdict: "established" },
  { name: "ping node IP", from: client1, to: "10.1.8.32", port: 0, proto: "icmp", pods: [], verdict: "established" },
  { name: "pod -> internet (no route beyond the gateway)", from: client1, to: "93.184.216.34", port: 80, pods: [], verdict: "timeout" },
];

const MODES: ProxyMode[] = ["iptables", "nftables", "ipvs"];

function net(mode: ProxyMode, seed = 7): SimNet {
  return new SimNet({ mode, services, pods, seed, announce: { "10.1.8.40": "node1" } });
}

describe.each(MODES)("packet flow (%s)", (mode) => {
  it.each(rows)("$name", (row) => {
    const n = net(mode);
    const seenPods = new Set<string>();
    // Several attempts, so random choices show every endpoint they may pick.
    for (let i = 0; i < 12; i++) {
      const r = n.dp.connect(row.from, row.to, row.port, { proto: row.proto ?? "tcp", ...row.opts });
      const want = typeof row.verdict === "string" ? row.verdict : row.verdict[mode];
      expect(r.verdict, `${r.reason}`).toBe(want);
      if (r.pod && row.pods.length) {
        expect(row.pods).toContain(r.pod);
        seenPods.add(r.pod);
      }
      if (row.pods.length === 0 && row.proto !== "icmp") expect(r.verdict === "established" ? r.pod : undefined).toBeUndefined();
      if (row.masq !== undefined && r.verdict !== "timeout") expect(r.masqueraded, `seen ${r.seenSrc?.ip}`).toBe(row.masq);
      if (row.seen !== undefined && r.seenSrc) expect([row.seen].flat()).toContain(r.seenSrc.ip);
    }
    if (row.pods.length > 1) expect(seenPods.size).toBeGreaterThan(1);
  });

  it("traces every rule with its number, and counts them", () => {
    const n = net(mode);
    const r = n.dp.connect(client1, "10.96.0.100", 8080, { trace: true });
    expect(r.verdict).toBe("established");
    expect(r.rules).toBeGreaterThan(3);
    const rules = r.trace!.filter((s) => s.kind === "rule");
    expect(rules.length).toBeGreaterThan(2);
    for (const s of rules) expect(s.rule).toBeGreaterThan(0);
    expect(r.trace!.some((s) => s.kind === "nat" && s.text.includes("10.96.0.100:8080 ->"))).toBe(true);
    // iptables and nftables pick at random; IPVS's scheduler decides.
    expect(r.trace!.some((s) => s.kind === (mode === "ipvs" ? "scheduler" : "random"))).toBe(true);
  });

  it("session affinity: 20 requests from one client land on one pod", () => {
    const n = net(mode);
    const got = new Set<string>();
    for (let i = 0; i < 20; i++) got.add(n.dp.connect(client1, "10.96.0.104", 80).pod!);
    expect(got.size).toBe(1);
    // Another client is placed independently; after the timeout the choice is made afresh.
    n.now += 10801 * 1000;
    const later = new Set<string>();
    for (let i = 0; i < 30; i++) {
      n.now += 3 * 3600 * 1000 + 1000; // past the 10800 s timeout every time
      later.add(n.dp.connect(client1, "10.96.0.104", 80).pod!);
    }
    expect(later.size).toBeGreaterThan(1);
  });

  it("random split over 3 endpoints is uniform (chi-square, df=2, p=0.001 bound 13.82)", () => {
    const n = net(mode, 12345);
    const N = 3000;
    const counts = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const p = n.dp.connect(client1, "10.96.0.100", 8080).pod!;
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    expect(counts.size).toBe(3);
    const chi = [...counts.values()].reduce((a, c) => a + (c - N / 3) ** 2 / (N / 3), 0);
    expect(chi).toBeLessThan(13.82);
  });

  it("canary 8:2 gives 80/20 (chi-square, df=1, p=0.001 bound 10.83)", () => {
    const eps = [...Array(10).keys()].map((i) => at(`10.244.${i % 3}.${50 + i}`, ["master", "node1", "node2"][i % 3]));
    const cpods: SimPod[] = eps.map((e, i) => ({ key: i < 8 ? `default/web-28-${i}` : `default/web-29-${i}`, ip: e.ip, node: e.nodeName }));
    const n = new SimNet({ mode, services: [[svc({ ns: "default", name: "canary", clusterIP: "10.96.0.200" }), eps]], pods: [...cpods, pods[8]], seed: 99 });
    const N = 5000;
    let old = 0;
    for (let i = 0; i < N; i++) if (n.dp.connect(client1, "10.96.0.200", 80).pod!.startsWith("default/web-28")) old++;
    const chi = (old - 0.8 * N) ** 2 / (0.8 * N) + (N - old - 0.2 * N) ** 2 / (0.2 * N);
    expect(chi).toBeLessThan(10.83);
  });

  it.runIf(mode === "ipvs")("IPVS rr through the data plane: 60 requests over 3 pods give exactly 20 each", () => {
    const n = net(mode);
    const counts = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const r = n.dp.connect(client1, "10.96.0.100", 8080);
      expect(r.verdict).toBe("established");
      counts.set(r.pod!, (counts.get(r.pod!) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({ "default/web-a": 20, "default/web-b": 20, "default/web-c": 20 });
  });

  // One evaluator per mode, with or without a trace: a traced walk only writes down what it does
  // (numeric lookups and compact rules alike). Both must route alike, count the same rules and
  // draw the same random numbers, with or without masquerade rules and affinity.
  it.each([false, true])("a traced walk and a trace-less one agree (masqueradeAll %s)", (masqueradeAll) => {
    const make = () => new SimNet({ mode, services, pods, seed: 3, announce: { "10.1.8.40": "node1" }, config: { masqueradeAll } });
    const quiet = make();
    const traced = make();
    const sources = [client1, client2, outside(), { kind: "node", node: "master" } as Source, { kind: "pod", ip: "10.244.1.6", node: "node1" } as Source];
    const sticky: Row = { name: "sticky", from: client1, to: "10.96.0.104", port: 80, pods: [], verdict: "established" };
    for (let i = 0; i < 3; i++) {
      for (const row of [...rows, sticky]) {
        for (const from of [row.from, ...sources]) {
          const opts = { proto: row.proto ?? "tcp", ...row.opts };
          const a = quiet.dp.connect(from, row.to, row.port, opts);
          const b = traced.dp.connect(from, row.to, row.port, { ...opts, trace: true });
          delete b.trace;
          expect(a, `${row.name} from ${JSON.stringify(from)}`).toEqual(b);
        }
      }
      quiet.now = traced.now += 1000;
    }
    expect(quiet.rng.uint32()).toBe(traced.rng.uint32());
  });

  // What the rules keep for lookups (numeric indexes, verdicts bound to their chains, rules made on
  // first read) must follow a re-sync: after one, connections route by the new rules only.
  it("after a re-sync, connections follow the new endpoints (traced and trace-less alike)", () => {
    const make = () => new SimNet({ mode, services, pods, seed: 4, announce: { "10.1.8.40": "node1" } });
    const quiet = make();
    const traced = make();
    const both = (to: string, port: number) => {
      const a = quiet.dp.connect(client1, to, port);
      const b = traced.dp.connect(client1, to, port, { trace: true });
      delete b.trace;
      expect(a).toEqual(b);
      return a;
    };
    for (let i = 0; i < 10; i++) expect(ANY_WEB).toContain(both("10.96.0.100", 8080).pod);
    // web loses two endpoints and moves port; solo is gone; a new service takes solo's address.
    const next: SimOptions["services"] = [
      ...services.filter(([s]) => s.name.name !== "solo").map(([s, eps]) => (s.name.name === "web" ? ([{ ...s, port: 8081 }, eps.slice(0, 1)] as const) : ([s, eps] as const))),
      [svc({ ns: "default", name: "solo2", clusterIP: "10.96.0.106", port: 81 }), [at(WEB[1], "node2")]],
    ];
    quiet.sync(next);
    traced.sync(next);
    quiet.now = traced.now += 1000;
    for (let i = 0; i < 10; i++) {
      expect(both("10.96.0.100", 8081).pod).toBe("default/web-a");
      expect(both("10.96.0.100", 8080).pod).toBeUndefined();
      expect(both("10.96.0.106", 80).pod).toBeUndefined();
      expect(both("10.96.0.106", 81).pod).toBe("default/web-b");
    }
    // Only web's endpoints change (same service port), twice: web-c is added beside web-a, and
    // both answer; then web-a goes (IPVS drains it at weight 0), and web-c alone answers.
    const withEps = (eps: ReturnType<typeof at>[]): SimOptions["services"] => next.map(([s, e]) => (s.name.name === "web" ? ([s, eps] as const) : ([s, e] as const)));
    for (const [eps, want] of [
      [[at(WEB[0], "node1"), at(WEB[2], "master")], ["default/web-a", "default/web-c"]],
      [[at(WEB[2], "master")], ["default/web-c"]],
    ] as const) {
      quiet.sync(withEps([...eps]));
      traced.sync(withEps([...eps]));
      quiet.now = traced.now += 1000;
      const seen = new Set<string | undefined>();
      for (let i = 0; i < 12; i++) seen.add(both("10.96.0.100", 8081).pod);
      expect([...seen].sort()).toEqual(want);
    }
    expect(quiet.rng.uint32()).toBe(traced.rng.uint32());
  });

  it("replays exactly from the same seed", () => {
    const a = net(mode, 5);
    const b = net(mode, 5);
    const seq = (n: SimNet) => [...Array(50)].map(() => n.dp.connect(client1, "10.96.0.100", 8080).pod).join(",");
    expect(seq(a)).toBe(seq(b));
  });

  it("conntrack keeps an established flow's DNAT", () => {
    const n = net(mode);
    const first = n.dp.connect(client1, "10.96.0.100", 8080, { sport: 40000, keepOpen: true });
    for (let i = 0; i < 10; i++) {
      const again = n.dp.connect(client1, "10.96.0.100", 8080, { sport: 40000 });
      expect(again.established).toBe(true);
      expect(again.pod).toBe(first.pod);
    }
    const lines = n.dp.conntrack("node1").list(n.now);
    expect(lines.some((e) => e.orig.sport === 40000 && e.state === "ESTABLISHED")).toBe(true);
  });
});
