// A load generator in a worker thread, so the client's own cost is not charged to the server
// (the server under test runs in the main thread). Plain JS: the worker is not transpiled.
import { Worker } from "node:worker_threads";

export interface Job {
  method: string;
  path: string;
  token?: string;
  body?: string;
}

const CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { port, jobs, concurrency, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function one(j) {
  return new Promise((res, rej) => {
    const t = performance.now();
    const headers = j.token ? { authorization: "Bearer " + j.token } : {};
    const r = http.request({ host: "127.0.0.1", port, method: j.method, path: j.path, agent, headers }, (resp) => {
      resp.resume();
      resp.on("end", () => res([performance.now() - t, resp.statusCode]));
    });
    r.on("error", rej);
    if (j.body) r.write(j.body);
    r.end();
  });
}
(async () => {
  const lat = [];
  const codes = {};
  let next = 0;
  const until = durationMs ? performance.now() + durationMs : Infinity;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (;;) {
      if (durationMs ? performance.now() >= until : next >= jobs.length) return;
      const j = jobs[next++ % jobs.length];
      const [ms, code] = await one(j);
      lat.push(ms);
      codes[code] = (codes[code] || 0) + 1;
    }
  }));
  parentPort.postMessage({ lat, codes, elapsed: performance.now() - t0 });
})();
`;

export function load(port: number, jobs: Job[], concurrency: number, durationMs = 0): Promise<{ lat: number[]; codes: Record<string, number>; elapsed: number }> {
  return new Promise((res, rej) => {
    const w = new Worker(CODE, { eval: true, workerData: { port, jobs, concurrency, durationMs } });
    w.once("message", (m) => {
      void w.terminate();
      res(m);
    });
    w.once("error", rej);
  });
}
