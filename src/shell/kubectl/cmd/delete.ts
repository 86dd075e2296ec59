// kubectl delete (pkg/cmd/delete): by name, selector, --all or -f, waiting until the objects are gone.

import type { ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import { dryRun, type DryRunStrategy, f, nsOf } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { between } from "../context.js";
import { aggregate, KubectlError, serverError } from "../errors.js";
import { arr, bool, str } from "../flags.js";
import { type ManifestsRead, readManifestsContinuing } from "../manifests.js";
import { get, list, resourceArgs } from "../targets.js";
import { pause } from "../waiting.js";

interface DeleteTarget {
  info: ResourceInfo;
  ns: string | undefined;
  name: string;
}

interface DeleteOptions {
  targets: DeleteTarget[];
  /** What -f could not read, each after the targets read before it (manifests.ts). */
  readErrors: ManifestsRead["errors"];
  /** The namespace a client dry run looks a cluster-scoped target up in. */
  namespace: string;
  /** -f's first file, which a NotFound names. */
  filename?: string;
  gracePeriod?: number;
  cascade?: string;
  force: boolean;
  ignoreNotFound: boolean;
  wait: boolean;
  dryRun: DryRunStrategy;
}

export const deleteCommand: KubectlCommand<DeleteOptions> = {
  name: "delete",
  flags: [f("filename", "array", "f"), f("recursive", "bool", "R"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("field-selector", "string"), f("force", "bool"), f("grace-period", "int"), f("now", "bool"), f("wait", "bool"), f("ignore-not-found", "bool"), f("cascade", "string"), f("dry-run", "string"), f("output", "string", "o"), f("timeout", "string")],
  // delete.go's Complete runs the resource builder: the objects are found before any is deleted.
  async complete(p, ctx, out) {
    const dry = dryRun(p);
    const targets: DeleteTarget[] = [];
    const ns = nsOf(p, ctx);
    let read: ManifestsRead = { manifests: [], errors: [] };
    const files = arr(p, "filename");
    if (files.length) {
      read = await readManifestsContinuing(files, bool(p, "recursive"), ctx);
      for (const m of read.manifests) {
        targets.push({ info: m.info, ns: m.info.namespaced ? m.obj.metadata?.namespace ?? ns : undefined, name: m.obj.metadata?.name as string });
      }
      if (!targets.length && !read.errors.length) out.err(`No resources found\n`);
    } else {
      if (!p.args.length) throw new KubectlError(`You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'`);
      for (const g of resourceArgs(p.args, ctx)) {
        if (g.names.length) for (const n of g.names) targets.push({ info: g.info, ns, name: n });
        else if (bool(p, "all") || str(p, "selector") || str(p, "field-selector")) {
          for (const obj of list(ctx, g.info, bool(p, "all-namespaces") ? undefined : ns, p)) targets.push({ info: g.info, ns: obj.metadata.namespace, name: obj.metadata.name! });
        } else throw new KubectlError(`resource(s) were provided, but no name was specified`);
      }
      if (!targets.length) out.err(`No resources found\n`);
    }
    const force = bool(p, "force");
    const gracePeriod = str(p, "grace-period") !== undefined ? Number(str(p, "grace-period")) : bool(p, "now") ? 1 : force ? 0 : undefined;
    return { targets, readErrors: read.errors, namespace: ns, filename: files[0], gracePeriod, cascade: str(p, "cascade"), force, ignoreNotFound: bool(p, "ignore-not-found"), wait: p.flags.get("wait") !== false, dryRun: dry };
  },
  validate: noValidation,
  async run(o, ctx, out) {
    const errors: string[] = [];
    const deleted: (DeleteTarget & { uid?: string })[] = [];
    const dry = o.dryRun;
    const dryNote = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
    // Each object is deleted as it is read: a read error comes after the objects before it.
    const unread = [...o.readErrors];
    const readErrors = (upTo: number) => {
      while (unread.length && unread[0].at <= upTo) errors.push(unread.shift()!.message);
    };
    for (const [i, t] of o.targets.entries()) {
      readErrors(i);
      if (!(await between(ctx))) break;
      try {
        // A client dry run only checks that the object is there; a server dry run goes through admission.
        let uid: string | undefined;
        if (dry === "client") get(ctx, t.info, t.ns ?? o.namespace, t.name);
        else {
          uid = ctx.cluster.api.peek(t.info, t.ns, t.name)?.metadata.uid;
          ctx.cluster.client.delete(t.info, t.ns, t.name, {
            gracePeriodSeconds: o.gracePeriod,
            propagationPolicy: o.cascade === "orphan" ? "Orphan" : o.cascade === "foreground" ? "Foreground" : "Background",
            dryRun: dry === "server",
          });
        }
        if (o.force && o.gracePeriod === 0) out.err("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n");
        out.out(`${t.info.kind.toLowerCase()}${t.info.group ? "." + t.info.group : ""} "${t.name}" deleted${dryNote}\n`);
        deleted.push({ ...t, uid });
      } catch (e) {
        if (isStatusError(e) && e.reason === "NotFound" && o.ignoreNotFound) continue;
        if (isStatusError(e) && e.reason === "NotFound" && o.filename !== undefined) {
          errors.push(`Error from server (NotFound): error when deleting "${o.filename}": ${e.status.message}`);
          continue;
        }
        errors.push(serverError(e));
      }
    }
    // --wait=true (the default): block until the objects are gone, on the cluster's clock. A dry
    // run deleted nothing, and kubectl does not wait for it (delete.go: "If we are dry-running,
    // then we don't want to wait").
    if (o.wait && dry === "none") {
      for (let i = 0; i < 3600; i++) {
        // As kubectl's wait for deletion: an object of the same name with another UID is a new one
        // (a controller made it again: kube-root-ca.crt, a DaemonSet's pod), so the old is gone.
        const left = deleted.filter((t) => ctx.cluster.api.peek(t.info, t.ns, t.name)?.metadata.uid === t.uid);
        if (!left.length) break;
        if (!(await pause(ctx, 1000))) break;
      }
    }
    readErrors(Infinity);
    if (errors.length) throw aggregate(errors);
  },
};
