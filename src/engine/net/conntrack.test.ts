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
  it("behaves as a list in age order with the kernel table's gc and early_drop, refusing a flow when full", () => {
    const rng = new Rng(3);
    const max = 200;
    const t = new ConntrackTable(max);
    const m: Model = { flows: [] };
    let earliest = Infinity;
    let gcAt = Infinity;
    let gcFlag = false;
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
        // model of addFlow: the same tuple is replaced; a new one needs room. When full: the gc
        // worker's pass if due (expired flows; after a refusal, closing or unassured ones down to
        // 95%), then early_drop over the 32 oldest (expired ones reaped, the first unassured
        // dropped for this flow); else it is refused and a pass is due a second later.
        const old = modelFind(m, proto, src, sport, dst, dport);
        let room = true;
        if (old) m.flows.splice(m.flows.indexOf(old), 1);
        else if (m.flows.length >= max) {
          if (now >= gcAt || earliest <= now - 1000) {
            gcAt = Infinity;
            if (earliest <= now) {
              m.flows = m.flows.filter((x) => x.expires > now);
              earliest = Math.min(Infinity, ...m.flows.map((x) => x.expires));
            }
            if (gcFlag) {
              gcFlag = false;
              const target = Math.floor(max / 100) * 95;
              for (const x of [...m.flows]) {
                if (m.flows.length <= target) break;
                if (!x.assured || x.state === "TIME_WAIT" || x.state === "CLOSE") m.flows.splice(m.flows.indexOf(x), 1);
              }
            }
          }
          if (m.flows.length >= max) {
            let dropped = false;
            for (const x of m.flows.slice(0, 32)) {
              if (x.expires <= now) m.flows.splice(m.flows.indexOf(x), 1);
              else if (!x.assured) {
                m.flows.splice(m.flows.indexOf(x), 1);
                dropped = true;
                break;
              }
            }
            if (!dropped) {
              room = false;
              gcFlag = true;
              if (gcAt === Infinity) gcAt = now + 1000;
            }
          }
        }
        if (room) {
          m.flows.push(f);
          if (expires < earliest) earliest = expires;
        }
        expect(t.add(f, now)).toBe(room);
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
        gcAt = Infinity;
        gcFlag = false;
      }
      expect(t.size).toBe(m.flows.length);
      if (step % 97 === 0) {
        expect(t.list(now)).toEqual(m.flows.filter((x) => x.expires > now));
        m.flows = m.flows.filter((x) => x.expires > now);
      }
    }
  });

  it("at nf_conntrack_max: drops a flow that is not assured, or refuses the new one", () => {
    const t = new ConntrackTable(3);
    const flow = (sport: number, assured: boolean, expires = 120_000): CtEntry => ({
      orig: { proto: "tcp", src: "10.244.1.2", sport, dst: "10.96.0.1", dport: 443 },
      reply: { proto: "tcp", src: "10.96.0.1", sport: 443, dst: "10.244.1.2", dport: sport },
      state: assured ? "TIME_WAIT" : "SYN_SENT",
      expires,
      assured,
      unreplied: !assured,
      mark: 0,
      dnat: false,
      snat: false,
    });
    expect(t.add(flow(1, true), 0)).toBe(true);
    expect(t.add(flow(2, false), 0)).toBe(true);
    expect(t.add(flow(3, true), 0)).toBe(true);
    // Full: the unreplied flow goes for the new one (early_drop).
    expect(t.add(flow(4, true), 0)).toBe(true);
    expect(t.list(0).map((e) => e.orig.sport)).toEqual([1, 3, 4]);
    expect(t.stats.earlyDrop).toBe(1);
    // Full of assured flows: no room, nothing changes.
    expect(t.admit(1000)).toBe(false);
    expect(t.add(flow(5, false), 1000)).toBe(false);
    expect(t.list(1000).map((e) => e.orig.sport)).toEqual([1, 3, 4]);
    expect(t.stats.drop).toBe(2);
    // The same tuple again replaces its flow: no room needed.
    expect(t.add(flow(3, true), 1000)).toBe(true);
    // Once flows expire, the gc makes room.
    expect(t.add(flow(6, true, 200_000), 120_000)).toBe(true);
    expect(t.list(120_000).map((e) => e.orig.sport)).toEqual([6]);
  });

  it("after a refusal, the gc worker drops closing flows (TIME_WAIT) down to 95%, a second later", () => {
    const t = new ConntrackTable(100);
    const flow = (sport: number, state: "ESTABLISHED" | "TIME_WAIT"): CtEntry => ({
      orig: { proto: "tcp", src: "10.244.1.2", sport, dst: "10.96.0.1", dport: 80 },
      reply: { proto: "tcp", src: "10.244.2.7", sport: 80, dst: "10.244.1.2", dport: sport },
      state,
      expires: 10_000_000,
      assured: true,
      unreplied: false,
      mark: 0,
      dnat: true,
      snat: false,
    });
    // 90 long-lived connections, then 10 curls' TIME_WAIT flows: full, all assured.
    for (let i = 0; i < 100; i++) t.add(flow(40000 + i, i < 90 ? "ESTABLISHED" : "TIME_WAIT"), 0);
    expect(t.add(flow(50000, "TIME_WAIT"), 0)).toBe(false);
    expect(t.add(flow(50001, "TIME_WAIT"), 500)).toBe(false);
    // A second after the first refusal: TIME_WAIT flows go until 95 are left; the established stay.
    expect(t.add(flow(50002, "TIME_WAIT"), 1000)).toBe(true);
    expect(t.size).toBe(96);
    expect(t.list(1000).filter((e) => e.state === "ESTABLISHED").length).toBe(90);
    expect(t.stats).toEqual({ earlyDrop: 5, drop: 2 });
  });
});
