// The data plane's lookup indexes answer exactly as the string-keyed maps they index, whatever
// is written into them (random writes, odd key texts included).
import { describe, expect, it } from "vitest";
import { Rng } from "../rng.js";
import { ChainMap, ElementMap, type SetElement } from "./nftables/model.js";
import { AddrMap, IpsetEntries, VirtualServerMap } from "./ipvs/index.js";
import { ChainOwners } from "./iptables/proxier.js";
import type { Chain } from "./iptables/model.js";
import { AddrIndex } from "../util/addr-index.js";
import { ipv4Num, ipv4Unchecked } from "../util/ip.js";

const ADDRS = ["10.96.0.1", "10.96.0.10", "10.244.1.5", "1.2.3.4", "10.096.0.1", "256.1.1.1", "0.0.0.0"];
const PROTOS = ["tcp", "udp", "sctp", "icmp"];
const PORTS = ["80", "443", "080", "53", "8080", "x", "", "65536", "0"];

describe("lookup indexes", () => {
  it("ElementMap.findAddrProtoPort is get(addr . proto . port)", () => {
    const rng = new Rng(7);
    const pick = <T,>(xs: readonly T[]) => xs[rng.uint32() % xs.length];
    const m = new ElementMap();
    for (let step = 0; step < 3000; step++) {
      const key = rng.uint32() % 10 === 0 ? pick(ADDRS) : `${pick(ADDRS)} . ${pick(PROTOS)} . ${pick(PORTS)}`;
      const r = rng.uint32() % 10;
      if (r < 5) m.set(key, { key: [key], value: { kind: "accept" } } as SetElement);
      else if (r < 8) m.delete(key);
      else if (r === 8 && step % 500 === 0) m.clear();
      if (step % 5 !== 0) continue;
      for (const a of ADDRS) for (const p of PROTOS) for (const port of [80, 443, 53, 8080, 0, 65536, 1.5]) {
        expect(m.findAddrProtoPort(a, p, port)).toBe(m.get(`${a} . ${p} . ${port}`));
      }
      for (const a of ADDRS) expect(m.hasAddr(a)).toBe(m.has(a));
    }
  });

  it("IpsetEntries.hasIpPort is has(ip,proto:port[,ip2])", () => {
    const rng = new Rng(8);
    const pick = <T,>(xs: readonly T[]) => xs[rng.uint32() % xs.length];
    const m = new IpsetEntries();
    for (let step = 0; step < 3000; step++) {
      const third = rng.uint32() % 2 === 0 ? "" : `,${pick(ADDRS)}`;
      const key = `${pick(ADDRS)},${pick(PROTOS)}:${pick(PORTS)}${third}`;
      const r = rng.uint32() % 10;
      if (r < 5) m.set(key, (m.get(key) ?? 0) + 1);
      else if (r < 8) m.delete(key);
      else if (r === 8 && step % 500 === 0) m.clear();
      if (step % 10 !== 0) continue;
      for (const a of ADDRS) for (const p of PROTOS) for (const port of [80, 443, 53]) {
        expect(m.hasIpPort(a, p, port, undefined)).toBe(m.has(`${a},${p}:${port}`));
        for (const b of ADDRS) expect(m.hasIpPort(a, p, port, b)).toBe(m.has(`${a},${p}:${port},${b}`));
      }
    }
  });

  it("VirtualServerMap.find is get(PROTO:ip:port)", () => {
    const rng = new Rng(9);
    const pick = <T,>(xs: readonly T[]) => xs[rng.uint32() % xs.length];
    const m = new VirtualServerMap<{ protocol: string; ip: string; port: number }>();
    for (let step = 0; step < 2000; step++) {
      const vs = { protocol: pick(["TCP", "UDP"]), ip: pick(ADDRS), port: pick([80, 443]) };
      const key = `${vs.protocol}:${vs.ip}:${vs.port}`;
      if (rng.uint32() % 2 === 0) m.set(key, vs);
      else m.delete(key);
      for (const proto of ["TCP", "UDP"]) for (const a of ADDRS) for (const port of [80, 443]) {
        expect(m.find(proto, a, port)).toBe(m.get(`${proto}:${a}:${port}`));
      }
    }
  });

  it("ChainOwners answers as the Map it replaced", () => {
    const rng = new Rng(10);
    const o = new ChainOwners();
    const ref = new Map<string, string>();
    // Few distinct tails (collisions) and many names (growth, deletion runs).
    const names = Array.from({ length: 3000 }, (_, i) => `KUBE-SEP-${"ABCDEFGHIJKLMNOP".slice(0, 10)}${String(i % 7).repeat(2)}${i}`);
    const chains = (n: number) => Array.from({ length: n }, () => ({ name: names[rng.uint32() % names.length] }) as Chain);
    const keys = ["a/b:http", "c/d:dns", "e/f:x"];
    // A record's own chains, and its KUBE-SEP chains by name.
    type Rec = { chains: Chain[]; endpoints: { names: string[] } | undefined };
    const all = (r: Rec) => [...r.chains.map((c) => c.name), ...(r.endpoints?.names ?? [])];
    const recs = new Map<string, Rec>();
    for (let step = 0; step < 3000; step++) {
      const key = keys[rng.uint32() % keys.length];
      const was = recs.get(key);
      const now: Rec | undefined =
        rng.uint32() % 4 === 0
          ? undefined
          : { chains: chains(1 + (rng.uint32() % 4)), endpoints: rng.uint32() % 3 === 0 ? undefined : { names: chains(rng.uint32() % 40).map((c) => c.name) } };
      o.replace(key, was, now);
      if (was) for (const n of all(was)) if (ref.get(n) === key) ref.delete(n);
      if (now) for (const n of all(now)) ref.set(n, key);
      if (now) recs.set(key, now);
      else recs.delete(key);
      for (let k = 0; k < 10; k++) {
        const n = names[rng.uint32() % names.length];
        expect(o.keyOf(n)).toBe(ref.get(n));
      }
    }
  });
});

describe("AddrIndex", () => {
  it("answers as a Map of (address, tag) through growth and backward-shift deletion", () => {
    const rng = new Rng(11);
    const idx = new AddrIndex<number>();
    const ref = new Map<string, number>();
    // Few distinct addresses and tags: long probe runs, many collisions.
    const addr = () => (rng.uint32() % 64) * 0x01010101 >>> 0;
    const tag = () => 1 + (rng.uint32() % 40);
    for (let step = 0; step < 20000; step++) {
      const a = addr();
      const t = tag();
      const r = rng.uint32() % 10;
      if (r < 6) (idx.set(a, t, step), ref.set(`${a}/${t}`, step));
      else if (r < 9) expect(idx.delete(a, t)).toBe(ref.delete(`${a}/${t}`));
      else if (step % 4000 === 0) (idx.clear(), ref.clear());
      expect(idx.size).toBe(ref.size);
      if (step % 500 === 0) for (let x = 0; x < 64; x++) for (let y = 1; y <= 40; y++) {
        const k = (x * 0x01010101) >>> 0;
        expect(idx.get(k, y)).toBe(ref.get(`${k}/${y}`));
        expect(idx.has(k, y)).toBe(ref.has(`${k}/${y}`));
      }
    }
  });

  it("answers outside the bounds of its addresses (both halves of the uint32 range) as a Map", () => {
    const idx = new AddrIndex<string>();
    const all = [0, 1, 0x0a600001, 0x7fffffff, 0x80000000, 0xc0a80001, 0xfffffffe, 0xffffffff];
    expect(all.map((a) => idx.get(a, 1))).toEqual(all.map(() => undefined));
    idx.set(0x0a600001, 1, "svc");
    idx.set(0xc0a80001, 1, "lb");
    expect(all.map((a) => idx.get(a, 1))).toEqual(all.map((a) => (a === 0x0a600001 ? "svc" : a === 0xc0a80001 ? "lb" : undefined)));
    idx.delete(0xc0a80001, 1);
    idx.set(0xffffffff, 1, "top");
    idx.set(0, 1, "zero");
    expect(all.map((a) => idx.get(a, 1))).toEqual(all.map((a) => (a === 0x0a600001 ? "svc" : a === 0xffffffff ? "top" : a === 0 ? "zero" : undefined)));
    idx.clear();
    idx.set(0x80000000, 2, "mid");
    expect(all.map((a) => idx.get(a, 2))).toEqual(all.map((a) => (a === 0x80000000 ? "mid" : undefined)));
  });

  it("ipv4Num accepts exactly the canonical dotted quads", () => {
    for (const s of ["0.0.0.0", "10.96.0.1", "255.255.255.255", "1.2.3.4"]) expect(ipv4Num(s)).toBe(ipv4Unchecked(s));
    for (const s of ["", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", "1..3.4", "1.2.3.4 ", "a.b.c.d", "1.2.3.-4", "1.2.3.00"]) expect(ipv4Num(s)).toBe(-1);
  });
});

describe("nftables ChainMap", () => {
  it("baseChains are the base chains by priority, in creation order, whatever is set, replaced or deleted", () => {
    const rng = new Rng(12);
    const pick = <T,>(xs: readonly T[]) => xs[rng.uint32() % xs.length];
    const NAMES = ["a", "b", "c", "d", "e"];
    const m = new ChainMap();
    for (let step = 0; step < 3000; step++) {
      const r = rng.uint32() % 10;
      const name = pick(NAMES);
      const base = rng.uint32() % 3 === 0 ? undefined : { type: "nat" as const, hook: "prerouting" as const, priority: (rng.uint32() % 3) * 100 - 100, policy: "accept" as const };
      if (r < 6) m.set(name, { name, rules: [], base });
      else if (r < 9) m.delete(name);
      else if (step % 100 === 0) m.clear();
      const want = [...m.values()].filter((c) => c.base).sort((x, y) => x.base!.priority - y.base!.priority);
      expect(m.baseChains()).toEqual(want);
    }
  });
});

describe("AddrMap", () => {
  it("hasAddr is has", () => {
    const rng = new Rng(13);
    const pick = <T,>(xs: readonly T[]) => xs[rng.uint32() % xs.length];
    const m = new AddrMap<number>();
    for (let step = 0; step < 2000; step++) {
      const r = rng.uint32() % 10;
      if (r < 5) m.set(pick(ADDRS), step);
      else if (r < 9) m.delete(pick(ADDRS));
      else if (step % 300 === 0) m.clear();
      for (const a of ADDRS) expect(m.hasAddr(a)).toBe(m.has(a));
    }
  });
});
