// The data plane's lookup indexes answer exactly as the string-keyed maps they index, whatever
// is written into them (random writes, odd key texts included).
import { describe, expect, it } from "vitest";
import { Rng } from "../rng.js";
import { ElementMap, type SetElement } from "./nftables/model.js";
import { IpsetEntries, VirtualServerMap } from "./ipvs/index.js";
import { ChainOwners } from "./iptables/proxier.js";
import type { Chain } from "./iptables/model.js";

const ADDRS = ["10.96.0.1", "10.96.0.10", "10.244.1.5", "1.2.3.4"];
const PROTOS = ["tcp", "udp", "sctp", "icmp"];
const PORTS = ["80", "443", "080", "53", "8080", "x", ""];

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
      for (const a of ADDRS) for (const p of PROTOS) for (const port of [80, 443, 53, 8080]) {
        expect(m.findAddrProtoPort(a, p, port)).toBe(m.get(`${a} . ${p} . ${port}`));
      }
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
    const recs = new Map<string, Chain[]>();
    for (let step = 0; step < 3000; step++) {
      const key = keys[rng.uint32() % keys.length];
      const was = recs.get(key);
      const now = rng.uint32() % 4 === 0 ? undefined : chains(1 + (rng.uint32() % 40));
      o.replace(key, was, now);
      if (was) for (const c of was) if (ref.get(c.name) === key) ref.delete(c.name);
      if (now) for (const c of now) ref.set(c.name, key);
      if (now) recs.set(key, now);
      else recs.delete(key);
      for (let k = 0; k < 10; k++) {
        const n = names[rng.uint32() % names.length];
        expect(o.keyOf(n)).toBe(ref.get(n));
      }
    }
  });
});
