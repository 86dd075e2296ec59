// kubectl apply (pkg/cmd/apply), and create -f which shares its reading and error wording.

import type { JsonObject } from "../../../engine/api/patch/json.js";
import type { ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { KObject } from "../../../engine/api/types.js";
import type { PatchType } from "../../../engine/apiserver/apiserver.js";
import { ApplyPatchError, kubectlApplyPatch, withLastApplied } from "../../../kubectl/apply-patch.js";
import { dryRun, type DryRunStrategy, f, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { between } from "../context.js";
import { aggregate, KubectlError, serverError } from "../errors.js";
import { arr, bool, type Parsed, str } from "../flags.js";
import { fileSelector, readManifestsContinuing } from "../manifests.js";
import { printResult } from "../print.js";
import { parsePruneAllowlist, type PruneOptions, PruneSet } from "./apply-prune.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** What kubectl apply --server-side prints after an apply conflict (apply.go's hint). */
const CONFLICT_HELP = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`;

/** kubectl apply's patch for a live object; its errors are kubectl's. */
function applyPatchFor(info: ResourceInfo, live: KObject, modified: JsonObject): { type: PatchType; patch: JsonObject } {
  try {
    return kubectlApplyPatch(info, live as JsonObject, modified);
  } catch (e) {
    if (e instanceof ApplyPatchError) throw new KubectlError(e.message);
    throw e;
  }
}

interface ApplyOptions {
  files: string[];
  recursive: boolean;
  serverSide: boolean;
  forceConflicts: boolean;
  fieldManager?: string;
  dryRun: DryRunStrategy;
  /** -l: only the objects of the files that match it are applied (and pruned among). */
  selector?: string;
  force: boolean;
  all: boolean;
  /** --prune, with its allowlist (empty: kubectl's default list). */
  prune?: PruneOptions;
  /** The namespace and the printing flags. */
  p: Parsed;
}

/** kubectl apply, or create -f (the same reading and wording, `verb` naming the command). */
function applyLikeCommand(verb: "apply" | "create"): KubectlCommand<ApplyOptions> {
  return {
    name: verb,
    flags: [...OUTPUT_FLAGS, f("filename", "array", "f"), f("recursive", "bool", "R"), f("validate", "string"), f("force", "bool"), f("server-side", "bool"), f("force-conflicts", "bool"), f("field-manager", "string"), f("prune", "bool"), f("prune-allowlist", "array"), f("all", "bool"), f("selector", "string", "l"), f("save-config", "bool"), f("overwrite", "bool"), f("wait", "bool"), f("kustomize", "string", "k")],
    // Complete, then Validate: words that are not flags first, then the files.
    complete(p, ctx) {
      if (p.args.length) throw new KubectlError(`Unexpected args: [${p.args.join(" ")}]\nSee 'kubectl ${verb} -h' for help and examples`);
      const selector = str(p, "selector") || undefined;
      const prune = verb === "apply" && bool(p, "prune") ? { allowlist: parsePruneAllowlist(arr(p, "prune-allowlist"), ctx), selector, dryRun: dryRun(p), p } : undefined;
      return { files: arr(p, "filename"), recursive: bool(p, "recursive"), serverSide: verb === "apply" && bool(p, "server-side"), forceConflicts: bool(p, "force-conflicts"), fieldManager: str(p, "field-manager"), dryRun: dryRun(p), selector, force: bool(p, "force"), all: bool(p, "all"), prune, p };
    },
    validate(o) {
      if (!o.files.length) throw new KubectlError("must specify one of -f and -k");
      if (verb === "apply" && o.forceConflicts && !o.serverSide) throw new KubectlError("--force-conflicts only works with --server-side");
      if (o.serverSide && o.dryRun === "client") throw new KubectlError("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)");
      if (verb !== "apply") return;
      if (o.serverSide && o.force) throw new KubectlError("--force cannot be used with --server-side");
      if (o.dryRun === "server" && o.force) throw new KubectlError("--dry-run=server cannot be used with --force");
      if (o.all && o.selector) throw new KubectlError("cannot set --all and --selector at the same time");
      if (o.prune) {
        if (o.force) throw new KubectlError("--force cannot be used with --prune");
        if (!o.all && !o.selector) throw new KubectlError("all resources selected for prune without explicitly passing --all. To prune all resources, pass the --all flag. If you did not mean to prune all resources, specify a label selector");
        if (o.serverSide) throw new KubectlError("--prune is in alpha and doesn't currently work on objects created by server-side apply");
      }
    },
    async run(o, ctx, out) {
      const { p, serverSide } = o;
      const mode = o.dryRun;
      const selector = fileSelector(o.selector);
      const read = await readManifestsContinuing(o.files, o.recursive, ctx);
      const manifests = selector ? read.manifests.filter((m) => selector.matches(m.obj.metadata?.labels ?? {})) : read.manifests;
      if (!manifests.length && !read.errors.length) throw new KubectlError(`no objects passed to ${verb}`);
      const errors: string[] = [];
      // What could not be read: apply reads every file before it applies (its errors come first);
      // create creates each object as it is read (an error comes after the objects before it).
      const readErrors = (upTo: number) => {
        while (read.errors.length && (verb === "apply" || read.errors[0].at <= upTo)) errors.push(read.errors.shift()!.message);
      };
      readErrors(-1);
      // The managers kubectl names its writes with (--field-manager overrides them).
      const manager = o.fieldManager || (verb === "apply" ? "kubectl-client-side-apply" : "kubectl-create");
      const visited = new PruneSet();
      // -n on the line: that namespace is pruned in even if no object of the files is there.
      if (str(p, "namespace")) visited.visitNamespace(str(p, "namespace"));
      for (const [i, m] of manifests.entries()) {
        readErrors(i);
        if (!(await between(ctx))) break;
        const ns = m.info.namespaced ? m.obj.metadata?.namespace ?? nsOf(p, ctx) : undefined;
        visited.visitNamespace(ns);
        if (m.info.namespaced && str(p, "namespace") && m.obj.metadata?.namespace && m.obj.metadata.namespace !== str(p, "namespace")) {
          errors.push(`error: the namespace from the provided object "${m.obj.metadata.namespace}" does not match the namespace "${str(p, "namespace")}". You must pass '--namespace=${m.obj.metadata.namespace}' to perform this operation.`);
          continue;
        }
        // An unnamed manifest's name goes to the apiserver as undefined, which refuses it.
        const name = m.obj.metadata?.name as string;
        if (serverSide && name) {
          // The file itself is the apply configuration; the apiserver merges it and keeps the owners.
          try {
            const warnings: string[] = [];
            const applied = ctx.cluster.client.patch(m.info, ns, name, "apply", JSON.stringify(m.obj), { fieldManager: o.fieldManager || "kubectl", force: o.forceConflicts, dryRun: mode === "server", warnings });
            for (const w of warnings) out.err(`Warning: ${w}\n`);
            visited.visitObject(applied);
            printResult(m.info, applied, p, out, "serverside-applied");
          } catch (e) {
            if (isStatusError(e) && e.status.reason === "Conflict" && e.status.details?.causes?.some((c) => c.reason === "FieldManagerConflict")) errors.push(`error: ${e.message}\n${CONFLICT_HELP}`);
            else if (isStatusError(e)) errors.push(serverError(e));
            else throw e;
          }
          continue;
        }
        try {
          const warnings: string[] = [];
          const body = verb === "apply" ? withLastApplied(m.obj as JsonObject, ns) : (structuredClone(m.obj) as JsonObject);
          let live: KObject | undefined;
          if (verb === "apply" && name) {
            try {
              live = ctx.cluster.client.get(m.info, ns, name);
            } catch (e) {
              if (!isStatusError(e) || e.reason !== "NotFound") throw e;
            }
          }
          if (!live) {
            if (mode === "client") {
              printResult(m.info, body as KObject, p, out, "created");
              continue;
            }
            const created = ctx.cluster.client.create(m.info, ns, body, { dryRun: mode === "server", warnings, fieldManager: manager });
            for (const w of warnings) out.err(`Warning: ${w}\n`);
            visited.visitObject(created);
            printResult(m.info, created, p, out, "created");
            continue;
          }
          visited.visitObject(live);
          if (mode === "client") {
            printResult(m.info, live, p, out, "configured");
            continue;
          }
          if (!live.metadata.annotations?.[LAST_APPLIED]) out.err(`Warning: resource ${m.info.resource}/${name} is missing the ${LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n`);
          const { type, patch } = applyPatchFor(m.info, live, body);
          if (Object.keys(patch).length === 0) {
            printResult(m.info, live, p, out, "unchanged");
            continue;
          }
          const updated = ctx.cluster.client.patch(m.info, ns, name, type, patch, { dryRun: mode === "server", warnings, fieldManager: manager });
          for (const w of warnings) out.err(`Warning: ${w}\n`);
          printResult(m.info, updated, p, out, "configured");
        } catch (e) {
          if (isStatusError(e)) {
            const s = e.status;
            // Other refusals carry the file, as kubectl's AddSourceToErr words them ("error when creating").
            if (s.reason === "Invalid") errors.push(verb === "apply" ? `The ${s.message}` : serverError(e));
            else errors.push(`Error from server (${s.reason}): error when creating "${m.source}": ${s.message}`);
          } else throw e;
        }
      }
      readErrors(Infinity);
      if (errors.length) throw aggregate(errors);
      if (o.prune) visited.prune(o.prune, ctx, out);
    },
  };
}

export const applyCommand = applyLikeCommand("apply");
/** create -f: the objects of the files, created. */
export const createFromFilesCommand = applyLikeCommand("create");
