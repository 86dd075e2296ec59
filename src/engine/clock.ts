// Time inside the engine is a number of milliseconds that only the host moves forward.
// Nothing in src/engine reads the wall clock: the runtime advances the cluster's clock to the
// wall clock before each request, and commands that wait (sleep, kubectl wait) advance it.
import { memoize } from "./util/memo.js";

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

/** metav1.Time as JSON: RFC 3339 in UTC with seconds precision. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * rfc3339, remembered by second for one owner (a cluster's apiserver or kubelet, never the
 * process): callers alternate between a few instants (a pod's start and now), and one string per
 * second is shared by every object stamped in it instead of one per timestamp.
 */
export function rememberedRfc3339(): (ms: number) => string {
  const bySecond = memoize((sec: number) => rfc3339(sec * 1000), 1024);
  return (ms) => bySecond(Math.floor(ms / 1000));
}

/** metav1.MicroTime (events' eventTime): RFC 3339 with microseconds. */
export function rfc3339Micro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
