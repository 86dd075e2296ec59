// A command line stopped while it runs (Ctrl-C, a time limit) keeps what it printed before the
// stop, as bash had shown it: the output of compound commands (loops, lists, pipelines, groups)
// up to the command that was running; a pipeline stopped in a stage before its last shows what
// its later stages made of that stage's output so far; a redirected command stopped leaves what
// it wrote in its file (scripts/patch-just-bash.mjs, ABORT and PIPE DRAIN).
import { beforeAll, describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { interruptStop, LineBudget } from "../runtime/budget.js";
import { Session } from "./session.js";
import { LineTime, realTime } from "./time.js";

/** (Taken before any line runs: the interpreter's defense box blocks the timers inside one.) */
const setImmediateHost = setImmediate;
const giveLoopBack = () => new Promise<void>((resolve) => setImmediateHost(resolve));

/**
 * Runs a line on the wall clock with the host's budget and stops it (as Ctrl-C does) after `ms`;
 * `again` stops it a second time that much later. The terminal's chunks are in `wrote`.
 */
async function stopped(s: Session, line: string, ms = 300, opts: { cpuMs?: number; again?: number } = {}) {
  // (It yields between slices, as the Node host does: the stop timers fire during a busy loop.)
  const b = new LineBudget({ cpuMs: opts.cpuMs ?? 10_000, yieldTo: giveLoopBack });
  const t = setTimeout(() => b.stop(interruptStop()), ms);
  const t2 = opts.again ? setTimeout(() => b.stop(interruptStop()), ms + opts.again) : undefined;
  const wrote: string[] = [];
  try {
    const r = await s.run(line, { signal: b.signal, time: new LineTime(s.cluster, realTime, { signal: b.signal }), write: (c) => void wrote.push(c) });
    return { ...r, wrote: wrote.join("") };
  } finally {
    clearTimeout(t);
    clearTimeout(t2);
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

  it("what a stopped line sent into a command substitution is not on the terminal", async () => {
    expect((await stopped(s, "echo $(echo inner; sleep 10) outer")).stdout).toBe("");
    expect((await stopped(s, "echo before; x=$(echo inner; sleep 10)")).stdout).toBe("before\n");
    expect((await stopped(s, "echo $(for i in 1 2; do echo web$i; sleep 10; done | grep web) outer")).stdout).toBe("");
    expect((await stopped(s, "cat <(echo inner; sleep 10)")).stdout).toBe("");
  });

  it("a line that is not stopped is unchanged", async () => {
    expect(await s.run("for i in 1 2 3; do echo $i; done | sort -r")).toEqual({ stdout: "3\n2\n1\n", stderr: "", exitCode: 0 });
  });
});

describe("a pipeline stopped in a stage before its last", () => {
  const s = new Session(Cluster.create({ seed: 1 }));
  beforeAll(async () => {
    await s.run("true");
  });
  const cases: [string, string][] = [
    // bash ran grep alongside the loop: by Ctrl-C it had printed what matched so far.
    ["for i in 1 2 3; do echo web-$i; echo db-$i; sleep 10; done | grep web", "web-1\n"],
    ["for i in 1 2; do echo $i; sleep 10; done | tr 1 X | sed s/X/one/", "one\n"],
    // A stage that would wait is where the interrupt found it: it ends there.
    ["for i in 1 2; do echo $i; sleep 10; done | while read l; do echo got $l; sleep 5; echo after; done", "got 1\n"],
    // The line ends interrupted: the list after the pipeline does not go on.
    ["echo a; for i in 1 2; do echo $i; sleep 10; done | grep 1 || echo none; echo never", "a\n1\n"],
    ["{ echo x; echo web; sleep 10; } | grep web | cut -c1-2", "we\n"],
  ];
  for (const [line, out] of cases) {
    it(line, async () => {
      const r = await stopped(s, line);
      expect(r.stdout).toBe(out);
      expect(r.stderr).toMatch(/aborted\n$/);
      // It reached the terminal as it was printed.
      expect(r.wrote).toBe(out);
    });
  }

  it("kubectl get -w stopped: its rows so far flow through the pipe", async () => {
    const r = await stopped(s, "kubectl get pods -A -w | grep coredns");
    expect(r.stdout).toMatch(/^(kube-system +coredns-\S+ +1\/1 +Running +0 +\S+\n){2}$/);
    expect(r.stderr).toMatch(/aborted\n$/);
  });

  it("tee in the pipe writes its file too", async () => {
    const r = await stopped(s, "for i in 1 2; do echo $i; sleep 10; done | tee /tmp/tee | tr 1 X");
    expect(r.stdout).toBe("X\n");
    expect((await s.run("cat /tmp/tee")).stdout).toBe("1\n");
  });

  it("the later stages are bounded: by the line's CPU budget, and by a second stop", async () => {
    const t0 = Date.now();
    const spun = await stopped(s, "for i in 1 2; do echo $i; sleep 10; done | while true; do :; done", 100, { cpuMs: 400 });
    expect(spun.stderr).toMatch(/aborted\n$/);
    const twice = await stopped(s, "for i in 1 2; do echo $i; sleep 10; done | { read l; echo got $l; while true; do :; done; }", 100, { again: 300 });
    expect(twice.stdout).toBe("got 1\n");
    expect(twice.stderr).toMatch(/aborted\n$/);
    expect(Date.now() - t0).toBeLessThan(8_000);
  });

  it("without the host's budget on the signal, what the stage wrote is dropped as before", async () => {
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(interruptStop()), 300);
    const r = await s.run("for i in 1 2; do echo $i; sleep 10; done | grep 1", { signal: ac.signal, time: new LineTime(s.cluster, realTime, { signal: ac.signal }) });
    clearTimeout(t);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/aborted\n$/);
  });
});

describe("a redirected command stopped leaves what it wrote in its file", () => {
  const s = new Session(Cluster.create({ seed: 1 }));
  beforeAll(async () => {
    await s.run("true");
  });
  it("a loop, a group with 2>&1, a pipeline's last stage, kubectl get -w", async () => {
    const loop = await stopped(s, "for i in 1 2; do echo $i; sleep 10; done > /tmp/f; echo not-reached");
    expect(loop.stdout).toBe("");
    expect(loop.stderr).toMatch(/aborted\n$/);
    expect((await s.run("cat /tmp/f")).stdout).toBe("1\n");
    await stopped(s, "{ echo a; echo b >&2; sleep 10; } > /tmp/g 2>&1");
    // The stop's own note is the terminal's, not the file's.
    expect((await s.run("cat /tmp/g")).stdout).toBe("a\nb\n");
    await stopped(s, "while true; do echo x; sleep 10; done >> /tmp/g");
    expect((await s.run("cat /tmp/g")).stdout).toBe("a\nb\nx\n");
    await stopped(s, "for i in 1 2; do echo web$i; sleep 10; done | grep web > /tmp/h");
    expect((await s.run("cat /tmp/h")).stdout).toBe("web1\n");
    const w = await stopped(s, "kubectl get ns -w > /tmp/ns");
    expect(w.stdout).toBe("");
    expect((await s.run("cat /tmp/ns")).stdout).toMatch(/^NAME +STATUS +AGE\ndefault +Active/);
  });
});
