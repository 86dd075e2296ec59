// kubectl autoscale (pkg/cmd/autoscale).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { get, oneTarget } from "../targets.js";

/**
 * `kubectl autoscale`: checked as kubectl checks it, then the HorizontalPodAutoscaler create,
 * which this cluster's apiserver does not serve (no autoscaling API): the 404 a real kubectl gets
 * from it.
 */
export function cmdAutoscale(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("max", "int"), f("min", "int"), f("cpu-percent", "int"), f("name", "string"), f("filename", "array", "f")], "kubectl autoscale");
  void o;
  const max = str(p, "max");
  if (max === undefined) throw new KubectlError('required flag(s) "max" not set');
  const min = str(p, "min");
  if (min !== undefined && Number(min) > Number(max)) throw new KubectlError(`--max=MAXPODS must be larger or equal to --min=MINPODS, max: ${max}, min: ${min}`);
  for (const t of oneTarget(p, ctx, "autoscale")) {
    if (![R.deployments, R.replicasets, R.statefulsets].includes(t.info)) {
      throw new KubectlError(`cannot autoscale a ${t.info.kind}: could not find scale subresource for ${t.info.group}/${t.info.version}, Resource=${t.info.resource} in discovery information`);
    }
    get(ctx, t.info, t.ns, t.name);
    throw new KubectlError("Error from server (NotFound): the server could not find the requested resource");
  }
}
