// kubectl's own command tests (test/cmd), their behaviours for the types ServiceLab serves,
// transcribed in testcmd-cases.ts and run with the REAL kubectl 1.33 (and 1.27 where it matters)
// against a ServiceLab server. Skipped without /usr/bin/kubectl; a failure under CI=true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASES } from "./testcmd-cases.js";
import { type Harness, haveKubectl, KUBECTL, startHarness } from "./harness.js";

if (!haveKubectl && process.env.CI === "true") throw new Error(`${KUBECTL} is missing: the test/cmd cases cannot run (CI=true makes this a failure)`);

let h: Harness;

describe.skipIf(!haveKubectl)("test/cmd behaviours with the real kubectl", () => {
  beforeAll(async () => {
    h = await startHarness();
  }, 120_000);
  afterAll(() => h?.stop());

  CASES.forEach((c, i) => {
    it(`${c.name} (${c.from})`, { timeout: 240_000 }, async () => {
      const ns = `testcmd-${i}`;
      expect((await h.kubectl(["create", "namespace", ns])).code).toBe(0);
      await c.run(h.kubectl, ns);
    });
  });
});
