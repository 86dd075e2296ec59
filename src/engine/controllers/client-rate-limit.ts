// Each controller's client rate limit, as kube-controller-manager has it: every controller gets
// its own clientset (ClientBuilder.ClientOrDie(name)), and kubernetes.NewForConfigAndClient gives
// a clientset without a RateLimiter one flowcontrol.NewTokenBucketRateLimiter(QPS, Burst), with
// --kube-api-qps 20 and --kube-api-burst 30 by default (k8s.io/controller-manager/config/v1alpha1
// defaults.go). The bucket starts full (golang.org/x/time/rate) and runs on the cluster clock:
// a write without a token is deferred to when the next one is due, as a blocked Accept() waits.

/** --kube-api-qps: tokens per second. */
export const KUBE_API_QPS = 20;
/** --kube-api-burst: the bucket's size. */
export const KUBE_API_BURST = 30;
/** One token's refill time, in ms (the bucket is kept in ms of refill: integers, no drift). */
const TOKEN_MS = 1000 / KUBE_API_QPS;
const FULL_MS = KUBE_API_BURST * TOKEN_MS;

/**
 * When `wanted` tokens (at most a second's refill) are there, given when the next one is due:
 * the bucket refills one token per TOKEN_MS. A controller waiting for several writes syncs once
 * for them rather than once per token.
 */
export function tokensDueAt(nextTokenAt: number, wanted: number): number {
  return nextTokenAt + TOKEN_MS * (Math.min(Math.max(1, wanted), KUBE_API_QPS) - 1);
}

/** A bucket not full: its refill in ms (TOKEN_MS per token) as of clock time `at`. */
export interface Bucket {
  ms: number;
  at: number;
}

/** The token buckets of every controller's client, by controller name (absent: full). */
export class ClientRateLimits {
  private readonly buckets = new Map<string, Bucket>();

  /**
   * Takes a token of `client`'s bucket at clock time `now`: undefined when one was there, else
   * the clock time the next token is due (nothing taken; the caller retries then).
   */
  take(client: string, now: number): number | undefined {
    const b = this.buckets.get(client);
    const ms = b ? Math.min(FULL_MS, b.ms + Math.max(0, now - b.at)) : FULL_MS;
    if (ms < TOKEN_MS) return now + (TOKEN_MS - ms);
    this.buckets.set(client, { ms: ms - TOKEN_MS, at: now });
    return undefined;
  }

  /** Buckets not yet full again at `now`, as data for a snapshot: [client, ms, at]. */
  save(now: number): [string, number, number][] {
    const out: [string, number, number][] = [];
    for (const [name, b] of this.buckets) {
      if (b.ms + Math.max(0, now - b.at) >= FULL_MS) this.buckets.delete(name);
      else out.push([name, b.ms, b.at]);
    }
    return out;
  }

  load(saved: readonly [string, number, number][]): void {
    for (const [name, ms, at] of saved) this.buckets.set(name, { ms, at });
  }
}
