import { describe, expect, it } from "vitest";
import { Journal, MAX_COMMAND_CHARS, MAX_ENTRIES } from "./journal.js";

const line = (command: string) => ({ ts: 0, prompt: "# ", command, exitCode: 0, stdout: "", stderr: "" });

describe("the journal's bounds", () => {
  it("keeps at most MAX_ENTRIES lines, the oldest going first", () => {
    const j = new Journal();
    j.setOrigin("{}");
    for (let i = 0; i < MAX_ENTRIES + 5; i++) j.add(line(`echo ${i}`));
    expect(j.all.length).toBe(MAX_ENTRIES);
    expect(j.all[0].command).toBe("echo 5");
    expect(j.unreplayable(6)).toMatch(/the oldest commands were dropped/);
  });

  it("keeps at most MAX_COMMAND_CHARS of command text, the oldest lines going first, and so after a restore", () => {
    const j = new Journal();
    const big = "x".repeat(MAX_COMMAND_CHARS / 3);
    for (let i = 0; i < 5; i++) j.add(line(`: ${i} ${big}`));
    expect(j.all.map((e) => e.seq)).toEqual([4, 5]);
    const rows: Array<[string, string]> = [];
    j.delta(true, rows, []);
    const again = Journal.fromRows(rows);
    again.add(line(`: 5 ${big}`));
    expect(again.all.map((e) => e.seq)).toEqual([5, 6]);
  });
});
