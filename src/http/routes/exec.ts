// A command line in the cluster's terminal: answered whole, or streamed as newline-delimited
// JSON while a streaming command (kubectl get -w, watch) writes; the hosted editor's answer to
// a kubectl edit that waits comes back through the same route.
import type { Hono } from "hono";
import { isStatusError } from "../../engine/api/status.js";
import { byteLength } from "../../runtime/core.js";
import type { ClusterHost } from "../../runtime/host.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { bad, internal } from "../errors.js";
import { json, readJson, respond } from "../json.js";

export function execRoute(app: Hono<Env>, x: AppContext): void {
  app.post("/v1/clusters/:id/exec", async (c) => {
    const id = c.req.param("id");
    const a = await x.access(c, id);
    const body = await readJson(c, a.limits.requestBytes);
    const body_ = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => ({
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: r.exitCode,
      ...(r.prompt !== undefined ? { prompt: r.prompt } : {}),
      ...(r.seq !== undefined ? { seq: r.seq } : {}),
      ...(r.edit ? { edit: r.edit } : {}),
      ...(r.stopped ? { stopped: r.stopped } : {}),
    });
    const answer = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => json(body_(r));
    // The hosted editor's answer to a kubectl edit that waits for it (see src/runtime/edit-relay.ts).
    if (body.edit !== undefined) {
      const e = body.edit as { id?: unknown; text?: unknown } | null;
      if (!e || typeof e.id !== "string" || (typeof e.text !== "string" && e.text !== null)) throw bad('the body must be {"edit": {"id": "<edit id>", "text": "<the edited file>" or null to quit}}');
      const done = await x.deps.host.resumeEdit(id, e.id, e.text);
      if (a.row.classroomId) x.deps.notifyClassroom?.(c, a.row.classroomId);
      return answer(done);
    }
    if (typeof body.command !== "string") throw bad('the body must be {"command": "<one bash command line>"}');
    if (body.editor !== undefined && body.editor !== "hosted") throw bad('"editor" may only be "hosted" (kubectl edit then answers with the file to edit)');
    if (body.timeLimitMs !== undefined && !(typeof body.timeLimitMs === "number" && Number.isFinite(body.timeLimitMs) && body.timeLimitMs >= 0)) throw bad('"timeLimitMs" must be a number of milliseconds (>= 0)');
    if (body.stream !== undefined && typeof body.stream !== "boolean") throw bad('"stream" must be true or false');
    if (body.columns !== undefined && !(Number.isInteger(body.columns) && (body.columns as number) > 0)) throw bad('"columns" must be a positive integer (the terminal\'s width)');
    await x.writable(a.row);
    const command = body.command;
    const opts = { hostedEditor: body.editor === "hosted", ...(body.timeLimitMs !== undefined ? { timeLimitMs: body.timeLimitMs as number } : {}), ...(body.columns !== undefined ? { columns: body.columns as number } : {}) };
    const t0 = performance.now();
    const done = (r: Awaited<ReturnType<ClusterHost["exec"]>>) => {
      if (a.row.classroomId) x.deps.notifyClassroom?.(c, a.row.classroomId);
      // (A line waiting in the hosted editor is recorded by the journal once it ends, not here.)
      if (!r.edit) x.deps.history.command({
        ts: x.now(),
        clusterId: id,
        tenantId: a.row.tenantId,
        command: command.slice(0, 4096),
        exitCode: r.exitCode,
        stdoutBytes: byteLength(r.stdout),
        stderrBytes: byteLength(r.stderr),
        durationMs: Math.round(performance.now() - t0),
      });
    };
    if (!body.stream) {
      // A client that goes away while its line waits interrupts it, as a closed terminal would.
      const gone = () => void x.deps.host.interrupt(id).catch(() => undefined);
      const signal = c.req.raw.signal;
      signal?.addEventListener("abort", gone);
      try {
        const r = await x.deps.host.exec(id, command, a.limits, opts);
        done(r);
        return answer(r);
      } finally {
        signal?.removeEventListener("abort", gone);
      }
    }
    // Streamed: newline-delimited JSON, {"out": chunk} as a streaming command writes to the
    // terminal ("screen": true for what it draws in the alternate screen, which the terminal does
    // not keep: watch), then {"result": ...} whose stdout leaves out what was already sent
    // (`streamed` characters), or {"error": Status}. A client that goes away interrupts the line.
    const enc = new TextEncoder();
    let sent = 0;
    let finished = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (ctl) => {
        const send = (o: unknown) => {
          if (!finished) ctl.enqueue(enc.encode(JSON.stringify(o) + "\n"));
        };
        x.deps.host
          .exec(id, command, a.limits, {
            ...opts,
            write: (chunk, kept) => {
              if (kept) sent += chunk.length;
              send(kept ? { out: chunk } : { out: chunk, screen: true });
            },
          })
          .then(
            (r) => {
              done(r);
              const b = body_(r);
              send({ result: { ...b, stdout: b.stdout.slice(Math.min(sent, b.stdout.length)), streamed: sent } });
            },
            (e: unknown) => send({ error: isStatusError(e) ? e.status : internal("the server failed to handle this request").status }),
          )
          .finally(() => {
            if (finished) return;
            finished = true;
            ctl.close();
          });
      },
      cancel: () => {
        if (finished) return;
        finished = true;
        void x.deps.host.interrupt(id).catch(() => undefined);
      },
    });
    return respond(stream, 200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
  });
}
