// What a host persists after a command: only its journal line for a read-only command, and every change
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
  /** The rows in key order, as a primary-key scan returns them (not in the order written). */
  state(): ClusterState {
    return { meta: this.meta, objects: [...this.objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
  }
}

/** Every row but the journal's (a line per command, written for every command: src/runtime/journal.ts). */
const stateKeys = (d: Delta | null | undefined) => (d?.upserts ?? []).map(([k]) => k).filter((k) => !k.startsWith("#cmd|") && k !== "#journal" && k !== "#origin");
/** A delta that writes the command's journal line and nothing else. */
const journalOnly = (d: Delta | null) => d !== null && stateKeys(d).length === 0 && d.deletes.length === 0 && d.upserts.filter(([k]) => k.startsWith("#cmd|")).length === 1;

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
  it("a read-only command persists only its journal line", async () => {
    const { run } = await setup("empty");
    await run("kubectl get svc");
    for (const cmd of ["kubectl get svc", "kubectl get pods -A", "iptables-save | wc -l", "cat /etc/hosts", "pwd"]) {
      expect(journalOnly((await run(cmd)).delta), cmd).toBe(true);
    }
  });

  it("preparing a restored cluster persists nothing, and its first write only what changed", async () => {
    const { rows, restored } = await setup("clusterip-web");
    const again = restored();
    const before = JSON.stringify(again.cluster.snapshot());
    again.prepare();
    expect(JSON.stringify(again.cluster.snapshot())).toBe(before);
    await again.exec("kubectl create configmap one --from-literal=a=b", Date.now(), DEFAULT_LIMITS);
    const d = again.takeDeltaIfChanged()!;
    expect(stateKeys(d)).toEqual(["configmaps|default/one"]);
    rows.apply(d);
    expect(rows.objects.get("#kubelet")).toBe(JSON.stringify(again.cluster.kubelet.saveShared()));
    // Each pod's runtime in a row of its own, in the kubelet's order.
    const podRows = [...rows.objects].filter(([k]) => k.startsWith("#kpod|"));
    const saved = again.cluster.kubelet.save({ logs: false }).pods;
    expect(podRows.map(([k, b]) => [k.slice("#kpod|".length), JSON.parse(b)]).sort((a, b) => a[1].seq - b[1].seq)).toEqual(saved.map(([k, p]) => [k, { seq: expect.any(Number), pod: p }]));
  });

  it("the kubelet's runtime lives in a row per pod: a pod's change writes its row, and the order survives", async () => {
    const { core, rows, run, restored } = await setup("clusterip-web");
    const same = () => expect(JSON.stringify(restored().cluster.kubelet.save())).toBe(JSON.stringify(core.cluster.kubelet.save()));
    await run("kubectl scale deployment web --replicas=5");
    await run("sleep 5");
    same();
    // A pod replaced (same name pattern, new pod) goes after the others, deleted ones' rows go.
    const pods = (await run("kubectl get pods -l app=web -o name")).stdout.trim().split("\n").map((p) => p.replace("pod/", ""));
    await run(`kubectl delete pod ${pods[1]} --grace-period=0 --force`);
    await run("kubectl scale deployment web --replicas=3");
    await run("sleep 5");
    same();
    const podRows = [...rows.objects.keys()].filter((k) => k.startsWith("#kpod|")).map((k) => k.slice(6)).sort();
    expect(podRows).toEqual(core.cluster.kubelet.podStates().map((p) => p.key).sort());
    expect(podRows).not.toContain(`default/${pods[1]}`);
    // A file written in one pod's container writes that pod's row only.
    const one = (await run("kubectl get pods -l app=web -o name")).stdout.split("\n")[0].replace("pod/", "");
    const w = await run(`kubectl exec ${one} -- sh -c 'echo x > /tmp/x'`);
    expect(stateKeys(w.delta)).toEqual([`#kpod|default/${one}`]);
    same();
  });

  it("the terminal's files and working directory are persisted", async () => {
    const { run, restored } = await setup("empty");
    expect(stateKeys((await run("mkdir -p /root/lab && echo hello > /root/lab/f")).delta)).toContain("#shell");
    expect(stateKeys((await run("cd /root/lab")).delta)).toContain("#shell");
    const again = restored();
    const r = await again.exec("pwd; cat f", Date.now(), DEFAULT_LIMITS);
    expect(r.stdout).toBe("/root/lab\nhello\n");
  });

  it("another node's files, reached with ssh, are persisted", async () => {
    const { run, restored } = await setup("empty");
    expect(stateKeys((await run("ssh node1")).delta)).toContain("#shell");
    expect(stateKeys((await run("echo on-node1 > /root/n1")).delta)).toContain("#shell");
    expect(journalOnly((await run("cat /root/n1")).delta)).toBe(true);
    const again = restored();
    expect((await again.exec("hostname; cat /root/n1", Date.now(), DEFAULT_LIMITS)).stdout).toBe("node1\non-node1\n");
  });

  it("a file written inside a container, and the access log of a request, are persisted", async () => {
    const { run, restored } = await setup("clusterip-web");
    const pod = (await run("kubectl get pods -l app=web -o name")).stdout.split("\n")[0].replace("pod/", "");
    expect(pod).toMatch(/^web-/);
    const w = await run(`kubectl exec ${pod} -- sh -c 'echo inside > /tmp/note'`);
    expect(w.exitCode).toBe(0);
    // Only that pod's row: not the kubelet's whole state.
    expect(stateKeys(w.delta)).toEqual([`#kpod|default/${pod}`]);
    const ip = (await run(`kubectl get pod ${pod} -o jsonpath='{.status.podIP}'`)).stdout;
    const c = await run(`curl -s http://${ip}/`);
    expect(c.exitCode).toBe(0);
    expect(stateKeys(c.delta).some((k) => k.startsWith("#log|"))).toBe(true);
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
    expect(stateKeys(d)).toEqual(["configmaps|default/one"]);
    expect(saves).toBe(0);
    rows.apply(d);
    // A line that changes a file: the row is written, and a cluster restored from it has it.
    await again.exec("echo after-restore > /root/f", Date.now(), DEFAULT_LIMITS);
    const d2 = again.takeDeltaIfChanged()!;
    expect(d2.upserts.map(([k]) => k)).toContain("#shell");
    rows.apply(d2);
    expect((await restored().exec("cat /root/f", Date.now(), DEFAULT_LIMITS)).stdout).toBe("after-restore\n");
  });

  it("container logs live in rows of 256 lines: a request rewrites the last one, not the whole log", async () => {
    const { core, rows, run, restored } = await setup("clusterip-web");
    const pod = (await run("kubectl get pods -l app=web -o name")).stdout.split("\n")[0].replace("pod/", "");
    const ip = (await run(`kubectl get pod ${pod} -o jsonpath='{.status.podIP}'`)).stdout;
    const stream = `#log|default/${pod}|`;
    const logRows = () => [...rows.objects.keys()].filter((k) => k.startsWith(stream)).sort();
    // 300 requests: the access log spans two rows, and the #kubelet row holds no log line.
    for (let i = 0; i < 3; i++) await run(`for i in $(seq 100); do curl -s http://${ip}/ >/dev/null; done`);
    const [container] = logRows()[0].slice(stream.length).split("|");
    expect(logRows()).toEqual([0, 1].map((n) => `${stream}${container}|${n}`));
    expect(rows.objects.get("#kubelet")).not.toContain('"line"');
    // One more request rewrites the last row only.
    const one = await run(`curl -s http://${ip}/ >/dev/null`);
    expect(one.delta!.upserts.map(([k]) => k).filter((k) => k.startsWith("#log|"))).toEqual([`${stream}${container}|1`]);
    const logs = (await run(`kubectl logs ${pod}`)).stdout;
    expect(logs.split("\n").filter((l) => l.includes('"GET / HTTP/1.1" 200'))).toHaveLength(301);
    expect((await restored().exec(`kubectl logs ${pod}`, Date.now(), DEFAULT_LIMITS)).stdout).toBe(logs);
    // A rotated log (past the kubelet's 10 Mi) is written again and its rows beyond go.
    const podObj = core.cluster.store.get("pods", "default", pod) as import("../engine/api/types.js").Pod;
    for (let i = 0; i < 11; i++) core.cluster.kubelet.appendLog(podObj, container, ["x".repeat(1 << 20)]);
    const rotated = core.takeDeltaIfChanged()!;
    rows.apply(rotated);
    expect(rotated.deletes).toEqual([`${stream}${container}|1`]);
    expect(logRows()).toEqual([`${stream}${container}|0`]);
    // The tenth line rotated the file; the eleventh followed it.
    expect((await run(`kubectl logs ${pod} | wc -l`)).stdout.trim()).toBe("2");
    expect((await restored().exec(`kubectl logs ${pod} | wc -c`, Date.now(), DEFAULT_LIMITS)).stdout).toBe((await run(`kubectl logs ${pod} | wc -c`)).stdout);
    // A deleted pod's log rows go with it.
    const gone = await run(`kubectl delete pod ${pod} --grace-period=0 --force`);
    expect(gone.exitCode).toBe(0);
    await run("sleep 5");
    expect(logRows()).toEqual([]);
  });

  it("a #kubelet row that still holds the pods and logs (rows written before pod and log rows) restores, and moves them; stray log rows go", async () => {
    const { core, rows, run } = await setup("clusterip-web");
    const pod = (await run("kubectl get pods -l app=web -o name")).stdout.split("\n")[0].replace("pod/", "");
    await run(`curl -s http://$(kubectl get pod ${pod} -o jsonpath='{.status.podIP}')/ >/dev/null`);
    const logs = (await run(`kubectl logs ${pod}`)).stdout;
    // The old layout: pods and their logs inside #kubelet, no pod or log rows.
    const old = new Map([...rows.objects].filter(([k]) => !k.startsWith("#log|") && !k.startsWith("#kpod|")));
    old.set("#kubelet", JSON.stringify(core.cluster.kubelet.save()));
    // And a log row no container has (its pod's deletion not written): the next write deletes it.
    old.set("#log|default/gone|web|0", JSON.stringify([{ t: 0, line: "left behind" }]));
    const again = ClusterCore.restore("c1", { meta: rows.meta, objects: [...old] }, sessionShell);
    expect((await again.exec(`kubectl logs ${pod}`, Date.now(), DEFAULT_LIMITS)).stdout).toBe(logs);
    const d = again.takeDeltaIfChanged()!;
    expect(d.upserts.some(([k]) => k.startsWith(`#log|default/${pod}|`))).toBe(true);
    expect(d.upserts.find(([k]) => k === "#kubelet")![1]).not.toContain('"line"');
    expect(JSON.parse(d.upserts.find(([k]) => k === "#kubelet")![1])).not.toHaveProperty("pods");
    expect(d.upserts.filter(([k]) => k.startsWith("#kpod|")).map(([k]) => k.slice(6))).toEqual(again.cluster.kubelet.podStates().map((p) => p.key));
    expect(d.deletes).toContain("#log|default/gone|web|0");
    // Moved: rebuilt from the new rows, the cluster is the same.
    const moved = new Map(old);
    for (const [k, b] of d.upserts) moved.set(k, b);
    for (const k of d.deletes) moved.delete(k);
    const third = ClusterCore.restore("c1", { meta: d.meta, objects: [...moved] }, sessionShell);
    expect(JSON.stringify(third.cluster.kubelet.save())).toBe(JSON.stringify(again.cluster.kubelet.save()));
    expect((await third.exec(`kubectl logs ${pod}`, Date.now(), DEFAULT_LIMITS)).stdout).toBe(logs);
  });

  it("a restored cluster's meta row holds only the meta, not copies of the side rows", async () => {
    const { restored } = await setup("empty");
    const again = restored();
    await again.exec("kubectl create configmap one --from-literal=a=b", Date.now(), DEFAULT_LIMITS);
    const d = again.takeDelta();
    expect(d.upserts.map(([k]) => k)).toContain("configmaps|default/one");
    const meta = JSON.parse(d.meta) as Record<string, unknown>;
    for (const side of ["config", "kubelet", "shell", "proxies"]) expect(meta, side).not.toHaveProperty(side);
    // Exactly the engine's meta but kube-proxy's (a side row), and the host's fields.
    const { proxies: _p, ...engine } = again.cluster.snapshotMeta();
    expect(meta).toEqual({ ...engine, lab: "empty", tenantId: null, createdAt: again.createdAt, lastActive: again.lastActive });
  });

  it("kube-proxy's state is a side row, written when a kube-proxy starts, and restored", async () => {
    const { core, rows, run, restored } = await setup("empty");
    expect(JSON.parse(rows.objects.get("#proxies")!)).toEqual(core.cluster.snapshotMeta().proxies);
    // A small write leaves it alone.
    expect((await run("kubectl create configmap one --from-literal=a=b")).delta!.upserts.map(([k]) => k)).not.toContain("#proxies");
    // A mode switch (the ConfigMap, then new kube-proxy pods) rewrites it.
    await run(`kubectl -n kube-system get cm kube-proxy -o yaml | sed 's/mode: ""/mode: "ipvs"/' | kubectl apply -f - && kubectl -n kube-system rollout restart ds kube-proxy && sleep 30`);
    const proxies = core.cluster.snapshotMeta().proxies;
    expect(proxies?.nodes.map((n) => n.config.mode)).toEqual(["ipvs", "ipvs", "ipvs"]);
    expect(JSON.parse(rows.objects.get("#proxies")!)).toEqual(proxies);
    expect(restored().cluster.snapshotMeta().proxies).toEqual(proxies);
  });

  it("a meta row written before #proxies existed (kube-proxy's state in it) restores, and the next write moves it", async () => {
    const { core, rows, run } = await setup("empty");
    const proxies = core.cluster.snapshotMeta().proxies;
    const old = new Rows();
    old.meta = JSON.stringify({ ...JSON.parse(rows.meta), proxies });
    for (const [k, b] of rows.objects) if (k !== "#proxies") old.objects.set(k, b);
    await run("kubectl get svc");
    const again = ClusterCore.restore("c1", old.state(), sessionShell);
    expect(again.cluster.snapshotMeta().proxies).toEqual(proxies);
    await again.exec("kubectl create configmap one --from-literal=a=b", Date.now(), DEFAULT_LIMITS);
    const d = again.takeDeltaIfChanged()!;
    old.apply(d);
    expect(JSON.parse(old.meta)).not.toHaveProperty("proxies");
    expect(JSON.parse(old.objects.get("#proxies")!)).toEqual(proxies);
  });
});
