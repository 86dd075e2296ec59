// The app's one cache of rows read per request: reused for its TTL, bounded, forgettable.
import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache.js";

describe("TtlCache", () => {
  it("reuses an answer for its TTL, then reads again", async () => {
    let t = 0;
    let reads = 0;
    const cache = new TtlCache<number>(() => t, 10_000, 100);
    const load = async () => ++reads;
    expect(await cache.get("a", load)).toBe(1);
    t = 9_999;
    expect(await cache.get("a", load)).toBe(1);
    t = 10_000;
    expect(await cache.get("a", load)).toBe(2);
  });

  it("holds only the answers `keep` picks", async () => {
    const cache = new TtlCache<string | undefined>(() => 0, 10_000, 100);
    let reads = 0;
    const missing = async () => (reads++, undefined);
    await cache.get("x", missing, (v) => v !== undefined);
    await cache.get("x", missing, (v) => v !== undefined);
    expect(reads).toBe(2);
  });

  it("is emptied past its bound, and forgets what it is told to", async () => {
    const cache = new TtlCache<string>(() => 0, 10_000, 2);
    for (const k of ["a", "b", "c"]) cache.set(k, k.toUpperCase());
    cache.set("d", "D");
    let reads = 0;
    expect(await cache.get("a", async () => (reads++, "a again"))).toBe("a again");
    expect(await cache.get("d", async () => (reads++, "d again"))).toBe("D");
    expect(reads).toBe(1);
    cache.deleteWhere((v) => v === "D");
    cache.delete("a");
    expect(await cache.get("d", async () => "read")).toBe("read");
    expect(await cache.get("a", async () => "read")).toBe("read");
  });
});
