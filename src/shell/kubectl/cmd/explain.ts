// kubectl explain (pkg/cmd/explain).

import { gvDocument } from "../../../kubeapi/openapi.js";
import { explain, ExplainError } from "../../../kubectl/explain.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, parseFlags } from "../flags.js";
import { Out } from "../out.js";
import { resolveType } from "../resources.js";
import { served } from "../targets.js";

/**
 * `kubectl explain TYPE[.FIELD...]`: kubectl's explain template over the OpenAPI v3 document of
 * the type's group-version, the one a real kubectl reads from /k8s.
 */
export function cmdExplain(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("recursive", "bool"), f("api-version", "string"), f("output", "string")], "kubectl explain");
  const what = p.args[0];
  if (!what) throw new KubectlError("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.");
  const [t, ...path] = what.split(".");
  const info = resolveType(t, served(ctx));
  // checkErr's NoResourceMatchError case: the message alone, without "error: ".
  if (!info) throw new KubectlError(`the server doesn't have a resource type "${t}"`, 1, { raw: true });
  const doc = gvDocument(ctx.cluster, info.group ? `apis/${info.group}/${info.version}` : `api/${info.version}`);
  try {
    o.out(explain(doc ?? {}, { group: info.group, version: info.version, kind: info.kind, fieldPath: path, recursive: bool(p, "recursive") }));
  } catch (e) {
    if (!(e instanceof ExplainError)) throw e;
    // The header goes to stdout before kubectl finds out the field does not exist.
    const at = e.message.lastIndexOf("error: ");
    o.out(e.message.slice(0, at));
    throw new KubectlError(e.message.slice(at + "error: ".length));
  }
}
