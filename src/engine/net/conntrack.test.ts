// The conntrack table against a plain model of it: the same flows found, the same age order
// listed, the same evictions, under random churn with collisions, expiry and a small maximum.
import { describe, expect, it } from "vitest";
import { Rng } from "../rng.js";
import { ConntrackTable, type CtEntry } from "./conntrack.js";
import type { L4 } from "./packet.js";

interface Model {
  flows: CtEntry[]; // age order
}

function modelFind(m: Model, proto: L4, src: string, sport: number, dst: string, dport: number): CtEntry | undefined {
  return m.flows.find((f) => f.orig.proto === proto && f.orig.src === src && f.orig.sport === sport && f.orig.dst === dst && f.orig.dport === dport);
}

describe("ConntrackTable", () => {
  it("behaves as a list in age order with the kernel table's eviction", () => {
    const rng = new Rng(3);
    const max = 200;
    const t = new ConntrackTable(max);
    const m: Model = { flows: [] };
    let earliest = Infinity;
    let now = 0;
    // Addresses the table keeps as numbers, and texts it keeps as they are (not canonical).
    const srcs = ["10.244.1.2", "10.244.2.3", "10.1.8.31", "10.244.01.2"];
    const dsts = ["10.96.0.1", "10.96.0.10", "10.244.0.5", "010.96.0.1"];
    for (let step = 0; step < 20000; step++) {
      const proto: L4 = rng.uint32() % 4 === 0 ? "udp" : "tcp";
      const src = srcs[rng.uint32() % 4];
      const dst = dsts[rng.uint32() % 4];
      // Now and then a port a record cannot hold as an int32 (the flow keeps its fields aside).
      const sport = rng.uint32() % 50 === 0 ? 2 ** 31 + (rng.uint32() % 3) : 32768 + (rng.uint32() % 300);
      const dport = [80, 53, 443][rng.uint32() % 3];
      const r = rng.uint32() % 100;
      if (r < 3) now += 1000 * (rng.uint32() % 20);
      if (r < 55) {
        const expires = now + 1000 * (1 + (rng.uint32() % 30));
        // Flags and reply ports vary, so that a listing shows every column came back.
        const state = proto === "tcp" ? (["SYN_SENT", "ESTABLISHED", "TIME_WAIT", "CLOSE"] as const)[step % 4] : undefined;
        const f: CtEntry = {
          orig: { proto, src, sport, dst, dport },
          reply: { proto, src: dst, sport: dport + (step % 7), dst: src, dport: sport },
          state,
          expires,
          assured: step % 2 === 0,
          unreplied: step % 3 === 0,
          mark: step % 17 === 0 ? 0xffffffff : step % 19 === 0 ? 2 ** 33 : step % 5,
          dnat: step % 11 < 5,
          snat: step % 13 < 6,
        };
        // model of addFlow: evict (expired, then oldest eighth) when full, replace same tuple, append
        if (m.flows.length >= max) {
          if (earliest <= now) {
            m.flows = m.flows.filter((x) => x.expires > now);
            earliest = Math.min(Infinity, ...m.flows.map((x) => x.expires));
          }
          const target = max - (max >> 3);
          if (m.flows.length > target) m.flows.splice(0, m.flows.length - target);
        }
        const old = modelFind(m, proto, src, sport, dst, dport);
        if (old) m.flows.splice(m.flows.indexOf(old), 1);
        m.flows.push(f);
        if (expires < earliest) earliest = expires;
        t.add(f, now);
      } else if (r < 90) {
        const want = modelFind(m, proto, src, sport, dst, dport);
        const got = t.lookup({ proto, src, sport, dst, dport }, now);
        if (want && want.expires <= now) {
          m.flows.splice(m.flows.indexOf(want), 1);
          expect(got).toBeUndefined();
        } else expect(got).toEqual(want);
      } else if (r < 95) {
        t.deleteWhere((e) => e.orig.dst === dst && e.orig.dport === dport);
        m.flows = m.flows.filter((x) => !(x.orig.dst === dst && x.orig.dport === dport));
      } else if (r === 99 && rng.uint32() % 20 === 0) {
        expect(t.flush()).toBe(m.flows.length);
        m.flows = [];
        earliest = Infinity;
      }
      expect(t.size).toBe(m.flows.length);
      if (step % 97 === 0) {
        expect(t.list(now)).toEqual(m.flows.filter((x) => x.expires > now));
        m.flows = m.flows.filter((x) => x.expires > now);
      }
    }
  });
});
