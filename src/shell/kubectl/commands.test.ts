// cobra's suggestions for a mistyped kubectl command: distance 2 or a prefix, SuggestFor, in the
// order kubectl 1.33 adds its commands (the real kubectl's answers, from kubectl.e2e.test.ts's cases).
import { describe, expect, it } from "vitest";
import { suggestionsFor, unknownCommandMessage } from "./commands.js";

describe("kubectl command suggestions", () => {
  it("suggest as kubectl 1.33 does", () => {
    expect(suggestionsFor("foo")).toEqual(["top"]);
    expect(suggestionsFor("gett")).toEqual(["set", "get"]);
    expect(suggestionsFor("ps")).toEqual(["get", "cp", "wait"]);
    expect(suggestionsFor("ls")).toEqual(["logs", "cp"]);
    expect(suggestionsFor("opt")).toEqual(["set", "get", "top", "cp", "options"]);
    expect(suggestionsFor("api")).toEqual(["cp", "api-versions", "api-resources"]);
    expect(suggestionsFor("alph")).toEqual(["auth"]);
    expect(suggestionsFor("ROLLUT")).toEqual(["rollout"]);
    expect(suggestionsFor("xyzzy")).toEqual([]);
  });

  it("word the error as cobra does, without a suggestion block when there is none", () => {
    expect(unknownCommandMessage("gett")).toBe('unknown command "gett" for "kubectl"\n\nDid you mean this?\n\tset\n\tget');
    expect(unknownCommandMessage("xyzzy")).toBe('unknown command "xyzzy" for "kubectl"');
  });
});
