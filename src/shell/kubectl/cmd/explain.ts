// kubectl explain (pkg/cmd/explain).

import { gvDocument } from "../../../kubeapi/openapi.js";
import { explain, ExplainError } from "../../../kubectl/explain.js";
import { f } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool } from "../flags.js";
import { resolveType } from "../resources.js";
import { served } from "../targets.js";

interface ExplainOptions {
  /** TYPE[.FIELD...], as given ("" when missing). */
  what: string;
  argCount: number;
  recursive: boolean;
}

/**
 * `kubectl explain TYPE[.FIELD...]`: kubectl's explain template over the OpenAPI v3 document of
 * the type's group-version, the one a real kubectl reads from /k8s.
 */
export const explainCommand: KubectlCommand<ExplainOptions> = {
  name: "explain",
  flags: [f("recursive", "bool"), f("api-version", "string"), f("output", "string")],
  complete: (p) => ({ what: p.args[0] ?? "", argCount: p.args.length, recursive: bool(p, "recursive") }),
  validate(o) {
    if (!o.what) throw new KubectlError("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.");
    if (o.argCount > 1) throw new KubectlError("We accept only this format: explain RESOURCE");
  },
  run(o, ctx, out) {
    const [t, ...path] = o.what.split(".");
    const info = resolveType(t, served(ctx));
    // checkErr's NoResourceMatchError case: the message alone, without "error: ".
    if (!info) throw new KubectlError(`the server doesn't have a resource type "${t}"`, 1, { raw: true });
    const doc = gvDocument(ctx.cluster, info.group ? `apis/${info.group}/${info.version}` : `api/${info.version}`);
    try {
      out.out(explain(doc ?? {}, { group: info.group, version: info.version, kind: info.kind, fieldPath: path, recursive: o.recursive }));
    } catch (e) {
      if (!(e instanceof ExplainError)) throw e;
      // The header goes to stdout before kubectl finds out the field does not exist.
      const at = e.message.lastIndexOf("error: ");
      out.out(e.message.slice(0, at));
      throw new KubectlError(e.message.slice(at + "error: ".length));
    }
  },
};
