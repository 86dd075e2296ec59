// kubectl describe (pkg/cmd/describe): the describers' text, with describe's name-prefix fallback.

import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import { describe } from "../../../kubectl/describe.js";
import { ENDPOINTS_WARNING, f, nsOf } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, parseFlags } from "../flags.js";
import { Out } from "../out.js";
import { get, list, resourceArgs } from "../targets.js";

export function cmdDescribe(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("show-events", "bool"), f("filename", "array", "f")], "kubectl describe");
  if (!p.args.length) throw new KubectlError(`You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.`);
  const ns = nsOf(p, ctx);
  const all = bool(p, "all-namespaces");
  const groups = resourceArgs(p.args, ctx);
  if (groups.some((g) => g.info === R.endpoints)) o.err(ENDPOINTS_WARNING);
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
          for (const x of pref) o.out(describe(g.info, x, src) + "\n");
        }
      }
    } else {
      objs = list(ctx, g.info, all ? undefined : ns, p);
      if (!objs.length) {
        o.err(`No resources found in ${ns} namespace.\n`);
        continue;
      }
    }
    // One describer's text after another, two blank lines apart.
    for (const obj of objs) {
      o.out((first ? "" : "\n\n") + describe(g.info, obj, src));
      first = false;
    }
  }
}
