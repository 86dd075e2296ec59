// Events as the apiserver records them: the correlator counting repeats, and the bounded store
// dropping the least recently written events first.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { KObject } from "../api/types.js";
import { ManualClock } from "../clock.js";
import { RandomStreams } from "../rng.js";
import { Store } from "../store/store.js";
import { Cluster } from "../cluster.js";
import { ApiServer, MAX_EVENTS } from "./apiserver.js";

function setup() {
  const store = new Store({ freeze: true });
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const api = new ApiServer(store, clock, new RandomStreams(7), { serviceCIDR: "10.96.0.0/12", nodePortRange: [30000, 32767] });
  api.create(R.namespaces, undefined, { metadata: { name: "default" } });
  const cm = api.create(R.configmaps, "default", { metadata: { name: "cm" } });
  const record = (message: string, reason = "Tested", fieldPath?: string) =>
    api.recordEvent({ involved: cm, involvedInfo: R.configmaps, type: "Normal", reason, message, component: "test", fieldPath });
  const events = () => store.list("events") as (KObject & { message: string; count: number; reason: string })[];
  return { store, clock, api, record, events };
}

describe("events", () => {
  it("counts a repeat on the existing event, and only an exact repeat", () => {
    const { clock, record, events } = setup();
    record("a");
    clock.advance(2000);
    record("a");
    record("a", "Other");
    record("a", "Tested", "spec.containers{x}");
    record("b");
    const byKey = events().map((e) => [e.message, e.reason, (e.involvedObject as { fieldPath?: string }).fieldPath ?? "", e.count]);
    expect(byKey.sort()).toEqual([
      ["a", "Other", "", 1],
      ["a", "Tested", "", 2],
      ["a", "Tested", "spec.containers{x}", 1],
      ["b", "Tested", "", 1],
    ]);
    const a = events().find((e) => e.message === "a" && e.reason === "Tested" && e.count === 2)!;
    expect(a.firstTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(a.lastTimestamp).toBe("2026-01-01T00:00:02Z");
  });

  it("counts repeats the same way for an object with many events (indexed by message)", () => {
    const { record, events } = setup();
    for (let i = 0; i < 40; i++) record(`m${i}`);
    record("m3");
    record("m3", "Other");
    record("m3", "Other");
    record("m39", "Tested", "spec.containers{x}");
    record("m39", "Tested", "spec.containers{x}");
    record("m40");
    const byKey = events()
      .filter((e) => ["m3", "m39", "m40"].includes(e.message))
      .map((e) => [e.message, e.reason, (e.involvedObject as { fieldPath?: string }).fieldPath ?? "", e.count]);
    expect(byKey.sort()).toEqual([
      ["m3", "Other", "", 2],
      ["m3", "Tested", "", 2],
      ["m39", "Tested", "", 1],
      ["m39", "Tested", "spec.containers{x}", 2],
      ["m40", "Tested", "", 1],
    ]);
    expect(events().length).toBe(43);
  });

  it("drops the least recently written events first, and a repeat of a dropped one starts again", () => {
    const { store, record, events } = setup();
    record("first");
    for (let i = 0; i < MAX_EVENTS - 2; i++) record(`filler ${i}`);
    // Written again (counted) after the fillers: now among the newest.
    record("first");
    record("second");
    expect(store.count("events")).toBe(MAX_EVENTS);
    record("overflow");
    const left = events();
    expect(left.length).toBe(Math.floor(MAX_EVENTS * 0.9));
    const messages = new Set(left.map((e) => e.message));
    expect(messages.has("first")).toBe(true);
    expect(left.find((e) => e.message === "first")!.count).toBe(2);
    expect(messages.has("filler 0")).toBe(false);
    expect(messages.has(`filler ${MAX_EVENTS - 3}`)).toBe(true);
    // A repeat of a dropped event is a new event, and the next repeat counts on that one.
    record("filler 0");
    record("filler 0");
    const again = events().filter((e) => e.message === "filler 0");
    expect(again.map((e) => e.count)).toEqual([2]);
  });

  it("a restored cluster counts repeats and trims as the cluster it was saved from", () => {
    // Two clusters take the same writes; one is saved and restored half-way.
    const steps = (c: Cluster, from: number, to: number) => {
      const cm = c.client.get(R.configmaps, "default", "cm") as KObject;
      for (let i = from; i < to; i++) {
        c.advance(1000);
        // A repeat of an early event, fillers that push the store past its bound, more repeats.
        c.api.recordEvent({ involved: cm, involvedInfo: R.configmaps, type: "Warning", reason: "Again", message: "the same", component: "test" });
        for (let k = 0; k < 700; k++) c.api.recordEvent({ involved: cm, involvedInfo: R.configmaps, type: "Normal", reason: "Filler", message: `filler ${i}/${k}`, component: "test" });
      }
    };
    const make = () => {
      const c = Cluster.create({ seed: 4 });
      c.client.create(R.configmaps, "default", { metadata: { name: "cm" } });
      return c;
    };
    const straight = make();
    steps(straight, 0, 12);
    let saved = make();
    steps(saved, 0, 5);
    saved = Cluster.restore(JSON.parse(JSON.stringify(saved.snapshot())));
    steps(saved, 5, 12);
    const events = (c: Cluster) => JSON.stringify(c.client.list(R.events, "default").items);
    expect(events(saved)).toBe(events(straight));
    const again = (c: Cluster) => (c.client.list(R.events, "default").items as (KObject & { reason: string; count: number })[]).filter((e) => e.reason === "Again");
    expect(again(saved).map((e) => e.count)).toEqual([12]);
    expect(JSON.stringify(saved.snapshot())).toBe(JSON.stringify(straight.snapshot()));
  });
});
