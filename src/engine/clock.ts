// Time inside the engine is a number of milliseconds that only the host moves forward.
// Nothing in src/engine reads the wall clock: the runtime advances the cluster's clock to the
// wall clock before each request, and commands that wait (sleep, kubectl wait) advance it.

export interface Clock {
  now(): number;
}

/** A clock that moves only when told to; the engine's only clock. Never goes backwards. */
export class ManualClock implements Clock {
  private t: number;
  constructor(startMs: number) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  /** Moves to `ms` if that is later than now; returns the new time. */
  set(ms: number): number {
    if (ms > this.t) this.t = ms;
    return this.t;
  }
  advance(ms: number): number {
    return this.set(this.t + Math.max(0, ms));
  }
}

/**
 * Recent seconds' texts. Callers alternate between a few instants (a pod's start and now), and
 * one string per second is shared by every object stamped in it instead of one per timestamp.
 */
const texts = new Map<number, string>();

/** metav1.Time as JSON: RFC 3339 in UTC with seconds precision. */
export function rfc3339(ms: number): string {
  const sec = Math.floor(ms / 1000);
  let text = texts.get(sec);
  if (text === undefined) {
    text = new Date(sec * 1000).toISOString().replace(".000Z", "Z");
    if (texts.size >= 1024) texts.clear();
    texts.set(sec, text);
  }
  return text;
}

/** metav1.MicroTime (events' eventTime): RFC 3339 with microseconds. */
export function rfc3339Micro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function parseTime(s: string | null | undefined): number {
  if (!s) return NaN;
  return Date.parse(s);
}
