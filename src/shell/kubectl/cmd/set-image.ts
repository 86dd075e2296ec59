// kubectl set image (pkg/cmd/set/set_image.go).

import { R } from "../../../engine/api/resources.js";
import { dryRun, type DryRunStrategy, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { podSpecOf } from "../pods.js";
import { printResult } from "../print.js";
import { get, oneTarget, type Target } from "../targets.js";

interface SetImageOptions {
  targets: Target[];
  /** CONTAINER=IMAGE, as given ("*" for every container). */
  assignments: string[];
  dryRun: DryRunStrategy;
  /** The printing flags. */
  p: Parsed;
}

export const setImageCommand: KubectlCommand<SetImageOptions> = {
  name: "set image",
  flags: [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("record", "bool")],
  // set_image.go's Complete: the words split into resources and images, the resources found.
  complete(p, ctx) {
    const dry = dryRun(p);
    const assignments = p.args.filter((a) => a.includes("="));
    const resources = { ...p, args: p.args.filter((a) => !a.includes("=")) };
    return { targets: oneTarget(resources, ctx), assignments, dryRun: dry, p };
  },
  validate: noValidation,
  run(o, ctx, out) {
    for (const t of o.targets) {
      const spec = podSpecOf(t.info, get(ctx, t.info, t.ns, t.name));
      const containers: { name: string; image?: string }[] = (spec?.containers ?? []).map((c) => ({ name: c.name }));
      let any = false;
      for (const a of o.assignments) {
        const [cname, image] = a.split("=");
        for (const c of containers) {
          if (cname === "*" || c.name === cname) {
            c.image = image;
            any = true;
          }
        }
        if (!any) throw new KubectlError(`unable to find container named "${cname}"`);
      }
      const patch = t.info === R.pods ? { spec: { containers } } : { spec: { template: { spec: { containers } } } };
      const after = ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", patch, { dryRun: o.dryRun !== "none", fieldManager: "kubectl-set" });
      printResult(t.info, after, o.p, out, "image updated");
    }
  },
};
