// The workspace's read-only views over HTTP, with the real terminal: the cluster graph, the
// steps' checks, the journal, a node's rules, the last traffic against the rules' prediction and
// one traced request per pod; bad queries as v1 Status; reading changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionShell } from "../../src/runtime/terminal.js";
import { harness, type Harness } from "./harness.js";

describe("workspace views", () => {
  let h: Harness;
  let c: { id: string; token: string };
  const exec = async (command: string) => (await h.req("POST", `/v1/clusters/${c.id}/exec`, { token: c.token, body: { command } })).body;
  const get = (path: string) => h.req("GET", `/v1/clusters/${c.id}/${path}`, { token: c.token });

  beforeAll(async () => {
    h = await harness({ shell: sessionShell });
    c = await h.cluster(undefined, "clusterip-web");
  }, 60_000);
  afterAll(() => h.s.close());

  it("shows the lab's pods on their nodes and its first step not yet passed", async () => {
    const w = (await get("workspace")).body;
    expect(w.lab).toBe("clusterip-web");
    expect(w.prompt).toBe("[root@master ~]# ");
    expect(w.graph.nodes.map((n: { name: string }) => n.name)).toEqual(["master", "node1", "node2"]);
    const web = w.graph.pods.filter((p: { owner: string }) => p.owner === "web");
    expect(web).toHaveLength(3);
    expect(web.every((p: { ready: boolean; hash: string }) => p.ready && p.hash)).toBe(true);
    expect(w.steps[0].passed).toBe(false);
    expect(w.steps[0].checks.find((x: { passed: boolean }) => !x.passed).message.en).toMatch(/no Service/i);
  });

  it("reading a view changes nothing: the same answer twice, no revision moved", async () => {
    const a = (await get("workspace")).body;
    await get("rules?node=master");
    const b = (await get("workspace")).body;
    expect(b.revision).toBe(a.revision);
    expect(b.seq).toBe(a.seq);
  });

  it("a curl loop: bars per pod next to the iptables probabilities, and a traced request per pod", async () => {
    await exec("kubectl create service clusterip web --tcp=8080:80");
    const r = await exec("IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}'); for i in {1..60}; do curl -s $IP:8080; done | sort | uniq -c");
    expect(r.exitCode).toBe(0);
    const w = (await get("workspace")).body;
    expect(w.steps[0].passed).toBe(true);
    const t = w.traffic;
    expect(t.seq).toBe(r.seq);
    expect(t.answered).toBe(60);
    expect(t.service).toMatchObject({ namespace: "default", name: "web", mode: "iptables" });
    expect(t.bars).toHaveLength(3);
    const predicted = t.bars.map((b: { predicted: number }) => b.predicted);
    for (const p of predicted) expect(p).toBeCloseTo(1 / 3, 5);
    expect(t.bars.reduce((s: number, b: { connections: number }) => s + b.connections, 0)).toBe(60);
    expect(w.samples.length).toBeGreaterThanOrEqual(3);
    const pod = t.bars[0].pod;
    const tr = (await get(`trace?key=${encodeURIComponent(pod)}`)).body;
    expect(tr.result.pod).toBe(pod);
    const kinds = new Set(tr.result.trace.map((s: { kind: string }) => s.kind));
    for (const k of ["hook", "rule", "nat"]) expect(kinds.has(k), k).toBe(true);
    // The trace's rule lines are lines of the node's own iptables-save.
    const rules = (await get("rules?node=master")).body;
    expect(rules.mode).toBe("iptables");
    // iptables-save's lines, each with the table it is in ("*nat" starts a table).
    const lines = new Set<string>();
    let table = "";
    for (const l of rules.sections[0].lines as string[]) {
      if (l.startsWith("*")) table = l.slice(1);
      else lines.add(`${table}|${l}`);
    }
    const ruleSteps = tr.result.trace.filter((s: { kind: string; node: string; text: string }) => s.kind === "rule" && s.node === "master" && /^\d+: -A /.test(s.text));
    expect(ruleSteps.length).toBeGreaterThan(2);
    for (const s of ruleSteps) expect(lines.has(`${s.table}|${s.text.replace(/^\d+: /, "")}`), s.text).toBe(true);
  });

  it("the journal replays every line with its prompt, in pages", async () => {
    await exec("ssh node1");
    const r = await exec("hostname");
    expect(r.prompt).toBe("[root@node1 ~]# ");
    expect(r.stdout).toBe("node1\n");
    await exec("exit");
    const j = (await get("journal?since=0")).body;
    expect(j.more).toBe(false);
    const cmds = j.entries.map((e: { command: string }) => e.command);
    expect(cmds.slice(-3)).toEqual(["ssh node1", "hostname", "exit"]);
    expect(j.entries.at(-2).prompt).toBe("[root@node1 ~]# ");
    const later = (await get(`journal?since=${j.entries.at(-2).seq}`)).body;
    expect(later.entries.map((e: { command: string }) => e.command)).toEqual(["exit"]);
  });

  it("bad queries are v1 Status answers", async () => {
    const noNode = await get("rules?node=nosuch");
    expect(noNode.status).toBe(404);
    expect(noNode.body).toMatchObject({ kind: "Status", reason: "NotFound", message: 'nodes "nosuch" not found' });
    const noTrace = await get("trace?key=default/nosuch");
    expect(noTrace.status).toBe(404);
    expect((await get("journal?since=-1")).status).toBe(400);
    expect((await get("journal?since=abc")).status).toBe(400);
    expect((await h.req("GET", "/v1/labs/nosuch")).status).toBe(404);
    const lab = (await h.req("GET", "/v1/labs/canary")).body;
    expect(lab.steps.length).toBeGreaterThan(3);
    expect(lab.objects).toBeUndefined();
  });

  it("serves the web UI's page for the app's routes", async () => {
    for (const path of ["/", "/labs/canary", `/c/${c.id}`]) {
      const r = await h.req("GET", path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get("content-type"), path).toContain("text/html");
    }
    const share = (await h.req("POST", `/v1/clusters/${c.id}/share`, { token: c.token })).body;
    const page = await h.req("GET", new URL(share.url).pathname, { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toContain("text/html");
    const json = await h.req("GET", new URL(share.url).pathname);
    expect(json.body.readOnly).toBe(true);
  });
});
