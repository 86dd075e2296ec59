// How the REST surface reaches a cluster. A host runs one request at a time per cluster (as for
// a terminal command), ticks the cluster's clock, answers with serveKube, checks the tenant's
// limits and persists the changes before the answer leaves; watches ride the host's live channel.
//
// The ClusterHost interface (src/runtime/host.ts) has no such call yet. Until it does, this file
// adapts the Node host by its serialisation internals (kubeBackendFor) — the runtime owner should
// move `nodeKube` into NodeClusterHost as public `kube()`/`kubeWatch()` methods and give the
// Durable Object the same two (serveKube in the object, the watch over its hibernatable channel).

import type { ClusterCore, LiveMessage } from "../runtime/core.js";
import { LimitError } from "../runtime/core.js";
import type { ClusterHost } from "../runtime/host.js";
import type { Limits } from "../runtime/limits.js";
import { errorResponse, type KubeRequest, type KubeResponse, serveKube, statusResponse } from "./serve.js";
import { type WatchPlan, watchPlan, WatchStream } from "./watch.js";

export interface KubeWatch {
  /** Stops the watch (client gone, timeout). */
  stop(): void;
}

export interface KubeBackend {
  request(id: string, req: KubeRequest, limits: Limits): Promise<KubeResponse>;
  /**
   * Starts a watch: the first answer is either an error (plan refused) or the stream, whose lines
   * go to `emit` until `end` is called (cluster gone, too old resourceVersion).
   */
  watch(id: string, req: KubeRequest, limits: Limits, emit: (line: string) => void, end: () => void): Promise<KubeResponse | KubeWatch>;
}

/** A host that serves the Kubernetes API itself (the shape the runtime may adopt). */
interface KubeCapableHost {
  kube(id: string, req: KubeRequest, limits: Limits): Promise<KubeResponse>;
  kubeWatch(id: string, req: KubeRequest, limits: Limits, emit: (line: string) => void, end: () => void): Promise<KubeResponse | KubeWatch>;
}

/** NodeClusterHost's members this adapter relies on (private there: see the note at the top). */
interface NodeInternals {
  serial<T>(id: string, fn: (s: { core?: ClusterCore }) => Promise<T>): Promise<T>;
  load(id: string, s: { core?: ClusterCore }): Promise<ClusterCore>;
  persist(id: string, s: { core?: ClusterCore }, core: ClusterCore): Promise<void>;
  now: () => number;
  subscribe(id: string, since: number | undefined, send: (m: LiveMessage) => void): Promise<() => void>;
}

function isNodeHost(h: unknown): h is NodeInternals {
  const x = h as Partial<Record<keyof NodeInternals, unknown>>;
  return typeof x.serial === "function" && typeof x.load === "function" && typeof x.persist === "function" && typeof x.subscribe === "function" && typeof x.now === "function";
}

/** The backend for `host`, or undefined if it cannot serve the Kubernetes API. */
export function kubeBackendFor(host: ClusterHost): KubeBackend | undefined {
  const k = host as Partial<KubeCapableHost>;
  if (typeof k.kube === "function" && typeof k.kubeWatch === "function") {
    return { request: (id, req, limits) => k.kube!(id, req, limits), watch: (id, req, limits, emit, end) => k.kubeWatch!(id, req, limits, emit, end) };
  }
  if (isNodeHost(host)) return nodeKube(host);
  return undefined;
}

/** One request on the Node host: serialised, the clock brought to now, limits checked, persisted. */
export function nodeKube(h: NodeInternals): KubeBackend {
  return {
    request: (id, req, limits) =>
      h.serial(id, async (s) => {
        const core = await h.load(id, s);
        const now = h.now();
        core.tick(now);
        core.touch(now);
        const res = serveKube(core.cluster, req);
        try {
          if (res.status < 300 && req.method !== "GET") core.checkLimits(limits);
          await h.persist(id, s, core);
        } catch (e) {
          // Not acknowledged: the cluster is rebuilt from its rows on the next call.
          s.core = undefined;
          if (e instanceof LimitError) return statusResponse(e.toStatus().status);
          throw e;
        }
        return res;
      }),
    watch: async (id, req, _limits, emit, end) => {
      let plan: WatchPlan;
      let now: () => number = h.now;
      try {
        plan = await h.serial(id, async (s) => {
          const core = await h.load(id, s);
          now = () => core.cluster.now();
          return watchPlan(core.cluster, req);
        });
      } catch (e) {
        return errorResponse(e);
      }
      const stream = new WatchStream(plan, () => now());
      let stopped = false;
      let unsubscribe: (() => void) | undefined;
      const send = (m: LiveMessage) => {
        if (stopped) return;
        for (const line of stream.onMessage(m)) emit(line);
        if (stream.done) {
          stopped = true;
          queueMicrotask(() => unsubscribe?.());
          end();
        }
      };
      unsubscribe = await h.subscribe(id, plan.since, send);
      if (stopped) unsubscribe();
      return {
        stop() {
          if (stopped) return;
          stopped = true;
          unsubscribe?.();
        },
      };
    },
  };
}
