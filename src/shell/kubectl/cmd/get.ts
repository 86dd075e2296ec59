// kubectl get (pkg/cmd/get): objects as tables or through a printer, by name, type or selector.

import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import { tableText } from "../../../kubectl/table.js";
import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { ENDPOINTS_WARNING, f, labelColumns, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, serverError } from "../errors.js";
import { bool, type Parsed, str } from "../flags.js";
import type { Out } from "../out.js";
import { outputFormat, printObjects, TemplateExecError } from "../print.js";
import { get, list, resourceArgs } from "../targets.js";
import { getRaw, validateRaw } from "./get-raw.js";
import { sortObjects } from "./get-sort.js";
import { getWatch } from "./get-watch.js";

const GET_FLAGS = [
  ...OUTPUT_FLAGS,
  f("all-namespaces", "bool", "A"),
  f("selector", "string", "l"),
  f("field-selector", "string"),
  f("show-labels", "bool"),
  f("no-headers", "bool"),
  f("watch", "bool", "w"),
  f("watch-only", "bool"),
  f("output-watch-events", "bool"),
  f("sort-by", "string"),
  f("label-columns", "array", "L"),
  f("ignore-not-found", "bool"),
  f("chunk-size", "string"),
  f("show-kind", "bool"),
  f("raw", "string"),
  f("filename", "array", "f"),
  f("recursive", "bool", "R"),
];

interface GetOptions {
  /** --raw PATH (then nothing else is read). */
  raw?: string;
  args: string[];
  namespace: string;
  allNamespaces: boolean;
  watch: boolean;
  selector?: string;
  output?: string;
  /** The flags the printers, selectors and watch read. */
  p: Parsed;
}

export const getCommand: KubectlCommand<GetOptions> = {
  name: "get",
  flags: GET_FLAGS,
  complete(p, ctx) {
    const raw = str(p, "raw") || undefined;
    if (raw && p.args.length) throw new KubectlError("arguments may not be passed when --raw is specified");
    if (!raw && !p.args.length) {
      throw new KubectlError(`You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse "kubectl explain <resource>" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples`, 1, { raw: true });
    }
    const watch = bool(p, "watch") || bool(p, "watch-only");
    return { raw, args: p.args, namespace: nsOf(p, ctx), allNamespaces: bool(p, "all-namespaces"), watch, selector: str(p, "selector"), output: str(p, "output"), p };
  },
  validate(o) {
    if (o.raw !== undefined) validateRaw(o.raw, o.watch || Boolean(o.selector), o.output);
  },
  run(o, ctx, out) {
    if (o.raw !== undefined) return getRaw(o.raw, ctx, out);
    return runGet(o, ctx, out);
  },
};

/** get.go's Run: the objects by name, type or selector, printed as a table or through -o. */
function runGet(o: GetOptions, ctx: KubectlContext, out: Out): void | Promise<void> {
  const { p, namespace: ns, allNamespaces: all } = o;
  const groups = resourceArgs(o.args, ctx, true);
  const isAll = o.args[0].split(",").includes("all");
  if (groups.some((g) => g.info === R.endpoints)) out.err(ENDPOINTS_WARNING);
  if (o.watch) return getWatch(p, groups, ctx, out, ns, all);
  // multipleGVKsRequested: the kind column only when more than one kind was asked for.
  const multi = new Set(groups.map((g) => g.info)).size > 1 || isAll || bool(p, "show-kind");
  const found: { info: ResourceInfo; obj: KObject }[] = [];
  const errors: string[] = [];
  const byName = groups.some((g) => g.names.length > 0);
  for (const g of groups) {
    if (g.names.length) {
      for (const n of g.names) {
        try {
          found.push({ info: g.info, obj: get(ctx, g.info, ns, n) });
        } catch (e) {
          if (isStatusError(e) && e.reason === "NotFound" && bool(p, "ignore-not-found")) continue;
          errors.push(serverError(e));
        }
      }
    } else {
      for (const obj of list(ctx, g.info, all ? undefined : ns, p)) found.push({ info: g.info, obj });
    }
  }
  const sortBy = str(p, "sort-by");
  if (sortBy) {
    const fmt = outputFormat(p);
    const table = !fmt || fmt === "wide";
    if (!sortObjects(found, sortBy, table, ctx)) {
      // kubectl's table sorter fails the same way, and the empty table says there is nothing.
      out.err(noResources(groups, all, ns));
      return;
    }
  }
  const single = byName && found.length === 1 && groups.length === 1 && groups[0].names.length === 1;
  let printed: boolean;
  try {
    printed = printObjects(found, p, out, single);
  } catch (e) {
    // kubectl prints the objects it got, then reports every error.
    if (!(e instanceof TemplateExecError)) throw e;
    errors.push(`error: ${e.message}`);
    printed = true;
  }
  if (!printed) {
    // A table per run of objects of one kind, in the order they came (get.go starts a new
    // printer when the mapping changes): svc/a svc/b is one table, svc/a deploy/b svc/c three.
    const now = ctx.cluster.now();
    for (let i = 0; i < found.length; ) {
      const start = i;
      const info = found[i].info;
      const objs: KObject[] = [];
      for (; i < found.length && found[i].info === info; i++) objs.push(found[i].obj);
      if (start > 0) out.out("\n");
      out.out(
        tabwrite(
          tableText(info, objs, now, {
            wide: str(p, "output") === "wide",
            withNamespace: all && info.namespaced,
            showLabels: bool(p, "show-labels"),
            labelColumns: labelColumns(p),
            withKind: multi ? `${info.kind.toLowerCase()}${info.group ? "." + info.group : ""}` : undefined,
            noHeaders: bool(p, "no-headers"),
          }),
          TABLE_TABWRITER,
        ),
      );
    }
  }
  if (!found.length && !errors.length && !byName) out.err(noResources(groups, all, ns));
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

/** What `get` says when it has nothing to print (the namespace only when every type is namespaced). */
function noResources(groups: { info: ResourceInfo }[], all: boolean, ns: string): string {
  const scoped = groups.every((g) => g.info.namespaced);
  return all || !scoped ? "No resources found\n" : `No resources found in ${ns} namespace.\n`;
}
