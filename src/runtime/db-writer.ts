// The Node server's database writes on a thread of their own. libSQL's local driver is
// synchronous: a commit (the rows of a class's simultaneous commands, a history batch, and now
// and then a WAL checkpoint) ran on the thread that serves requests and stopped every request
// for its duration. Here a worker thread owns a second connection to the same file and runs the
// write transactions; the serving thread sends statements and is answered once they have
// committed, so acknowledged still means in the WAL (a killed process loses nothing it was
// told). Reads stay on the serving thread's connection: in WAL mode they never wait for the
// writer, and they see every transaction that was answered before they started.
//
// Two lanes: a request waits for its cluster's rows (the foreground), no request waits for
// history (the background). The thread takes a waiting foreground write before any background
// one, so a class's simultaneous commands never queue behind a history batch; history is
// written in small transactions (SqlWriter.backgroundRows) so one in progress holds a foreground
// write back only briefly. Each lane keeps its own order.
import type { InStatement } from "@libsql/client";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** A statement as libSQL's client takes it (its arguments cross the thread by structured clone). */
type WriteStatement = InStatement;

/** The worker: plain JS source, so it needs no loader or bundle entry of its own. */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { createClient } = await import(workerData.client);
  const db = createClient({ url: workerData.url });
  for (const p of workerData.pragmas) await db.execute(p);
  const foreground = [];
  const background = [];
  let running = false;
  const run = async () => {
    running = true;
    while (foreground.length || background.length) {
      const { id, statements } = foreground.length ? foreground.shift() : background.shift();
      try {
        await db.batch(statements, "write");
        parentPort.postMessage({ id });
      } catch (e) {
        parentPort.postMessage({ id, error: { message: String((e && e.message) || e), code: e && e.code } });
      }
      // Let the writes sent meanwhile arrive: a foreground one goes next.
      await new Promise((r) => setImmediate(r));
    }
    running = false;
  };
  parentPort.on("message", (m) => {
    (m.background ? background : foreground).push(m);
    if (!running) void run();
  });
  parentPort.postMessage({ ready: true });
})().catch((e) => parentPort.postMessage({ fatal: String((e && e.stack) || e) }));
`;

/** PRAGMAs every connection to the database takes (see openDatabase). */
export const CONNECTION_PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA busy_timeout = 5000"];

interface Pending {
  resolve: () => void;
  reject: (e: Error) => void;
  /** Settles with the write (close waits for it). */
  done: Promise<void>;
}

export class DbWriter {
  private worker?: Worker;
  private ready?: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly url: string) {}

  /**
   * Runs `statements` in one write transaction; resolves once it has committed. A `background`
   * write (history) waits for every foreground write sent before it ends.
   */
  write(statements: ReadonlyArray<WriteStatement>, opts?: { background?: boolean }): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the database writer is closed"));
    const w = this.start();
    const id = this.nextId++;
    let settle!: Omit<Pending, "done">;
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { ...settle, done });
    w.postMessage({ id, statements, background: opts?.background === true });
    return done;
  }

  /** Resolves when the worker has its connection (startup awaits it, so the first write does not). */
  started(): Promise<void> {
    this.start();
    return this.ready!;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const client = pathToFileURL(createRequire(import.meta.url).resolve("@libsql/client")).href;
    const w = new Worker(WORKER, { eval: true, workerData: { url: this.url, client, pragmas: CONNECTION_PRAGMAS } });
    this.worker = w;
    let readyFn!: () => void;
    let failFn!: (e: Error) => void;
    this.ready = new Promise<void>((res, rej) => {
      readyFn = res;
      failFn = rej;
    });
    this.ready.catch(() => undefined);
    w.on("message", (m: { ready?: true; fatal?: string; id?: number; error?: { message: string; code?: string } }) => {
      if (m.ready) return readyFn();
      if (m.fatal !== undefined) return this.fail(w, new Error(`database writer failed to start: ${m.fatal}`), failFn);
      const p = this.pending.get(m.id!);
      if (!p) return;
      this.pending.delete(m.id!);
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else p.resolve();
    });
    w.on("error", (e) => this.fail(w, e, failFn));
    w.on("exit", (code) => this.fail(w, new Error(`database writer exited (code ${code})`), failFn));
    return w;
  }

  /** A dead worker fails what it was asked and is replaced on the next write. */
  private fail(w: Worker, e: Error, failReady: (e: Error) => void): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    failReady(e);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    void w.terminate();
  }

  /** Waits for the writes already sent, then stops the thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
