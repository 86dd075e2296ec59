// One exec or attach stream after the upgrade: what the kubelet's streaming server and the
// container's process do, over any socket (the Node server's `ws`, a Worker's WebSocketPair).
//
// - A command (kubectl exec pod -- ls -l) runs once in the pod's shell with what stdin sent
//   until the client closed it (v5's close signal), and the stream ends with the v1 Status.
// - An interactive shell (exec -it pod -- sh, attach to a container started with -it) is a
//   terminal: the remote side of a tty echoes and edits what is typed (the client's terminal is
//   raw), each line runs in the terminal's pod shell as its kubectl exec -it runs it, output's
//   \n becomes \r\n (onlcr), and `exit [N]` or Ctrl-D ends it with the shell's status.
// - attach to a container that is not a shell streams what it writes from now on.
// Sessions are bounded: idle and in total (the kubelet's --streaming-connection-idle-timeout).

import type { ExecResult } from "../runtime/shell.js";
import { decodeFrame, ERROR, exitStatus, frame, internalStatus, STDERR, STDIN, STDOUT, type StreamPlan, successStatus } from "./remotecommand.js";

export interface StreamSocket {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
}

interface ExecSessionDeps {
  plan: StreamPlan;
  /** The negotiated subprotocol (v5.channel.k8s.io or v4.channel.k8s.io). */
  protocol: string;
  socket: StreamSocket;
  /** Runs argv in the pod's container; undefined when the container no longer runs. */
  run(argv: string[], stdin: string, signal: AbortSignal): Promise<ExecResult | undefined>;
  /** attach to a process that is not a shell: its output from now on, until `end` (or the returned stop). */
  follow?(emit: (text: string) => void, end: () => void): Promise<() => void>;
  idleMs?: number;
  maxMs?: number;
}

/** The most stdin a command takes (it is handed to the pod's shell whole). */
const MAX_STDIN_BYTES = 1 << 20;
const IDLE_MS = 15 * 60_000;
const MAX_MS = 60 * 60_000;
/** SIGKILL's status: the container stopped under the command. */
const KILLED = 137;

export class ExecSession {
  private readonly plan: StreamPlan;
  private readonly socket: StreamSocket;
  private readonly abort = new AbortController();
  private done = false;
  private stdin: Uint8Array[] = [];
  private stdinBytes = 0;
  private idle?: ReturnType<typeof setTimeout>;
  private total?: ReturnType<typeof setTimeout>;
  private stopFollow?: () => void;
  // The interactive shell's line discipline.
  private line = "";
  private typed = "";
  private running = false;
  private escape = false;
  private lastStatus = 0;
  private readonly decoder = new TextDecoder();
  private readonly enc = new TextEncoder();

  constructor(private readonly deps: ExecSessionDeps) {
    this.plan = deps.plan;
    this.socket = deps.socket;
  }

  start(): void {
    this.total = setTimeout(() => this.fail(`the ${this.plan.kind} session reached ServiceLab's limit of ${this.minutes(this.deps.maxMs ?? MAX_MS)} and was closed`), this.deps.maxMs ?? MAX_MS);
    this.touch();
    const p = this.plan;
    if (p.shell) {
      // attach joins a shell that printed its prompt long ago (kubectl says to press enter).
      if (p.kind === "exec") this.out(p.shell.prompt);
      return;
    }
    if (p.kind === "attach") {
      void this.attachOutput();
      return;
    }
    // A command reads stdin to its end first, unless it has a terminal (then it runs now).
    if (!p.stdin || p.tty) void this.runOnce("");
  }

  /** A message from the client. */
  onMessage(msg: Uint8Array | string): void {
    if (this.done) return;
    this.touch();
    const f = decodeFrame(this.deps.protocol, msg);
    switch (f.type) {
      case "malformed":
        this.drop(1002, f.reason);
        return;
      case "stdin":
        if (!this.plan.stdin) return;
        if (this.plan.shell) this.typedIn(this.decoder.decode(f.data, { stream: true }));
        else if (!this.plan.tty && this.plan.kind === "exec") this.collect(f.data);
        return;
      case "close":
        if (f.channel === STDIN && this.plan.stdin && !this.plan.tty && !this.plan.shell && this.plan.kind === "exec") void this.runOnce(this.stdinText());
        return;
      default:
        return;
    }
  }

  /** The client went: nothing more is sent; a running command finishes on its own bound. */
  onClose(): void {
    this.finishUp();
  }

  // ---------------------------------------------------------------------------------------------

  private collect(data: Uint8Array): void {
    this.stdinBytes += data.length;
    if (this.stdinBytes > MAX_STDIN_BYTES) {
      this.fail(`stdin is larger than ${MAX_STDIN_BYTES} bytes, the most ServiceLab hands to a command in a pod`);
      return;
    }
    this.stdin.push(data.slice());
  }

  private stdinText(): string {
    const all = new Uint8Array(this.stdinBytes);
    let at = 0;
    for (const c of this.stdin) {
      all.set(c, at);
      at += c.length;
    }
    this.stdin = [];
    return new TextDecoder().decode(all);
  }

  private async runOnce(stdin: string): Promise<void> {
    if (this.running) return;
    this.running = true;
    const argv = this.plan.command;
    let r: ExecResult | undefined;
    try {
      r = await this.deps.run(argv, stdin, this.abort.signal);
    } catch (e) {
      this.fail(e instanceof Error ? e.message : String(e));
      return;
    }
    if (!r) return this.end(KILLED, argv);
    const failed = runtimeFailure(r);
    if (failed !== undefined) {
      this.status(internalStatus(failed));
      return;
    }
    this.out(r.stdout);
    this.err(r.stderr);
    this.end(r.exitCode, argv);
  }

  private async attachOutput(): Promise<void> {
    if (!this.deps.follow) return this.end(0, []);
    try {
      const stop = await this.deps.follow(
        (text) => this.out(text),
        () => this.end(0, []),
      );
      if (this.done) stop();
      else this.stopFollow = stop;
    } catch (e) {
      this.fail(e instanceof Error ? e.message : String(e));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // the interactive shell

  private typedIn(text: string): void {
    this.typed += text;
    void this.drain();
  }

  /** Handles typed characters until a line runs (the rest waits for it, as typeahead does). */
  private async drain(): Promise<void> {
    while (!this.running && !this.done && this.typed) {
      const ch = String.fromCodePoint(this.typed.codePointAt(0)!);
      this.typed = this.typed.slice(ch.length);
      if (this.escape) {
        // An escape sequence (arrow keys): ESC [ parameters final-byte; no history to move in.
        if (ch !== "[" && ch !== "O" && !/[0-9;]/.test(ch)) this.escape = false;
        continue;
      }
      switch (ch) {
        case "\r":
        case "\n": {
          this.out("\r\n");
          const line = this.line;
          this.line = "";
          await this.runLine(line);
          break;
        }
        case "\x7f":
        case "\b":
          if (this.line) {
            this.line = [...this.line].slice(0, -1).join("");
            this.out("\b \b");
          }
          break;
        case "\x03":
          this.line = "";
          this.lastStatus = 130;
          this.out(`^C\r\n${this.plan.shell!.prompt}`);
          break;
        case "\x04":
          if (!this.line) {
            this.out(this.plan.shell!.name === "bash" ? "exit\r\n" : "\r\n");
            this.end(this.lastStatus, this.plan.command);
          }
          break;
        case "\x15":
          this.out("\b \b".repeat([...this.line].length));
          this.line = "";
          break;
        case "\x1b":
          this.escape = true;
          break;
        default:
          if (ch >= " ") {
            this.line += ch;
            this.out(ch);
          }
      }
    }
  }

  private async runLine(line: string): Promise<void> {
    const shell = this.plan.shell!;
    const t = line.trim();
    const exit = /^(?:exit|logout)(?:\s+(\d+))?$/.exec(t);
    if (exit) {
      this.end(exit[1] !== undefined ? Number(exit[1]) & 255 : this.lastStatus, this.plan.command.length ? this.plan.command : [shell.name]);
      return;
    }
    if (t) {
      this.running = true;
      let r: ExecResult | undefined;
      try {
        r = await this.deps.run([shell.name, "-c", line], "", this.abort.signal);
      } catch (e) {
        this.running = false;
        this.fail(e instanceof Error ? e.message : String(e));
        return;
      }
      this.running = false;
      if (!r) return this.end(KILLED, [shell.name]);
      this.out(r.stdout);
      this.out(r.stderr);
      this.lastStatus = r.exitCode;
    }
    this.out(shell.prompt);
  }

  // ---------------------------------------------------------------------------------------------
  // output

  private out(text: string): void {
    if (!text || this.done || !this.plan.stdout) return;
    this.send(STDOUT, this.plan.tty ? onlcr(text) : text);
  }

  private err(text: string): void {
    if (!text || this.done) return;
    // With a terminal, stderr is the terminal too (kubectl asks for no stderr stream then).
    if (this.plan.tty) this.out(text);
    else if (this.plan.stderr) this.send(STDERR, text);
  }

  private send(channel: number, text: string): void {
    try {
      this.socket.send(frame(channel, this.enc.encode(text)));
    } catch {
      this.finishUp();
    }
  }

  /** The process ended with `code`: its Status on the error channel, then a normal close. */
  private end(code: number, argv: string[]): void {
    this.status(code === 0 ? successStatus() : exitStatus(argv, code));
  }

  /** A failure of the stream itself (limits, the runtime): kubectl prints the message. */
  private fail(message: string): void {
    this.status(JSON.stringify({ metadata: {}, status: "Failure", message }));
  }

  private status(json: string): void {
    if (this.done) return;
    try {
      this.socket.send(frame(ERROR, json));
    } catch {
      /* gone */
    }
    this.drop(1000, "");
  }

  private drop(code: number, reason: string): void {
    if (this.done) return;
    this.finishUp();
    try {
      this.socket.close(code, reason);
    } catch {
      /* already closed */
    }
  }

  private finishUp(): void {
    if (this.done) return;
    this.done = true;
    this.abort.abort(new Error("the client closed the stream"));
    clearTimeout(this.idle);
    clearTimeout(this.total);
    this.stopFollow?.();
  }

  private touch(): void {
    clearTimeout(this.idle);
    const ms = this.deps.idleMs ?? IDLE_MS;
    this.idle = setTimeout(() => {
      // A command still running or an attached process still writing is not idle.
      if (this.running || this.stopFollow) return this.touch();
      this.fail(`the ${this.plan.kind} session was idle for ${this.minutes(ms)} and ServiceLab closed it`);
    }, ms);
  }

  private minutes(ms: number): string {
    return ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;
  }
}

/** A terminal turns \n into \r\n on output (stty onlcr). */
function onlcr(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/**
 * The runtime's own refusal (no such executable in the image): the pod shell says it as the
 * terminal's kubectl prints it; over the stream it is the kubelet's InternalError.
 */
function runtimeFailure(r: ExecResult): string | undefined {
  const m = /^error: Internal error occurred: (.*)\n?$/s.exec(r.stderr);
  return r.exitCode >= 126 && m ? m[1] : undefined;
}
