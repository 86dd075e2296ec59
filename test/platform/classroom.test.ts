// Classrooms over HTTP with the real terminal: a teacher makes one, students join by link with a
// name (and come back with the code), the dashboard reads each student's steps from their
// cluster, the teacher extends, resets, watches and closes; a closed class's clusters are
// read-only, and what cannot be done says so as a v1 Status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionShell } from "../../src/runtime/terminal.js";
import { harness, type Harness } from "./harness.js";

describe("classrooms", () => {
  let h: Harness;
  let room: { id: string; teacher: { token: string; url: string }; join: { token: string; url: string } };
  const join = (body: unknown, token = room.join.token) => h.req("POST", `/v1/join/${token}`, { body });
  const teach = (path = "", method = "GET", body?: unknown) => h.req(method, `/v1/teach/${room.teacher.token}${path}`, { body });

  beforeAll(async () => {
    h = await harness({ shell: sessionShell });
    const r = await h.req("POST", "/v1/classrooms", { body: { lab: "clusterip-web", title: "Services 101", minutes: 45, capacity: 3 } });
    expect(r.status).toBe(201);
    room = r.body;
  }, 60_000);
  afterAll(() => h.s.close());

  it("makes a classroom with a teacher link and a join link", async () => {
    expect(room.teacher.url).toMatch(/\/t\/slt_k[a-z0-9]+\.[\w-]+$/);
    expect(room.join.url).toMatch(/\/j\/slj_k[a-z0-9]+\.[\w-]+$/);
    const info = (await h.req("GET", `/v1/join/${room.join.token}`)).body;
    expect(info).toMatchObject({ title: "Services 101", lab: "clusterip-web", minutes: 45, state: "open", students: 0 });
    // The join token is no teacher token, and a forged one is nobody's.
    expect((await h.req("GET", `/v1/teach/${room.join.token}`)).status).toBe(404);
    expect((await h.req("GET", `/v1/join/slj_kxxxx.forged`)).status).toBe(404);
    expect((await h.req("POST", "/v1/classrooms", { body: { lab: "nosuch" } })).status).toBe(400);
    expect((await h.req("POST", "/v1/classrooms", { body: { lab: "canary", minutes: 0 } })).status).toBe(400);
  });

  it("a student joins with a name, gets a cluster of the lab, and comes back with the code", async () => {
    const a = await join({ name: "Ada" });
    expect(a.status).toBe(201);
    expect(a.body.student.code).toMatch(/^[A-Z2-9]{6}$/);
    const ws = await h.req("GET", `/v1/clusters/${a.body.cluster.id}/workspace`, { token: a.body.cluster.token });
    expect(ws.body.lab).toBe("clusterip-web");
    expect(ws.body.classroom).toMatchObject({ title: "Services 101", readOnly: false });
    expect(Date.parse(ws.body.classroom.deadline) - Date.now()).toBeGreaterThan(44 * 60_000);
    // The same name without the code is someone else; with it, the same cluster.
    expect((await join({ name: "Ada" })).status).toBe(409);
    const again = await join({ name: "Ada", code: a.body.student.code.toLowerCase() });
    expect(again.status).toBe(200);
    expect(again.body.cluster.id).toBe(a.body.cluster.id);
    expect((await join({ name: "Bob", code: "ZZZZZZ" })).status).toBe(404);
  });

  it("the dashboard shows each student's steps, last command and what the class is stuck on", async () => {
    const b = (await join({ name: "Bob" })).body;
    const exec = (command: string) => h.req("POST", `/v1/clusters/${b.cluster.id}/exec`, { token: b.cluster.token, body: { command } });
    await exec("kubectl create service clusterip web --tcp=8080:80");
    await exec("kubectl get svcs");
    const d = (await teach()).body;
    expect(d.classroom.title).toBe("Services 101");
    expect(d.steps.map((s: { id: string }) => s.id)[0]).toBe("expose");
    const bob = d.students.find((s: { name: string }) => s.name === "Bob");
    expect(bob.steps[0]).toMatchObject({ id: "expose", state: "passed" });
    expect(bob.steps[1].state).toBe("in-progress");
    expect(bob.last).toMatchObject({ command: "kubectl get svcs", exitCode: 1 });
    const ada = d.students.find((s: { name: string }) => s.name === "Ada");
    expect(ada.steps[0].state).toBe("in-progress");
    expect(d.steps[0].passed).toBe(1);
    expect(d.stuck[0]).toMatchObject({ command: "kubectl get svcs", students: 1 });
    // The history has the join and the step's pass.
    await new Promise((r) => setTimeout(r, 100));
    const hist = (await h.req("GET", `/v1/clusters/${b.cluster.id}/history`, { token: b.cluster.token })).body;
    const types = hist.events.map((e: { type: string }) => e.type);
    expect(types).toContain("classroom-join");
    expect(hist.events.find((e: { type: string }) => e.type === "step-passed").detail).toMatchObject({ lab: "clusterip-web", step: "expose" });
    const csv = await teach("/export.csv");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text.split("\r\n")[0]).toBe("name,step,passed_at,attempts");
    expect(csv.text).toMatch(/\r\nBob,expose,\d{4}-\d\d-\d\dT[^,]+,1\r\n/);
  });

  it("the dashboard's live channel says when a student did something", async () => {
    const { WebSocket } = await import("ws");
    const ws = new WebSocket(`${h.url.replace("http", "ws")}/v1/teach/${room.teacher.token}/live`);
    const messages: string[] = [];
    ws.on("message", (m) => messages.push(String(m)));
    await new Promise((r) => ws.on("open", r));
    const ada = (await teach()).body.students.find((s: { name: string }) => s.name === "Ada");
    const token = (await join({ name: "Ada", code: (await h.s.db.execute({ sql: "select code from classroom_students where name = ?", args: ["Ada"] })).rows[0].code })).body.cluster.token;
    await h.req("POST", `/v1/clusters/${ada.clusterId}/exec`, { token, body: { command: "kubectl get ns" } });
    await new Promise((r) => setTimeout(r, 700));
    ws.close();
    expect(messages.map((m) => JSON.parse(m).type)).toEqual(["hello", "changed"]);
  });

  it("the teacher watches a student read-only, extends time, resets a cluster", async () => {
    const d = (await teach()).body;
    const bob = d.students.find((s: { name: string }) => s.name === "Bob");
    const watch = (await teach(`/students/${bob.id}/watch`, "POST")).body;
    const j = await h.req("GET", `/v1/clusters/${bob.clusterId}/journal`, { token: watch.token });
    expect(j.body.entries.map((e: { command: string }) => e.command)).toContain("kubectl get svcs");
    expect((await h.req("POST", `/v1/clusters/${bob.clusterId}/exec`, { token: watch.token, body: { command: "echo" } })).status).toBe(403);
    await teach("/extend", "POST", { minutes: 10, student: bob.id });
    const after = (await teach()).body.students.find((s: { name: string }) => s.name === "Bob");
    expect(Date.parse(after.deadline) - Date.parse(bob.deadline)).toBe(10 * 60_000);
    const reset = (await teach(`/students/${bob.id}/reset`, "POST")).body;
    expect(reset.cluster).not.toBe(bob.clusterId);
    const now = (await teach()).body.students.find((s: { name: string }) => s.name === "Bob");
    expect(now).toMatchObject({ clusterId: reset.cluster, resets: 1, commands: 0 });
    expect(now.steps[0].state).toBe("in-progress");
    // The old cluster is gone; Bob's name and code lead to the new one.
    const b = await join({ name: "Bob", code: (await h.s.db.execute({ sql: "select code from classroom_students where name = ?", args: ["Bob"] })).rows[0].code });
    expect(b.body.cluster.id).toBe(reset.cluster);
  });

  it("a full class and a closed class refuse to join; a closed class's clusters are read-only", async () => {
    const c = await join({ name: "Cy" });
    expect(c.status).toBe(201);
    const full = await join({ name: "Dee" });
    expect(full.status).toBe(403);
    expect(full.body.message).toContain("full");
    await teach("/close", "POST");
    expect((await h.req("GET", `/v1/join/${room.join.token}`)).body.state).toBe("closed");
    const late = await join({ name: "Eve" });
    expect(late.status).toBe(403);
    expect(late.body.message).toContain("closed");
    const ro = await h.req("POST", `/v1/clusters/${c.body.cluster.id}/exec`, { token: c.body.cluster.token, body: { command: "kubectl get pods" } });
    expect(ro.status).toBe(403);
    expect(ro.body.message).toContain("read-only");
    // Through the Kubernetes API too: reads answer, writes are the apiserver's 403.
    expect((await h.req("GET", `/k8s/${c.body.cluster.id}/api/v1/namespaces/default/pods`, { token: c.body.cluster.token })).status).toBe(200);
    const w = await h.req("POST", `/k8s/${c.body.cluster.id}/api/v1/namespaces/default/configmaps`, { token: c.body.cluster.token, body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "late" } } });
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ kind: "Status", reason: "Forbidden" });
    const ws = await h.req("GET", `/v1/clusters/${c.body.cluster.id}/workspace`, { token: c.body.cluster.token });
    expect(ws.status).toBe(200);
    expect(ws.body.classroom.readOnly).toBe(true);
  });

  it("a course of labs: a student finishes one and moves on; the dashboard has every lab's steps", async () => {
    const course = (await h.req("POST", "/v1/classrooms", { body: { labs: ["clusterip-web", "headless"], title: "Course", minutes: 60 } })).body;
    expect(course.labs.map((l: { id: string }) => l.id)).toEqual(["clusterip-web", "headless"]);
    const me = (await join({ name: "Ana" }, course.join.token)).body;
    expect(me.cluster.lab).toBe("clusterip-web");
    const next = (body: unknown) => h.req("POST", `/v1/join/${course.join.token}/next`, { body });
    // Not before the lab is done.
    expect((await next({ name: "Ana", code: me.student.code })).status).toBe(409);
    const ws0 = (await h.req("GET", `/v1/clusters/${me.cluster.id}/workspace`, { token: me.cluster.token })).body;
    expect(ws0.classroom.nextLab.id).toBe("headless");
    // Finish the first lab through its own commands.
    const { LABS } = await import("../../src/labs/index.js");
    const { splitCommands } = await import("../../src/shell/command-lines.js");
    for (const step of LABS["clusterip-web"].steps)
      for (const m of step.body.en.matchAll(/^```bash\n([\s\S]*?)\n```$/gm))
        for (const line of splitCommands(m[1])) await h.req("POST", `/v1/clusters/${me.cluster.id}/exec`, { token: me.cluster.token, body: { command: line } });
    const moved = await next({ name: "Ana", code: me.student.code });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ labIndex: 1, cluster: { lab: "headless" } });
    expect(moved.body.cluster.id).not.toBe(me.cluster.id);
    expect((await next({ name: "Ana", code: me.student.code })).status).toBe(409);
    const d = (await h.req("GET", `/v1/teach/${course.teacher.token}`)).body;
    expect(new Set(d.steps.map((s: { lab: string }) => s.lab))).toEqual(new Set(["clusterip-web", "headless"]));
    const ana = d.students[0];
    expect(ana.labIndex).toBe(1);
    const first = ana.steps.filter((s: { lab: string }) => s.lab === "clusterip-web");
    expect(first.every((s: { state: string }) => s.state === "passed")).toBe(true);
    expect(ana.steps.find((s: { lab: string }) => s.lab === "headless").state).toBe("in-progress");
    // Rejoining brings her to the lab she is on.
    const back = (await join({ name: "Ana", code: me.student.code }, course.join.token)).body;
    expect(back.cluster).toMatchObject({ id: moved.body.cluster.id, lab: "headless" });
  }, 60_000);
});
