// kubectl label and kubectl annotate (pkg/cmd/label, pkg/cmd/annotate): one command on two fields.

import type { ResourceInfo } from "../../../engine/api/resources.js";
import { f, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { printResult } from "../print.js";
import { get, list, resourceArgs } from "../targets.js";

export function cmdLabel(argv: string[], ctx: KubectlContext, o: Out, field: "labels" | "annotations"): void {
  const cmd = field === "labels" ? "label" : "annotate";
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("overwrite", "bool"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("list", "bool"), f("resource-version", "string"), f("local", "bool"), f("filename", "array", "f")], `kubectl ${cmd}`);
  const changes = p.args.filter((a) => a.includes("=") || a.endsWith("-"));
  const resArgs = p.args.filter((a) => !changes.includes(a));
  // Validate: the resources first, then the updates.
  if (!resArgs.length && !arr(p, "filename").length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
  if (!changes.length && !bool(p, "list")) throw new KubectlError(`at least one ${field === "labels" ? "label" : "annotation"} update is required`);
  const set: Record<string, string | null> = {};
  for (const c of changes) {
    if (c.endsWith("-") && !c.includes("=")) set[c.slice(0, -1)] = null;
    else {
      const i = c.indexOf("=");
      set[c.slice(0, i)] = c.slice(i + 1);
    }
  }
  const targets: { info: ResourceInfo; name: string; ns: string }[] = [];
  const groups = resourceArgs(resArgs, ctx);
  for (const g of groups) {
    if (g.names.length) for (const n of g.names) targets.push({ info: g.info, name: n, ns: nsOf(p, ctx) });
    else if (bool(p, "all") || str(p, "selector")) for (const obj of list(ctx, g.info, nsOf(p, ctx), p)) targets.push({ info: g.info, name: obj.metadata.name!, ns: obj.metadata.namespace ?? "" });
  }
  if (!targets.length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
  for (const t of targets) {
    const obj = get(ctx, t.info, t.ns, t.name);
    const cur = (obj.metadata[field] ?? {}) as Record<string, string>;
    if (bool(p, "list")) {
      for (const k of Object.keys(cur).sort()) o.out(`${k}=${cur[k]}\n`);
      continue;
    }
    let changed = false;
    for (const [k, v] of Object.entries(set)) {
      if (v !== null && k in cur && cur[k] !== v && !bool(p, "overwrite")) {
        throw new KubectlError(`'${k}' already has a value (${cur[k]}), and --overwrite is false`);
      }
      if (v === null ? k in cur : cur[k] !== v) changed = true;
    }
    const after = changed ? ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { metadata: { [field]: set } }) : obj;
    const verb = field === "labels" ? "labeled" : "annotated";
    printResult(t.info, after, p, o, changed ? verb : `not ${verb}`);
  }
}
