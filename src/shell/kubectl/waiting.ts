// Waiting as kubectl waits: on the command line's time (src/shell/time.ts: real time on a host,
// simulated in tests), the cluster following it; a stopped line (Ctrl-C) ends the wait.

import { R } from "../../engine/api/resources.js";
import type { Pod } from "../../engine/api/types.js";
import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { get } from "./targets.js";

export function parseDuration(s: string | undefined, def: number): number {
  if (!s) return def;
  let ms = 0;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let m: RegExpExecArray | null;
  let any = false;
  while ((m = re.exec(s))) {
    any = true;
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as "ms" | "s" | "m" | "h"];
  }
  if (!any && /^\d+$/.test(s)) return Number(s) * 1000;
  return any ? ms : def;
}

/**
 * Waits `ms` on the line's time and brings the cluster up to it; false when the line was stopped
 * (the caller ends with what it printed). Without a line's time the cluster's own clock moves.
 */
export async function pause(ctx: KubectlContext, ms: number): Promise<boolean> {
  if (ctx.time) return ctx.time.wait(ms, ctx.commandSignal);
  ctx.cluster.advance(ms);
  return true;
}

/** The line's time now (the cluster's, without a line's time). */
export function timeNow(ctx: KubectlContext): number {
  return ctx.time?.now() ?? ctx.cluster.now();
}

/** Whether the line's time is simulated (a test's script: it ends waits that have no end of their own). */
export function quietMs(ctx: KubectlContext): number | undefined {
  return ctx.time ? ctx.time.quietMs : 45_000;
}

/**
 * Waits for the pod's container to run (kubectl run -i), or to have run when `finishedIsStarted`
 * (its logs then stand for its output); undefined when the line was stopped. kubectl gives up
 * after --pod-running-timeout, 1m0s.
 */
export async function waitRunning(ctx: KubectlContext, ns: string, name: string, finishedIsStarted = false): Promise<Pod | undefined> {
  for (let i = 0; i < 120; i++) {
    const pod = get(ctx, R.pods, ns, name) as Pod;
    if (ctx.cluster.kubelet.containerState(pod) === "running") return pod;
    const finished = pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded";
    if (finished && finishedIsStarted) return pod;
    if (finished) throw new KubectlError(`pod ${ns}/${name} terminated (${pod.status!.phase})`);
    if (!(await pause(ctx, 500))) return undefined;
  }
  throw new KubectlError(`timed out waiting for the condition`);
}
