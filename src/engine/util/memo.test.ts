import { describe, expect, it } from "vitest";
import { memoize } from "./memo.js";

describe("memoize", () => {
  it("calls fn once per input until it has seen `max` inputs, then starts again", () => {
    const calls: number[] = [];
    const sq = memoize((x: number) => (calls.push(x), x * x), 2);
    expect([sq(2), sq(2), sq(3), sq(2)]).toEqual([4, 4, 9, 4]);
    expect(calls).toEqual([2, 3]);
    expect(sq(4)).toBe(16); // a third input: the memory is dropped
    expect(sq(2)).toBe(4);
    expect(calls).toEqual([2, 3, 4, 2]);
  });

  it("remembers an undefined result too", () => {
    let n = 0;
    const f = memoize((_: string) => (n++, undefined), 10);
    f("a");
    f("a");
    expect(n).toBe(1);
  });
});
