// A load generator in a child process, so the client's own cost is not charged to the server:
// process.cpuUsage() of the benchmark's process is then the server's CPU alone (the machine is
// shared, so CPU per request is a steadier figure than requests per second).
//
// It speaks HTTP/1.1 on raw sockets, as wrk does: each job's request bytes are built once, and a
// response is read only as far as its framing (Content-Length or chunked). Node's http client
// cost more CPU per request than the server it measured (~1 ms against ~0.3 ms for a bare
// server, 200 fresh connections): on a 2-core machine that CPU is taken from the server and
// shows up as server latency, where real tenants' clients run on machines of their own. Its own
// CPU time is reported (clientCpuMs) so that the share it still takes is visible. Plain JS.
// Bursts (every connection sends at once) run in bench/loadgen.c when a C compiler is at hand:
// the JS generator's ~0.1 ms a request is ~20 ms of CPU per burst of 200 on the cores the server
// needs, and it sent a burst's requests over several milliseconds instead of at once.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./root.js";

export interface Job {
  method: string;
  path: string;
  token?: string;
  body?: string;
}

const CODE = `
const net = require("node:net");
const { port, raw, concurrency, durationMs, periodMs, bursts } = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
// Each job's request bytes, built by the parent (requestBytes), as latin1 text.
const requests = raw.map((r) => Buffer.from(r, "latin1"));
const CRLFCRLF = Buffer.from("\\r\\n\\r\\n");

/**
 * The end of the response at the start of buf, or -1 when more bytes are needed:
 * { end, status, close }.
 */
function parse(buf) {
  const h = buf.indexOf(CRLFCRLF);
  if (h < 0) return undefined;
  const head = buf.toString("latin1", 0, h).toLowerCase();
  const status = Number(head.slice(9, 12));
  const close = /\\r\\nconnection: *close/.test(head);
  let at = h + 4;
  const cl = /\\r\\ncontent-length: *(\\d+)/.exec(head);
  if (cl) {
    const end = at + Number(cl[1]);
    return end <= buf.length ? { end, status, close } : undefined;
  }
  if (/\\r\\ntransfer-encoding: *chunked/.test(head)) {
    for (;;) {
      const nl = buf.indexOf("\\r\\n", at);
      if (nl < 0) return undefined;
      const size = parseInt(buf.toString("latin1", at, nl), 16);
      at = nl + 2 + size + 2;
      if (at > buf.length) return undefined;
      if (size === 0) return { end: at, status, close };
    }
  }
  // No framing: the body ends when the server closes the connection.
  return { end: -1, status, close: true };
}

/** One client connection: sends a request, resolves with [ms, status] when its response is in. */
class Conn {
  constructor() { this.sock = undefined; this.buf = Buffer.alloc(0); this.waiting = undefined; }
  open() {
    const s = net.connect(port, "127.0.0.1");
    s.setNoDelay(true);
    s.on("data", (d) => { this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d; this.check(false); });
    s.on("error", (e) => this.fail(e));
    s.on("close", () => { if (this.sock === s) this.sock = undefined; this.check(true); });
    this.sock = s;
  }
  check(closed) {
    if (!this.waiting) return;
    const r = parse(this.buf);
    if (r && r.end >= 0) {
      this.buf = this.buf.subarray(r.end);
      if (r.close) { this.sock && this.sock.destroy(); this.sock = undefined; this.buf = Buffer.alloc(0); }
      const w = this.waiting; this.waiting = undefined;
      w.res([performance.now() - w.t, r.status]);
    } else if (closed) {
      const w = this.waiting; this.waiting = undefined;
      this.buf = Buffer.alloc(0);
      if (r) w.res([performance.now() - w.t, r.status]);
      else w.rej(new Error("the server closed the connection before its response was complete"));
    }
  }
  fail(e) { const w = this.waiting; this.waiting = undefined; if (w) w.rej(e); }
  send(bytes) {
    return new Promise((res, rej) => {
      this.waiting = { res, rej, t: performance.now() };
      if (!this.sock) this.open();
      this.sock.write(bytes);
    });
  }
}

const sleepUntil = (t) => new Promise((r) => setTimeout(r, Math.max(0, t - performance.now())));

(async () => {
  const lat = [];
  const codes = {};
  let next = 0;
  const until = durationMs ? performance.now() + durationMs : Infinity;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const byRound = [];
  if (bursts) {
    // Bursts on open connections: connection i sends job r * concurrency + i in burst r, and
    // burst r + 1 starts when every response of burst r is in. Connections are opened by the
    // first burst and kept (keep-alive), as a browser or kubectl keeps its connection.
    const conns = Array.from({ length: concurrency }, () => new Conn());
    for (let r = 0; r * concurrency < requests.length; r++) {
      const round = [];
      await Promise.all(conns.map(async (c, i) => {
        const job = r * concurrency + i;
        if (job >= requests.length) return;
        const [ms, code] = await c.send(requests[job]);
        round.push(ms);
        codes[code] = (codes[code] || 0) + 1;
      }));
      byRound.push(round);
    }
    for (const c of conns) if (c.sock) c.sock.destroy();
  } else if (periodMs) {
    // Paced: client i sends jobs i, i + concurrency, ... one every periodMs, the clients' phases
    // spread evenly over the period. Latency counts from when a request was due (a late send
    // counts its wait), so a slow server cannot hide behind its own backlog.
    await Promise.all(Array.from({ length: concurrency }, async (_, i) => {
      const c = new Conn();
      for (let k = 0; i + k * concurrency < requests.length; k++) {
        const due = t0 + (i / concurrency) * periodMs + k * periodMs;
        await sleepUntil(due);
        const late = Math.max(0, performance.now() - due);
        const [ms, code] = await c.send(requests[i + k * concurrency]);
        lat.push(late + ms);
        codes[code] = (codes[code] || 0) + 1;
      }
      if (c.sock) c.sock.destroy();
    }));
  } else {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      const c = new Conn();
      for (;;) {
        if (durationMs ? performance.now() >= until : next >= requests.length) break;
        const [ms, code] = await c.send(requests[next++ % requests.length]);
        lat.push(ms);
        codes[code] = (codes[code] || 0) + 1;
      }
      if (c.sock) c.sock.destroy();
    }));
  }
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ lat: bursts ? byRound.flat() : lat, byRound, codes, elapsed, clientCpuMs: (cpu.user + cpu.system) / 1000 }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

export interface LoadResult {
  /** Which load generator ran: bench/loadgen.c (bursts, when a C compiler is at hand) or the JS one. */
  client: "c" | "js";
  lat: number[];
  /** With `bursts`: each burst's latencies (the first one's include opening the connections). */
  byRound: number[][];
  codes: Record<string, number>;
  elapsed: number;
  /** CPU time of this (the server's) process during the run, ms. */
  serverCpuMs: number;
  /** CPU time of the load generator while it ran its jobs, ms. */
  clientCpuMs: number;
}

/**
 * Runs `jobs` on `concurrency` connections: each connection sends its next job when the last
 * one is answered, for `durationMs` (cycling through the jobs) or until every job has run. With
 * `periodMs`, paced instead: connection i sends jobs i, i + concurrency, ... one per period, the
 * connections' phases spread evenly over it (an open-loop load: latencies count from when a
 * request was due). With `bursts`, in bursts on kept connections: connection i sends job
 * r * concurrency + i in burst r, and each burst starts when the last one is answered.
 */
export function load(port: number, jobs: Job[], concurrency: number, durationMs = 0, periodMs = 0, bursts = false): Promise<LoadResult> {
  const c = bursts && !durationMs && !periodMs ? cLoadgen() : undefined;
  return new Promise((res, rej) => {
    const child = c ? spawn(c, [], { stdio: ["pipe", "pipe", "inherit"] }) : spawn(process.execPath, ["-e", CODE], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    let cpu0: NodeJS.CpuUsage | undefined;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => (out += d));
    child.once("spawn", () => (cpu0 = process.cpuUsage()));
    child.once("error", rej);
    child.once("close", (code) => {
      const cpu = process.cpuUsage(cpu0);
      if (code !== 0) return rej(new Error(`load generator exited with ${code}`));
      res({ ...(JSON.parse(out) as Omit<LoadResult, "serverCpuMs" | "client">), serverCpuMs: (cpu.user + cpu.system) / 1000, client: c ? "c" : "js" });
    });
    const requests = jobs.map((j) => requestBytes(port, j));
    child.stdin.end(c ? cInput(port, requests, concurrency) : JSON.stringify({ port, raw: requests.map((b) => b.toString("latin1")), concurrency, durationMs, periodMs, bursts }));
  });
}

/**
 * A job's request bytes: built once, sent as they are. A fixed body goes with its
 * Content-Length, as curl, fetch and kubectl send it.
 */
function requestBytes(port: number, j: Job): Buffer {
  let head = `${j.method} ${j.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (j.token) head += `Authorization: Bearer ${j.token}\r\n`;
  const body = j.body === undefined ? undefined : Buffer.from(j.body);
  if (body) head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
  const h = Buffer.from(`${head}\r\n`, "latin1");
  return body ? Buffer.concat([h, body]) : h;
}

/** The requests as bench/loadgen.c reads them: "<port> <connections> <jobs>\n", then "<length>\n<bytes>" each. */
function cInput(port: number, requests: Buffer[], concurrency: number): Buffer {
  const parts: Buffer[] = [Buffer.from(`${port} ${concurrency} ${requests.length}\n`)];
  for (const bytes of requests) parts.push(Buffer.from(`${bytes.length}\n`), bytes);
  return Buffer.concat(parts);
}

let cBinary: string | null | undefined;
/**
 * bench/loadgen.c compiled (once per source text, in the temp directory), or undefined without a
 * C compiler or with LOADGEN=js: then the JS generator runs the bursts too (`client` in the
 * result says which ran).
 */
function cLoadgen(): string | undefined {
  if (cBinary !== undefined) return cBinary ?? undefined;
  cBinary = null;
  if (process.env.LOADGEN === "js") return undefined;
  const src = join(ROOT, "bench/loadgen.c");
  if (!existsSync(src)) return undefined;
  const bin = join(tmpdir(), `servicelab-loadgen-${createHash("sha256").update(readFileSync(src)).digest("hex").slice(0, 16)}`);
  if (!existsSync(bin)) {
    const r = spawnSync(process.env.CC ?? "cc", ["-O2", "-o", bin, src], { stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0) return undefined;
  }
  cBinary = bin;
  return bin;
}
