// kubectl api-versions (pkg/cmd/apiresources/apiversions.go).

import { RESOURCES } from "../../../engine/api/resources.js";
import { byteOrder } from "../../../kubectl/gotemplate.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";

/** `kubectl api-versions`: every group/version discovery serves, sorted as sort.Strings sorts. */
export const apiVersionsCommand: KubectlCommand<void> = {
  name: "api-versions",
  flags: [],
  complete(p) {
    if (p.args.length) throw new KubectlError(`unexpected arguments: [${p.args.join(" ")}]\nSee 'kubectl api-versions -h' for help and examples`);
  },
  validate: noValidation,
  run(_o, ctx, out) {
    const gvs = new Set<string>();
    for (const i of RESOURCES) if (ctx.cluster.api.isServed(i)) gvs.add(i.group ? `${i.group}/${i.version}` : i.version);
    for (const gv of [...gvs].sort(byteOrder)) out.out(`${gv}\n`);
  },
};
