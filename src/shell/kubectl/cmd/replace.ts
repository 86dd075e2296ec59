// kubectl replace (pkg/cmd/replace).

import type { KObject } from "../../../engine/api/types.js";
import { isStatusError } from "../../../engine/api/status.js";
import { dryRun, type DryRunStrategy, f, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { aggregate, KubectlError, serverError } from "../errors.js";
import { arr, bool, type Parsed } from "../flags.js";
import { readManifestsContinuing } from "../manifests.js";
import { printResult } from "../print.js";
import { pause } from "../waiting.js";

interface ReplaceOptions {
  args: string[];
  files: string[];
  recursive: boolean;
  force: boolean;
  dryRun: DryRunStrategy;
  /** The namespace and the printing flags. */
  p: Parsed;
}

/**
 * kubectl replace -f FILE (or -f -): a PUT of the file's object ("replaced"); --force deletes the
 * live object first and creates the file's ("<kind> "<name>" deleted", then "replaced").
 * Errors name the file as kubectl's AddSourceToErr does ("error when replacing "STDIN": ...").
 */
export const replaceCommand: KubectlCommand<ReplaceOptions> = {
  name: "replace",
  flags: [...OUTPUT_FLAGS, f("filename", "array", "f"), f("recursive", "bool", "R"), f("force", "bool"), f("grace-period", "int"), f("cascade", "string"), f("wait", "bool"), f("timeout", "string"), f("validate", "string"), f("save-config", "bool"), f("subresource", "string"), f("field-manager", "string"), f("kustomize", "string", "k"), f("raw", "string")],
  complete(p) {
    return { dryRun: dryRun(p), args: p.args, files: arr(p, "filename"), recursive: bool(p, "recursive"), force: bool(p, "force"), p };
  },
  validate(o) {
    if (!o.files.length) throw new KubectlError("must specify one of -f and -k");
    if (o.args.length) throw new KubectlError(`Unexpected args: [${o.args.join(" ")}]\nSee 'kubectl replace -h' for help and examples`);
  },
  async run(o, ctx, out) {
    const p = o.p;
    const read = await readManifestsContinuing(o.files, o.recursive, ctx);
    const mode = o.dryRun;
    const errors: string[] = [];
    // Each object is replaced as it is read: a read error comes after the objects before it.
    const readErrors = (upTo: number) => {
      while (read.errors.length && read.errors[0].at <= upTo) errors.push(read.errors.shift()!.message);
    };
    for (const [i, m] of read.manifests.entries()) {
      readErrors(i);
      const ns = m.info.namespaced ? m.obj.metadata?.namespace ?? nsOf(p, ctx) : undefined;
      // An unnamed manifest's name goes to the apiserver as undefined, which refuses it.
      const name = m.obj.metadata?.name as string;
      const source = m.source === "-" ? "STDIN" : m.source;
      try {
        if (o.force) {
          if (mode === "none") {
            try {
              ctx.cluster.client.delete(m.info, ns, name, {});
              out.out(`${m.info.kind.toLowerCase()}${m.info.group ? "." + m.info.group : ""} "${name}" deleted\n`);
            } catch (e) {
              if (!isStatusError(e) || e.reason !== "NotFound") throw e;
            }
            // --force waits for the object to be gone (a pod's kubelet finishes its deletion).
            for (let i = 0; i < 600; i++) {
              try {
                ctx.cluster.client.get(m.info, ns, name);
              } catch {
                break;
              }
              if (!(await pause(ctx, 1000))) return;
            }
          }
          const body = structuredClone(m.obj) as KObject;
          if (body.metadata) delete body.metadata.resourceVersion;
          const created = mode === "client" ? body : ctx.cluster.client.create(m.info, ns, body, { dryRun: mode === "server", fieldManager: "kubectl-replace" });
          printResult(m.info, created, p, out, "replaced");
          continue;
        }
        if (mode === "client") {
          printResult(m.info, m.obj as KObject, p, out, "replaced");
          continue;
        }
        const updated = ctx.cluster.client.update(m.info, ns, name, m.obj, { dryRun: mode === "server", fieldManager: "kubectl-replace" });
        printResult(m.info, updated, p, out, "replaced");
      } catch (e) {
        if (!isStatusError(e)) throw e;
        const s = e.status;
        errors.push(s.reason === "Invalid" ? serverError(e) : `Error from server (${s.reason}): error when replacing "${source}": ${s.message}`);
      }
    }
    readErrors(Infinity);
    if (errors.length) throw aggregate(errors);
  },
};
