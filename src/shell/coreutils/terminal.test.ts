// The node's commands in a terminal: files dated by the cluster's clock (whatever the host's
// says), kept with the terminal, the same on a replay; date on that clock; ls -l of them;
// uname on the node and in a container; GNU's words for what the interpreter's programs report;
// env, history, clear; ls in columns where its output is the terminal.
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

describe("GNU coreutils' words", () => {
  it("for a directory, a missing file or operand, in the node's locale", async () => {
    const s = new Session(testCluster());
    const err = (stderr: string, exitCode = 1) => ({ stdout: "", stderr, exitCode });
    expect(await s.run("cat /etc")).toEqual(err("cat: /etc: Is a directory\n"));
    expect(await s.run("cat 'a b'")).toEqual(err("cat: 'a b': No such file or directory\n"));
    expect(await s.run("head /etc /nope")).toEqual(err("head: error reading '/etc': Is a directory\nhead: cannot open '/nope' for reading: No such file or directory\n"));
    expect(await s.run("tail -n 1 /nope")).toEqual(err("tail: cannot open '/nope' for reading: No such file or directory\n"));
    expect(await s.run("cp")).toEqual(err("cp: missing file operand\nTry 'cp --help' for more information.\n"));
    expect(await s.run("mv /tmp")).toEqual(err("mv: missing destination file operand after '/tmp'\nTry 'mv --help' for more information.\n"));
    expect(await s.run("cp /etc/hosts /nope/x")).toEqual(err("cp: cannot create regular file '/nope/x': No such file or directory\n"));
    expect(await s.run("mv /etc/hosts /nope/x")).toEqual(err("mv: cannot move '/etc/hosts' to '/nope/x': No such file or directory\n"));
    expect(await s.run("rm -z x")).toEqual(err("rm: invalid option -- 'z'\nTry 'rm --help' for more information.\n"));
    expect(await s.run("chmod 755")).toEqual(err("chmod: missing operand after \u2018755\u2019\nTry 'chmod --help' for more information.\n"));
    expect(await s.run("mkdir /tmp")).toEqual(err("mkdir: cannot create directory \u2018/tmp\u2019: File exists\n"));
  });

  it("wc: columns as wide as the input needs, 7 for a pipe, a directory's zeros", async () => {
    const s = new Session(testCluster());
    expect((await s.run("wc /etc/hostname; wc -l /etc/hosts; echo one two | wc; echo one two | wc -w")).stdout).toBe("1 1 7 /etc/hostname\n5 /etc/hosts\n      1       2       8\n2\n");
    expect(await s.run("wc /etc/hosts /etc")).toEqual({ stdout: "      5      16     207 /etc/hosts\n      0       0       0 /etc\n      5      16     207 total\n", stderr: "wc: /etc: Is a directory\n", exitCode: 1 });
  });

  it("in a container: Debian's in the C locale, BusyBox's own", async () => {
    const s = new Session(testCluster());
    await s.run("kubectl run web --image=nginx; kubectl run bb --image=busybox --command -- sleep 3600; sleep 30");
    expect((await s.run("kubectl exec web -- ls /nope")).stderr).toBe("ls: cannot access '/nope': No such file or directory\ncommand terminated with exit code 2\n");
    // No SELinux label in a container's listing; the C locale's quotes.
    expect((await s.run("kubectl exec web -- ls -ld /tmp")).stdout).toMatch(/^drwxr-xr-x 2 root root \d+ Jan  1 00:00 \/tmp\n$/);
    expect((await s.run("kubectl exec web -- mkdir /tmp")).stderr).toBe("mkdir: cannot create directory '/tmp': File exists\ncommand terminated with exit code 1\n");
    expect((await s.run("kubectl exec web -- date")).stdout).toMatch(/^Thu Jan  1 00:00:\d\d UTC 2026\n$/);
    expect((await s.run("kubectl exec bb -- ls /nope")).stderr).toBe("ls: /nope: No such file or directory\ncommand terminated with exit code 2\n");
  });
});

describe("the shell's environment and history", () => {
  it("env and printenv show the exported variables only, bash's _ last", async () => {
    const s = new Session(testCluster());
    const env = (await s.run("X=1; export Y=2; env")).stdout;
    expect(env).toMatch(/^HOME=\/root\nPATH=[^\n]+\n(?:[A-Z_]+=[^\n]*\n)+Y=2\n_=\/usr\/bin\/env\n$/);
    expect(env).not.toMatch(/^(X|IFS|OSTYPE|SHELLOPTS|BASHOPTS|OPTIND)=/m);
    expect(await s.run("printenv Y; printenv X")).toEqual({ stdout: "2\n", stderr: "", exitCode: 1 });
    expect((await s.run("env -i A=b")).stdout).toBe("A=b\n");
  });

  it("history lists the lines typed, a repeat once (ignoredups), and stays with the terminal", async () => {
    const c = testCluster();
    const s = new Session(c);
    for (const l of ["echo a", "echo a", "kubectl get ns", "ls /tmp"]) await s.run(l);
    expect((await s.run("history")).stdout).toBe("    1  echo a\n    2  kubectl get ns\n    3  ls /tmp\n    4  history\n");
    const restored = new Session(c, { state: JSON.parse(JSON.stringify(s.save())) });
    expect((await restored.run("history 2")).stdout).toBe("    4  history\n    5  history 2\n");
    expect((await restored.run("history -c; history")).stdout).toBe("");
  });

  it("which says where it looked for what it did not find", async () => {
    const s = new Session(testCluster());
    expect(await s.run("which kubectl nosuch")).toEqual({ stdout: "/usr/bin/kubectl\n", stderr: "which: no nosuch in (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/root/bin)\n", exitCode: 1 });
  });

  it("clear writes what ncurses' clear writes for xterm-256color", async () => {
    expect((await new Session(testCluster()).run("clear")).stdout).toBe("\x1b[H\x1b[2J\x1b[3J");
  });
});

describe("ls at a terminal", () => {
  it("lays out columns the terminal's width when its output is the terminal, one name a line otherwise", async () => {
    const s = new Session(testCluster());
    await s.run("cd /tmp && touch alpha beta gamma delta 'e f'");
    // As GNU ls -C --quoting-style=shell-escape -w 100 (and -w 20) prints the same names.
    expect((await s.run("ls", { columns: 100 })).stdout).toBe(" alpha\t beta   delta  'e f'   gamma\n");
    expect((await s.run("ls; echo; ls -w 20", { columns: 100 })).stdout).toBe(" alpha\t beta   delta  'e f'   gamma\n\n alpha\t'e f'\n beta\t gamma\n delta\n");
    // Piped, redirected, substituted: not the terminal.
    expect((await s.run("ls | cat", { columns: 100 })).stdout).toBe("alpha\nbeta\ndelta\ne f\ngamma\n");
    expect((await s.run("ls > /root/list; echo $(ls | head -1)", { columns: 100 })).stdout).toBe("alpha\n");
    // No terminal (the exec API, a script): one a line.
    expect((await s.run("ls")).stdout).toBe("alpha\nbeta\ndelta\ne f\ngamma\n");
  });
});
