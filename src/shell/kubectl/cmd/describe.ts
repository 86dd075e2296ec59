// kubectl describe (pkg/cmd/describe): the describers' text, with describe's name-prefix fallback.

import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import { describe } from "../../../kubectl/describe.js";
import { ENDPOINTS_WARNING, f, nsOf } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool, type Parsed } from "../flags.js";
import { get, list, resourceArgs } from "../targets.js";

interface DescribeOptions {
  args: string[];
  namespace: string;
  allNamespaces: boolean;
  /** The selectors. */
  p: Parsed;
}

export const describeCommand: KubectlCommand<DescribeOptions> = {
  name: "describe",
  flags: [f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("show-events", "bool"), f("filename", "array", "f")],
  complete(p, ctx) {
    if (!p.args.length) throw new KubectlError(`You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.`);
    return { args: p.args, namespace: nsOf(p, ctx), allNamespaces: bool(p, "all-namespaces"), p };
  },
  validate: noValidation,
  run(o, ctx, out) {
    const ns = o.namespace;
    const groups = resourceArgs(o.args, ctx);
    if (groups.some((g) => g.info === R.endpoints)) out.err(ENDPOINTS_WARNING);
    const src = { now: ctx.cluster.now(), list: (info: ResourceInfo, n: string | undefined) => list(ctx, info, n) };
    let first = true;
    for (const g of groups) {
      let objs: KObject[];
      if (g.names.length) {
        objs = [];
        for (const n of g.names) {
          try {
            objs.push(get(ctx, g.info, ns, n));
          } catch (e) {
            if (!isStatusError(e) || e.reason !== "NotFound") throw e;
            // describe falls back to name prefixes before giving up (DescribeMatchingResources),
            // and prints each match followed by a blank line.
            const pref = list(ctx, g.info, ns).filter((x) => x.metadata.name!.startsWith(n));
            if (!pref.length) throw e;
            for (const x of pref) out.out(describe(g.info, x, src) + "\n");
          }
        }
      } else {
        objs = list(ctx, g.info, o.allNamespaces ? undefined : ns, o.p);
        if (!objs.length) {
          out.err(`No resources found in ${ns} namespace.\n`);
          continue;
        }
      }
      // One describer's text after another, two blank lines apart.
      for (const obj of objs) {
        out.out((first ? "" : "\n\n") + describe(g.info, obj, src));
        first = false;
      }
    }
  },
};
