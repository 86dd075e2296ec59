/// <reference types="@cloudflare/workers-types" />
// Classrooms on the Workers host: the same routes, the classroom's rows in an object of its own.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { useShell } from "../../src/runtime/terminal.js";
import { testShell } from "../platform/runner.js";

useShell(testShell);
const SELF = (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default;
const call = async (method: string, path: string, body?: unknown, token?: string) => {
  const r = await SELF.fetch(new Request(`https://lab.test${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {}, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
};

describe("classrooms: Workers host", () => {
  it("makes a classroom, joins students, reads the dashboard, closes it", async () => {
    const room = await call("POST", "/v1/classrooms", { lab: "empty", title: "W", minutes: 20, capacity: 2 });
    expect(room.status).toBe(201);
    const j = room.body.join.token as string;
    const t = room.body.teacher.token as string;
    const ada = await call("POST", `/v1/join/${j}`, { name: "Ada" });
    expect(ada.status).toBe(201);
    expect((await call("POST", `/v1/join/${j}`, { name: "Ada" })).status).toBe(409);
    expect((await call("POST", `/v1/join/${j}`, { name: "Ada", code: ada.body.student.code })).body.cluster.id).toBe(ada.body.cluster.id);
    // The dashboard's live channel, in the classroom's object.
    const up = await SELF.fetch(new Request(`https://lab.test/v1/teach/${t}/live`, { headers: { upgrade: "websocket" } }));
    expect(up.status).toBe(101);
    const ws = (up as unknown as { webSocket: WebSocket }).webSocket;
    ws.accept();
    const heard: string[] = [];
    ws.addEventListener("message", (e) => heard.push(JSON.parse(String(e.data)).type));
    const ex = await call("POST", `/v1/clusters/${ada.body.cluster.id}/exec`, { command: "echo hi" }, ada.body.cluster.token);
    expect(ex.body.stdout).toBe("hi\n");
    await new Promise((r) => setTimeout(r, 800));
    expect(heard).toEqual(["hello", "changed"]);
    ws.close();
    const d = await call("GET", `/v1/teach/${t}`);
    expect(d.body.students.map((s: { name: string }) => s.name)).toEqual(["Ada"]);
    expect(d.body.students[0].last.command).toBe("echo hi");
    await call("POST", `/v1/join/${j}`, { name: "Bob" });
    expect((await call("POST", `/v1/join/${j}`, { name: "Cy" })).status).toBe(403);
    expect((await call("POST", `/v1/teach/${t}/close`)).status).toBe(200);
    const ro = await call("POST", `/v1/clusters/${ada.body.cluster.id}/exec`, { command: "echo again" }, ada.body.cluster.token);
    expect(ro.status).toBe(403);
    expect(ro.body.message).toContain("read-only");
  });
});
