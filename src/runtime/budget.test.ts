// The line budget charges CPU time: a slice costs the smaller of its elapsed time and the CPU the
// process used meanwhile, and the time the line was yielded to other clusters costs nothing.
import { describe, expect, it } from "vitest";
import { LineBudget, SLICE_MS } from "./budget.js";

/** A wall clock and a CPU clock the test moves. */
function clocks() {
  const c = { wall: 0, cpu: 0 };
  return { c, now: () => c.wall, cpu: () => c.cpu };
}

describe("LineBudget", () => {
  it("charges a slice the CPU it used, not the time the process waited for a core", async () => {
    const { c, now, cpu } = clocks();
    const b = new LineBudget({ cpuMs: 100, now, cpu });
    // 40 ms of wall time on a loaded machine, 4 ms of it on a core.
    c.wall += 40;
    c.cpu += 4;
    expect(b.slice()).toBeUndefined();
    expect(b.cpuMs()).toBe(4);
    // A slice that really held a core for its whole length costs its elapsed time, no more.
    c.wall += 10;
    c.cpu += 25; // (other threads of the process: the history writer, GC)
    b.slice();
    expect(b.cpuMs()).toBe(14);
  });

  it("stops the line with SIGXCPU's 152 once the CPU used passes the budget, not the elapsed time", () => {
    const { c, now, cpu } = clocks();
    const b = new LineBudget({ cpuMs: 20, now, cpu });
    for (let i = 0; i < 10; i++) {
      c.wall += 30; // 300 ms elapsed in all
      c.cpu += 1; // 10 ms of CPU
      b.slice();
    }
    expect(b.stopped()).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      c.wall += 10;
      c.cpu += 10;
      b.slice();
    }
    expect(b.stopped()?.exitCode).toBe(152);
    expect(b.stopped()?.message).toBe("bash: CPU time limit exceeded: the command line used more than 0.02 s of CPU time; stopped\n");
  });

  it("does not charge the time the line gave to other clusters", async () => {
    const { c, now, cpu } = clocks();
    const b = new LineBudget({
      cpuMs: 1000,
      now,
      cpu,
      // Another cluster's request runs while the line is yielded: 50 ms of wall and CPU.
      yieldTo: async () => {
        c.wall += 50;
        c.cpu += 50;
      },
    });
    c.wall += SLICE_MS;
    c.cpu += SLICE_MS;
    await b.slice();
    expect(b.cpuMs()).toBe(SLICE_MS);
  });

  it("yields after a slice of elapsed time, however little CPU it got", () => {
    const { c, now, cpu } = clocks();
    let yields = 0;
    const b = new LineBudget({ cpuMs: 1000, now, cpu, yieldTo: async () => void yields++ });
    c.wall += SLICE_MS;
    expect(b.slice()).toBeInstanceOf(Promise);
    expect(yields).toBe(1);
  });

  it("charges elapsed time where the host has no CPU clock", () => {
    const { c, now } = clocks();
    const b = new LineBudget({ cpuMs: 100, now });
    c.wall += 40;
    b.slice();
    expect(b.cpuMs()).toBe(40);
  });
});
