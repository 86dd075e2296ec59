// kubectl api-resources (pkg/cmd/apiresources).

import { RESOURCES } from "../../../engine/api/resources.js";
import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool, str } from "../flags.js";

interface ApiResourcesOptions {
  output?: string;
  /** --namespaced as given ("true", "false"), or undefined for both. */
  namespaced?: string;
  apiGroup?: string;
  noHeaders: boolean;
}

export const apiResourcesCommand: KubectlCommand<ApiResourcesOptions> = {
  name: "api-resources",
  flags: [f("output", "string", "o"), f("namespaced", "string"), f("api-group", "string"), f("no-headers", "bool"), f("verbs", "array"), f("sort-by", "string"), f("categories", "array"), f("cached", "bool")],
  complete(p) {
    if (p.args.length) throw new KubectlError(`unexpected arguments: [${p.args.join(" ")}]\nSee 'kubectl api-resources -h' for help and examples`);
    return { output: str(p, "output"), namespaced: str(p, "namespaced"), apiGroup: str(p, "api-group"), noHeaders: bool(p, "no-headers") };
  },
  validate(o) {
    if (o.output && o.output !== "wide" && o.output !== "name") throw new KubectlError(`--output ${o.output} is not available`);
  },
  run(o, ctx, out) {
    const rows = RESOURCES.filter((i) => ctx.cluster.api.isServed(i))
      .filter((i) => o.namespaced === undefined || String(i.namespaced) === o.namespaced)
      .filter((i) => o.apiGroup === undefined || i.group === o.apiGroup)
      .sort((a, b) => (a.group === b.group ? (a.resource < b.resource ? -1 : 1) : a.group === "" ? -1 : b.group === "" ? 1 : a.group < b.group ? -1 : 1));
    if (o.output === "name") {
      for (const i of rows) out.out(`${i.group ? `${i.resource}.${i.group}` : i.resource}\n`);
      return;
    }
    const wide = o.output === "wide";
    const lines: string[] = [];
    if (!o.noHeaders) lines.push(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", ...(wide ? ["VERBS", "CATEGORIES"] : [])].join("\t"));
    for (const i of rows) {
      lines.push([i.resource, i.shortNames.join(","), i.group ? `${i.group}/${i.version}` : i.version, String(i.namespaced), i.kind, ...(wide ? [i.verbs.join(","), i.categories.join(",")] : [])].join("\t"));
    }
    out.out(tabwrite(lines.join("\n") + "\n", TABLE_TABWRITER));
  },
};
