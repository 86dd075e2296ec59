// A classroom student's time, which decides whether their cluster still takes writes (auth.ts)
// and what the workspace shows; read from the classroom's rows and cached for a few seconds,
// as every command asks.
import { deadline, labsOf, type ClassroomStore } from "../classroom/store.js";
import type { ClusterRow } from "../db/platform.js";
import { lab as findLab } from "../labs/index.js";
import { TtlCache } from "./ttl-cache.js";

/**
 * A cluster's classroom time, for the routes that write to it and for the workspace: undefined
 * for a cluster of no classroom. Cached briefly: every command asks.
 */
export interface ClassroomTime {
  title: string;
  deadline: number;
  closed: boolean;
  reviewUntil: number;
  /** The classroom's next lab, when this is the cluster of the lab the student is on and one follows. */
  nextLab?: { id: string; title?: { en: string; zh: string } };
}

export function classroomClock(x: { classrooms: (id: string) => ClassroomStore; now: () => number }) {
  const cache = new TtlCache<{ classroom: string; value: ClassroomTime | undefined }>(x.now, 5_000, 20_000);
  const read = async (row: ClusterRow, classroomId: string): Promise<ClassroomTime | undefined> => {
    const store = x.classrooms(classroomId);
    const room = await store.get(classroomId);
    // The student whose cluster this is: of the lab they are on, or of one they finished.
    const st = room && (await store.students(room.id)).find((s) => s.clusterId === row.id || Object.values(JSON.parse(s.pastClusters) as Record<string, string>).includes(row.id));
    if (!room || !st) return undefined;
    const end = deadline(room, st);
    const labs = labsOf(room);
    const next = st.clusterId === row.id && st.labIndex + 1 < labs.length ? labs[st.labIndex + 1] : undefined;
    return { title: room.title, deadline: end, closed: room.closedAt !== null, reviewUntil: end + room.reviewMs, ...(next ? { nextLab: { id: next, title: findLab(next)?.title } } : {}) };
  };
  const clock = async (row: ClusterRow): Promise<ClassroomTime | undefined> => {
    const classroomId = row.classroomId;
    if (!classroomId) return undefined;
    return (await cache.get(row.id, async () => ({ classroom: classroomId, value: await read(row, classroomId) }))).value;
  };
  /** After the teacher changed a classroom's time: its clusters read it again. */
  clock.forget = (classroomId: string) => cache.deleteWhere((v) => v.classroom === classroomId);
  return clock;
}
