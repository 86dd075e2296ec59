// What this browser remembers: the clusters it made (id, token, lab), so "continue where I left
// off" and a reload find them again, and the chosen language. Tokens stay in this browser only.

export interface KnownCluster {
  id: string;
  token: string;
  lab: string;
  createdAt: number;
  /** A classroom student's cluster: how to come back to it (the join link's token, the name and code). */
  classroom?: { join: string; name: string; code: string; title: string };
}

const KEY = "servicelab.clusters";

function readAll(): KnownCluster[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? "[]") as unknown;
    return Array.isArray(v) ? (v as KnownCluster[]).filter((c) => c && typeof c.id === "string" && typeof c.token === "string") : [];
  } catch {
    return [];
  }
}

export const clusters = {
  all: readAll,
  get: (id: string) => readAll().find((c) => c.id === id),
  /** The newest cluster of a lab this browser has. */
  forLab: (lab: string) => readAll().filter((c) => c.lab === lab).sort((a, b) => b.createdAt - a.createdAt)[0],
  add(c: KnownCluster) {
    const list = [c, ...readAll().filter((x) => x.id !== c.id)].slice(0, 50);
    localStorage.setItem(KEY, JSON.stringify(list));
  },
  forget(id: string) {
    localStorage.setItem(KEY, JSON.stringify(readAll().filter((x) => x.id !== id)));
  },
  /** This browser's seat in a classroom, by the join link's token. */
  forClassroom: (join: string) => readAll().find((c) => c.classroom?.join === join),
};

/** The classrooms this browser made (their teacher links). */
export const taught = {
  all(): Array<{ token: string; title: string; lab: string; createdAt: number }> {
    try {
      const v = JSON.parse(localStorage.getItem("servicelab.taught") ?? "[]") as unknown;
      return Array.isArray(v) ? v : [];
    } catch {
      return [];
    }
  },
  add(c: { token: string; title: string; lab: string }) {
    localStorage.setItem("servicelab.taught", JSON.stringify([{ ...c, createdAt: Date.now() }, ...taught.all().filter((x) => x.token !== c.token)].slice(0, 50)));
  },
};
