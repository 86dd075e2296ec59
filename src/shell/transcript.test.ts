import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { Session } from "./session.js";
import { runTranscript } from "./transcript.js";

const here = join(dirname(fileURLToPath(import.meta.url)), "testdata");

// kubectl's own texts around the guide's first section (errors, flags, apply twice); the guide's
// sections one by one are in lab-guide.test.ts. coreutils: the node's everyday commands.
describe("kubectl transcripts", () => {
  for (const name of ["lab-basics", "kubectl-watch", "replicationcontroller", "kubectl-apply-prune", "batch-job", "batch-cronjob", "volumes", "ingress", "kubectl-run", "kubectl-delete-wait", "coreutils"]) {
    it(name, async () => {
      const session = new Session(Cluster.create());
      const got = await runTranscript(session, readFileSync(join(here, `${name}.sh`), "utf8"));
      await expect(got).toMatchFileSnapshot(join(here, `${name}.golden`));
    });
  }
});

describe("session", () => {
  it("keeps files, working directory and variables between lines, and snapshots them", async () => {
    const c = Cluster.create();
    const s = new Session(c);
    await s.run("mkdir -p /root/d && cd /root/d && X=42 && echo hi > f.txt");
    expect((await s.run("pwd; echo $X; cat f.txt")).stdout).toBe("/root/d\n42\nhi\n");
    const s2 = new Session(c, { state: JSON.parse(JSON.stringify(s.save())) });
    expect((await s2.run("pwd; cat f.txt")).stdout).toBe("/root/d\nhi\n");
    expect(s2.prompt).toBe("[root@master d]# ");
  });

  it("grep with several -e matches any of them", async () => {
    const s = new Session(Cluster.create());
    expect((await s.run("printf 'a Endpoints\\nb IP: x\\nc\\n' | grep -e Endpoints -e IP:")).stdout).toBe("a Endpoints\nb IP: x\n");
  });

  it("stops runaway loops with a clear message", async () => {
    const s = new Session(Cluster.create(), { maxCommands: 1000 });
    const r = await s.run("while true; do :; done");
    expect(r.stderr).toContain("execution limit reached");
    expect(r.exitCode).not.toBe(0);
  });

  it("caps output", async () => {
    const s = new Session(Cluster.create(), { outputCap: 100 });
    const r = await s.run("for i in {1..100}; do echo 0123456789; done");
    expect(r.stdout).toContain("[output truncated");
  });

  it("exec into an image without bash fails as containerd says", async () => {
    const c = Cluster.create();
    const s = new Session(c);
    await s.run("kubectl run bb --image=busybox --command -- sleep 3600; sleep 20");
    const r = await s.run("kubectl exec -it bb -- bash");
    expect(r.stderr).toMatch(/^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "bash": executable file not found in \$PATH: unknown\n$/);
    expect(r.exitCode).toBe(1);
  });

  it("kubectl run --rm -it attaches to the pod's shell until exit", async () => {
    const c = Cluster.create();
    const s = new Session(c);
    await s.run("kubectl create service clusterip mysql --tcp=3306:3306");
    const r = await s.run("kubectl run test --rm -it --image=busybox sh");
    expect(r.stderr).toBe("If you don't see a command prompt, try pressing enter.\n");
    expect(s.prompt).toBe("/ # ");
    expect((await s.run("env | grep MYSQL_SERVICE")).stdout).toMatch(/^MYSQL_SERVICE_HOST=10\.\d+\.\d+\.\d+\nMYSQL_SERVICE_PORT=3306\n/);
    expect((await s.run("cat /etc/resolv.conf")).stdout).toBe("search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n");
    expect((await s.run("exit")).stdout).toBe('pod "test" deleted\n');
    expect(s.prompt).toBe("[root@master ~]# ");
  });
});
