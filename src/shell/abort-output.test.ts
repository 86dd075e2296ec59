// A command line stopped while it runs (Ctrl-C, a time limit) keeps what it printed before the
// stop, as bash had shown it: the output of compound commands (loops, lists, pipelines, groups)
// up to the command that was running (scripts/patch-just-bash.mjs, ABORT).
import { beforeAll, describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { interruptStop } from "../runtime/budget.js";
import { Session } from "./session.js";
import { LineTime, realTime } from "./time.js";

/** Runs a line on the wall clock and stops it (as Ctrl-C does) after `ms`. */
async function stopped(s: Session, line: string, ms = 300) {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(interruptStop()), ms);
  try {
    return await s.run(line, { signal: ac.signal, time: new LineTime(s.cluster, realTime, { signal: ac.signal }) });
  } finally {
    clearTimeout(t);
  }
}

describe("a stopped line keeps its output", () => {
  const s = new Session(Cluster.create({ seed: 1 }));
  beforeAll(async () => {
    await s.run("true");
  });
  const cases: [string, string][] = [
    ["for i in 1 2 3; do echo $i; sleep 10; done", "1\n"],
    ["echo a; sleep 10; echo b", "a\n"],
    ["for i in 1 2; do echo $i; done; sleep 10; echo after", "1\n2\n"],
    ["i=0; while true; do i=$((i+1)); echo $i; sleep 10; done", "1\n"],
    ["{ echo x; echo y | tr y Y; sleep 10; }", "x\nY\n"],
    ["if true; then echo yes; sleep 10; fi", "yes\n"],
    ["for i in 1 2; do for j in a b; do echo $i$j; sleep 10; done; done", "1a\n"],
  ];
  for (const [line, out] of cases) {
    it(line, async () => {
      const r = await stopped(s, line);
      expect(r.stdout).toBe(out);
      expect(r.stderr).toMatch(/aborted\n$/);
    });
  }

  // (A loop redirected into a file and stopped leaves the file empty, where bash's has "1": the
  // interpreter writes a compound command's redirection when the command ends.)
  it("what a stopped line sent into a file or a command substitution is not on the terminal", async () => {
    const r = await stopped(s, "for i in 1 2; do echo $i; sleep 10; done > /tmp/f; echo not-reached");
    expect(r.stdout).toBe("");
    expect((await stopped(s, "echo $(echo inner; sleep 10) outer")).stdout).toBe("");
    expect((await stopped(s, "echo before; x=$(echo inner; sleep 10)")).stdout).toBe("before\n");
    expect((await stopped(s, "for i in 1 2; do echo $i; sleep 10; done | sort")).stdout).toBe("");
    expect((await stopped(s, "cat <(echo inner; sleep 10)")).stdout).toBe("");
  });

  it("a line that is not stopped is unchanged", async () => {
    expect(await s.run("for i in 1 2 3; do echo $i; done | sort -r")).toEqual({ stdout: "3\n2\n1\n", stderr: "", exitCode: 0 });
  });
});
