// How the REST surface reaches a cluster. A host runs one request at a time per cluster (as for
// a terminal command), ticks the cluster's clock, answers with serveKube, checks the tenant's
// limits and persists the changes before the answer leaves; watches ride the host's live channel.
//
// The Node host offers this through its public `operate`/`read`/`subscribe` (NodeClusterHost);
// the Workers host implements `kube`/`kubeWatch` itself (serveKube in the cluster's Durable
// Object, watches over the object's live WebSocket), sharing streamWatch below.

import type { ClusterCore, LiveMessage } from "../runtime/core.js";
import type { ClusterHost } from "../runtime/host.js";
import { type Limits, quotaOf } from "../runtime/limits.js";
import { errorResponse, type KubeRequest, type KubeResponse, serveKube } from "./serve.js";
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

/** What a host offers for serving the Kubernetes API: NodeClusterHost's public operations. */
interface OperatingHost {
  operate<T>(id: string, limits: Limits, fn: (core: ClusterCore) => T, writes: (result: T) => boolean): Promise<T>;
  read<T>(id: string, fn: (core: ClusterCore) => T): Promise<T>;
  wallClock(): number;
  subscribe(id: string, since: number | undefined, send: (m: LiveMessage) => void): Promise<() => void>;
}

function isOperatingHost(h: unknown): h is OperatingHost {
  const x = h as Partial<Record<keyof OperatingHost, unknown>>;
  return typeof x.operate === "function" && typeof x.read === "function" && typeof x.wallClock === "function" && typeof x.subscribe === "function";
}

/** The backend for `host`, or undefined if it cannot serve the Kubernetes API. */
export function kubeBackendFor(host: ClusterHost): KubeBackend | undefined {
  const k = host as Partial<KubeCapableHost>;
  if (typeof k.kube === "function" && typeof k.kubeWatch === "function") {
    return { request: (id, req, limits) => k.kube!(id, req, limits), watch: (id, req, limits, emit, end) => k.kubeWatch!(id, req, limits, emit, end) };
  }
  if (isOperatingHost(host)) return nodeKube(host);
  return undefined;
}

/** Whether a REST answer wrote (the tenant's object and pod limits are checked then). */
export function kubeWrites(req: KubeRequest, res: KubeResponse): boolean {
  return res.status < 300 && req.method !== "GET";
}

/**
 * A watch fed by a live channel: `subscribe` delivers the channel's messages from revision
 * `plan.since` (or a reset), and each becomes watch lines until the watch is stopped or done.
 */
export async function streamWatch(
  plan: WatchPlan,
  now: () => number,
  subscribe: (since: number | undefined, send: (m: LiveMessage) => void) => Promise<() => void>,
  emit: (line: string) => void,
  end: () => void,
): Promise<KubeWatch> {
  const stream = new WatchStream(plan, now);
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
  unsubscribe = await subscribe(plan.since, send);
  if (stopped) unsubscribe();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
    },
  };
}

/** One request on the Node host: serialised, the clock brought to now, limits checked, persisted. */
export function nodeKube(h: OperatingHost): KubeBackend {
  return {
    request: async (id, req, limits) => {
      try {
        const serve = (core: ClusterCore) => {
          // The tenant's limits are the apiserver's quota, as for a terminal command.
          core.cluster.setQuota(quotaOf(limits));
          return serveKube(core.cluster, req);
        };
        return await h.operate(id, limits, serve, (res) => kubeWrites(req, res));
      } catch (e) {
        // Not acknowledged (the host dropped the in-memory cluster): the apiserver's Status.
        return errorResponse(e);
      }
    },
    watch: async (id, req, _limits, emit, end) => {
      let plan: WatchPlan;
      let now: () => number = () => h.wallClock();
      try {
        plan = await h.read(id, (core) => {
          now = () => core.cluster.now();
          return watchPlan(core.cluster, req);
        });
      } catch (e) {
        return errorResponse(e);
      }
      return streamWatch(plan, () => now(), (since, send) => h.subscribe(id, since, send), emit, end);
    },
  };
}
