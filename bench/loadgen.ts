// A load generator in a child process, so the client's own cost is not charged to the server:
// process.cpuUsage() of the benchmark's process is then the server's CPU alone (the machine is
// shared, so CPU per request is a steadier figure than requests per second). Plain JS.
import { spawn } from "node:child_process";

export interface Job {
  method: string;
  path: string;
  token?: string;
  body?: string;
}

const CODE = `
const http = require("node:http");
const { port, jobs, concurrency, durationMs } = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function one(j) {
  return new Promise((res, rej) => {
    const t = performance.now();
    // A fixed body goes with its Content-Length, as curl, fetch and kubectl send it.
    const headers = j.token ? { authorization: "Bearer " + j.token } : {};
    if (j.body) headers["content-length"] = Buffer.byteLength(j.body);
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
  process.stdout.write(JSON.stringify({ lat, codes, elapsed: performance.now() - t0 }));
})();
`;

export interface LoadResult {
  lat: number[];
  codes: Record<string, number>;
  elapsed: number;
  /** CPU time of this (the server's) process during the run, ms. */
  serverCpuMs: number;
}

export function load(port: number, jobs: Job[], concurrency: number, durationMs = 0): Promise<LoadResult> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ["-e", CODE], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    let cpu0: NodeJS.CpuUsage | undefined;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => (out += d));
    child.once("spawn", () => (cpu0 = process.cpuUsage()));
    child.once("error", rej);
    child.once("close", (code) => {
      const cpu = process.cpuUsage(cpu0);
      if (code !== 0) return rej(new Error(`load generator exited with ${code}`));
      res({ ...(JSON.parse(out) as Omit<LoadResult, "serverCpuMs">), serverCpuMs: (cpu.user + cpu.system) / 1000 });
    });
    child.stdin.end(JSON.stringify({ port, jobs, concurrency, durationMs }));
  });
}
