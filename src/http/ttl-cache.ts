// The app's one cache of rows read per request (clusters, tenants by key and by id, a classroom
// student's time): an answer is reused for a few seconds, so a burst of requests reads the
// database once, and the map is emptied past a bound, so no client can grow it without end.

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  /** The value of `key`, read with `load` when none younger than the TTL is held; `keep` says which answers are held. */
  async get(key: string, load: () => Promise<V>, keep: (v: V) => boolean = () => true): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = await load();
    if (keep(value)) this.set(key, value);
    return value;
  }

  /** Holds `value` for `key` as read at `at` (now by default). */
  set(key: string, value: V, at = this.now()): void {
    if (this.entries.size > this.max) this.entries.clear();
    this.entries.set(key, { value, at });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every value `which` picks. */
  deleteWhere(which: (v: V) => boolean): void {
    for (const [k, e] of this.entries) if (which(e.value)) this.entries.delete(k);
  }
}
