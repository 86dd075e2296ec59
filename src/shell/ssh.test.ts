import { describe, expect, it } from "vitest";
import { testCluster } from "../engine/testing.js";
import { Session } from "./session.js";

describe("ssh between nodes", () => {
  it("moves the terminal to another node and back", async () => {
    const s = new Session(testCluster());
    expect(s.prompt).toBe("[root@master ~]# ");
    expect(await s.run("ssh node1")).toEqual({ stdout: "Last login: Thu Jan  1 00:00:01 2026 from 10.1.8.30\n", stderr: "", exitCode: 0 });
    expect(s.prompt).toBe("[root@node1 ~]# ");
    expect((await s.run("hostname; hostname -I")).stdout).toBe("node1\n10.1.8.31 \n");
    // The node's own addresses: its rules are the ones iptables-save prints.
    expect((await s.run("ip addr show eth0")).stdout).toContain("inet 10.1.8.31/");
    expect(await s.run("exit")).toEqual({ stdout: "", stderr: "logout\nConnection to node1 closed.\n", exitCode: 0 });
    expect(s.prompt).toBe("[root@master ~]# ");
  });

  it("runs one command on another node, by name or address", async () => {
    const s = new Session(testCluster());
    expect((await s.run("ssh root@node2 hostname")).stdout).toBe("node2\n");
    expect((await s.run("ssh 10.1.8.31 hostname")).stdout).toBe("node1\n");
    // Options after the destination belong to the remote command.
    expect((await s.run("ssh -o StrictHostKeyChecking=no node2 hostname -I")).stdout).toBe("10.1.8.32 \n");
    expect(s.prompt).toBe("[root@master ~]# ");
  });

  it("fails as ssh fails for unknown hosts and survives a snapshot", async () => {
    const c = testCluster();
    const s = new Session(c);
    expect(await s.run("ssh nope")).toEqual({ stdout: "", stderr: "ssh: Could not resolve hostname nope: Name or service not known\n", exitCode: 255 });
    await s.run("ssh node2");
    const t = new Session(c, { state: JSON.parse(JSON.stringify(s.save())) });
    expect(t.prompt).toBe("[root@node2 ~]# ");
    await t.run("exit");
    expect(t.prompt).toBe("[root@master ~]# ");
  });

  it("each node has its own files; a login shell starts at home and exit returns to the shell left", async () => {
    const c = testCluster();
    const s = new Session(c);
    await s.run("cd /tmp && X=1 && echo on-master > /root/notes");
    await s.run("ssh node1");
    expect((await s.run("pwd; echo \"X=$X\"; cat /root/notes")).stdout).toBe("/root\nX=\n");
    await s.run("echo on-node1 > /root/notes");
    await s.run("exit");
    expect((await s.run("pwd; echo \"X=$X\"; cat /root/notes")).stdout).toBe("/tmp\nX=1\non-master\n");
    expect((await s.run("ssh node1 cat notes")).stdout).toBe("on-node1\n");
    // Both filesystems survive a snapshot.
    const t = new Session(c, { state: JSON.parse(JSON.stringify(s.save())) });
    expect((await t.run("cat /root/notes; ssh node1 cat /root/notes")).stdout).toBe("on-master\non-node1\n");
  });

  it("kubectl on a worker has no kubeconfig, as after kubeadm join", async () => {
    const s = new Session(testCluster());
    expect(await s.run("ssh node2 kubectl get pods")).toEqual({ stdout: "", stderr: "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n", exitCode: 1 });
    expect((await s.run("ssh node2 kubectl version --client")).exitCode).toBe(0);
    // With the admin kubeconfig copied over, it works there too.
    await s.run("ssh node2");
    await s.run("mkdir -p /root/.kube");
    await s.run("exit");
    const cfg = (await s.run("cat /root/.kube/config")).stdout;
    expect(cfg).toContain("kind: Config");
    await s.run("ssh node2");
    await s.run(`cat > /root/.kube/config <<'EOF'\n${cfg}EOF`);
    expect((await s.run("kubectl get nodes --no-headers | wc -l")).stdout.trim()).toBe("3");
  });
});

