// kubectl apply --prune (pkg/cmd/apply/prune.go, pkg/util/prune): once every object applied
// without an error, the objects of the allowlisted kinds in the namespaces apply visited that
// match the selector, carry kubectl's last-applied annotation and were not applied this time
// are deleted, each printed as `<ref> pruned`.

import { lookupKind, R, type ResourceInfo } from "../../../engine/api/resources.js";
import type { KObject } from "../../../engine/api/types.js";
import { type DryRunStrategy, ENDPOINTS_WARNING } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { klogLine } from "../klog.js";
import type { Out } from "../out.js";
import { printResult } from "../print.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

interface PruneResource {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
}

const res = (group: string, version: string, kind: string, namespaced: boolean): PruneResource => ({ group, version, kind, namespaced });

/** kubectl's default allowlist, in its order (namespaced kinds first). */
const DEFAULT_PRUNE_RESOURCES: readonly PruneResource[] = [
  res("", "v1", "ConfigMap", true),
  res("", "v1", "Endpoints", true),
  res("", "v1", "PersistentVolumeClaim", true),
  res("", "v1", "Pod", true),
  res("", "v1", "ReplicationController", true),
  res("", "v1", "Secret", true),
  res("", "v1", "Service", true),
  res("batch", "v1", "Job", true),
  res("batch", "v1", "CronJob", true),
  res("networking.k8s.io", "v1", "Ingress", true),
  res("apps", "v1", "DaemonSet", true),
  res("apps", "v1", "Deployment", true),
  res("apps", "v1", "ReplicaSet", true),
  res("apps", "v1", "StatefulSet", true),
  res("", "v1", "Namespace", false),
  res("", "v1", "PersistentVolume", false),
];

/** The kind as discovery maps it, or meta.NoKindMatchError's words. */
function mapping(ctx: KubectlContext, group: string, version: string, kind: string): ResourceInfo {
  const apiVersion = group ? `${group}/${version}` : version;
  const info = lookupKind(apiVersion, kind);
  if (!info || !ctx.cluster.api.isServed(info)) throw new Error(`no matches for kind "${kind}" in version "${apiVersion}"`);
  return info;
}

/** --prune-allowlist's `group/version/kind` words (prune.ParseResources), read before Validate. */
export function parsePruneAllowlist(gvks: string[], ctx: KubectlContext): PruneResource[] {
  return gvks.map((gvk) => {
    const parts = gvk.split("/");
    if (parts.length !== 3) throw new KubectlError(`invalid GroupVersionKind format: ${gvk}, please follow <group/version/kind>`);
    const group = parts[0] === "core" ? "" : parts[0];
    try {
      return res(group, parts[1], parts[2], mapping(ctx, group, parts[1], parts[2]).namespaced);
    } catch (e) {
      throw new KubectlError((e as Error).message);
    }
  });
}

export interface PruneOptions {
  allowlist: PruneResource[];
  selector?: string;
  dryRun: DryRunStrategy;
  /** The printing flags (-o name prints the bare reference). */
  p: Parsed;
}

/** What apply saw: the namespaces it visited and the objects it applied. */
export class PruneSet {
  readonly namespaces = new Set<string>();
  readonly uids = new Set<string>();
  private warnedEndpoints = false;

  visitNamespace(ns: string | undefined): void {
    if (ns !== undefined) this.namespaces.add(ns);
  }

  visitObject(obj: KObject | undefined): void {
    const uid = obj?.metadata.uid;
    if (uid) this.uids.add(uid);
  }

  /** The pruner's run (pruneAll): its errors are kubectl's wrapped ones. */
  prune(o: PruneOptions, ctx: KubectlContext, out: Out): void {
    let wanted: readonly PruneResource[] = o.allowlist;
    if (!wanted.length) {
      wanted = DEFAULT_PRUNE_RESOURCES;
      // kubectl always has a namespace (the context's at least), so it always warns (prune.go).
      out.err(klogLine(ctx, "W", "prune.go:71", "Deprecated: kubectl apply will no longer prune non-namespaced resources by default when used with the --namespace flag in a future release. To preserve the current behaviour, list the resources you want to target explicitly in the --prune-allowlist flag."));
    }
    const mappings = wanted.map((r) => {
      try {
        return { r, info: mapping(ctx, r.group, r.version, r.kind) };
      } catch (e) {
        throw new KubectlError(`error retrieving RESTMappings to prune: invalid resource ${r.group}/${r.version}, Kind=${r.kind}, Namespaced=${r.namespaced}: ${(e as Error).message}`);
      }
    });
    for (const ns of this.namespaces) {
      for (const { r, info } of mappings) if (r.namespaced) this.pruneOne(info, ns, "namespaced", o, ctx, out);
    }
    for (const { r, info } of mappings) if (!r.namespaced) this.pruneOne(info, undefined, "nonNamespaced", o, ctx, out);
  }

  private pruneOne(info: ResourceInfo, ns: string | undefined, scope: string, o: PruneOptions, ctx: KubectlContext, out: Out): void {
    const gvk = `${info.group ? info.group + "/" : "/"}${info.version}, Kind=${info.kind}`;
    try {
      const items = ctx.cluster.client.list(info, ns, o.selector ? { labelSelector: o.selector } : {}).items;
      // The apiserver warns on every Endpoints list; kubectl's warning writer says it once.
      if (info === R.endpoints && !this.warnedEndpoints) {
        this.warnedEndpoints = true;
        out.err(ENDPOINTS_WARNING);
      }
      for (const obj of items) {
        if (obj.metadata.annotations?.[LAST_APPLIED] === undefined) continue; // not made by apply
        if (this.uids.has(obj.metadata.uid!)) continue;
        if (o.dryRun !== "client") ctx.cluster.client.delete(info, obj.metadata.namespace, obj.metadata.name!, { propagationPolicy: "Background", dryRun: o.dryRun === "server" });
        printResult(info, obj, o.p, out, "pruned");
      }
    } catch (e) {
      if (e instanceof KubectlError) throw e;
      throw new KubectlError(`error pruning ${scope} object ${gvk}: ${(e as Error).message}`);
    }
  }
}
