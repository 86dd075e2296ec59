// What a host persists after a command: nothing for a read-only command, and every change
// otherwise (objects, the terminal's files, container files and logs, random streams), so a
// cluster rebuilt from the rows continues where it was.
import { describe, expect, it } from "vitest";
import { ClusterCore, type ClusterState, type Delta } from "./core.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { sessionShell } from "./terminal.js";

/** The rows a host would hold, with deltas applied as the hosts apply them. */
class Rows {
  meta = "";
  readonly objects = new Map<string, string>();
  apply(d: Delta): void {
    if (d.full) this.objects.clear();
    for (const [k, b] of d.upserts) this.objects.set(k, b);
    for (const k of d.deletes) this.objects.delete(k);
    this.meta = d.meta;
  }
  state(): ClusterState {
    return { meta: this.meta, objects: [...this.objects] };
  }
}

async function setup(lab: string) {
  const now = Date.now();
  const core = ClusterCore.create("c1", { lab, tenantId: null, now }, sessionShell);
  const rows = new Rows();
  rows.apply(core.takeDelta());
  const run = async (cmd: string) => {
    const r = await core.exec(cmd, Date.now(), DEFAULT_LIMITS);
    const d = core.takeDeltaIfChanged();
    if (d) rows.apply(d);
    return { ...r, delta: d };
  };
  await run("kubectl get nodes"); // the terminal's first state
  const restored = () => ClusterCore.restore("c1", rows.state(), sessionShell);
  return { core, rows, run, restored };
}

describe("ClusterCore persistence", () => {
  it("a read-only command persists nothing", async () => {
    const { run } = await setup("empty");
    await run("kubectl get svc");
    for (const cmd of ["kubectl get svc", "kubectl get pods -A", "iptables-save | wc -l", "cat /etc/hosts", "pwd"]) {
      expect((await run(cmd)).delta, cmd).toBeNull();
    }
  });

  it("the terminal's files and working directory are persisted", async () => {
    const { run, restored } = await setup("empty");
    expect((await run("mkdir -p /root/lab && echo hello > /root/lab/f")).delta).not.toBeNull();
    expect((await run("cd /root/lab")).delta).not.toBeNull();
    const again = restored();
    const r = await again.exec("pwd; cat f", Date.now(), DEFAULT_LIMITS);
    expect(r.stdout).toBe("/root/lab\nhello\n");
  });

  it("another node's files, reached with ssh, are persisted", async () => {
    const { run, restored } = await setup("empty");
    expect((await run("ssh node1")).delta).not.toBeNull();
    expect((await run("echo on-node1 > /root/n1")).delta).not.toBeNull();
    expect((await run("cat /root/n1")).delta).toBeNull();
    const again = restored();
    expect((await again.exec("hostname; cat /root/n1", Date.now(), DEFAULT_LIMITS)).stdout).toBe("node1\non-node1\n");
  });

  it("a file written inside a container, and the access log of a request, are persisted", async () => {
    const { run, restored } = await setup("clusterip-web");
    const pod = (await run("kubectl get pods -l app=web -o name")).stdout.split("\n")[0].replace("pod/", "");
    expect(pod).toMatch(/^web-/);
    const w = await run(`kubectl exec ${pod} -- sh -c 'echo inside > /tmp/note'`);
    expect(w.exitCode).toBe(0);
    expect(w.delta?.upserts.map(([k]) => k)).toContain("#kubelet");
    const ip = (await run(`kubectl get pod ${pod} -o jsonpath='{.status.podIP}'`)).stdout;
    const c = await run(`curl -s http://${ip}/`);
    expect(c.exitCode).toBe(0);
    expect(c.delta).not.toBeNull();
    const logs = (await run(`kubectl logs ${pod}`)).stdout;
    const again = restored();
    expect((await again.exec(`kubectl exec ${pod} -- cat /tmp/note`, Date.now(), DEFAULT_LIMITS)).stdout).toBe("inside\n");
    expect((await again.exec(`kubectl logs ${pod}`, Date.now(), DEFAULT_LIMITS)).stdout).toBe(logs);
  });

  it("a restored terminal is serialized again only once it changes", async () => {
    const { rows, restored } = await setup("empty");
    const again = restored();
    const shell = (again as unknown as { shell: { save(): unknown } }).shell;
    let saves = 0;
    const save = shell.save.bind(shell);
    shell.save = () => (saves++, save());
    // A first line writes a configmap: the terminal's state is the one just read, not serialized.
    await again.exec("kubectl create configmap one --from-literal=a=b", Date.now(), DEFAULT_LIMITS);
    const d = again.takeDeltaIfChanged()!;
    expect(d.upserts.map(([k]) => k)).toEqual(["configmaps|default/one"]);
    expect(saves).toBe(0);
    rows.apply(d);
    // A line that changes a file: the row is written, and a cluster restored from it has it.
    await again.exec("echo after-restore > /root/f", Date.now(), DEFAULT_LIMITS);
    const d2 = again.takeDeltaIfChanged()!;
    expect(d2.upserts.map(([k]) => k)).toContain("#shell");
    rows.apply(d2);
    expect((await restored().exec("cat /root/f", Date.now(), DEFAULT_LIMITS)).stdout).toBe("after-restore\n");
  });

  it("a restored cluster's meta row holds only the meta, not copies of the side rows", async () => {
    const { rows, restored } = await setup("empty");
    const again = restored();
    await again.exec("kubectl create configmap one --from-literal=a=b", Date.now(), DEFAULT_LIMITS);
    const d = again.takeDelta();
    expect(d.upserts.map(([k]) => k)).toContain("configmaps|default/one");
    const meta = JSON.parse(d.meta) as Record<string, unknown>;
    for (const side of ["config", "kubelet", "shell"]) expect(meta, side).not.toHaveProperty(side);
    expect(d.meta.length).toBeLessThan(rows.objects.get("#kubelet")!.length);
  });
});
