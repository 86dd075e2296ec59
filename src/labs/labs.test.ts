// Every lab of the catalog, run as a student would: a cluster of the lab, each step's ```bash
// blocks sent to the terminal one block per command line (what the run button does), and the
// step's checks read afterwards. A step that passes before its commands ran is a defect (a check
// that holds with no work teaches nothing); a step whose checks fail after its own commands is a
// broken lab. Evaluating checks must not change the cluster.
import { splitCommands } from "../shell/command-lines.js";
import { describe, expect, it } from "vitest";
import { ClusterCore } from "../runtime/core.js";
import { DEFAULT_LIMITS } from "../runtime/limits.js";
import { sessionShell } from "../runtime/terminal.js";
import { defineLab, LABS } from "./index.js";
import { evaluateLab } from "./checks.js";
import { CATALOG } from "./catalog/index.js";
import canary from "./catalog/canary.js";
import type { LabDefinition } from "./types.js";

/** The command lines of a step's Markdown, in order: one per fenced ```bash block. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)\n```$/gm)].map((m) => m[1]);
}

const T0 = Date.parse("2026-01-01T00:00:00Z");

/** A cluster of `lab` and a terminal on it whose clock moves a little between lines. */
function session(lab: LabDefinition) {
  let now = T0;
  const core = ClusterCore.create(`test-${lab.id}`, { lab: lab.id, tenantId: null, now }, sessionShell);
  const transcript: string[] = [];
  return {
    core,
    now: () => now,
    async run(command: string) {
      now += 1500;
      const r = await core.exec(command, now, DEFAULT_LIMITS);
      transcript.push(`$ ${command}\n${r.stdout}${r.stderr ? `stderr> ${r.stderr}` : ""}[exit ${r.exitCode}]`);
      return r;
    },
    transcript: () => transcript.slice(-6).join("\n").slice(-6000),
  };
}

describe("the lab catalog", () => {
  it("every lab parses and is registered under its id", () => {
    const ids = CATALOG.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const l of CATALOG) {
      expect(() => defineLab(l), l.id).not.toThrow();
      expect(LABS[l.id]?.id).toBe(l.id);
    }
  });

  it("every step has commands to run, the same in English and Chinese", () => {
    for (const l of Object.values(LABS)) {
      for (const s of l.steps) {
        const en = bashBlocks(s.body.en);
        expect(en.length, `${l.id}/${s.id} has no bash block`).toBeGreaterThan(0);
        expect(bashBlocks(s.body.zh), `${l.id}/${s.id}: the Chinese text runs other commands`).toEqual(en);
        for (const c of s.checks) {
          expect(c.hint, `${l.id}/${s.id}/${c.id} has no hint`).toBeDefined();
        }
      }
    }
  });

  it("a malformed lab is rejected, naming the lab and the field", () => {
    const step = canary.steps[0];
    const bad = (patch: Record<string, unknown>) => () => defineLab({ ...canary, ...patch });
    expect(bad({ minutes: 0 })).toThrow(/lab "canary": minutes:/);
    expect(bad({ level: "expert" })).toThrow(/level:/);
    expect(bad({ title: { en: "Canary" } })).toThrow(/title\.zh:/);
    expect(bad({ steps: [{ ...step, checks: [{ id: "x", kind: "object", name: "web", title: step.title }] }] })).toThrow(/steps\.0\.checks\.0\.resource:/);
    expect(bad({ steps: [{ ...step, checks: [{ id: "x", kind: "sql", title: step.title }] }] })).toThrow(/steps\.0\.checks\.0\.kind:/);
    expect(bad({ steps: [{ ...step, checks: [{ id: "x", kind: "command", command: "curl (", title: step.title }] }] })).toThrow(/check "x":/);
    expect(bad({ steps: [{ ...step, checks: [] }] })).toThrow(/steps\.0\.checks:/);
    expect(bad({ steps: [step, step] })).toThrow(/step id "namespace" is used twice/);
    expect(bad({ steps: [{ ...step, extra: 1 }] })).toThrow(/steps\.0/);
    expect(() => defineLab(null)).toThrow(/lab undefined/);
  });
});

describe("each lab, run step by step as the UI runs it", () => {
  for (const lab of Object.values(LABS).filter((l) => l.steps.length > 0)) {
    it(lab.id, async () => {
      const s = session(lab);
      for (const [i, step] of lab.steps.entries()) {
        const before = s.core.evaluateSteps(s.now())!;
        expect(before[i].passed, `${lab.id}/${step.id} passes before its commands ran`).toBe(false);
        for (const block of bashBlocks(step.body.en)) for (const line of splitCommands(block)) await s.run(line);
        const after = s.core.evaluateSteps(s.now())!;
        const failing = after[i].checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message?.en}`);
        expect(failing, `${lab.id}/${step.id} after its commands\n${s.transcript()}`).toEqual([]);
        expect(after[i].passed, `${lab.id}/${step.id}`).toBe(true);
      }
    });
  }
});

describe("evaluating checks", () => {
  it("changes neither the cluster, its clock, nor the journal", async () => {
    const lab = LABS["canary"];
    const s = session(lab);
    // Halfway through: some steps passed, the next ones fail with messages.
    for (const step of lab.steps.slice(0, 3)) for (const block of bashBlocks(step.body.en)) for (const line of splitCommands(block)) await s.run(line);
    const cluster = s.core.cluster;
    const before = { rv: cluster.store.revision(), clock: cluster.now(), journal: s.core.journal.list.length, snapshot: JSON.stringify(cluster.snapshot()) };
    const steps = s.core.evaluateSteps(s.now() + 60_000)!;
    expect(steps.map((r) => r.passed)).toEqual([true, true, true, false, false, false]);
    evaluateLab(lab, cluster.store, s.core.journal.records());
    const after = { rv: cluster.store.revision(), clock: cluster.now(), journal: s.core.journal.list.length, snapshot: JSON.stringify(cluster.snapshot()) };
    expect(after).toEqual(before);
  });

  it("a passed step stays passed when the cluster moves on, and later steps see only newer commands", async () => {
    const lab = LABS["clusterip-web"];
    const s = session(lab);
    for (const block of bashBlocks(lab.steps[0].body.en)) for (const line of splitCommands(block)) await s.run(line);
    expect(s.core.evaluateSteps(s.now())![0].passed).toBe(true);
    await s.run("kubectl delete svc web");
    const steps = s.core.evaluateSteps(s.now())!;
    expect(steps[0].passed).toBe(true);
    expect(steps[1].passed).toBe(false);
  });
});
