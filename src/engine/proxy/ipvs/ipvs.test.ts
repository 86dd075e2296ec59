import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ep, kindLikeState, svc, state, TEST_NODE, testConfig } from "../iptables/testing.js";
import { iptablesSave, toOutput } from "../iptables/render.js";
import { danglingJumps } from "../iptables/model.js";
import type { ProxyConfig, ServicePortInfo } from "../types.js";
import { servicePortKey } from "../types.js";
import { IpvsProxier, type VirtualServer } from "./proxier.js";
import { ipAddrShowDummy, ipsetList, ipvsadmConnections, ipvsadmList } from "./render.js";
import type { RealServer } from "./scheduler.js";

const golden = (name: string, text: string) => {
  const path = new URL(`./testdata/${name}`, import.meta.url);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, "utf8"));
};

const WEB = svc({ ns: "default", name: "web", clusterIP: "10.96.0.50", port: 80 });
const PODS = ["10.244.1.2", "10.244.1.3", "10.244.2.2"].map((ip) => ep(ip, 80));

function proxier(scheduler = "", o: Partial<ServicePortInfo> = {}, over: Partial<ProxyConfig> = {}): { p: IpvsProxier; vs: VirtualServer } {
  const p = new IpvsProxier(TEST_NODE, testConfig({ mode: "ipvs", ...over, ipvs: { ...testConfig().ipvs, scheduler } }));
  p.sync(state([[{ ...WEB, ...o }, PODS]]));
  return { p, vs: p.virtualServer("TCP", "10.96.0.50", 80)! };
}

function counts(list: (RealServer | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of list) out[d ? d.ip : "none"] = (out[d ? d.ip : "none"] ?? 0) + 1;
  return out;
}

describe("IPVS schedulers", () => {
  it("rr: 60 requests over 3 pods give 20 each, in list order", () => {
    const { p, vs } = proxier("rr");
    const picks = Array.from({ length: 60 }, (_, i) => p.connect(vs, { ip: "10.244.0.9", port: 40000 + i }, 0)!.dest);
    expect(picks.slice(0, 4).map((d) => d.ip)).toEqual(["10.244.1.2", "10.244.1.3", "10.244.2.2", "10.244.1.2"]);
    expect(counts(picks)).toEqual({ "10.244.1.2": 20, "10.244.1.3": 20, "10.244.2.2": 20 });
    expect(vs.dests.map((d) => d.activeConns)).toEqual([20, 20, 20]);
  });

  it("wrr with weights 3, 2, 1 interleaves as the kernel does", () => {
    const { p, vs } = proxier("wrr");
    vs.dests[0].weight = 3;
    vs.dests[1].weight = 2;
    const seq = Array.from({ length: 12 }, () => p.schedule(vs, "1.1.1.1", 0)!.ip.slice(-3));
    expect(seq).toEqual(["1.2", "1.2", "1.3", "1.2", "1.3", "2.2", "1.2", "1.2", "1.3", "1.2", "1.3", "2.2"]);
  });

  it("lc picks the fewest connections (active weigh 256 inactive), wlc divides by weight", () => {
    const { p, vs } = proxier("lc");
    const [a, b, c] = vs.dests;
    a.activeConns = 1;
    b.inactiveConns = 200;
    c.activeConns = 0;
    expect(p.schedule(vs, "1.1.1.1", 0)).toBe(c);
    c.activeConns = 1;
    expect(p.schedule(vs, "1.1.1.1", 0)).toBe(b); // 200 < 256
    const w = proxier("wlc");
    const [x, y] = w.vs.dests;
    x.activeConns = 2;
    x.weight = 4; // 512/4 = 128
    y.activeConns = 1; // 256/1
    w.vs.dests[2].activeConns = 1;
    expect(w.p.schedule(w.vs, "1.1.1.1", 0)).toBe(x);
  });

  it("sed and nq: (active+1)/weight, nq takes an idle server at once", () => {
    const s = proxier("sed");
    s.vs.dests[0].activeConns = 0;
    s.vs.dests[0].weight = 1;
    s.vs.dests[1].activeConns = 2;
    s.vs.dests[1].weight = 4; // 3/4 < 1/1
    s.vs.dests[2].activeConns = 5;
    expect(s.p.schedule(s.vs, "1.1.1.1", 0)).toBe(s.vs.dests[1]);
    const n = proxier("nq");
    n.vs.dests[0].activeConns = 3;
    n.vs.dests[1].activeConns = 0;
    n.vs.dests[2].activeConns = 0;
    expect(n.p.schedule(n.vs, "1.1.1.1", 0)).toBe(n.vs.dests[1]);
  });

  it("sh sends a client to the same server every time, spreading clients over the 256-bucket table; dh always picks one server for one VIP", () => {
    const { p, vs } = proxier("sh");
    const first = new Map<string, string>();
    for (let i = 0; i < 50; i++) {
      const client = `192.168.${i}.${(i * 7) % 250}`;
      first.set(client, p.connect(vs, { ip: client, port: 1 }, 0)!.dest.ip);
      expect(p.connect(vs, { ip: client, port: 2 }, 0)!.dest.ip).toBe(first.get(client));
    }
    expect(new Set(first.values()).size).toBe(3);
    const d = proxier("dh");
    const got = new Set(Array.from({ length: 20 }, (_, i) => d.p.schedule(d.vs, `172.16.0.${i}`, 0)!.ip));
    expect(got.size).toBe(1);
  });

  it("ClientIP affinity is IPVS persistence: one client sticks to one server until the timeout", () => {
    const { p, vs } = proxier("rr", { stickyMaxAgeSeconds: 10800 });
    expect(vs.persistent).toBe(10800);
    const a = p.connect(vs, { ip: "10.244.0.9", port: 1 }, 0)!.dest;
    for (let i = 0; i < 5; i++) expect(p.connect(vs, { ip: "10.244.0.9", port: 2 + i }, 1000)!.dest).toBe(a);
    expect(p.connect(vs, { ip: "10.244.0.8", port: 1 }, 1000)!.dest).not.toBe(a);
    expect(p.schedule(vs, "10.244.0.9", 10800_001)).not.toBe(undefined);
    expect(ipvsadmList(p)).toContain("TCP  10.96.0.50:80 rr persistent 10800\n");
  });

  it("graceful termination: a removed TCP server with connections stays at weight 0 until they are gone", () => {
    const { p, vs } = proxier("rr");
    const conns = [0, 1, 2].map((i) => p.connect(vs, { ip: "10.244.0.9", port: 100 + i }, 0)!);
    p.sync(state([[WEB, PODS.slice(1)]]), new Set([servicePortKey(WEB.name)]));
    const gone = vs.dests.find((d) => d.ip === "10.244.1.2")!;
    expect(gone.weight).toBe(0);
    expect(ipvsadmList(p)).toContain("  -> 10.244.1.2:80                Masq    0      1          0         \n");
    // New connections never go to it.
    for (let i = 0; i < 6; i++) expect(p.connect(vs, { ip: "10.244.0.7", port: i }, 0)!.dest.ip).not.toBe("10.244.1.2");
    p.close(conns[0], 1000);
    expect([gone.activeConns, gone.inactiveConns]).toEqual([0, 1]);
    expect(ipvsadmConnections(p, 1000)).toContain("TCP 02:00  TIME_WAIT   10.244.0.9:100     10.96.0.50:80      10.244.1.2:80");
    p.expire(1000 + 120_000);
    expect(vs.dests.map((d) => d.ip)).toEqual(["10.244.1.3", "10.244.2.2"]);
  });
});

describe("IPVS connection entries", () => {
  it("keep each entry's servers and client through growth, closing and expiry", () => {
    const { p, vs } = proxier("rr");
    // Canonical client addresses (low and high) are kept as numbers, other texts as they are.
    const clients = ["10.244.0.9", "192.168.1.5", "255.255.255.255", "10.244.00.9"];
    const want = new Map<number, { ip: string; port: number; dest: string; expires: number }>();
    // 10 connections per second of cluster time: ~9000 entries live at once, over several chunks of the table.
    let most = 0;
    for (let i = 0; i < 12000; i++) {
      const now = i * 100;
      const c = p.connect(vs, { ip: clients[i % 4], port: i }, now)!;
      want.set(c.id, { ip: clients[i % 4], port: i, dest: c.dest.ip, expires: c.expires });
      if (i % 3 === 0) {
        p.close(c, now);
        want.get(c.id)!.expires = now + p.tcpFinTimeout * 1000;
      }
      if (i % 500 === 499) {
        p.expire(now);
        for (const [id, w] of want) if (w.expires <= now) want.delete(id);
      }
      most = Math.max(most, want.size);
    }
    expect(most).toBeGreaterThan(3 * 1024);
    const got = p.connectionEntries().map((e) => [e.id, { ip: e.client.ip, port: e.client.port, dest: e.dest.ip, expires: e.expires }]);
    expect(got).toEqual([...want]);
    expect(vs.dests.reduce((n, d) => n + d.activeConns + d.inactiveConns, 0)).toBe(want.size);
  });
});

describe("IPVS proxier rules", () => {
  const sync = (cfg: Partial<ProxyConfig> = {}) => {
    const p = new IpvsProxier(TEST_NODE, testConfig({ mode: "ipvs", ...cfg }));
    p.sync(kindLikeState());
    return p;
  };

  it("golden: ipvsadm -Ln, --stats, --rate, ipset list, ip addr show kube-ipvs0, iptables-save", () => {
    const p = sync();
    golden("kind-like.ipvsadm-Ln.txt", ipvsadmList(p)!);
    golden("kind-like.ipvsadm-stats.txt", ipvsadmList(p, { format: "stats" })!);
    golden("kind-like.ipvsadm-rate.txt", ipvsadmList(p, { format: "rate" })!);
    golden("kind-like.ipset-list.txt", ipsetList(p, p.iptables)!);
    golden("kind-like.ip-addr-kube-ipvs0.txt", ipAddrShowDummy(p));
    golden("kind-like.iptables-save.txt", toOutput(iptablesSave(p.iptables, { date: "Thu Jan  1 00:00:00 2026" })).stdout);
    expect(danglingJumps(p.iptables)).toEqual([]);
  });

  it("-Lnt VIP:PORT lists one virtual server; an unknown one is undefined", () => {
    const p = sync();
    const one = ipvsadmList(p, { service: { protocol: "TCP", ip: "10.96.0.1", port: 443 } })!;
    expect(one.split("\n").filter((l) => l.startsWith("TCP"))).toEqual(["TCP  10.96.0.1:443 rr"]);
    expect(ipvsadmList(p, { service: { protocol: "TCP", ip: "10.96.0.1", port: 444 } })).toBeUndefined();
  });

  it("incremental sync equals a full sync", () => {
    const full = sync();
    const inc = new IpvsProxier(TEST_NODE, testConfig({ mode: "ipvs" }));
    const st = kindLikeState();
    const first = new Map([...st.services].slice(0, 2));
    inc.sync({ services: first, endpoints: st.endpoints });
    inc.sync(st, new Set(st.services.keys()));
    expect(ipvsadmList(inc)).toBe(ipvsadmList(full));
    expect(ipsetList(inc, inc.iptables)).toBe(ipsetList(full, full.iptables));
    // Removing a service drops its virtual servers, set entries and addresses.
    const less = new Map(st.services);
    const k = [...less.keys()][0];
    const vip = less.get(k)!.clusterIP;
    less.delete(k);
    inc.sync({ services: less, endpoints: st.endpoints }, new Set([k]));
    expect(ipAddrShowDummy(inc)).not.toContain(` ${vip}/32`);
  });

  it("refuses an unknown scheduler", () => {
    expect(() => new IpvsProxier(TEST_NODE, testConfig({ mode: "ipvs", ipvs: { ...testConfig().ipvs, scheduler: "bogus" } }))).toThrow(/no such file or directory/);
  });
});
