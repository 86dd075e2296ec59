// kubectl label and kubectl annotate (pkg/cmd/label, pkg/cmd/annotate): one command on two fields.

import type { ResourceInfo } from "../../../engine/api/resources.js";
import { dryRun, type DryRunStrategy, f, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, bool, type Parsed, str } from "../flags.js";
import { printResult } from "../print.js";
import { get, list, resourceArgs } from "../targets.js";

interface LabelOptions {
  /** The words naming resources (the others are the updates). */
  resources: string[];
  filenames: string[];
  /** Key to new value, or null to remove it (KEY-). */
  updates: Record<string, string | null>;
  list: boolean;
  overwrite: boolean;
  dryRun: DryRunStrategy;
  /** The selector, namespace and printing flags. */
  p: Parsed;
}

function labelCommand(field: "labels" | "annotations"): KubectlCommand<LabelOptions> {
  const singular = field === "labels" ? "label" : "annotation";
  return {
    name: field === "labels" ? "label" : "annotate",
    flags: [...OUTPUT_FLAGS, f("overwrite", "bool"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("list", "bool"), f("resource-version", "string"), f("local", "bool"), f("filename", "array", "f")],
    complete(p) {
      const dry = dryRun(p);
      const changes = p.args.filter((a) => a.includes("=") || a.endsWith("-"));
      const updates: Record<string, string | null> = {};
      for (const c of changes) {
        if (c.endsWith("-") && !c.includes("=")) updates[c.slice(0, -1)] = null;
        else {
          const i = c.indexOf("=");
          updates[c.slice(0, i)] = c.slice(i + 1);
        }
      }
      const resources = p.args.filter((a) => !changes.includes(a));
      return { resources, filenames: arr(p, "filename"), updates, list: bool(p, "list"), overwrite: bool(p, "overwrite"), dryRun: dry, p };
    },
    // The resources first, then the updates.
    validate(o) {
      if (!o.resources.length && !o.filenames.length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
      if (!Object.keys(o.updates).length && !o.list) throw new KubectlError(`at least one ${singular} update is required`);
    },
    run(o, ctx, out) {
      const p = o.p;
      const targets: { info: ResourceInfo; name: string; ns: string }[] = [];
      for (const g of resourceArgs(o.resources, ctx)) {
        if (g.names.length) for (const n of g.names) targets.push({ info: g.info, name: n, ns: nsOf(p, ctx) });
        else if (bool(p, "all") || str(p, "selector")) for (const obj of list(ctx, g.info, nsOf(p, ctx), p)) targets.push({ info: g.info, name: obj.metadata.name!, ns: obj.metadata.namespace ?? "" });
      }
      if (!targets.length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
      for (const t of targets) {
        const obj = get(ctx, t.info, t.ns, t.name);
        const cur = (obj.metadata[field] ?? {}) as Record<string, string>;
        if (o.list) {
          for (const k of Object.keys(cur).sort()) out.out(`${k}=${cur[k]}\n`);
          continue;
        }
        let changed = false;
        for (const [k, v] of Object.entries(o.updates)) {
          if (v !== null && k in cur && cur[k] !== v && !o.overwrite) {
            throw new KubectlError(`'${k}' already has a value (${cur[k]}), and --overwrite is false`);
          }
          if (v === null ? k in cur : cur[k] !== v) changed = true;
        }
        const after = changed ? ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { metadata: { [field]: o.updates } }, { dryRun: o.dryRun !== "none", fieldManager: field === "labels" ? "kubectl-label" : "kubectl-annotate" }) : obj;
        const verb = field === "labels" ? "labeled" : "annotated";
        printResult(t.info, after, p, out, changed ? verb : `not ${verb}`);
      }
    },
  };
}

export const label = labelCommand("labels");
export const annotate = labelCommand("annotations");
