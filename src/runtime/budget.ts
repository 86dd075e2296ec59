// One command line's budget and its stop: the AbortController made per line in ClusterCore.exec.
// Its signal goes to the shell run (`shell.run(line, { signal })`) and to commands that wait;
// whoever stops the line (the CPU budget here, an interrupt, a time limit) aborts it with a
// CommandStop saying why, and the terminal prints that in bash's voice.
//
// Time slicing: the interpreter calls the function the signal carries under SLICE (see
// scripts/patch-just-bash.mjs) between two commands. Once the line has held the thread for a
// slice, it is charged to the line's CPU time and, on a host that serves several clusters from
// one event loop (Node), the line gives the loop back (`yieldTo`) so other clusters' requests
// run before its next command. Requests to the same cluster stay serialized by the host. On
// Workers each cluster has an isolate of its own: nothing to yield to, only the budget.
// Runtime-neutral: performance.now() is the clock (in workerd it moves at I/O, timers included).
//
// What is charged is CPU time, not elapsed time: on a loaded machine a slice of 5 ms may take
// 50 ms of wall time while the process waits for a core, and a 10 s budget counted on the wall
// clock stopped ordinary lines (a 3000-line printf loop) at load 13. Where the host has the
// process's CPU clock (Node's process.cpuUsage), a slice is charged the smaller of its elapsed
// time and the CPU the process used meanwhile; the time the line was yielded is never charged.

const SLICE = Symbol.for("servicelab.slice");

/**
 * The clock, taken before any line runs: just-bash's defense-in-depth box blocks
 * `performance.now` for code running inside a line, and the slice runs there.
 */
const hostNow: () => number = performance.now.bind(performance);

/**
 * The process's CPU time, ms (user + system), taken before any line runs for the same reason;
 * undefined where the runtime has none (Workers: there the isolate is the cluster's own).
 */
const hostCpu: (() => number) | undefined = (() => {
  const p = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process;
  if (typeof p?.cpuUsage !== "function") return undefined;
  try {
    const usage = p.cpuUsage.bind(p);
    if (typeof usage().user !== "number") return undefined;
    return () => {
      const u = usage();
      return (u.user + u.system) / 1000;
    };
  } catch {
    return undefined;
  }
})();

/** How long a command line runs before it lets other clusters' requests in. */
export const SLICE_MS = 5;

export type StopReason = "cpu" | "interrupt" | "timeout";

/** The abort reason of a stopped command line: why, and what the terminal prints. */
export class CommandStop extends Error {
  constructor(
    readonly why: StopReason,
    message: string,
    /** bash's status for a line killed by that signal (128 + signal number). */
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** SIGXCPU (24), as a shell under `ulimit -t` is killed: bash reports the signal's name. */
function cpuStop(budgetMs: number): CommandStop {
  return new CommandStop("cpu", `bash: CPU time limit exceeded: the command line used more than ${budgetMs / 1000} s of CPU time; stopped\n`, 128 + 24);
}

/** Ctrl-C (SIGINT, 2): the terminal echoes ^C and bash reports 130; nothing else is printed. */
export function interruptStop(): CommandStop {
  return new CommandStop("interrupt", "", 128 + 2);
}

/** The exec API's time limit: the line ends as timeout(1) ends a command, 124, nothing printed. */
export function timeLimitStop(): CommandStop {
  return new CommandStop("timeout", "", 124);
}

/** The stop a journal line recorded, made again for its replay. */
export function stopFor(why: StopReason, limits: { cpuMsPerCommand: number }): CommandStop {
  return why === "cpu" ? cpuStop(limits.cpuMsPerCommand) : why === "interrupt" ? interruptStop() : timeLimitStop();
}

interface LineBudgetOptions {
  /** CPU time the line may use, ms. */
  cpuMs: number;
  /** Gives the thread to other work for a moment (Node: setImmediate); none on Workers. */
  yieldTo?: () => Promise<void>;
  /** The clock, ms (tests). */
  now?: () => number;
  /**
   * The CPU clock, ms (tests; by default the process's where the host has one, unless a test
   * clock is given): a slice is charged no more CPU than the process used during it.
   */
  cpu?: () => number;
}

/** The budget of one command line. */
export class LineBudget {
  readonly controller = new AbortController();
  private readonly now: () => number;
  private readonly cpu: (() => number) | undefined;
  private sliceStart: number;
  private sliceCpu: number;
  private used = 0;

  constructor(private readonly opts: LineBudgetOptions) {
    this.now = opts.now ?? hostNow;
    this.cpu = opts.cpu ?? (opts.now ? undefined : hostCpu);
    this.sliceStart = this.now();
    this.sliceCpu = this.cpu?.() ?? 0;
    // The interpreter finds the slice on the signal it was given.
    Object.defineProperty(this.controller.signal, SLICE, { value: () => this.slice() });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** CPU time the line has used so far, ms. */
  cpuMs(): number {
    return this.used + this.sliceCost(this.now());
  }

  /** What the slice running since sliceStart costs at `t`: its elapsed time, at most the CPU used. */
  private sliceCost(t: number): number {
    const wall = t - this.sliceStart;
    return this.cpu ? Math.max(0, Math.min(wall, this.cpu() - this.sliceCpu)) : wall;
  }

  /** A new slice begins at `t` (the line runs again). */
  private restart(t: number): void {
    this.sliceStart = t;
    this.sliceCpu = this.cpu?.() ?? 0;
  }

  /**
   * Called between two commands (and by long commands between their own steps): nothing until
   * the slice is used, then the time is charged; past the budget the line is stopped, else it
   * yields (a promise) where the host can.
   */
  slice(): Promise<void> | undefined {
    if (this.controller.signal.aborted) return undefined;
    const t = this.now();
    // The slice ends after 5 ms of holding the thread (elapsed: what other clusters wait for).
    if (t - this.sliceStart < SLICE_MS) return undefined;
    this.used += this.sliceCost(t);
    this.restart(t);
    if (this.used > this.opts.cpuMs) {
      this.controller.abort(cpuStop(this.opts.cpuMs));
      return undefined;
    }
    const y = this.opts.yieldTo;
    if (!y) return undefined;
    return y().then(() => this.restart(this.now()));
  }

  /** A wait begins (sleep, a watch's interval): the time so far is charged; the wait is not CPU time. */
  pause(): void {
    const t = this.now();
    this.used += this.sliceCost(t);
    this.restart(t);
  }

  /** The wait ended: the line's time runs again from now. */
  resume(): void {
    this.restart(this.now());
  }

  /** Stops the line (an interrupt, a time limit): the reason says why. */
  stop(reason: CommandStop): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** Why the line was stopped, if it was. */
  stopped(): CommandStop | undefined {
    const r: unknown = this.controller.signal.reason;
    return this.controller.signal.aborted && r instanceof CommandStop ? r : undefined;
  }
}

/** Strips just-bash's own note for an aborted line: the stop's message replaces it. */
export function withoutAbortNote(stderr: string): string {
  return stderr.replace(/bash: [^\n]*aborted\n?$/, "");
}
