// kubectl cordon / uncordon (pkg/cmd/drain).

import type { Node } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { dryRun, type DryRunStrategy, f } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { str } from "../flags.js";
import { objRef } from "../resources.js";
import { get, list } from "../targets.js";

interface CordonOptions {
  nodes: Node[];
  dryRun: DryRunStrategy;
}

/**
 * kubectl cordon / uncordon NODE... (drain.go's RunCordonOrUncordon): spec.unschedulable
 * patched when it differs ("cordoned", "uncordoned"), left when it does not ("already ...").
 * The node lifecycle controller adds or removes the unschedulable taint after.
 */
function cordonCommand(desired: boolean): KubectlCommand<CordonOptions> {
  const verb = desired ? "cordon" : "uncordon";
  return {
    name: verb,
    flags: [f("dry-run", "string"), f("selector", "string", "l")],
    // drain.go's Complete finds the nodes (by name or selector) before anything runs.
    complete(p, ctx) {
      const sel = str(p, "selector");
      if (!p.args.length && !sel) throw new KubectlError(`USAGE: ${verb} NODE [flags]\nSee 'kubectl ${verb} -h' for help and examples`);
      const dry = dryRun(p);
      const nodes = sel ? list<Node>(ctx, R.nodes, undefined, p) : p.args.map((n) => get<Node>(ctx, R.nodes, "", n));
      return { nodes, dryRun: dry };
    },
    validate: noValidation,
    run(o, ctx, out) {
      const suffix = o.dryRun === "none" ? "" : o.dryRun === "server" ? " (server dry run)" : " (dry run)";
      for (const node of o.nodes) {
        const name = node.metadata.name!;
        const ref = objRef(R.nodes, name);
        if (Boolean(node.spec?.unschedulable) === desired) {
          out.out(`${ref} already ${verb}ed${suffix}\n`);
          continue;
        }
        if (o.dryRun !== "client") ctx.cluster.client.patch(R.nodes, undefined, name, "strategic", { spec: { unschedulable: desired ? true : null } }, o.dryRun === "server" ? { dryRun: true } : undefined);
        out.out(`${ref} ${verb}ed${suffix}\n`);
      }
    },
  };
}

export const cordon = cordonCommand(true);
export const uncordon = cordonCommand(false);
