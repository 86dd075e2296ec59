// od against coreutils' od on the same bytes. Needs od (coreutils); skipped without it, failed
// without it in CI (CI=true). A few fixed outputs are checked everywhere.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { od } from "./od.js";

const BYTES = new Uint8Array([...new TextEncoder().encode("hello world, this is od"), 0, 1, 0xff, 0x80, ...new TextEncoder().encode(" and more bytes to wrap lines\n")]);
const ZEROS = new Uint8Array(100);
const noFile = async () => "No such file or directory";

function realOd(args: string[], input: Uint8Array): string | undefined {
  try {
    return execFileSync("od", args, { input, encoding: "latin1", stdio: ["pipe", "pipe", "ignore"] });
  } catch {
    return undefined;
  }
}

const haveOd = realOd([], new Uint8Array(1)) !== undefined;

describe("od", () => {
  it("prints what od prints for the usual forms", async () => {
    expect((await od(["-An", "-tx1"], new TextEncoder().encode("a\n"), noFile)).stdout).toBe(" 61 0a\n");
    expect((await od([], ZEROS.subarray(0, 40), noFile)).stdout).toBe("0000000 000000 000000 000000 000000 000000 000000 000000 000000\n*\n0000040 000000 000000 000000 000000\n0000050\n");
    expect((await od(["-N4", "-An", "-tx1"], ZEROS, noFile)).stdout).toBe(" 00 00 00 00\n");
    expect(await od(["-t", "q1"], ZEROS, noFile)).toEqual({ stdout: "", stderr: "od: invalid character 'q' in type string \u2018q1\u2019\n", exitCode: 1 });
    expect(await od(["/nope"], ZEROS, noFile)).toEqual({ stdout: "", stderr: "od: /nope: No such file or directory\n", exitCode: 1 });
  });

  const forms = ["", "-An -tx1", "-An -t x1", "-tx1", "-c", "-d", "-x", "-b", "-o", "-t d2", "-t u4", "-t x8", "-t d1", "-t o1", "-Ax -tx1", "-Ad -tx2", "-N4 -tx1", "-j3 -N5 -c", "-An -tx1 -tc", "-v", "-t x2"];
  if (!haveOd && process.env.CI !== "true") {
    it.skip("matches coreutils' od (skipped: no od here)", () => {});
    return;
  }
  it("matches coreutils' od byte for byte", async () => {
    expect(haveOd, "od (coreutils) is needed in CI").toBe(true);
    for (const f of forms) {
      const args = f ? f.split(" ") : [];
      for (const input of [BYTES, ZEROS]) expect((await od(args, input, noFile)).stdout, `od ${f}`).toBe(realOd(args, input));
    }
  });
});
