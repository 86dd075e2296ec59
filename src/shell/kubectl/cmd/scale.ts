// kubectl scale (pkg/cmd/scale).

import type { Deployment, KObject, ReplicaSet, ReplicationController, StatefulSet } from "../../../engine/api/types.js";
import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { isInt32, scaleOf, scaleReplicasInvalid } from "../../../engine/api/scale.js";
import { isStatusError, StatusError } from "../../../engine/api/status.js";
import { dryRun, type DryRunStrategy, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError, serverError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { printResult } from "../print.js";
import { get, oneTarget } from "../targets.js";

/** What scale works on (the others are refused before their spec is read). */
type Scalable = Deployment | ReplicaSet | StatefulSet | ReplicationController;

interface ScaleOptions {
  replicas: number;
  /** --current-replicas: the scaler's precondition (-1: none). */
  currentReplicas: number;
  dryRun: DryRunStrategy;
  /** The resource arguments and printing flags. */
  p: Parsed;
}

export const scaleCommand: KubectlCommand<ScaleOptions> = {
  name: "scale",
  flags: [...OUTPUT_FLAGS, f("replicas", "int"), f("current-replicas", "int"), f("resource-version", "string"), f("selector", "string", "l"), f("all", "bool"), f("timeout", "string")],
  required: ["replicas"],
  complete: (p) => ({ dryRun: dryRun(p), replicas: Number(str(p, "replicas")), currentReplicas: Number(str(p, "current-replicas") ?? -1), p }),
  validate(o) {
    if (o.replicas < 0) throw new KubectlError("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
  },
  run(o, ctx, out) {
    // The builder continues on errors: the objects found are scaled, the lookups that failed are
    // reported at the end, and with nothing found the command says there was nothing to scale.
    const found: { info: ResourceInfo; ns: string; name: string; obj: Scalable }[] = [];
    const missing: StatusError[] = [];
    for (const t of oneTarget(o.p, ctx)) {
      try {
        found.push({ ...t, obj: get<Scalable>(ctx, t.info, t.ns, t.name) });
      } catch (e) {
        if (!isStatusError(e) || e.reason !== "NotFound") throw e;
        missing.push(e);
      }
    }
    if (!found.length && missing.length) {
      const msgs = missing.map((e) => e.message);
      throw new KubectlError(`no objects passed to scale ${msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`}`);
    }
    for (const t of found) {
      if (![R.deployments, R.replicasets, R.statefulsets, R.replicationcontrollers].includes(t.info)) throw new KubectlError(`cannot scale a ${t.info.kind}`);
      if (o.currentReplicas >= 0) {
        // The scaler's precondition, checked against the object before the write.
        const was = t.obj.spec?.replicas ?? 1;
        if (was !== o.currentReplicas) throw new KubectlError(`Expected replicas to be ${o.currentReplicas}, was ${was}`);
      }
      // kubectl's --replicas is an int, the Scale's replicas an int32: the scaler's merge patch of
      // the scale subresource is refused as the apiserver refuses it, before anything changes.
      const replicas = o.replicas;
      if (!isInt32(replicas)) {
        const patched = scaleOf(t.info, t.obj as KObject);
        patched.spec = { replicas };
        throw scaleReplicasInvalid(patched);
      }
      // A dry run (either) is the apiserver's: nothing is written, the object shows what would be.
      const obj = ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { spec: { replicas } }, { dryRun: o.dryRun !== "none", fieldManager: "kubectl", subresource: "scale" });
      printResult(t.info, obj, o.p, out, "scaled");
    }
    if (missing.length) throw new KubectlError(missing.map((e) => serverError(e)).join("\n"));
  },
};
