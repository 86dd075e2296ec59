// kubectl rollout status (pkg/cmd/rollout/rollout_status.go, polymorphichelpers' status viewers).

import type { DaemonSet, Deployment, KObject, StatefulSet } from "../../../engine/api/types.js";
import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import type { Out } from "../out.js";
import { get } from "../targets.js";
import { parseDuration, pause, quietMs, timeNow } from "../waiting.js";
import { checkWorkload, rolloutCommand } from "./rollout.js";

export const rolloutStatusCommand = rolloutCommand("status", [f("revision", "int"), f("timeout", "string"), f("watch", "bool", "w")], async (t, o, ctx, out) => {
  checkWorkload(t, "viewer");
  await rolloutStatus(t.info, t.ns, t.name, o.p, ctx, out);
});

/**
 * Prints each new status until the rollout is done. kubectl's --timeout defaults to 0, no
 * timeout: it waits until Ctrl-C. A simulated clock's script (tests) gives up after 10 minutes.
 */
async function rolloutStatus(info: ResourceInfo, ns: string, name: string, p: Parsed, ctx: KubectlContext, o: Out): Promise<void> {
  const timeout = parseDuration(str(p, "timeout"), 0) || (quietMs(ctx) !== undefined ? 600_000 : Infinity);
  const watch = p.flags.get("watch") !== false;
  const start = timeNow(ctx);
  let lastMsg = "";
  for (;;) {
    const obj = get(ctx, info, ns, name);
    const [msg, done] = statusMessage(info, obj);
    if (msg !== lastMsg) o.out(msg);
    lastMsg = msg;
    if (done || !watch) return;
    if (timeNow(ctx) - start >= timeout) throw new KubectlError("timed out waiting for the condition");
    if (!(await pause(ctx, 1000))) return;
  }
}

function statusMessage(info: ResourceInfo, obj: KObject): [string, boolean] {
  const n = obj.metadata.name;
  if (info === R.deployments) {
    const d = obj as Deployment;
    const st = d.status ?? {};
    if ((d.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) return [`Waiting for deployment spec update to be observed...\n`, false];
    const want = d.spec?.replicas ?? 1;
    const prog = (st.conditions ?? []).find((c) => c.type === "Progressing");
    if (prog?.reason === "ProgressDeadlineExceeded") throw new KubectlError(`deployment "${n}" exceeded its progress deadline`);
    if ((st.updatedReplicas ?? 0) < want) return [`Waiting for deployment "${n}" rollout to finish: ${st.updatedReplicas ?? 0} out of ${want} new replicas have been updated...\n`, false];
    if ((st.replicas ?? 0) > (st.updatedReplicas ?? 0)) return [`Waiting for deployment "${n}" rollout to finish: ${(st.replicas ?? 0) - (st.updatedReplicas ?? 0)} old replicas are pending termination...\n`, false];
    if ((st.availableReplicas ?? 0) < (st.updatedReplicas ?? 0)) return [`Waiting for deployment "${n}" rollout to finish: ${st.availableReplicas ?? 0} of ${st.updatedReplicas ?? 0} updated replicas are available...\n`, false];
    return [`deployment "${n}" successfully rolled out\n`, true];
  }
  if (info === R.daemonsets) {
    const d = obj as DaemonSet;
    const st = d.status ?? {};
    if ((d.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) return [`Waiting for daemon set spec update to be observed...\n`, false];
    const want = st.desiredNumberScheduled ?? 0;
    if ((st.updatedNumberScheduled ?? 0) < want) return [`Waiting for daemon set "${n}" rollout to finish: ${st.updatedNumberScheduled ?? 0} out of ${want} new pods have been updated...\n`, false];
    if ((st.numberAvailable ?? 0) < want) return [`Waiting for daemon set "${n}" rollout to finish: ${st.numberAvailable ?? 0} of ${want} updated pods are available...\n`, false];
    return [`daemon set "${n}" successfully rolled out\n`, true];
  }
  const d = obj as StatefulSet;
  const st = d.status ?? {};
  const want = d.spec?.replicas ?? 1;
  if ((st.readyReplicas ?? 0) < want) return [`Waiting for ${want - (st.readyReplicas ?? 0)} pods to be ready...\n`, false];
  return [`partitioned roll out complete: ${st.updatedReplicas ?? want} new pods have been updated...\n`, true];
}
