import { describe, expect, it } from "vitest";
import { evaluateCommand, piDigits, runScript } from "./script.js";

const ctx = {
  hostname: "hello-abcde",
  env: [["PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], ["HOSTNAME", "hello-abcde"], ["GREETING", "hi there"]] as const,
  date: (ms: number) => `t+${ms}`,
};

describe("short scripts a container runs to the end", () => {
  it("prints and sleeps in order, exiting after the sum of its sleeps", () => {
    expect(runScript("echo hello; sleep 5; echo bye", ctx)).toEqual({ lines: [{ at: 0, text: "hello" }, { at: 5000, text: "bye" }], exitAfter: 5000, code: 0 });
    expect(evaluateCommand(["sh", "-c", "echo hello; sleep 5"], ctx)).toEqual({ lines: [{ at: 0, text: "hello" }], exitAfter: 5000, code: 0 });
    expect(evaluateCommand(["/bin/sh", "-c", "sleep 1.5\nsleep 2s\ndate"], ctx)).toEqual({ lines: [{ at: 3500, text: "t+3500" }], exitAfter: 3500, code: 0 });
  });

  it("gives bash's status: &&, || and exit", () => {
    expect(runScript("false && echo no || echo yes", ctx)!.lines.map((l) => l.text)).toEqual(["yes"]);
    expect(runScript("echo a; exit 3; echo b", ctx)).toEqual({ lines: [{ at: 0, text: "a" }], exitAfter: 0, code: 3 });
    expect(runScript("true && false", ctx)!.code).toBe(1);
    expect(runScript("false; exit", ctx)!.code).toBe(1);
    expect(runScript("exit 257", ctx)!.code).toBe(1);
  });

  it("quotes, variables, printf, echo -n, hostname and env", () => {
    expect(runScript(`echo "$GREETING" '$HOME' \${GREETING}x`, ctx)!.lines[0].text).toBe("hi there $HOME hi therex");
    expect(runScript(`printf '%s=%d\\n' a 1 b 2`, ctx)!.lines.map((l) => l.text)).toEqual(["a=1", "b=2"]);
    expect(runScript("echo -n a; echo b; hostname", ctx)!.lines.map((l) => l.text)).toEqual(["ab", "hello-abcde"]);
    expect(runScript("env", ctx)!.lines[2].text).toBe("GREETING=hi there");
    expect(evaluateCommand(["echo", "hi", "there"], ctx)!.lines[0].text).toBe("hi there");
    expect(evaluateCommand(["sleep", "30"], ctx)).toEqual({ lines: [], exitAfter: 30_000, code: 0 });
    expect(evaluateCommand(["false"], ctx)!.code).toBe(1);
  });

  it("leaves anything else running (undefined)", () => {
    for (const s of ["while true; do sleep 1; done", "echo a | wc", "cat /etc/hosts", "echo $(date)", "sleep infinity", "echo > /tmp/x", "for i in 1 2; do echo $i; done", "sleep 1 &", "nginx", "date +%s", "echo 'unterminated"]) {
      expect(runScript(s, ctx), s).toBeUndefined();
    }
    expect(evaluateCommand(["sleep", "3600", "&&", "x"], ctx)).toBeUndefined();
    expect(evaluateCommand(["sh"], ctx)).toBeUndefined();
    expect(evaluateCommand(["nginx", "-g", "daemon off;"], ctx)).toBeUndefined();
  });

  it("prints pi to bpi's digits for the docs' perl example", () => {
    expect(piDigits(10)).toBe("3141592654");
    expect(piDigits(5)).toBe("31416");
    const r = evaluateCommand(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], ctx)!;
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0].text).toHaveLength(2001);
    expect(r.lines[0].text.startsWith("3.14159265358979323846")).toBe(true);
    // The first 2000 digits end ...780275900 (bc -l's 4*a(1)); the 2001st is 9, so bpi rounds the last up.
    expect(r.lines[0].text.endsWith("3904780275901")).toBe(true);
    expect(evaluateCommand(["perl", "-e", "print 1"], ctx)).toBeUndefined();
  });
});
