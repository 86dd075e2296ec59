// A classroom's rows: the classroom and its students. The same code runs on the installation's
// libSQL (Node) and in a classroom's own Durable Object (Workers), as the platform's does.
import { and, eq, sql } from "drizzle-orm";
import type { AnySQLite } from "../db/platform.js";
import * as s from "../db/schema.js";

export interface Classroom {
  id: string;
  tenantId: string | null;
  lab: string;
  /** The labs after the first, in order (JSON list of ids). */
  nextLabs: string;
  title: string;
  minutes: number;
  startsAt: number | null;
  endsAt: number | null;
  capacity: number;
  extraMs: number;
  reviewMs: number;
  closedAt: number | null;
  createdAt: number;
}

export interface Student {
  classroomId: string;
  id: string;
  name: string;
  code: string;
  clusterId: string | null;
  /** Which of the classroom's labs the student is on (0: the first). */
  labIndex: number;
  /** The clusters of the labs the student finished (JSON: lab id -> cluster id). */
  pastClusters: string;
  joinedAt: number;
  extraMs: number;
  resets: number;
}

/** A classroom's labs in order. */
export function labsOf(c: Pick<Classroom, "lab" | "nextLabs">): string[] {
  return [c.lab, ...(JSON.parse(c.nextLabs) as string[])];
}

/** Each of a student's labs with the cluster that holds their work on it (none yet for a later lab). */
export function clustersOf(c: Pick<Classroom, "lab" | "nextLabs">, st: Pick<Student, "clusterId" | "labIndex" | "pastClusters">): Array<{ lab: string; clusterId: string | null }> {
  const past = JSON.parse(st.pastClusters) as Record<string, string>;
  return labsOf(c).map((lab, i) => ({ lab, clusterId: i === st.labIndex ? st.clusterId : i < st.labIndex ? (past[lab] ?? null) : null }));
}

/** What the classroom routes need of a classroom's rows, wherever they live. */
export interface ClassroomStore {
  create(c: Classroom): Promise<void>;
  get(id: string): Promise<Classroom | undefined>;
  students(id: string): Promise<Student[]>;
  student(id: string, studentId: string): Promise<Student | undefined>;
  byName(id: string, name: string): Promise<Student | undefined>;
  /** Adds a student if the name is free and the class is not full; false otherwise. */
  join(st: Student, capacity: number): Promise<boolean>;
  setCluster(id: string, studentId: string, clusterId: string | null, reset: boolean): Promise<void>;
  /** The student moves to the next lab, in `clusterId`; the finished lab's cluster is kept in pastClusters. */
  nextLab(id: string, studentId: string, clusterId: string, pastClusters: string, labIndex: number): Promise<void>;
  removeStudent(id: string, studentId: string): Promise<void>;
  extend(id: string, studentId: string | undefined, ms: number): Promise<void>;
  close(id: string, now: number): Promise<void>;
}

export class SqlClassroomStore implements ClassroomStore {
  constructor(private readonly db: AnySQLite) {}

  async create(c: Classroom): Promise<void> {
    await this.db.insert(s.classrooms).values(c);
  }

  async get(id: string): Promise<Classroom | undefined> {
    return (await this.db.select().from(s.classrooms).where(eq(s.classrooms.id, id)))[0];
  }

  async students(id: string): Promise<Student[]> {
    return this.db.select().from(s.classroomStudents).where(eq(s.classroomStudents.classroomId, id)).orderBy(s.classroomStudents.joinedAt);
  }

  async student(id: string, studentId: string): Promise<Student | undefined> {
    return (await this.db.select().from(s.classroomStudents).where(and(eq(s.classroomStudents.classroomId, id), eq(s.classroomStudents.id, studentId))))[0];
  }

  async byName(id: string, name: string): Promise<Student | undefined> {
    return (await this.db.select().from(s.classroomStudents).where(and(eq(s.classroomStudents.classroomId, id), eq(s.classroomStudents.name, name))))[0];
  }

  async join(st: Student, capacity: number): Promise<boolean> {
    const t = s.classroomStudents;
    // Capacity and the name's uniqueness are checked where the row is inserted, so two students
    // joining at once cannot both take the last seat or the same name.
    await this.db.run(
      sql`INSERT OR IGNORE INTO ${t} (${sql.identifier(t.classroomId.name)}, ${sql.identifier(t.id.name)}, ${sql.identifier(t.name.name)}, ${sql.identifier(t.code.name)}, ${sql.identifier(t.clusterId.name)}, ${sql.identifier(t.joinedAt.name)})
        SELECT ${st.classroomId}, ${st.id}, ${st.name}, ${st.code}, ${st.clusterId}, ${st.joinedAt}
        WHERE (SELECT count(*) FROM ${t} WHERE ${t.classroomId} = ${st.classroomId}) < ${capacity}`,
    );
    return (await this.student(st.classroomId, st.id)) !== undefined;
  }

  async setCluster(id: string, studentId: string, clusterId: string | null, reset: boolean): Promise<void> {
    const t = s.classroomStudents;
    await this.db
      .update(t)
      .set(reset ? { clusterId, resets: sql`${t.resets} + 1` } : { clusterId })
      .where(and(eq(t.classroomId, id), eq(t.id, studentId)));
  }

  async nextLab(id: string, studentId: string, clusterId: string, pastClusters: string, labIndex: number): Promise<void> {
    const t = s.classroomStudents;
    await this.db.update(t).set({ clusterId, pastClusters, labIndex }).where(and(eq(t.classroomId, id), eq(t.id, studentId)));
  }

  async removeStudent(id: string, studentId: string): Promise<void> {
    await this.db.delete(s.classroomStudents).where(and(eq(s.classroomStudents.classroomId, id), eq(s.classroomStudents.id, studentId)));
  }

  async extend(id: string, studentId: string | undefined, ms: number): Promise<void> {
    if (studentId === undefined) {
      await this.db.update(s.classrooms).set({ extraMs: sql`${s.classrooms.extraMs} + ${ms}` }).where(eq(s.classrooms.id, id));
    } else {
      const t = s.classroomStudents;
      await this.db.update(t).set({ extraMs: sql`${t.extraMs} + ${ms}` }).where(and(eq(t.classroomId, id), eq(t.id, studentId)));
    }
  }

  async close(id: string, now: number): Promise<void> {
    await this.db.update(s.classrooms).set({ closedAt: now }).where(eq(s.classrooms.id, id));
  }
}

/** When a student's time ends: their minutes from joining, the teacher's additions, the class's end. */
export function deadline(c: Classroom, st: Pick<Student, "joinedAt" | "extraMs">): number {
  const own = st.joinedAt + c.minutes * 60_000 + c.extraMs + st.extraMs;
  const end = c.closedAt ?? (c.endsAt !== null ? c.endsAt + c.extraMs : undefined);
  return end === undefined ? own : Math.min(own, end);
}

/** Where a classroom stands for joining at `now`. */
export function joinState(c: Classroom, students: number, now: number): "open" | "not-started" | "closed" | "ended" | "full" {
  if (c.closedAt !== null) return "closed";
  if (c.startsAt !== null && now < c.startsAt) return "not-started";
  if (c.endsAt !== null && now >= c.endsAt + c.extraMs) return "ended";
  if (students >= c.capacity) return "full";
  return "open";
}
