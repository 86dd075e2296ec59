// Classrooms (docs/platform.md): a teacher makes one for a lab and gets a teacher link and a
// join link; each student who joins gets a cluster of the lab of their own; the teacher's
// dashboard reads every student's progress from their cluster's journal. A student's time ends
// at their deadline: the cluster is then read-only, kept for the teacher's review.
import type { Context, Hono } from "hono";
import { z } from "zod";
import { clustersOf, deadline, joinState, labsOf, type Classroom, type ClassroomStore, type Student } from "../../classroom/store.js";
import { randomId } from "../../db/platform.js";
import { lab as findLab } from "../../labs/index.js";
import type { Limits } from "../../runtime/limits.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { bad, conflictMsg, forbiddenMsg, notFoundMsg } from "../errors.js";
import { json, readJson } from "../json.js";
import { mintToken, verifyToken } from "../tokens.js";

const CreateBody = z
  .object({
    /** One lab, or `labs`: an ordered list a student goes through one after the other. */
    lab: z.string().min(1).optional(),
    labs: z.array(z.string().min(1)).min(1).max(10).optional(),
    title: z.string().trim().min(1).max(200).optional(),
    minutes: z.number().int().min(1).max(7 * 24 * 60).default(60),
    startsAt: z.string().datetime().optional(),
    endsAt: z.string().datetime().optional(),
    capacity: z.number().int().min(1).max(1000).default(300),
    reviewHours: z.number().min(0).max(24 * 90).default(72),
  })
  .strict()
  .refine((b) => (b.lab === undefined) !== (b.labs === undefined), { message: 'give "lab" or "labs", one of them' });

const JoinBody = z.object({ name: z.string().trim().min(1).max(80), code: z.string().trim().max(20).optional() }).strict();
const ExtendBody = z.object({ minutes: z.number().int().min(1).max(24 * 60), student: z.string().min(1).max(64).optional() }).strict();

const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");

/** A short code a student can read off the screen and type on another device. */
function shortCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const b = crypto.getRandomValues(new Uint8Array(6));
  return [...b].map((x) => alphabet[x % alphabet.length]).join("");
}

function csvCell(v: string | number | null | undefined): string {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\n\r]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""').replace(/^([=+\-@])/, "'$1")}"` : s;
}

/** The classroom routes; `classrooms` is where classroom `id`'s rows live (Node: one database; Workers: its object). */
export function classroomRoutes(app: Hono<Env>, x: AppContext, classrooms: (id: string) => ClassroomStore): void {
  const classroomBy = async (c: Context, purpose: "teacher" | "join"): Promise<{ room: Classroom; store: ClassroomStore; token: string }> => {
    const token = c.req.param("token") ?? "";
    const id = await verifyToken(await x.deps.platform.secret(), purpose, token);
    if (!id) throw notFoundMsg(purpose === "teacher" ? "this teacher link is not valid" : "this join link is not valid");
    const store = classrooms(id);
    const room = await store.get(id);
    if (!room) throw notFoundMsg("this classroom no longer exists");
    await x.rate(`classroom:${id}`, await x.tenantLimits(room.tenantId));
    return { room, store, token };
  };
  const links = async (c: Context, id: string) => {
    const secret = await x.deps.platform.secret();
    const origin = new URL(c.req.url).origin;
    const teacher = await mintToken(secret, "teacher", id);
    const join = await mintToken(secret, "join", id);
    return { teacher: { token: teacher, url: `${origin}/t/${teacher}` }, join: { token: join, url: `${origin}/j/${join}` } };
  };
  const describe = (room: Classroom) => {
    const l = findLab(room.lab);
    return {
      id: room.id,
      title: room.title,
      lab: room.lab,
      labTitle: l?.title,
      labs: labsOf(room).map((id) => ({ id, title: findLab(id)?.title })),
      minutes: room.minutes,
      capacity: room.capacity,
      startsAt: room.startsAt === null ? null : new Date(room.startsAt).toISOString(),
      endsAt: room.endsAt === null ? null : new Date(room.endsAt + room.extraMs).toISOString(),
      closedAt: room.closedAt === null ? null : new Date(room.closedAt).toISOString(),
      extraMinutes: Math.round(room.extraMs / 60_000),
    };
  };
  const event = (room: Classroom, clusterId: string, type: string, detail: Record<string, unknown>) =>
    x.deps.history.event({ ts: x.now(), clusterId, tenantId: room.tenantId, type, detail: { classroom: room.id, ...detail } });

  // ---- the teacher makes a classroom ---------------------------------------------------
  app.post("/v1/classrooms", async (c) => {
    const who = await x.owner(c);
    const parsed = CreateBody.safeParse(await readJson(c, who.limits.requestBytes));
    if (!parsed.success) throw bad(`bad classroom: ${issues(parsed.error)}`);
    const b = parsed.data;
    const labs = b.labs ?? [b.lab!];
    for (const id of labs) if (!findLab(id)) throw bad(`unknown lab ${JSON.stringify(id)}; GET /v1/labs lists them`);
    const l = findLab(labs[0])!;
    const startsAt = b.startsAt ? Date.parse(b.startsAt) : null;
    const endsAt = b.endsAt ? Date.parse(b.endsAt) : null;
    if (startsAt !== null && endsAt !== null && endsAt <= startsAt) throw bad("endsAt must be after startsAt");
    const room: Classroom = {
      id: `k${randomId(11)}`,
      tenantId: who.tenantId,
      lab: labs[0],
      nextLabs: JSON.stringify(labs.slice(1)),
      title: b.title ?? l.title.en,
      minutes: b.minutes,
      startsAt,
      endsAt,
      capacity: b.capacity,
      extraMs: 0,
      reviewMs: Math.round(b.reviewHours * 3_600_000),
      closedAt: null,
      createdAt: x.now(),
    };
    await classrooms(room.id).create(room);
    return json({ ...describe(room), ...(await links(c, room.id)) }, 201);
  });

  // ---- students join -------------------------------------------------------------------
  app.get("/j/:token", async (c) => (x.deps.page && (c.req.header("accept") ?? "").includes("text/html") ? x.deps.page(c) : c.redirect(`/v1/join/${c.req.param("token")}`)));
  app.get("/t/:token", async (c) => (x.deps.page ? x.deps.page(c) : c.redirect(`/v1/teach/${c.req.param("token")}`)));

  app.get("/v1/join/:token", async (c) => {
    const { room, store } = await classroomBy(c, "join");
    const n = (await store.students(room.id)).length;
    return json({ ...describe(room), state: joinState(room, n, x.now()), students: n });
  });

  app.post("/v1/join/:token", async (c) => {
    const { room, store } = await classroomBy(c, "join");
    const parsed = JoinBody.safeParse(await readJson(c, 4096));
    if (!parsed.success) throw bad(`bad join: ${issues(parsed.error)}`);
    const { name, code } = parsed.data;
    const secret = await x.deps.platform.secret();
    const answer = (st: Student, status: number) => seatAnswer(room, st, status);
    const existing = await store.byName(room.id, name);
    if (existing) {
      // The same student again (this browser forgot, or another device): the name and the code.
      if (code === undefined || code.toUpperCase() !== existing.code) throw conflictMsg(`"${name}" has already joined this classroom: give the code shown when you joined to come back, or choose another name`);
      if (!existing.clusterId) throw conflictMsg("your cluster is still being made: try again in a moment");
      return answer(existing, 200);
    }
    if (code !== undefined) throw notFoundMsg(`no student "${name}" has joined this classroom`);
    const state = joinState(room, (await store.students(room.id)).length, x.now());
    if (state !== "open") {
      const why = { closed: "the teacher has closed this classroom", ended: "this classroom has ended", "not-started": `this classroom opens at ${describe(room).startsAt}`, full: `this classroom is full (${room.capacity} students)` }[state];
      throw forbiddenMsg(why);
    }
    const st: Student = { classroomId: room.id, id: `s${randomId(8)}`, name, code: shortCode(), clusterId: null, labIndex: 0, pastClusters: "{}", joinedAt: x.now(), extraMs: 0, resets: 0 };
    if (!(await store.join(st, room.capacity))) {
      if (await store.byName(room.id, name)) throw conflictMsg(`"${name}" has already joined this classroom: give the code shown when you joined to come back, or choose another name`);
      throw forbiddenMsg(`this classroom is full (${room.capacity} students)`);
    }
    let cluster;
    try {
      // The class's clusters count against the teacher's tenant.
      cluster = await x.makeCluster(c, { tenantId: room.tenantId, limits: await x.tenantLimits(room.tenantId) }, room.lab, undefined, room.id);
    } catch (e) {
      await store.removeStudent(room.id, st.id);
      throw e;
    }
    await store.setCluster(room.id, st.id, cluster.id, false);
    event(room, cluster.id, "classroom-join", { student: st.id, name });
    x.deps.notifyClassroom?.(c, room.id);
    return answer({ ...st, clusterId: cluster.id }, 201);
  });

  /** A student's seat: who they are, the cluster of the lab they are on, their time. */
  const seatAnswer = async (room: Classroom, st: Student, status: number) => {
    const token = await mintToken(await x.deps.platform.secret(), "cluster", st.clusterId!);
    const labs = labsOf(room);
    return json(
      {
        student: { id: st.id, name: st.name, code: st.code },
        cluster: { id: st.clusterId, token, lab: labs[st.labIndex] },
        labIndex: st.labIndex,
        deadline: new Date(deadline(room, st)).toISOString(),
        classroom: describe(room),
      },
      status,
    );
  };

  /** The student, done with the lab they are on, moves to the classroom's next lab (a new cluster). */
  app.post("/v1/join/:token/next", async (c) => {
    const { room, store } = await classroomBy(c, "join");
    const parsed = JoinBody.safeParse(await readJson(c, 4096));
    if (!parsed.success || !parsed.data.code) throw bad('the body must be {"name", "code"}: the seat that moves on');
    const st = await store.byName(room.id, parsed.data.name);
    if (!st || st.code !== parsed.data.code.toUpperCase()) throw notFoundMsg(`no student "${parsed.data.name}" with that code in this classroom`);
    const labs = labsOf(room);
    if (st.labIndex + 1 >= labs.length) throw conflictMsg("this is the classroom's last lab");
    if (deadline(room, st) <= x.now() || room.closedAt !== null) throw forbiddenMsg("the classroom's time is up");
    const limits = await x.tenantLimits(room.tenantId);
    const p = await progressOf(st.clusterId, limits);
    if (!p || !p.steps.length || !p.steps.every((s) => s.passed)) throw conflictMsg(`finish ${findLab(labs[st.labIndex])?.title.en ?? "this lab"} first: its steps have not all passed`);
    const next = await x.makeCluster(c, { tenantId: room.tenantId, limits }, labs[st.labIndex + 1], undefined, room.id);
    const past = { ...(JSON.parse(st.pastClusters) as Record<string, string>), [labs[st.labIndex]]: st.clusterId! };
    await store.nextLab(room.id, st.id, next.id, JSON.stringify(past), st.labIndex + 1);
    x.classTime.forget(room.id);
    event(room, next.id, "classroom-next-lab", { student: st.id, lab: labs[st.labIndex + 1] });
    x.deps.notifyClassroom?.(c, room.id);
    return seatAnswer(room, { ...st, clusterId: next.id, labIndex: st.labIndex + 1, pastClusters: JSON.stringify(past) }, 201);
  });

  // ---- the teacher's dashboard ---------------------------------------------------------
  const progressOf = async (clusterId: string | null, limits: Limits) => {
    if (!clusterId) return undefined;
    try {
      return (await x.deps.host.inspect(clusterId, { view: "progress" }, limits)) as {
        progress: Record<string, { seq: number; ts: number }>;
        steps: Array<{ id: string; passed: boolean }>;
        commands: number;
        last?: { command: string; ts: number; exitCode: number };
        failed: Array<{ command: string; n: number }>;
      };
    } catch {
      return undefined; // a cluster that is gone shows as such; the dashboard never fails for one student
    }
  };

  const dashboard = async (room: Classroom, store: ClassroomStore) => {
    const labs = labsOf(room);
    // Every step of every lab, in order; a step is named by its lab and id.
    const columns = labs.flatMap((lab, li) => (findLab(lab)?.steps ?? []).map((s) => ({ lab, labIndex: li, id: s.id, title: s.title })));
    const limits = await x.tenantLimits(room.tenantId);
    const students = await store.students(room.id);
    const now = x.now();
    const rows = await Promise.all(
      students.map(async (st) => {
        const perLab = await Promise.all(clustersOf(room, st).map(async ({ lab, clusterId }) => ({ lab, p: await progressOf(clusterId, limits) })));
        const current = perLab[st.labIndex]?.p;
        const end = deadline(room, st);
        const passed = columns.filter((col) => perLab[col.labIndex]?.p?.progress[col.id]).length;
        return {
          id: st.id,
          name: st.name,
          clusterId: st.clusterId,
          labIndex: st.labIndex,
          joinedAt: new Date(st.joinedAt).toISOString(),
          deadline: new Date(end).toISOString(),
          timeLeftSeconds: Math.max(0, Math.round((end - now) / 1000)),
          state: !current ? "gone" : now >= end ? "time-up" : columns.length > 0 && passed === columns.length ? "done" : "working",
          resets: st.resets,
          steps: columns.map((col) => {
            const p = perLab[col.labIndex]?.p;
            const at = p?.progress[col.id];
            const firstOpen = col.labIndex === st.labIndex && p ? p.steps.findIndex((x) => !x.passed) : -1;
            const open = firstOpen >= 0 && p!.steps[firstOpen].id === col.id;
            return { id: col.id, lab: col.lab, state: at ? "passed" : open ? "in-progress" : "not-started", passedAt: at ? new Date(at.ts).toISOString() : null };
          }),
          commands: current?.commands ?? 0,
          last: current?.last ? { command: current.last.command, at: new Date(current.last.ts).toISOString(), exitCode: current.last.exitCode } : null,
          failed: perLab.flatMap((l) => l.p?.failed ?? []),
        };
      }),
    );
    // What the class is stuck on: the failed command lines, by how many students ran them.
    const stuck = new Map<string, { command: string; students: Set<string>; times: number }>();
    for (const r of rows)
      for (const f of r.failed) {
        const e = stuck.get(f.command) ?? { command: f.command, students: new Set<string>(), times: 0 };
        e.students.add(r.name);
        e.times += f.n;
        stuck.set(f.command, e);
      }
    return {
      classroom: describe(room),
      now: new Date(now).toISOString(),
      steps: columns.map((col, i) => ({ id: col.id, lab: col.lab, labIndex: col.labIndex, title: col.title, passed: rows.filter((r) => r.steps[i].state === "passed").length })),
      students: rows.map(({ failed: _f, ...r }) => r),
      stuck: [...stuck.values()]
        .sort((a, b) => b.students.size - a.students.size || b.times - a.times)
        .slice(0, 10)
        .map((e) => ({ command: e.command, students: e.students.size, times: e.times, names: [...e.students].slice(0, 8) })),
    };
  };

  app.get("/v1/teach/:token", async (c) => {
    const { room, store, token } = await classroomBy(c, "teacher");
    return json({ ...(await dashboard(room, store)), links: await links(c, room.id), teacherToken: token });
  });

  app.get("/v1/teach/:token/export.csv", async (c) => {
    const { room, store } = await classroomBy(c, "teacher");
    const d = await dashboard(room, store);
    const lines = ["name,step,passed_at,attempts"];
    const students = await store.students(room.id);
    for (const r of d.students) {
      const st = students.find((s) => s.id === r.id);
      for (const s of r.steps) lines.push([csvCell(r.name), csvCell(labsOf(room).length > 1 ? `${s.lab}/${s.id}` : s.id), csvCell(s.passedAt), csvCell((st?.resets ?? 0) + 1)].join(","));
    }
    return new Response(lines.join("\r\n") + "\r\n", {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="classroom-${room.id}.csv"` },
    });
  });

  app.post("/v1/teach/:token/extend", async (c) => {
    const { room, store } = await classroomBy(c, "teacher");
    const parsed = ExtendBody.safeParse(await readJson(c, 4096));
    if (!parsed.success) throw bad(`bad extension: ${issues(parsed.error)}`);
    if (parsed.data.student && !(await store.student(room.id, parsed.data.student))) throw notFoundMsg(`no student "${parsed.data.student}" in this classroom`);
    await store.extend(room.id, parsed.data.student, parsed.data.minutes * 60_000);
    x.classTime.forget(room.id);
    x.deps.notifyClassroom?.(c, room.id);
    return json({ ok: true, ...describe((await store.get(room.id))!) });
  });

  /** The dashboard's live channel: a message each time something in the class changes. */
  app.get("/v1/teach/:token/live", async (c) => {
    const { room } = await classroomBy(c, "teacher");
    if (!x.deps.classroomLive) throw notFoundMsg("this server has no live channel for classrooms");
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw bad("the live channel is a WebSocket: send Upgrade: websocket");
    return x.deps.classroomLive(c, room.id);
  });

  app.post("/v1/teach/:token/close", async (c) => {
    const { room, store } = await classroomBy(c, "teacher");
    if (room.closedAt === null) {
      await store.close(room.id, x.now());
      x.classTime.forget(room.id);
      x.deps.notifyClassroom?.(c, room.id);
      event(room, room.id, "classroom-close", {});
    }
    return json({ ok: true, ...describe((await store.get(room.id))!) });
  });

  app.post("/v1/teach/:token/students/:sid/reset", async (c) => {
    const { room, store } = await classroomBy(c, "teacher");
    const st = await store.student(room.id, c.req.param("sid"));
    if (!st) throw notFoundMsg(`no student "${c.req.param("sid")}" in this classroom`);
    // A new cluster of the lab's start; the old one goes (its journal is in the history's snapshot).
    const fresh = await x.makeCluster(c, { tenantId: room.tenantId, limits: await x.tenantLimits(room.tenantId) }, labsOf(room)[st.labIndex], undefined, room.id);
    await store.setCluster(room.id, st.id, fresh.id, true);
    if (st.clusterId) {
      try {
        const snap = await x.deps.host.state(st.clusterId);
        x.deps.history.snapshot({ ts: x.now(), clusterId: st.clusterId, reason: "classroom-reset", body: JSON.stringify(snap) });
      } catch {
        // best effort, as on deletion
      }
      await x.deps.host.delete(st.clusterId, "deleted");
      await x.deps.platform.endCluster(st.clusterId, "reset", x.now());
      x.rows.delete(st.clusterId);
    }
    event(room, fresh.id, "classroom-reset", { student: st.id, from: st.clusterId });
    x.deps.notifyClassroom?.(c, room.id);
    return json({ ok: true, student: st.id, cluster: fresh.id });
  });

  /** A read-only link to a student's workspace: the teacher watches it live. */
  app.post("/v1/teach/:token/students/:sid/watch", async (c) => {
    const { room, store } = await classroomBy(c, "teacher");
    const st = await store.student(room.id, c.req.param("sid"));
    if (!st?.clusterId) throw notFoundMsg(`no student "${c.req.param("sid")}" with a cluster in this classroom`);
    const token = await mintToken(await x.deps.platform.secret(), "share", st.clusterId);
    return json({ token, url: `${new URL(c.req.url).origin}/s/${token}` });
  });
}
