// kubectl patch (pkg/cmd/patch).

import { parseAllDocuments } from "yaml";
import type { PatchType } from "../../../engine/apiserver/apiserver.js";
import { dryRun, type DryRunStrategy, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { printObjects } from "../print.js";
import { objRef } from "../resources.js";
import { get, oneTarget } from "../targets.js";

interface PatchOptions {
  patch?: string;
  patchFile?: string;
  /** --type as given (strategic by default). */
  type: string;
  dryRun: DryRunStrategy;
  /** The resource arguments and the printing flags. */
  p: Parsed;
}

export const patchCommand: KubectlCommand<PatchOptions> = {
  name: "patch",
  flags: [...OUTPUT_FLAGS, f("patch", "string", "p"), f("type", "string"), f("patch-file", "string"), f("local", "bool"), f("subresource", "string"), f("filename", "array", "f")],
  complete: (p) => ({ dryRun: dryRun(p), patch: str(p, "patch"), patchFile: str(p, "patch-file"), type: str(p, "type") ?? "strategic", p }),
  validate(o) {
    if (o.patch && o.patchFile) throw new KubectlError("cannot specify --patch and --patch-file together");
    if (!o.patch && !o.patchFile) throw new KubectlError("must specify --patch or --patch-file containing the contents of the patch");
    if (!["strategic", "merge", "json"].includes(o.type)) throw new KubectlError(`--type must be one of [json merge strategic], not "${o.type}"`);
  },
  run(o, ctx, out) {
    const type = o.type as PatchType;
    // --patch-file was read before the command ran (readCommandFiles).
    const text = o.patch || out.commandFiles.get(o.patchFile!);
    if (text === undefined) throw new KubectlError(`unable to read patch file: open ${o.patchFile}: no such file or directory`);
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
    for (const t of oneTarget(o.p, ctx)) {
      if (type === "strategic" && t.info.crd) throw new KubectlError(`application/strategic-merge-patch+json is not supported by ${t.info.group}/${t.info.version}, Kind=${t.info.kind}: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
      const before = get(ctx, t.info, t.ns, t.name);
      const after = ctx.cluster.client.patch(t.info, t.ns, t.name, type, body, { dryRun: o.dryRun !== "none", fieldManager: "kubectl-patch" });
      const same = before.metadata.resourceVersion === after.metadata.resourceVersion && o.dryRun === "none";
      // kubectl patch names no dry run in its message (it prints what the server returned).
      if (!printObjects([{ info: t.info, obj: after }], o.p, out, true)) out.out(`${objRef(t.info, after.metadata.name!)} ${same ? "patched (no change)" : "patched"}\n`);
    }
  },
};
