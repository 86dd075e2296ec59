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
import { followNext, followStart, type LogCursor } from "./logs.js";
import { streamPlan, type StreamPlan } from "./remotecommand.js";
import type { ExecResult } from "../runtime/shell.js";

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
  /** pods/log?follow=true: as watch, the container's text instead of events. */
  follow(id: string, req: KubeRequest, limits: Limits, emit: (text: string) => void, end: () => void): Promise<KubeResponse | KubeWatch>;
  /** pods/exec, pods/attach: the request checked in the cluster, or the Status it gets. */
  streamPlan(id: string, req: KubeRequest, limits: Limits): Promise<StreamPlan | KubeResponse>;
  /** One command of an exec stream in the pod's container (undefined: the container stopped). */
  podExec(id: string, plan: StreamPlan, argv: string[], stdin: string, limits: Limits, signal?: AbortSignal): Promise<ExecResult | undefined>;
}

/** A host that serves the Kubernetes API itself (the shape the runtime may adopt). */
interface KubeCapableHost {
  kube(id: string, req: KubeRequest, limits: Limits): Promise<KubeResponse>;
  kubeWatch(id: string, req: KubeRequest, limits: Limits, emit: (line: string) => void, end: () => void): Promise<KubeResponse | KubeWatch>;
  kubeFollow(id: string, req: KubeRequest, limits: Limits, emit: (text: string) => void, end: () => void): Promise<KubeResponse | KubeWatch>;
  kubeStreamPlan(id: string, req: KubeRequest, limits: Limits): Promise<StreamPlan | KubeResponse>;
  kubePodExec(id: string, plan: StreamPlan, argv: string[], stdin: string, limits: Limits): Promise<ExecResult | undefined>;
}

/** What a host offers for serving the Kubernetes API: NodeClusterHost's public operations. */
interface OperatingHost {
  operate<T>(id: string, limits: Limits, fn: (core: ClusterCore) => T | Promise<T>, writes: (result: T) => boolean): Promise<T>;
  read<T>(id: string, fn: (core: ClusterCore) => T): Promise<T>;
  wallClock(): number;
  subscribe(id: string, since: number | undefined, send: (m: LiveMessage) => void): Promise<() => void>;
  /** Gives the event loop to other clusters' requests during a long command (src/runtime/budget.ts). */
  yieldTo?: () => Promise<void>;
}

function isOperatingHost(h: unknown): h is OperatingHost {
  const x = h as Partial<Record<keyof OperatingHost, unknown>>;
  return typeof x.operate === "function" && typeof x.read === "function" && typeof x.wallClock === "function" && typeof x.subscribe === "function";
}

/** The backend for `host`, or undefined if it cannot serve the Kubernetes API. */
export function kubeBackendFor(host: ClusterHost): KubeBackend | undefined {
  const k = host as Partial<KubeCapableHost>;
  if (typeof k.kube === "function" && typeof k.kubeWatch === "function" && typeof k.kubeFollow === "function" && typeof k.kubeStreamPlan === "function" && typeof k.kubePodExec === "function") {
    return {
      request: (id, req, limits) => k.kube!(id, req, limits),
      watch: (id, req, limits, emit, end) => k.kubeWatch!(id, req, limits, emit, end),
      follow: (id, req, limits, emit, end) => k.kubeFollow!(id, req, limits, emit, end),
      streamPlan: (id, req, limits) => k.kubeStreamPlan!(id, req, limits),
      podExec: (id, plan, argv, stdin, limits) => k.kubePodExec!(id, plan, argv, stdin, limits),
    };
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

/** Where a log follower stands, and what it reads next (in the cluster's host). */
export interface FollowStep {
  text: string;
  cursor: LogCursor;
  ended: boolean;
}

/**
 * A followed log fed by a live channel: after each acknowledged change (the only moments a
 * container writes), the lines since the cursor, one read at a time, until the container
 * instance stops or the follower is stopped.
 */
export async function streamFollow(
  first: FollowStep,
  next: (cursor: LogCursor) => Promise<FollowStep>,
  subscribe: (send: (m: LiveMessage) => void) => Promise<() => void>,
  emit: (text: string) => void,
  end: () => void,
): Promise<KubeWatch> {
  let cursor = first.cursor;
  let stopped = false;
  let reading = false;
  let again = false;
  let unsubscribe: (() => void) | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    unsubscribe?.();
  };
  const finish = () => {
    if (stopped) return;
    stop();
    end();
  };
  if (first.text) emit(first.text);
  if (first.ended) {
    queueMicrotask(finish);
    return { stop };
  }
  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const step = await next(cursor);
        if (stopped) return;
        cursor = step.cursor;
        if (step.text) emit(step.text);
        if (step.ended) return finish();
      } while (again && !stopped);
    } catch {
      finish();
    } finally {
      reading = false;
    }
  };
  unsubscribe = await subscribe((m) => {
    if (stopped) return;
    if (m.type === "gone") finish();
    else if (m.type !== "hello" && m.type !== "reset") void read();
  });
  if (stopped) unsubscribe();
  // Lines written between the first read and the subscription.
  else void read();
  return { stop };
}

/** One request on the Node host: serialised, the clock brought to now, limits checked, persisted. */
function nodeKube(h: OperatingHost): KubeBackend {
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
    follow: async (id, req, limits, emit, end) => {
      let first: FollowStep;
      try {
        first = await h.operate(id, limits, (core) => followStart(core.cluster, req), () => false);
      } catch (e) {
        return errorResponse(e);
      }
      return streamFollow(first, (cursor) => h.read(id, (core) => followNext(core.cluster, cursor)), (send) => h.subscribe(id, undefined, send), emit, end);
    },
    streamPlan: async (id, req, limits) => {
      try {
        return await h.operate(id, limits, (core) => streamPlan(core.cluster, req), () => false);
      } catch (e) {
        return errorResponse(e);
      }
    },
    podExec: (id, plan, argv, stdin, limits, signal) => h.operate(id, limits, (core) => core.podExec(plan, argv, stdin, h.wallClock(), limits, { signal, yieldTo: h.yieldTo }), () => false),
  };
}
