// kubectl set (pkg/cmd/set): its subcommands, and set image.

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, notInServiceLab } from "../errors.js";
import { parseFlags } from "../flags.js";
import { Out } from "../out.js";
import { podSpecOf } from "../pods.js";
import { printResult } from "../print.js";
import { get, oneTarget } from "../targets.js";
import { cmdSetEnv } from "./set-env.js";

export function cmdSet(argv: string[], ctx: KubectlContext, o: Out): void {
  if (argv[0] === "env") return cmdSetEnv(argv.slice(1), ctx, o);
  if (argv[0] !== "image") throw notInServiceLab(`kubectl set ${argv[0]}`);
  const p = parseFlags(argv.slice(1), [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("record", "bool")], "kubectl set image");
  const assigns = p.args.filter((a) => a.includes("="));
  p.args = p.args.filter((a) => !a.includes("="));
  for (const t of oneTarget(p, ctx, "set image")) {
    const spec = podSpecOf(t.info, get(ctx, t.info, t.ns, t.name));
    const containers: { name: string; image?: string }[] = (spec?.containers ?? []).map((c) => ({ name: c.name }));
    let any = false;
    for (const a of assigns) {
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
    const after = ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", patch);
    printResult(t.info, after, p, o, "image updated");
  }
}
