import { describe, expect, it } from "vitest";
import { goSortArray } from "./gosort.js";

describe("Go's sort.Sort (pdqsort)", () => {
  it("sorts", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const n of [0, 1, 2, 5, 12, 13, 49, 50, 51, 200, 1000]) {
      for (const spread of [3, 1000]) {
        const xs = Array.from({ length: n }, () => Math.floor(rand() * spread));
        expect(goSortArray(xs.slice(), (a, b) => a < b)).toEqual(xs.slice().sort((a, b) => a - b));
      }
    }
    const desc = Array.from({ length: 300 }, (_, i) => 300 - i);
    expect(goSortArray(desc.slice(), (a, b) => a < b)).toEqual(desc.slice().reverse());
  });

  it("leaves equal keys in the order the real kubectl printed them", () => {
    // 38 events of two distinct seconds, in the order the apiserver listed them, and the order of
    // `kubectl get events -A --sort-by=.metadata.creationTimestamp -o name` (kubectl 1.33, Go 1.24).
    const keys = [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1];
    const want = [10, 1, 35, 34, 4, 5, 33, 32, 9, 8, 29, 11, 20, 28, 14, 25, 24, 17, 0, 21, 18, 19, 22, 23, 16, 15, 26, 27, 13, 12, 30, 31, 7, 6, 3, 2, 36, 37];
    const order = goSortArray(keys.map((k, i) => ({ k, i })), (a, b) => a.k < b.k).map((x) => x.i);
    expect(order).toEqual(want);
  });
});
