// kubectl patch (pkg/cmd/patch).

import { parseAllDocuments } from "yaml";
import type { PatchType } from "../../../engine/apiserver/apiserver.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { printObjects } from "../print.js";
import { objRef } from "../resources.js";
import { get, oneTarget } from "../targets.js";

export function cmdPatch(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("patch", "string", "p"), f("type", "string"), f("patch-file", "string"), f("local", "bool"), f("subresource", "string"), f("filename", "array", "f")], "kubectl patch");
  const patch = str(p, "patch");
  const file = str(p, "patch-file");
  if (patch && file) throw new KubectlError("cannot specify --patch and --patch-file together");
  if (!patch && !file) throw new KubectlError("must specify --patch or --patch-file containing the contents of the patch");
  const type = (str(p, "type") ?? "strategic") as PatchType;
  if (!["strategic", "merge", "json"].includes(type)) throw new KubectlError(`--type must be one of [json merge strategic], not "${type}"`);
  // --patch-file was read before the command ran (readCommandFiles).
  const text = patch || o.commandFiles.get(file!);
  if (text === undefined) throw new KubectlError(`unable to read patch file: open ${file}: no such file or directory`);
  // kubectl's yaml.ToJSON: what starts like JSON goes to the server as it is (which answers a
  // syntax error with encoding/json's words); anything else is YAML, converted here.
  let body: unknown = text;
  if (!/^[ \t\r\n]*[{[]/.test(text)) {
    try {
      const d = parseAllDocuments(text);
      body = (Array.isArray(d) ? d[0] : d).toJS();
    } catch {
      throw new KubectlError(`unable to parse "${text}": yaml: did not find expected node content`);
    }
  }
  for (const t of oneTarget(p, ctx, "patch")) {
    if (type === "strategic" && t.info.crd) throw new KubectlError(`application/strategic-merge-patch+json is not supported by ${t.info.group}/${t.info.version}, Kind=${t.info.kind}: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
    const before = get(ctx, t.info, t.ns, t.name);
    const after = ctx.cluster.client.patch(t.info, t.ns, t.name, type, body, { dryRun: dryRun(p) !== "none" });
    const same = before.metadata.resourceVersion === after.metadata.resourceVersion && dryRun(p) === "none";
    // kubectl patch names no dry run in its message (it prints what the server returned).
    if (!printObjects([{ info: t.info, obj: after }], p, o, true)) o.out(`${objRef(t.info, after.metadata.name!)} ${same ? "patched (no change)" : "patched"}\n`);
  }
}
