// kubectl autoscale (pkg/cmd/autoscale).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { get, oneTarget } from "../targets.js";

interface AutoscaleOptions {
  max: string;
  min?: string;
  /** The resource arguments. */
  p: Parsed;
}

/**
 * `kubectl autoscale`: checked as kubectl checks it, then the HorizontalPodAutoscaler create,
 * which this cluster's apiserver does not serve (no autoscaling API): the 404 a real kubectl gets
 * from it.
 */
export const autoscaleCommand: KubectlCommand<AutoscaleOptions> = {
  name: "autoscale",
  flags: [...OUTPUT_FLAGS, f("max", "int"), f("min", "int"), f("cpu-percent", "int"), f("name", "string"), f("filename", "array", "f")],
  required: ["max"],
  complete: (p) => ({ max: str(p, "max")!, min: str(p, "min"), p }),
  validate(o) {
    if (o.min !== undefined && Number(o.min) > Number(o.max)) throw new KubectlError(`--max=MAXPODS must be larger or equal to --min=MINPODS, max: ${o.max}, min: ${o.min}`);
  },
  run(o, ctx) {
    for (const t of oneTarget(o.p, ctx)) {
      if (![R.deployments, R.replicasets, R.statefulsets].includes(t.info)) {
        throw new KubectlError(`cannot autoscale a ${t.info.kind}: could not find scale subresource for ${t.info.group}/${t.info.version}, Resource=${t.info.resource} in discovery information`);
      }
      get(ctx, t.info, t.ns, t.name);
      throw new KubectlError("Error from server (NotFound): the server could not find the requested resource");
    }
  },
};
