// kubectl scale (pkg/cmd/scale).

import type { Deployment, ReplicaSet, StatefulSet } from "../../../engine/api/types.js";
import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { isInt32, scaleOf, scaleReplicasInvalid } from "../../../engine/api/scale.js";
import { isStatusError, StatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, serverError } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { printResult } from "../print.js";
import { get, oneTarget } from "../targets.js";

/** What scale works on (the others are refused before their spec is read). */
type Scalable = Deployment | ReplicaSet | StatefulSet;

export function cmdScale(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("replicas", "int"), f("current-replicas", "int"), f("resource-version", "string"), f("selector", "string", "l"), f("all", "bool"), f("timeout", "string")], "kubectl scale");
  const r = str(p, "replicas");
  if (r === undefined) throw new KubectlError("required flag(s) \"replicas\" not set");
  if (Number(r) < 0) throw new KubectlError("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
  // The builder continues on errors: the objects found are scaled, the lookups that failed are
  // reported at the end, and with nothing found the command says there was nothing to scale.
  const found: { info: ResourceInfo; ns: string; name: string; obj: Scalable }[] = [];
  const missing: StatusError[] = [];
  for (const t of oneTarget(p, ctx, "scale")) {
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
    if (![R.deployments, R.replicasets, R.statefulsets].includes(t.info)) throw new KubectlError(`cannot scale a ${t.info.kind}`);
    const current = str(p, "current-replicas");
    if (current !== undefined && Number(current) >= 0) {
      // The scaler's precondition, checked against the object before the write.
      const was = t.obj.spec?.replicas ?? 1;
      if (was !== Number(current)) throw new KubectlError(`Expected replicas to be ${current}, was ${was}`);
    }
    // kubectl's --replicas is an int, the Scale's replicas an int32: the scaler's merge patch of
    // the scale subresource is refused as the apiserver refuses it, before anything changes.
    const replicas = Number(r);
    if (!isInt32(replicas)) {
      const patched = scaleOf(t.info, t.obj as KObject);
      patched.spec = { replicas };
      throw scaleReplicasInvalid(patched);
    }
    const obj = ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { spec: { replicas } });
    printResult(t.info, obj, p, o, "scaled");
  }
  if (missing.length) throw new KubectlError(missing.map((e) => serverError(e)).join("\n"));
}
