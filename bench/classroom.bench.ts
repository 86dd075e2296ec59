// A class of 200 on one Node host: how long joining takes when the whole class opens the link
// at once (each join makes the student's cluster), and the teacher's dashboard at 200 students.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNodeServer } from "../src/runtime/node-server.js";
import { sessionShell } from "../src/runtime/terminal.js";
import type { Bench } from "./run.js";

const STUDENTS = 200;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const bench: Bench = async (report) => {
  const s = await startNodeServer({ port: 0, dataDir: mkdtempSync(join(tmpdir(), "servicelab-bench-class-")), allowAnonymous: true, idleMs: 3_600_000, shell: sessionShell });
  const url = `http://127.0.0.1:${s.port}`;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };
  try {
    const room = (await post("/v1/classrooms", { lab: "canary", title: "bench", minutes: 60, capacity: STUDENTS })).body;
    // The whole class at once (the local anonymous rate limit is per client address: one bucket
    // for this benchmark's 200 joins, so it is raised by joining in waves of 40).
    const latencies: number[] = [];
    const t0 = performance.now();
    const students: Array<{ cluster: { id: string; token: string } }> = [];
    for (let wave = 0; wave < STUDENTS / 40; wave++) {
      const joins = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const a = performance.now();
          const r = await post(`/v1/join/${room.join.token}`, { name: `student-${wave * 40 + i}` });
          latencies.push(performance.now() - a);
          if (r.status !== 201) throw new Error(`join: ${r.status} ${JSON.stringify(r.body)}`);
          return r.body;
        }),
      );
      students.push(...joins);
    }
    const all = performance.now() - t0;
    report(`${STUDENTS} students join (waves of 40): all joined`, `${all.toFixed(0)} ms`);
    report("  join latency p50 / p99", `${pct(latencies, 0.5).toFixed(0)} / ${pct(latencies, 0.99).toFixed(0)} ms`);
    // Each student's first command (their engine is built from the template's rows).
    const first: number[] = [];
    await Promise.all(
      students.slice(0, 40).map(async (st) => {
        const a = performance.now();
        await fetch(`${url}/v1/clusters/${st.cluster.id}/exec`, { method: "POST", headers: { authorization: `Bearer ${st.cluster.token}` }, body: JSON.stringify({ command: "kubectl get pods" }) });
        first.push(performance.now() - a);
      }),
    );
    report("  40 students' first command at once: p50 / p99", `${pct(first, 0.5).toFixed(0)} / ${pct(first, 0.99).toFixed(0)} ms`);
    const dash: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = performance.now();
      const r = await fetch(`${url}/v1/teach/${room.teacher.token}`);
      const d = (await r.json()) as { students: unknown[] };
      if (d.students.length !== STUDENTS) throw new Error("dashboard is missing students");
      dash.push(performance.now() - a);
    }
    report(`teacher's dashboard at ${STUDENTS} students (median of 5)`, `${pct(dash, 0.5).toFixed(0)} ms`);
  } finally {
    await s.close();
  }
};
export default bench;
