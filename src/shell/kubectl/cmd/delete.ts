// kubectl delete (pkg/cmd/delete): by name, selector, --all or -f, waiting until the objects are gone.

import type { ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import { dryRun, f, nsOf } from "../cmdutil.js";
import { between, type KubectlContext } from "../context.js";
import { KubectlError, serverError } from "../errors.js";
import { arr, bool, parseFlags, str } from "../flags.js";
import { readManifests } from "../manifests.js";
import { Out } from "../out.js";
import { get, list, resourceArgs } from "../targets.js";
import { pause } from "../waiting.js";

export async function cmdDelete(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("filename", "array", "f"), f("recursive", "bool", "R"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("field-selector", "string"), f("force", "bool"), f("grace-period", "int"), f("now", "bool"), f("wait", "bool"), f("ignore-not-found", "bool"), f("cascade", "string"), f("dry-run", "string"), f("output", "string", "o"), f("timeout", "string")], "kubectl delete");
  const targets: { info: ResourceInfo; ns: string | undefined; name: string }[] = [];
  const ns = nsOf(p, ctx);
  if (arr(p, "filename").length) {
    for (const m of await readManifests(arr(p, "filename"), bool(p, "recursive"), ctx)) {
      targets.push({ info: m.info, ns: m.info.namespaced ? m.obj.metadata?.namespace ?? ns : undefined, name: m.obj.metadata?.name as string });
    }
  } else {
    if (!p.args.length) throw new KubectlError(`You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'`);
    for (const g of resourceArgs(p.args, ctx)) {
      if (g.names.length) for (const n of g.names) targets.push({ info: g.info, ns, name: n });
      else if (bool(p, "all") || str(p, "selector") || str(p, "field-selector")) {
        for (const obj of list(ctx, g.info, bool(p, "all-namespaces") ? undefined : ns, p)) targets.push({ info: g.info, ns: obj.metadata.namespace, name: obj.metadata.name! });
      } else throw new KubectlError(`resource(s) were provided, but no name was specified`);
    }
    if (!targets.length) o.err(`No resources found\n`);
  }
  const grace = str(p, "grace-period") !== undefined ? Number(str(p, "grace-period")) : bool(p, "now") ? 1 : bool(p, "force") ? 0 : undefined;
  const errors: string[] = [];
  const deleted: typeof targets = [];
  const cascade = str(p, "cascade");
  const dry = dryRun(p);
  const dryNote = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
  for (const t of targets) {
    if (!(await between(ctx))) break;
    try {
      // A client dry run only checks that the object is there; a server dry run goes through admission.
      if (dry === "client") get(ctx, t.info, t.ns ?? ns, t.name);
      else {
        ctx.cluster.client.delete(t.info, t.ns, t.name, {
          gracePeriodSeconds: grace,
          propagationPolicy: cascade === "orphan" ? "Orphan" : cascade === "foreground" ? "Foreground" : "Background",
          dryRun: dry === "server",
        });
      }
      if (bool(p, "force") && grace === 0) o.err("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n");
      o.out(`${t.info.kind.toLowerCase()}${t.info.group ? "." + t.info.group : ""} "${t.name}" deleted${dryNote}\n`);
      deleted.push(t);
    } catch (e) {
      if (isStatusError(e) && e.reason === "NotFound" && bool(p, "ignore-not-found")) continue;
      if (isStatusError(e) && e.reason === "NotFound" && arr(p, "filename").length) {
        errors.push(`Error from server (NotFound): error when deleting "${arr(p, "filename")[0]}": ${e.status.message}`);
        continue;
      }
      errors.push(serverError(e));
    }
  }
  // --wait=true (the default): block until the objects are gone, on the cluster's clock. A dry
  // run deleted nothing, and kubectl does not wait for it (delete.go: "If we are dry-running,
  // then we don't want to wait").
  if (p.flags.get("wait") !== false && dry === "none") {
    for (let i = 0; i < 3600; i++) {
      const left = deleted.filter((t) => ctx.cluster.api.peek(t.info, t.ns, t.name));
      if (!left.length) break;
      if (!(await pause(ctx, 1000))) break;
    }
  }
  if (errors.length) throw new KubectlError(errors.join("\n"));
}
