import { describe, expect, it } from "vitest";
import { resolvePath } from "./fs.js";

describe("container paths", () => {
  it("normalizes as path.Clean does, and leaves normal paths alone", () => {
    const cases: Array<[string, string]> = [
      ["/", "/"], ["/a", "/a"], ["/a/b", "/a/b"], ["/a/", "/a"], ["//a", "/a"], ["/a//b", "/a/b"], ["/a/./b", "/a/b"], ["/a/../b", "/b"],
      ["/.", "/"], ["/..", "/"], ["/a/.", "/a"], ["/a/..", "/"], ["/.a", "/.a"], ["/..a", "/..a"], ["/a.b/..c", "/a.b/..c"], ["/a/.../b", "/a/.../b"],
    ];
    for (const [p, want] of cases) expect([p, resolvePath("/", p)]).toEqual([p, want]);
    expect(resolvePath("/usr/local/apache2", "htdocs/../htdocs/index.html")).toBe("/usr/local/apache2/htdocs/index.html");
  });
});
