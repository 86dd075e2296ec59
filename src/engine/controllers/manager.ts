// Controllers are level-triggered: a store change queues keys, `reconcile(key)` compares what
// is wanted with what exists and writes the difference through the apiserver. The manager runs
// every queue to quiescence after each write, and fires timed requeues (pod start, readiness,
// graceful termination) as the cluster's clock passes them.

import { isQuotaExceeded } from "../api/status.js";
import type { ApiServer } from "../apiserver/apiserver.js";
import type { ManualClock } from "../clock.js";
import type { ClusterConfig } from "../config.js";
import type { RandomStreams } from "../rng.js";
import type { Store, StoreEvent } from "../store/store.js";
import { ClientRateLimits } from "./client-rate-limit.js";

export interface ControllerContext {
  readonly api: ApiServer;
  readonly store: Store;
  readonly clock: ManualClock;
  readonly rng: RandomStreams;
  readonly config: ClusterConfig;
  /** Queue `key` of the calling controller again at clock time `atMs`. */
  requeueAt(controller: Controller, key: string, atMs: number): void;
  /**
   * Takes a token of the calling controller's client rate limit for one write (see
   * ClientRateLimits): undefined when taken, else the clock time to retry the write at.
   */
  takeToken(controller: Controller): number | undefined;
}

export interface Controller {
  readonly name: string;
  /** Keys of this controller that a store change affects. */
  watch(ev: StoreEvent, enqueue: (key: string) => void): void;
  /**
   * Whether `watch` looks at events of this resource at all (asked once per resource; without
   * it, every store event is passed). Most store writes are Events that few controllers read.
   */
  watches?(resource: string): boolean;
  reconcile(key: string): void;
  /**
   * The manager its writes are recorded under in managedFields: the component's user agent's
   * first word (kubelet, kube-scheduler, MetalLB's `controller`); kube-controller-manager if unset.
   */
  readonly fieldManager?: string;
  /** Every key, for the first pass after start or restore. */
  initialKeys?(): Iterable<string>;
}

interface Watcher {
  c: Controller;
  watch: Controller["watch"];
  enqueue: (key: string) => void;
}

interface Timer {
  at: number;
  seq: number;
  controller: Controller;
  key: string;
}

/** A reconcile budget per settle: a loop that does not quiesce is a bug and says so. */
const MAX_RECONCILES = 1_000_000;
/** The workqueue's per-item back-off after a failed sync (DefaultControllerRateLimiter): 5 ms doubling to 1000 s. */
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 1_000_000;

/** The user agent (and so the field manager) of the controllers kube-controller-manager runs. */
const CONTROLLER_MANAGER = "kube-controller-manager";

export class ControllerManager {
  private readonly controllers: Controller[] = [];
  private readonly queues = new Map<Controller, Set<string>>();
  /**
   * Each controller with its queue's add, made once: a store event allocates no closures. The
   * watch method is kept on the record (one shape for all), so the per-event call site does not
   * load it from fourteen controller classes.
   */
  private readonly watchers: Watcher[] = [];
  /** The watchers of each resource, in the order controllers were added (made on first use). */
  private readonly routes = new Map<string, Watcher[]>();
  private readonly timers: Timer[] = [];
  /**
   * (controller, key, at) of pending timers: the same requeue is armed once. By controller, then
   * key, then times: no joined string to build and hash per requeue (thousands per scale step).
   */
  private readonly armed = new Map<Controller, Map<string, number[]>>();
  private seq = 0;
  private settling = false;
  /** Each controller's client token bucket (kube-api-qps, kube-api-burst). */
  readonly rateLimits = new ClientRateLimits();
  /** Failed syncs in a row, by controller and key (see failed); cleared by a sync that succeeds. */
  private readonly failures = new Map<Controller, Map<string, number>>();
  /** Reconciles run so far, for tests and benchmarks. */
  reconciles = 0;
  /**
   * Set while controllers run: their writes come from the cluster itself, so the apiserver may
   * skip decoding them (they are built from stored, typed objects).
   */
  trustScope?: { trusted: boolean; manager: string | undefined };

  constructor(
    store: Store,
    readonly clock: ManualClock,
  ) {
    store.subscribe((ev) => this.onEvent(ev));
  }

  add(c: Controller): void {
    this.controllers.push(c);
    const q = new Set<string>();
    this.queues.set(c, q);
    this.watchers.push({ c, watch: c.watch, enqueue: (key) => q.add(key) });
    this.routes.clear();
  }

  enqueue(c: Controller, key: string): void {
    this.queues.get(c)!.add(key);
  }

  /** Queue every controller's initial keys (after start or restore). */
  resyncAll(): void {
    for (const c of this.controllers) for (const k of c.initialKeys?.() ?? []) this.enqueue(c, k);
  }

  private onEvent(ev: StoreEvent): void {
    let route = this.routes.get(ev.resource);
    if (!route) {
      route = this.watchers.filter((w) => !w.c.watches || w.c.watches(ev.resource));
      this.routes.set(ev.resource, route);
    }
    for (const w of route) w.watch.call(w.c, ev, w.enqueue);
  }

  requeueAt(controller: Controller, key: string, atMs: number): void {
    if (atMs <= this.clock.now()) {
      this.enqueue(controller, key);
      return;
    }
    if (!this.arm(controller, key, atMs)) return;
    const t: Timer = { at: atMs, seq: this.seq++, controller, key };
    // Binary insertion keeps timers ordered by (at, seq): deterministic firing order.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.timers[mid];
      if (m.at < t.at || (m.at === t.at && m.seq < t.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, t);
  }

  /** Marks (c, key, at) armed; false if it already was. */
  private arm(c: Controller, key: string, at: number): boolean {
    let byKey = this.armed.get(c);
    if (!byKey) this.armed.set(c, (byKey = new Map()));
    const times = byKey.get(key);
    if (!times) {
      byKey.set(key, [at]);
      return true;
    }
    if (times.includes(at)) return false;
    times.push(at);
    return true;
  }

  private disarm(c: Controller, key: string, at: number): void {
    const byKey = this.armed.get(c);
    const times = byKey?.get(key);
    if (!byKey || !times) return;
    const i = times.indexOf(at);
    if (i >= 0) times.splice(i, 1);
    if (times.length === 0) byKey.delete(key);
  }

  /** Pending timers as data, in firing order: [at, controller name, key]. */
  saveTimers(): [number, string, string][] {
    return this.timers.map((t) => [t.at, t.controller.name, t.key]);
  }

  /**
   * Restores saved timers (before resyncAll), so that a restored cluster fires them in the
   * original order and replays exactly.
   */
  loadTimers(saved: readonly [number, string, string][]): void {
    const byName = new Map(this.controllers.map((c) => [c.name, c]));
    for (const [at, name, key] of saved) {
      const c = byName.get(name);
      if (c && this.arm(c, key, at)) {
        this.timers.push({ at, seq: this.seq++, controller: c, key });
      }
    }
  }

  /** The clock time of the next timed requeue, or undefined. */
  nextTimer(): number | undefined {
    return this.timers[0]?.at;
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** Runs every queue until none has work. */
  settle(): void {
    if (this.settling) return;
    this.settling = true;
    const scope = this.trustScope;
    const wasTrusted = scope?.trusted ?? false;
    const wasManager = scope?.manager;
    if (scope) scope.trusted = true;
    let budget = MAX_RECONCILES;
    try {
      for (;;) {
        let worked = false;
        for (const c of this.controllers) {
          const q = this.queues.get(c)!;
          if (q.size === 0) continue;
          const keys = [...q];
          q.clear();
          if (scope) scope.manager = c.fieldManager ?? CONTROLLER_MANAGER;
          for (const k of keys) {
            if (--budget < 0) {
              throw new Error(
                `controllers did not settle after ${MAX_RECONCILES} reconciles (still busy: ${this.busy().join(", ")})`,
              );
            }
            this.reconciles++;
            try {
              c.reconcile(k);
            } catch (e) {
              if (!isQuotaExceeded(e)) throw e;
              this.failed(c, k);
              continue;
            }
            if (this.failures.size) this.succeeded(c, k);
          }
          worked = true;
        }
        if (!worked) return;
      }
    } finally {
      this.settling = false;
      if (scope) {
        scope.trusted = wasTrusted;
        scope.manager = wasManager;
      }
    }
  }

  /**
   * A sync refused by the host's quota (a controller creating an object past objectsPerCluster):
   * as processNextWorkItem does with a sync's error, the key is requeued rate-limited (5 ms,
   * doubling to 1000 s) and the other keys go on.
   */
  private failed(c: Controller, key: string): void {
    let byKey = this.failures.get(c);
    if (!byKey) this.failures.set(c, (byKey = new Map()));
    const n = (byKey.get(key) ?? 0) + 1;
    byKey.set(key, n);
    this.requeueAt(c, key, this.clock.now() + Math.min(BACKOFF_BASE_MS * 2 ** (n - 1), BACKOFF_MAX_MS));
  }

  /** queue.Forget: a sync that succeeded starts the key's back-off over. */
  private succeeded(c: Controller, key: string): void {
    const byKey = this.failures.get(c);
    if (!byKey?.delete(key)) return;
    if (byKey.size === 0) this.failures.delete(c);
  }

  private busy(): string[] {
    return this.controllers.filter((c) => this.queues.get(c)!.size > 0).map((c) => c.name);
  }

  /** Moves the clock to `ms`, firing every timer on the way, settling after each instant. */
  advanceTo(ms: number): void {
    this.settle();
    while (this.timers.length && this.timers[0].at <= ms) {
      const at = this.timers[0].at;
      this.clock.set(at);
      while (this.timers.length && this.timers[0].at === at) {
        const t = this.timers.shift()!;
        this.disarm(t.controller, t.key, t.at);
        this.enqueue(t.controller, t.key);
      }
      this.settle();
    }
    this.clock.set(ms);
    this.settle();
  }
}
