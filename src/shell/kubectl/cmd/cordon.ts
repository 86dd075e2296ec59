// kubectl cordon / uncordon (pkg/cmd/drain).

import type { Node } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { dryRun, f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { objRef } from "../resources.js";
import { get, list } from "../targets.js";

/**
 * kubectl cordon / uncordon NODE... (drain.go's RunCordonOrUncordon): spec.unschedulable
 * patched when it differs ("cordoned", "uncordoned"), left when it does not ("already ...").
 * The node lifecycle controller adds or removes the unschedulable taint after.
 */
export function cmdCordon(argv: string[], ctx: KubectlContext, o: Out, desired: boolean): void {
  const verb = desired ? "cordon" : "uncordon";
  const p = parseFlags(argv, [f("dry-run", "string"), f("selector", "string", "l")], `kubectl ${verb}`);
  const sel = str(p, "selector");
  if (!p.args.length && !sel) throw new KubectlError(`USAGE: ${verb} NODE [flags]\nSee 'kubectl ${verb} -h' for help and examples`);
  const nodes = sel ? list<Node>(ctx, R.nodes, undefined, p) : p.args.map((n) => get<Node>(ctx, R.nodes, "", n));
  const dry = dryRun(p);
  const suffix = dry === "none" ? "" : dry === "server" ? " (server dry run)" : " (dry run)";
  for (const node of nodes) {
    const name = node.metadata.name!;
    const ref = objRef(R.nodes, name);
    if (Boolean(node.spec?.unschedulable) === desired) {
      o.out(`${ref} already ${verb}ed${suffix}\n`);
      continue;
    }
    if (dry !== "client") ctx.cluster.client.patch(R.nodes, undefined, name, "strategic", { spec: { unschedulable: desired ? true : null } }, dry === "server" ? { dryRun: true } : undefined);
    o.out(`${ref} ${verb}ed${suffix}\n`);
  }
}
