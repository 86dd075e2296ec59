/// <reference types="@cloudflare/workers-types" />
// A classroom on Workers: its rows in a Durable Object of its own (one per classroom, named by
// its id), so a class's joins and its dashboard never wait on another class or on the platform
// object. The rows and their SQL are the Node server's (SqlClassroomStore over drizzle).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/migrations.js";
import { type Classroom, type ClassroomStore, SqlClassroomStore, type Student } from "../classroom/store.js";
import * as schema from "../db/schema.js";

export class ClassroomObject extends DurableObject<Record<string, never>> implements ClassroomStore {
  private readonly store: SqlClassroomStore;
  private notifying = false;

  constructor(ctx: DurableObjectState, env: Record<string, never>) {
    super(ctx, env);
    const db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(db, migrations));
    this.store = new SqlClassroomStore(db);
  }

  create(c: Classroom) {
    return this.store.create(c);
  }
  get(id: string) {
    return this.store.get(id);
  }
  students(id: string) {
    return this.store.students(id);
  }
  student(id: string, studentId: string) {
    return this.store.student(id, studentId);
  }
  byName(id: string, name: string) {
    return this.store.byName(id, name);
  }
  join(st: Student, capacity: number) {
    return this.store.join(st, capacity);
  }
  setCluster(id: string, studentId: string, clusterId: string | null, reset: boolean) {
    return this.store.setCluster(id, studentId, clusterId, reset);
  }
  removeStudent(id: string, studentId: string) {
    return this.store.removeStudent(id, studentId);
  }
  nextLab(id: string, studentId: string, clusterId: string, pastClusters: string, labIndex: number) {
    return this.store.nextLab(id, studentId, clusterId, pastClusters, labIndex);
  }
  extend(id: string, studentId: string | undefined, ms: number) {
    return this.store.extend(id, studentId, ms);
  }
  close(id: string, now: number) {
    return this.store.close(id, now);
  }

  /** A teacher dashboard's live channel (hibernatable): told when the class changed. */
  override async fetch(_request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    pair[1].send(JSON.stringify({ type: "hello" }));
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** Something in the class changed: every dashboard hears it, at most twice a second. */
  notify(): void {
    if (this.notifying || this.ctx.getWebSockets().length === 0) return;
    this.notifying = true;
    setTimeout(() => {
      this.notifying = false;
      for (const ws of this.ctx.getWebSockets()) {
        try {
          ws.send(JSON.stringify({ type: "changed" }));
        } catch {
          // a closing socket: its dashboard reconnects
        }
      }
    }, 500);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }
}

/** Tells classroom `id`'s dashboards that the class changed. */
export function notifyClassroomObject(ns: DurableObjectNamespace<ClassroomObject>, id: string): Promise<void> {
  return ns.get(ns.idFromName(id)).notify();
}

/** The dashboard's WebSocket, served by the classroom's object. */
export function classroomLiveObject(ns: DurableObjectNamespace<ClassroomObject>, id: string, request: Request): Promise<Response> {
  return ns.get(ns.idFromName(id)).fetch(new Request("https://classroom/live", { headers: request.headers }));
}

/** Classroom `id`'s store as the app sees it: each call goes to that classroom's object (a fresh stub per call). */
export function classroomStoreOf(ns: DurableObjectNamespace<ClassroomObject>, id: string): ClassroomStore {
  const stub = () => ns.get(ns.idFromName(id));
  return {
    create: (c) => stub().create(c),
    get: (i) => stub().get(i) as Promise<Classroom | undefined>,
    students: (i) => stub().students(i) as Promise<Student[]>,
    student: (i, s) => stub().student(i, s) as Promise<Student | undefined>,
    byName: (i, n) => stub().byName(i, n) as Promise<Student | undefined>,
    join: (st, cap) => stub().join(st, cap),
    setCluster: (i, s, c, r) => stub().setCluster(i, s, c, r),
    removeStudent: (i, s) => stub().removeStudent(i, s),
    nextLab: (i, s, c, p, n) => stub().nextLab(i, s, c, p, n),
    extend: (i, s, ms) => stub().extend(i, s, ms),
    close: (i, now) => stub().close(i, now),
  };
}
