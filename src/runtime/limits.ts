// Per-tenant limits: quotas (403 naming the limit) and a request rate (429 naming the limit).
// A tenant row may override any field; anonymous clusters (local mode) get the defaults.

import type { Quota } from "../engine/apiserver/apiserver.js";

export interface Limits {
  /** Live clusters one tenant may hold. */
  clustersPerTenant: number;
  /** Stored objects in one cluster (every resource, system objects included). */
  objectsPerCluster: number;
  podsPerCluster: number;
  /** Largest request body, bytes. */
  requestBytes: number;
  /** Largest stdout + stderr of one exec, bytes. */
  outputBytes: number;
  /** CPU time one command line may use, ms (src/runtime/budget.ts): past it the line is stopped. */
  cpuMsPerCommand: number;
  /** Sustained requests per second (token bucket refill) and burst size. */
  requestsPerSecond: number;
  burst: number;
}

export const DEFAULT_LIMITS: Limits = {
  clustersPerTenant: 20,
  objectsPerCluster: 3000,
  podsPerCluster: 300,
  requestBytes: 256 * 1024,
  outputBytes: 1024 * 1024,
  cpuMsPerCommand: 10_000,
  requestsPerSecond: 50,
  burst: 200,
};

/** The per-cluster limits the engine admits as its apiserver's quota (Cluster.setQuota). */
export function quotaOf(limits: Limits): Quota {
  return { pods: limits.podsPerCluster, objects: limits.objectsPerCluster };
}

export function limitsOf(overrides: unknown): Limits {
  const out = { ...DEFAULT_LIMITS };
  if (overrides && typeof overrides === "object") {
    for (const [k, v] of Object.entries(overrides)) {
      if (k in out && typeof v === "number" && Number.isFinite(v) && v >= 0) (out as Record<string, number>)[k] = v;
    }
  }
  return out;
}

/** Token buckets by key, refilled continuously: one per tenant (or per anonymous cluster). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes one token; returns 0 when allowed, else the seconds until one is available. */
  take(key: string, rate: number, burst: number, now: number): number {
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: burst, at: now };
      this.buckets.set(key, b);
      if (this.buckets.size > 100_000) this.prune(now);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return rate > 0 ? Math.max(1, Math.ceil((1 - b.tokens) / rate)) : 60;
  }

  private prune(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.at > 60_000) this.buckets.delete(k);
  }
}
