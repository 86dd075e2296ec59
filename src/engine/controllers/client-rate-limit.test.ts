// The controllers' client token buckets: kube-api-burst at once, then kube-api-qps a second,
// one bucket per controller, on the cluster clock.
import { describe, expect, it } from "vitest";
import { ClientRateLimits, KUBE_API_BURST, KUBE_API_QPS, tokensDueAt } from "./client-rate-limit.js";

function takeAll(l: ClientRateLimits, client: string, now: number): { taken: number; retryAt: number } {
  for (let taken = 0; ; taken++) {
    const retryAt = l.take(client, now);
    if (retryAt !== undefined) return { taken, retryAt };
  }
}

describe("ClientRateLimits", () => {
  it("gives the burst at once, then a token every 1/qps seconds, per client", () => {
    expect([KUBE_API_QPS, KUBE_API_BURST]).toEqual([20, 30]);
    const l = new ClientRateLimits();
    expect(takeAll(l, "replicaset", 1000)).toEqual({ taken: 30, retryAt: 1050 });
    expect(takeAll(l, "daemonset", 1000).taken).toBe(30);
    expect(l.take("replicaset", 1049)).toBe(1050);
    expect(takeAll(l, "replicaset", 2000)).toEqual({ taken: 20, retryAt: 2050 });
    // Refilled, never past the burst.
    expect(takeAll(l, "replicaset", 60_000).taken).toBe(30);
  });

  it("saves the buckets not yet full and continues alike after load", () => {
    const l = new ClientRateLimits();
    takeAll(l, "replicaset", 0);
    l.take("statefulset", 0); // full again by 1000: not saved
    expect(l.save(1000)).toEqual([["replicaset", 0, 0]]);
    const m = new ClientRateLimits();
    m.load(l.save(1000));
    expect(takeAll(m, "replicaset", 1000)).toEqual(takeAll(l, "replicaset", 1000));
  });
});

describe("tokensDueAt", () => {
  it("waits for the tokens of the writes still wanted, a second's worth at most", () => {
    expect(tokensDueAt(1000, 1)).toBe(1000);
    expect(tokensDueAt(1000, 5)).toBe(1200);
    expect(tokensDueAt(1000, 20)).toBe(1950);
    expect(tokensDueAt(1000, 500)).toBe(1950);
    expect(tokensDueAt(1000, 0)).toBe(1000);
  });
});
