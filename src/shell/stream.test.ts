// A line's output reaches the terminal as each command ends, as bash writes it
// (scripts/patch-just-bash.mjs, TTY): a loop's lines one by one, while what goes into a pipe, a
// file or a command substitution is written by the command that prints it, once.
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { Session } from "./session.js";

const s = new Session(Cluster.create({ seed: 2 }));

/** The line's writes to the terminal, and its result. */
async function written(line: string) {
  const chunks: string[] = [];
  const r = await s.run(line, { signal: new AbortController().signal, write: (c) => chunks.push(c) });
  return { chunks, ...r };
}

describe("a line writes each command's output as the command ends", () => {
  const cases: [string, string[], string][] = [
    ["for i in $(seq 3); do echo $i; sleep 1; done", ["1\n", "2\n", "3\n"], "1\n2\n3\n"],
    ["echo a; echo b", ["a\n", "b\n"], "a\nb\n"],
    ["for i in 1 2 3; do echo $i; done | sort -r", ["3\n2\n1\n"], "3\n2\n1\n"],
    ["x=$(echo in; echo side); echo $x", ["in side\n"], "in side\n"],
    ["for i in 1 2; do echo $i; done > /tmp/f; cat /tmp/f", ["1\n2\n"], "1\n2\n"],
    ["{ echo a; echo b; } 2>/dev/null", ["a\nb\n"], "a\nb\n"],
    ["f() { echo in-f; echo again; }; f; echo after", ["in-f\nagain\n", "after\n"], "in-f\nagain\nafter\n"],
    ["if true; then echo yes; fi; while false; do :; done", ["yes\n"], "yes\n"],
    ["echo $(for i in 1 2; do echo $i; done) | tr ' ' +", ["1+2\n"], "1+2\n"],
  ];
  for (const [line, chunks, stdout] of cases) {
    it(line, async () => {
      const r = await written(line);
      expect(r.chunks).toEqual(chunks);
      expect(r.stdout).toBe(stdout);
    });
  }

  it("a command's own shell (kubectl exec into a pod) is written once, by the command", async () => {
    await s.run("kubectl run web --image=nginx; sleep 20");
    const r = await written(`for i in 1 2; do kubectl exec web -- sh -c "echo a$i; echo b$i"; done`);
    expect(r.chunks).toEqual(["a1\nb1\n", "a2\nb2\n"]);
    expect(r.stdout).toBe("a1\nb1\na2\nb2\n");
  });

  it("stderr reaches the terminal in its place among the commands, as bash writes it", async () => {
    const r = await written("echo a; echo b >&2; echo c; ls /nope; echo d");
    expect(r.chunks).toEqual(["a\n", "b\n", "c\n", "ls: cannot access '/nope': No such file or directory\n", "d\n"]);
    // The result holds everything once: the terminal's text as stdout, nothing left for stderr.
    expect(r.stdout).toBe("a\nb\nc\nls: cannot access '/nope': No such file or directory\nd\n");
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });

  it("a command's warning comes above its output, a failing command's error below it", async () => {
    await s.run("kubectl create deployment ord --image=nginx");
    const r = await written("kubectl get endpoints kubernetes; kubectl get deploy ord nope");
    expect(r.stdout).toMatch(/^Warning: v1 Endpoints is deprecated in v1\.33\+; use discovery\.k8s\.io\/v1 EndpointSlice\nNAME {9}ENDPOINTS/);
    expect(r.stdout).toMatch(/\nNAME +READY .*\nord .*\nError from server \(NotFound\): deployments\.apps "nope" not found\n$/s);
    expect(r.stderr).toBe("");
  });

  it("a line that is one kubectl command writes its warnings to the terminal as it prints them", async () => {
    const r = await written("kubectl get endpoints kubernetes");
    expect(r.chunks[0]).toBe("Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n");
    expect(r.chunks.join("")).toMatch(/^Warning: [^\n]*\nNAME {9}ENDPOINTS {8}AGE\nkubernetes /);
    expect(r.stderr).toBe("");
  });

  it("without a terminal (the plain exec API, tests) the result is as before", async () => {
    expect(await s.run("for i in 1 2; do echo $i; done")).toEqual({ stdout: "1\n2\n", stderr: "", exitCode: 0 });
  });
});
