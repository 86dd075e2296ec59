// The one "serialize again only if the owner's revision moved" of the cluster's rows.
import { describe, expect, it } from "vitest";
import { RevisionMemo } from "./revision-memo.js";

describe("RevisionMemo", () => {
  it("makes the value again only when the revision moved", () => {
    const memo = new RevisionMemo();
    let made = 0;
    const make = (v: string) => () => (made++, v);
    expect(memo.at(1, make("a"))).toBe("a");
    expect(memo.at(1, make("b"))).toBe("a");
    expect(made).toBe(1);
    expect(memo.at(2, make("c"))).toBe("c");
    expect(memo.isAt(2)).toBe(true);
    expect(memo.isAt(1)).toBe(false);
  });

  it("an owner without a revision is never up to date", () => {
    const memo = new RevisionMemo();
    expect(memo.at(undefined, () => "a")).toBe("a");
    expect(memo.at(undefined, () => "b")).toBe("b");
    expect(memo.isAt(undefined)).toBe(false);
  });

  it("adopts a value read back, and forgets on demand", () => {
    const memo = new RevisionMemo();
    expect(memo.isAt(7)).toBe(false);
    memo.adopt(7, "read");
    expect(memo.at(7, () => "made")).toBe("read");
    memo.forget();
    expect(memo.at(7, () => "made")).toBe("made");
    // A text without a revision (a row read before its owner counted): compared, never trusted.
    memo.adopt(undefined, "row");
    expect(memo.value).toBe("row");
    expect(memo.isAt(7)).toBe(false);
  });
});
