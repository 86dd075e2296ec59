// The terminal's defense box: held for the life of the process with process-lifetime hardening
// (see DEFENSE in session.ts). Blocking must still apply inside a command line's context, and
// host code beside and after command lines must run as if the box were not there.
import { DefenseInDepthBox } from "just-bash";
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { DEFENSE, Session } from "./session.js";

describe("defense-in-depth box", () => {
  it("stays enabled, hardened, after the first terminal runs a command", async () => {
    const s = new Session(Cluster.create({ seed: 1 }));
    const r = await s.run("kubectl get svc kubernetes -o name");
    expect(r.stdout).toBe("service/kubernetes\n");
    const status = DefenseInDepthBox.getInstance(DEFENSE).getStatus();
    expect(status.state).toBe("enabled");
    expect(status.intrinsicProtection).toBe("process-lifetime");
    expect(DefenseInDepthBox.getInstance(DEFENSE).isActive()).toBe(true);
    expect(Object.isFrozen(JSON) && Object.isFrozen(Math) && Object.isFrozen(Reflect)).toBe(true);
  });

  it("blocks the Function constructor inside a command's context, not in host code", async () => {
    const s = new Session(Cluster.create({ seed: 1 }));
    await s.run("true");
    const box = DefenseInDepthBox.getInstance(DEFENSE);
    const handle = box.activate();
    const blocked = await handle
      .run(async () => {
        try {
          return String((() => {}).constructor("return 1")());
        } catch (e) {
          return (e as Error).name;
        }
      })
      .finally(() => handle.deactivate());
    expect(blocked).toBe("SecurityViolationError");
    // Host code (this test, the HTTP server, the engine) is outside any command's context.
    expect((() => {}).constructor("return 2")()).toBe(2);
    expect(JSON.parse(JSON.stringify({ a: [1, 2] }))).toEqual({ a: [1, 2] });
    await expect(Promise.resolve(3).then((x) => x + 1)).resolves.toBe(4);
  });

  it("keeps command lines working one after another and side by side", async () => {
    const a = new Session(Cluster.create({ seed: 1 }));
    const b = new Session(Cluster.create({ seed: 2 }));
    const runs = await Promise.all([a.run("echo one | tr a-z A-Z"), b.run("for i in 1 2 3; do echo $i; done | sort -r"), a.run("printf '%s\\n' x")]);
    expect(runs.map((r) => r.stdout)).toEqual(["ONE\n", "3\n2\n1\n", "x\n"]);
    expect(runs.every((r) => r.exitCode === 0)).toBe(true);
  });
});
