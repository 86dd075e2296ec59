// kubectl api-resources (pkg/cmd/apiresources).

import { RESOURCES } from "../../../engine/api/resources.js";
import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";

export function cmdApiResources(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("output", "string", "o"), f("namespaced", "string"), f("api-group", "string"), f("no-headers", "bool"), f("verbs", "array"), f("sort-by", "string"), f("categories", "array"), f("cached", "bool")], "kubectl api-resources");
  const rows = RESOURCES.filter((i) => ctx.cluster.api.isServed(i))
    .filter((i) => str(p, "namespaced") === undefined || String(i.namespaced) === str(p, "namespaced"))
    .filter((i) => str(p, "api-group") === undefined || i.group === str(p, "api-group"))
    .sort((a, b) => (a.group === b.group ? (a.resource < b.resource ? -1 : 1) : a.group === "" ? -1 : b.group === "" ? 1 : a.group < b.group ? -1 : 1));
  if (str(p, "output") === "name") {
    for (const i of rows) o.out(`${i.group ? `${i.resource}.${i.group}` : i.resource}\n`);
    return;
  }
  const wide = str(p, "output") === "wide";
  const lines: string[] = [];
  if (!bool(p, "no-headers")) lines.push(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", ...(wide ? ["VERBS", "CATEGORIES"] : [])].join("\t"));
  for (const i of rows) {
    lines.push([i.resource, i.shortNames.join(","), i.group ? `${i.group}/${i.version}` : i.version, String(i.namespaced), i.kind, ...(wide ? [i.verbs.join(","), i.categories.join(",")] : [])].join("\t"));
  }
  o.out(tabwrite(lines.join("\n") + "\n", TABLE_TABWRITER));
}
