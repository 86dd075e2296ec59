// The shells' files and words as a node's and a container's: writes need their directory,
// configMap volumes are read-only and laid out as the kubelet writes them, the character devices
// read as devices, absent programs are absent in the voice of the shell that looks for them.

import { describe, expect, it } from "vitest";
import { testCluster } from "../engine/testing.js";
import { Session } from "./session.js";

const err = (stderr: string, exitCode = 1) => ({ stdout: "", stderr, exitCode });

describe("the node's shell", () => {
  it("fails writes into a missing directory as bash and coreutils do", async () => {
    const s = new Session(testCluster());
    expect(await s.run("echo hi > /nope/x")).toEqual(err("bash: /nope/x: No such file or directory\n"));
    expect(await s.run("echo hi >> /nope/x")).toEqual(err("bash: /nope/x: No such file or directory\n"));
    expect(await s.run("mkdir /nope/a")).toEqual(err("mkdir: cannot create directory ‘/nope/a’: No such file or directory\n"));
    expect(await s.run("touch /nope/z")).toEqual(err("touch: cannot touch '/nope/z': No such file or directory\n"));
    expect((await s.run("echo hi | tee /nope/x")).stderr).toBe("tee: /nope/x: No such file or directory\n");
    expect(await s.run("ls /nope")).toMatchObject({ exitCode: 2 });
    // The line goes on after the failed command, as bash's does.
    expect(await s.run("echo a > /nope/x; echo next")).toEqual({ stdout: "next\n", stderr: "bash: /nope/x: No such file or directory\n", exitCode: 0 });
    expect(await s.run("mkdir -p /opt/a/b && echo ok > /opt/a/b/f && cat /opt/a/b/f")).toEqual({ stdout: "ok\n", stderr: "", exitCode: 0 });
  });

  it("has /dev/null, /dev/zero and /dev/urandom, read to a pipe buffer's bound", async () => {
    const s = new Session(testCluster());
    expect(await s.run("echo gone > /dev/null; cat /dev/null | wc -c")).toEqual({ stdout: "0\n", stderr: "", exitCode: 0 });
    expect((await s.run("head -c 8 /dev/zero | od -An -tx1")).stdout).toBe(" 00 00 00 00 00 00 00 00\n");
    const a = (await s.run("head -c 16 /dev/urandom | od -An -tx1")).stdout;
    expect(a).toMatch(/^( [0-9a-f]{2}){16}\n$/);
    expect((await s.run("head -c 16 /dev/urandom | od -An -tx1")).stdout).not.toBe(a);
    // The bytes come from the cluster's seeded stream: the same cluster and lines read the same.
    expect((await new Session(testCluster()).run("head -c 16 /dev/urandom | od -An -tx1")).stdout).toBe(a);
    expect((await s.run("cat /dev/urandom | wc -c")).stdout).toBe("65536\n");
    expect((await s.run("od -An -tx1 -N4 /dev/zero")).stdout).toBe(" 00 00 00 00\n");
    expect((await s.run("[ -c /dev/urandom ] && echo device")).stdout).toBe("device\n");
  });

  it("says command not found for programs it does not have, never a word about its interpreter", async () => {
    const s = new Session(testCluster());
    for (const p of ["python3", "python", "sqlite3", "jq", "node"]) expect(await s.run(`${p} --version`)).toEqual(err(`bash: ${p}: command not found\n`, 127));
    expect(await s.run("command -v python3")).toMatchObject({ stdout: "", exitCode: 1 });
  });

  it("is root's, as id and whoami say", async () => {
    const s = new Session(testCluster());
    expect((await s.run("id")).stdout).toBe("uid=0(root) gid=0(root) groups=0(root) context=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023\n");
    expect((await s.run("id -u; id -un; whoami")).stdout).toBe("0\nroot\nroot\n");
    expect(await s.run("id nobody2")).toEqual(err("id: ‘nobody2’: no such user\n"));
  });
});

const PODS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-html
data:
  index.html: "hello from cm"
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx
    volumeMounts:
    - name: html
      mountPath: /usr/share/nginx/html
  volumes:
  - name: html
    configMap:
      name: web-html
---
apiVersion: v1
kind: Pod
metadata:
  name: bb
spec:
  containers:
  - name: bb
    image: busybox
    command: ["sleep", "3600"]
`;

async function withPods(): Promise<Session> {
  const s = new Session(testCluster());
  await s.run(`cat > pods.yaml <<'EOF'\n${PODS}EOF`);
  expect((await s.run("kubectl apply -f pods.yaml")).exitCode).toBe(0);
  await s.run("sleep 30");
  return s;
}

describe("a container's shell", () => {
  it("mounts a configMap read-only over the directory, in the kubelet's ..data layout", async () => {
    const s = await withPods();
    // The volume replaces the image's document root: 50x.html is gone, the key is there.
    expect((await s.run("kubectl exec web -- ls /usr/share/nginx/html")).stdout).toBe("index.html\n");
    expect((await s.run("kubectl exec web -- ls -a /usr/share/nginx/html")).stdout).toMatch(/^\.\n\.\.\n\.\.2026_01_01_00_00_01\.\d+\n\.\.data\nindex\.html\n$/);
    expect((await s.run("kubectl exec web -- readlink /usr/share/nginx/html/..data")).stdout).toMatch(/^\.\.2026_01_01_00_00_01\.\d+\n$/);
    expect((await s.run("kubectl exec web -- cat /usr/share/nginx/html/index.html")).stdout).toBe("hello from cm");
    expect(await s.run("kubectl exec web -- bash -c 'echo x > /usr/share/nginx/html/index.html'")).toEqual(
      err("bash: /usr/share/nginx/html/index.html: Read-only file system\ncommand terminated with exit code 1\n"),
    );
    // nginx's /bin/sh is dash.
    expect((await s.run("kubectl exec web -- sh -c 'echo x > /usr/share/nginx/html/new'")).stderr).toBe("sh: 1: cannot create /usr/share/nginx/html/new: Read-only file system\ncommand terminated with exit code 1\n");
    expect((await s.run("kubectl exec web -- touch /usr/share/nginx/html/z")).stderr).toBe("touch: cannot touch '/usr/share/nginx/html/z': Read-only file system\ncommand terminated with exit code 1\n");
    expect((await s.run("kubectl exec web -- rm /usr/share/nginx/html/index.html")).exitCode).toBe(1);
    // What the web server serves is the volume's, unchanged.
    const ip = (await s.run("kubectl get pod web -o jsonpath='{.status.podIP}'")).stdout;
    expect((await s.run(`curl -s ${ip}`)).stdout).toBe("hello from cm");
    // Elsewhere the container's files are writable, and stay.
    expect((await s.run("kubectl exec web -- bash -c 'echo ok > /tmp/f'")).exitCode).toBe(0);
    expect((await s.run("kubectl exec web -- cat /tmp/f")).stdout).toBe("ok\n");
  });

  it("has its image's programs: busybox its applets and /bin/wget, nginx curl and no wget", async () => {
    const s = await withPods();
    const ip = (await s.run("kubectl get pod web -o jsonpath='{.status.podIP}'")).stdout;
    expect((await s.run(`kubectl exec bb -- /bin/wget -q -O - ${ip}`)).stdout).toBe("hello from cm");
    expect((await s.run(`kubectl exec bb -- wget -q -O - ${ip}`)).stdout).toBe("hello from cm");
    expect((await s.run("kubectl exec bb -- id")).stdout).toBe("uid=0(root) gid=0(root) groups=0(root),10(wheel)\n");
    expect((await s.run("kubectl exec web -- id")).stdout).toBe("uid=0(root) gid=0(root) groups=0(root)\n");
    expect((await s.run("kubectl exec bb -- whoami")).stdout).toBe("root\n");
    const missing = (pod: string, program: string) =>
      expect.stringMatching(new RegExp(`^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in \\$PATH: unknown\\n$`));
    expect(await s.run("kubectl exec web -- wget localhost")).toEqual({ stdout: "", stderr: missing("web", "wget"), exitCode: 1 });
    expect(await s.run("kubectl exec bb -- curl localhost")).toEqual({ stdout: "", stderr: missing("bb", "curl"), exitCode: 1 });
    expect(await s.run("kubectl exec web -- nosuchcmd")).toEqual({ stdout: "", stderr: missing("web", "nosuchcmd"), exitCode: 1 });
    expect(await s.run("kubectl exec bb -- bash")).toEqual({ stdout: "", stderr: missing("bb", "bash"), exitCode: 1 });
    expect(await s.run("kubectl exec web -- iptables-save")).toEqual({ stdout: "", stderr: missing("web", "iptables-save"), exitCode: 1 });
    expect((await s.run("kubectl exec bb -- sh -c 'head -c 4 /dev/zero | od -An -tx1'")).stdout).toBe(" 00 00 00 00\n");
  });

  it("speaks as the shell the image has: bash, dash or BusyBox's ash", async () => {
    const s = await withPods();
    expect(await s.run("kubectl exec web -- bash -c 'python3; echo hi > /nope/x'")).toEqual(
      err("bash: python3: command not found\nbash: /nope/x: No such file or directory\ncommand terminated with exit code 1\n"),
    );
    expect(await s.run("kubectl exec web -- sh -c 'echo hi > /nope/x; python3'")).toEqual(
      err("sh: 1: cannot create /nope/x: Directory nonexistent\nsh: 1: python3: not found\ncommand terminated with exit code 127\n", 127),
    );
    expect(await s.run("kubectl exec bb -- sh -c 'echo hi > /nope/x; python3; bash'")).toEqual(
      err("sh: can't create /nope/x: nonexistent directory\nsh: python3: not found\nsh: bash: not found\ncommand terminated with exit code 127\n", 127),
    );
    expect(await s.run("kubectl exec web -- bash -c 'exit 3'")).toEqual(err("command terminated with exit code 3\n", 3));
    // An attached shell is the same shell.
    await s.run("kubectl exec -it bb -- sh");
    expect(await s.run("python3")).toEqual(err("sh: python3: not found\n", 127));
    await s.run("exit");
    await s.run("kubectl exec -it web -- bash");
    expect(await s.run("python3")).toEqual(err("bash: python3: command not found\n", 127));
    await s.run("exit");
  });
});
