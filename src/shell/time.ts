// Time as a terminal's commands live it. A command that waits (sleep, kubectl rollout status,
// kubectl wait, kubectl get -w, watch) waits on its host's time source, and the cluster follows
// that source while it waits: pods become Ready during `rollout status`, and nothing the cluster
// writes is later than the source's clock. Hosts pass the real source (the wall clock, real
// timers); tests and replays pass a simulated one, whose waits move its clock at once, so they
// stay fast and exact. The engine itself never reads a clock: the cluster is moved to the
// source's time (Cluster.advanceTo) after each wait.
import type { Cluster } from "../engine/cluster.js";

export interface TimeSource {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` (at once when `signal` is or becomes aborted). */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Simulated sources only: a wait with no end of its own (`kubectl get -w`, `watch`, `rollout
   * status` without --timeout) stops once what it shows has not changed for this long, as the
   * script's Ctrl-C; undefined (real sources): such a wait lasts until the line is stopped.
   */
  readonly quietMs?: number;
}

/** How long an open-ended wait of a simulated source goes on unchanged (longer than a pod's 30 s grace). */
const SIMULATED_QUIET_MS = 45_000;

/**
 * The host's timers and clock, taken at load: just-bash's defense box blocks them for code
 * running inside a line, and a wait runs there.
 */
const hostSetTimeout = setTimeout;
const hostClearTimeout = clearTimeout;
const hostDateNow = Date.now.bind(Date);

/** The wall clock and real timers (both hosts). */
export const realTime: TimeSource = {
  now: () => hostDateNow(),
  wait: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const done = () => {
        hostClearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = hostSetTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    }),
};

/** A clock of its own that waits move at once (tests, the transcripts, a host's tests). */
export class SimulatedTime implements TimeSource {
  readonly quietMs = SIMULATED_QUIET_MS;
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  /** Moves the clock (a test's wall time passing between requests). */
  advance(ms: number): void {
    this.t += Math.max(0, ms);
  }
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal?.aborted) this.t += Math.max(0, ms);
  }
}

/**
 * The wall clock with every wait skipped: a wait returns at once and moves the clock on by its
 * length for good (a server under test: the lab's Run buttons' `sleep 20` take no time, and the
 * host's clock and the cluster's stay one).
 */
export class FastForwardTime implements TimeSource {
  readonly quietMs = SIMULATED_QUIET_MS;
  private skipped = 0;
  now(): number {
    return Date.now() + this.skipped;
  }
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal?.aborted) this.skipped += Math.max(0, ms);
  }
}

/**
 * The source of a terminal no host gave one (a Session on its own: the transcripts, the CLI):
 * the cluster's own clock, moved by each wait.
 */
export function clusterTime(cluster: Cluster): TimeSource {
  return {
    quietMs: SIMULATED_QUIET_MS,
    now: () => cluster.now(),
    wait: async (ms, signal) => {
      if (!signal?.aborted) cluster.advance(ms);
    },
  };
}

/**
 * A journal line's waits played back (time travel, share-link replays): each wait returns at the
 * time it returned when the line ran, and the line is stopped where it was stopped, so a replay
 * never waits and gives the same cluster.
 */
export class ReplayedTime implements TimeSource {
  private t: number;
  private next = 0;
  constructor(
    start: number,
    private readonly waits: readonly number[],
    /** Called when the last recorded wait is reached on a line that was stopped in it. */
    private readonly stopAtEnd?: () => void,
  ) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    const at = this.waits[this.next++];
    this.t = at ?? this.t + Math.max(0, ms);
    if (this.next === this.waits.length) this.stopAtEnd?.();
  }
}

/**
 * What a command line's commands wait with: the host's source, the line's stop signal, and the
 * times each wait returned (the journal keeps them for replay).
 */
export class LineTime {
  /** When each wait of this line returned (the source's time). */
  readonly waits: number[] = [];
  readonly signal?: AbortSignal;
  constructor(
    readonly cluster: Cluster,
    readonly source: TimeSource,
    opts: {
      /** The line's stop (the host's: src/runtime/budget.ts); a wait ends when it is aborted. */
      signal?: AbortSignal;
      /** Told around each wait (a host lets other requests to the cluster in while the line waits). */
      around?: { before(): Promise<void> | void; after(): Promise<void> | void };
      /** The source's time at which the line's time limit stops it (onDeadline): its waits end there. */
      deadline?: number;
      onDeadline?: () => void;
    } = {},
  ) {
    this.signal = opts.signal;
    this.around = opts.around;
    this.deadline = opts.deadline;
    this.onDeadline = opts.onDeadline;
  }
  private readonly around?: { before(): Promise<void> | void; after(): Promise<void> | void };
  private readonly deadline?: number;
  private readonly onDeadline?: () => void;

  get stopped(): boolean {
    return !!this.signal?.aborted;
  }

  get quietMs(): number | undefined {
    return this.source.quietMs;
  }

  /** The source's time. */
  now(): number {
    return this.source.now();
  }

  /**
   * Waits `ms`, then brings the cluster up to the source's time (firing the timers that fell due
   * meanwhile). False when the line was stopped (before or during the wait), or `command`: the
   * command's own signal (`timeout 2 kubectl get -w` stops only that command).
   */
  async wait(ms: number, command?: AbortSignal): Promise<boolean> {
    if (this.stopped || command?.aborted) return false;
    const left = this.deadline === undefined ? Infinity : this.deadline - this.source.now();
    await this.around?.before();
    try {
      await this.source.wait(Math.max(0, Math.min(ms, left)), either(this.signal, command));
    } finally {
      await this.around?.after();
    }
    if (left <= ms && !this.stopped) this.onDeadline?.();
    this.waits.push(this.source.now());
    this.cluster.advanceTo(this.source.now());
    return !this.stopped && !command?.aborted;
  }
}

/** A signal aborted when either is (AbortSignal.any, which not every runtime has). */
function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a || !b) return a ?? b;
  const c = new AbortController();
  const stop = () => c.abort();
  if (a.aborted || b.aborted) stop();
  a.addEventListener("abort", stop, { once: true });
  b.addEventListener("abort", stop, { once: true });
  return c.signal;
}

/** `sleep`'s operands (coreutils: the sum of NUMBER[smhd] each), or the message it refuses them with. */
export function sleepMs(args: string[]): number | string {
  if (!args.length) return "sleep: missing operand\nTry 'sleep --help' for more information.\n";
  let ms = 0;
  for (const a of args) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
    if (!m) return `sleep: invalid time interval '${a}'\nTry 'sleep --help' for more information.\n`;
    ms += Number(m[1]) * { "": 1000, s: 1000, m: 60000, h: 3600000, d: 86400000 }[m[2] as "" | "s"];
  }
  return ms;
}
