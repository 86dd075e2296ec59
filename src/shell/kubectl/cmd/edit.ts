// kubectl edit (pkg/cmd/edit, cmd/util/editor): the edit loop over the object's YAML.

import { parseAllDocuments } from "yaml";
import { isStatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import { toYaml } from "../../../kubectl/output.js";
import { f } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { printResult, sortDeep, stripForOutput } from "../print.js";
import { qualified } from "../resources.js";
import { get, oneTarget, type Target } from "../targets.js";
import { shellEditor } from "./edit-editor.js";

interface EditOptions {
  /** The objects, found before any editor opens. */
  targets: { t: Target; obj: KObject }[];
  /** The printing flags. */
  p: Parsed;
}

export const editCommand: KubectlCommand<EditOptions> = {
  name: "edit",
  flags: [f("output", "string", "o"), f("filename", "array", "f"), f("save-config", "bool"), f("validate", "string"), f("windows-line-endings", "bool"), f("subresource", "string"), f("field-manager", "string")],
  // kubectl finds the objects first (errors about them come before any editor).
  complete: (p, ctx) => ({ targets: oneTarget(p, ctx).map((t) => ({ t, obj: get(ctx, t.info, t.ns, t.name) })), p }),
  validate: noValidation,
  async run(o, ctx, out) {
    // The host's editor (the web UI's) when it lends one, else KUBE_EDITOR / EDITOR in the shell.
    const editor = ctx.editor ?? shellEditor(ctx, out);
    if (!editor) throw new KubectlError(`unable to launch the editor "vi"`);
    for (const { t, obj } of o.targets) {
      const file = `/tmp/kubectl-edit-${t.name}.yaml`;
      const yaml = toYaml(stripForOutput(obj, o.p));
      // kubectl's edit loop (editoptions.go): an invalid save reopens the file with the reasons in
      // its header; quitting after that without a new change stores a copy and gives up.
      let text = EDIT_HEADER + yaml;
      let failed: { reason: string; body: string } | undefined;
      for (;;) {
        let edited: string | undefined;
        try {
          edited = await editor(text, file);
        } catch (e) {
          if (e instanceof KubectlError && failed) out.err(`A copy of your changes has been stored to "${file}"\n`);
          throw e;
        }
        const body = (edited ?? "").split("\n").filter((l) => !l.startsWith("#")).join("\n");
        if (edited === undefined || edited === text) {
          if (!failed) {
            out.err("Edit cancelled, no changes made.\n");
            break;
          }
          await ctx.writeFile?.(file, failed.body);
          throw new KubectlError(`error: ${failed.reason}\nA copy of your changes has been stored to "${file}"\nerror: Edit cancelled, no valid changes were saved.`, 1, { raw: true });
        }
        if (!body.trim()) {
          out.err("Edit cancelled, saved file was empty.\n");
          break;
        }
        let next: unknown;
        try {
          const d = parseAllDocuments(body);
          const doc = Array.isArray(d) ? d[0] : d;
          if (doc.errors.length) throw new Error(doc.errors[0].message);
          next = doc.toJS();
        } catch (e) {
          const msg = (e as Error).message.split("\n")[0];
          failed = { reason: `the edited file had a syntax error: ${msg}`, body };
          text = EDIT_HEADER + editReason(`The edited file had a syntax error: ${msg}`, []) + body;
          continue;
        }
        if (JSON.stringify(sortDeep(next)) === JSON.stringify(sortDeep(obj))) {
          out.err("Edit cancelled, no changes made.\n");
          break;
        }
        try {
          const updated = ctx.cluster.client.update(t.info, t.ns, t.name, next, { fieldManager: "kubectl-edit" });
          printResult(t.info, updated, o.p, out, "edited");
          break;
        } catch (e) {
          if (!isStatusError(e) || e.status.reason !== "Invalid") throw e;
          const causes = (e.status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
          failed = { reason: `${qualified(t.info)} "${t.name}" is invalid`, body };
          text = EDIT_HEADER + editReason(`${t.info.resource} "${t.name}" was not valid`, causes.length ? causes : [e.status.message]) + body;
        }
      }
    }
  },
};

const EDIT_HEADER = "# Please edit the object below. Lines beginning with a '#' will be ignored,\n# and an empty file will abort the edit. If an error occurs while saving this file will be\n# reopened with the relevant failures.\n#\n";

/** One reason at the top of a reopened file, as kubectl's editHeader writes it. */
function editReason(head: string, other: string[]): string {
  const hash = (s: string) => s.replace(/\n/g, "\n# ");
  return `# ${hash(head)}${other.length ? ":" : ""}\n${other.map((x) => `# * ${hash(x)}\n`).join("")}#\n`;
}
