// The node's commands in a terminal: files dated by the cluster's clock (whatever the host's
// says), kept with the terminal, the same on a replay; date on that clock; ls -l of them;
// uname on the node and in a container.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { testCluster } from "../../engine/testing.js";
import { Session, type SessionState } from "../session.js";

const LINES = ["mkdir -p d/e && echo one > d/a", "sleep 300", "echo two > d/b; cp d/a d/c; mv d/a d/moved", "sleep 3600", "touch d/b"];
const TIMES = "for f in d d/e d/b d/c d/moved; do date -r $f '+%F %T'; done";

async function times(hostNow?: string): Promise<string> {
  if (hostNow) vi.useFakeTimers({ now: new Date(hostNow), toFake: ["Date"] });
  const s = new Session(Cluster.create({ seed: 3 }));
  for (const l of LINES) await s.run(l);
  return (await s.run(TIMES)).stdout;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("file times", () => {
  it("come from the cluster's clock, whatever the host's clock says, and a replay gives the same", async () => {
    const a = await times();
    expect(await times("2031-05-05T12:00:00Z")).toBe(a);
    expect(await times("1999-01-01T00:00:00Z")).toBe(a);
    // A write stamps the file and, when it adds or removes an entry, its directory; a copy is
    // new, a rename keeps its time; touch is now.
    expect(a).toBe("2026-01-01 00:05:01\n2026-01-01 00:00:01\n2026-01-01 01:05:01\n2026-01-01 00:05:01\n2026-01-01 00:00:01\n");
  });

  it("are what ls -l shows, with root's names, SELinux's '.' and XFS's sizes and links", async () => {
    const s = new Session(Cluster.create({ seed: 3 }));
    for (const l of LINES) await s.run(l);
    expect((await s.run("ls -la --time-style=full-iso d d/e")).stdout).toBe(
      "d:\ntotal 12\n" +
        "drwxr-xr-x. 3 root root 46 2026-01-01 00:05:01.500000000 +0000 .\n" +
        "dr-xr-x---. 4 root root 59 2026-01-01 00:00:01.500000000 +0000 ..\n" +
        "-rw-r--r--. 1 root root  4 2026-01-01 01:05:01.500000000 +0000 b\n" +
        "-rw-r--r--. 1 root root  4 2026-01-01 00:05:01.500000000 +0000 c\n" +
        "drwxr-xr-x. 2 root root  6 2026-01-01 00:00:01.500000000 +0000 e\n" +
        "-rw-r--r--. 1 root root  4 2026-01-01 00:00:01.500000000 +0000 moved\n" +
        "\nd/e:\ntotal 0\n" +
        "drwxr-xr-x. 2 root root  6 2026-01-01 00:00:01.500000000 +0000 .\n" +
        "drwxr-xr-x. 3 root root 46 2026-01-01 00:05:01.500000000 +0000 ..\n",
    );
  });

  it("are kept with a saved terminal, with its empty directories", async () => {
    const c = testCluster();
    const s = new Session(c);
    await s.run("mkdir -p /root/empty/deeper; sleep 61; echo x > /tmp/f");
    const line = "date -r /tmp/f +%T; date -r /root/empty +%T; date -r /root/empty/deeper +%T";
    const before = (await s.run(line)).stdout;
    const saved = JSON.parse(JSON.stringify(s.save())) as SessionState;
    const restored = new Session(c, { state: saved });
    expect((await restored.run(line)).stdout).toBe(before);
    expect(before).toMatch(/^00:01:0\d\n00:00:0\d\n00:00:0\d\n$/);
  });

  it("make date print the cluster's time in en_US.UTF-8's format", async () => {
    const s = new Session(testCluster());
    expect((await s.run("date")).stdout).toMatch(/^Thu Jan  1 12:00:0\d AM UTC 2026\n$/);
    expect((await s.run("LANG=C date")).stdout).toMatch(/^Thu Jan  1 00:00:0\d UTC 2026\n$/);
    expect((await s.run("date -d yesterday +%F; date -d @0 -u; date -I")).stdout).toBe("2025-12-31\nThu Jan  1 12:00:00 AM UTC 1970\n2026-01-01\n");
    expect(await s.run("date -r /nope")).toEqual({ stdout: "", stderr: "date: /nope: No such file or directory\n", exitCode: 1 });
    expect((await s.run("touch -t 202512250830 /tmp/x; date -r /tmp/x")).stdout).toBe("Thu Dec 25 08:30:00 AM UTC 2025\n");
  });
});

describe("uname", () => {
  it("names Rocky 9.4's kernel, with RHEL's -p and -i on the node and upstream's in a Debian container", async () => {
    const s = new Session(testCluster());
    expect((await s.run("uname; uname -a; uname -rp")).stdout).toBe(
      "Linux\nLinux master 5.14.0-427.13.1.el9_4.x86_64 #1 SMP PREEMPT_DYNAMIC Wed May 1 19:11:28 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n5.14.0-427.13.1.el9_4.x86_64 x86_64\n",
    );
    expect(await s.run("uname foo")).toEqual({ stdout: "", stderr: "uname: extra operand \u2018foo\u2019\nTry 'uname --help' for more information.\n", exitCode: 1 });
    // The kubelet reports the same kernel.
    expect((await s.run("kubectl get node master -o jsonpath='{.status.nodeInfo.kernelVersion}'")).stdout).toBe("5.14.0-427.13.1.el9_4.x86_64");
    await s.run("kubectl run web --image=nginx; sleep 30");
    // Upstream coreutils say "unknown" for -p and -i, which -a leaves out; a container shares the node's kernel.
    expect((await s.run("kubectl exec web -- uname -a")).stdout).toBe("Linux web 5.14.0-427.13.1.el9_4.x86_64 #1 SMP PREEMPT_DYNAMIC Wed May 1 19:11:28 UTC 2024 x86_64 GNU/Linux\n");
    expect((await s.run("kubectl exec web -- uname -p")).stdout).toBe("unknown\n");
  });
});
