// Waiting on the cluster's clock: durations as kubectl's flags take them, a pod until it runs.

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

export function waitRunning(ctx: KubectlContext, ns: string, name: string): Pod {
  for (let i = 0; i < 600; i++) {
    const pod = get(ctx, R.pods, ns, name) as Pod;
    if (ctx.cluster.kubelet.containerState(pod) === "running") return pod;
    if (pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded") throw new KubectlError(`pod ${ns}/${name} terminated (${pod.status.phase})`);
    ctx.cluster.advance(500);
  }
  throw new KubectlError(`timed out waiting for the condition`);
}
