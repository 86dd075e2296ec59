// Compact chains keep the rules they made on read only while they are among the last ones made;
// a chain whose rules were dropped makes the same rules again.
import { describe, expect, it } from "vitest";
import { MadeRules } from "./made-rules.js";
import { EndpointChain } from "./nftables/proxier.js";

describe("MadeRules", () => {
  it("keeps the last `size` chains' rules, and a dropped chain makes equal ones again", () => {
    const made = new MadeRules(2);
    const chains = [1, 2, 3].map((i) => new EndpointChain(`endpoint-${i}`, `10.244.1.${i}`, 80, "tcp", undefined, made));
    const first = chains.map((c) => c.rules);
    expect(chains[1].rules).toBe(first[1]);
    expect(chains[2].rules).toBe(first[2]);
    const again = chains[0].rules; // forgotten when the third made its rules
    expect(again).not.toBe(first[0]);
    expect(again).toEqual(first[0]);
    expect(chains[1].rules).not.toBe(first[1]); // made room for the first again
    expect(chains[1].rules).toEqual(first[1]);
    expect(chains[0].rules).toBe(again); // still among the last two
  });
});
