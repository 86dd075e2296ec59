// kubectl api-versions (pkg/cmd/apiresources/apiversions.go).

import { RESOURCES } from "../../../engine/api/resources.js";
import { byteOrder } from "../../../kubectl/gotemplate.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { Out } from "../out.js";

/** `kubectl api-versions`: every group/version discovery serves, sorted as sort.Strings sorts. */
export function cmdApiVersions(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [], "kubectl api-versions");
  if (p.args.length) throw new KubectlError(`unexpected arguments: [${p.args.join(" ")}]\nSee 'kubectl api-versions -h' for help and examples`);
  const gvs = new Set<string>();
  for (const i of RESOURCES) if (ctx.cluster.api.isServed(i)) gvs.add(i.group ? `${i.group}/${i.version}` : i.version);
  for (const gv of [...gvs].sort(byteOrder)) o.out(`${gv}\n`);
}
