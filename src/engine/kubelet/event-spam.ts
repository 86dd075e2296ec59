// client-go's EventSourceObjectSpamFilter, as the kubelet's event recorder applies it: each
// (source, involved object) pair has a token bucket of 25 events refilled at one per 5 minutes,
// so an always-failing probe reports ~25 times, then once per 5 minutes (events_cache.go).
// Kept in memory as the kubelet keeps it: a restored cluster starts with full buckets.

const BURST = 25;
const QPS = 1 / 300;
/** events_cache.go's maxLruCacheEntries. */
const MAX_KEYS = 4096;

export class EventSpamFilter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Whether an event about `key` (source host + object uid) may be written at `now` (ms). */
  accept(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: BURST, at: now };
      if (this.buckets.size >= MAX_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    } else {
      this.buckets.delete(key); // most recently used goes last
      b.tokens = Math.min(BURST, b.tokens + ((now - b.at) / 1000) * QPS);
      b.at = now;
    }
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
