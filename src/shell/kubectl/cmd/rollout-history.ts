// kubectl rollout history and undo (pkg/cmd/rollout): the revisions a workload keeps, as
// ReplicaSets (deployments) or ControllerRevisions (daemon sets, stateful sets).

import type { ControllerRevision, KObject, PodTemplateSpec, ReplicaSet } from "../../../engine/api/types.js";
import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { podTemplateText } from "../../../kubectl/describe.js";
import { DESCRIBE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { str } from "../flags.js";
import { objRef } from "../resources.js";
import { get, list } from "../targets.js";
import { checkWorkload, PRINT_FLAGS, rolloutCommand } from "./rollout.js";

export const rolloutHistoryCommand = rolloutCommand("history", [...PRINT_FLAGS, f("revision", "int")], (t, o, ctx, out) => {
  checkWorkload(t, "viewer");
  const ref = objRef(t.info, t.name);
  const revs = revisions(t.info, t.ns, t.name, ctx);
  const want = Number(str(o.p, "revision") ?? 0);
  if (want < 0) throw new KubectlError(`revision must be a positive integer: ${want}`);
  if (want > 0) {
    const r = revs.find((x) => x.rev === want);
    if (!r) throw new KubectlError("unable to find the specified revision");
    out.out(`${ref} with revision #${want}\n${podTemplateText(r.template as KObject)}\n`);
    return;
  }
  out.out(`${ref} \n`);
  out.out(tabwrite("REVISION\tCHANGE-CAUSE\n" + revs.map((r) => `${r.rev}\t${r.cause ?? "<none>"}\n`).join(""), DESCRIBE_TABWRITER) + "\n");
});

export const rolloutUndoCommand = rolloutCommand("undo", [...PRINT_FLAGS, f("dry-run", "string"), f("to-revision", "int")], (t, o, ctx, out) => {
  checkWorkload(t, "viewer");
  const ref = objRef(t.info, t.name);
  const revs = revisions(t.info, t.ns, t.name, ctx);
  const want = str(o.p, "to-revision") ? Number(str(o.p, "to-revision")) : 0;
  const current = revs[revs.length - 1];
  const target = want ? revs.find((r) => r.rev === want) : revs[revs.length - 2];
  if (!target) throw new KubectlError(want ? `unable to find specified revision ${want} in history` : `no rollout history found for ${t.info.kind.toLowerCase()} "${t.name}"`);
  if (target === current) {
    out.out(`${ref} skipped rollback (current template already matches revision ${target.rev})\n`);
    return;
  }
  const template = structuredClone(target.template);
  if (template?.metadata?.labels) delete template.metadata.labels["pod-template-hash"];
  const obj = get<KObject & { spec?: object }>(ctx, t.info, t.ns, t.name);
  // A client dry run writes nothing; a server one goes through the apiserver without storing.
  const dry = o.dryRun;
  if (dry !== "client") ctx.cluster.client.update(t.info, t.ns, t.name, { ...obj, spec: { ...obj.spec, template } }, { dryRun: dry === "server", fieldManager: "kubectl-rollout" });
  out.out(`${ref} rolled back${dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : ""}\n`);
});

function revisions(info: ResourceInfo, ns: string, name: string, ctx: KubectlContext): { rev: number; cause?: string; template: PodTemplateSpec | undefined }[] {
  const owner = get(ctx, info, ns, name);
  const owned = (x: KObject) => (x.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.metadata.uid);
  if (info === R.deployments) {
    return list<ReplicaSet>(ctx, R.replicasets, ns)
      .filter(owned)
      .map((rs) => ({ rev: Number(rs.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0), cause: rs.metadata.annotations?.["kubernetes.io/change-cause"], template: rs.spec.template }))
      .sort((a, b) => a.rev - b.rev);
  }
  return list<ControllerRevision>(ctx, R.controllerrevisions, ns)
    .filter(owned)
    .map((cr) => ({ rev: cr.revision, cause: cr.metadata.annotations?.["kubernetes.io/change-cause"], template: (cr.data as { spec?: { template?: PodTemplateSpec } } | undefined)?.spec?.template }))
    .sort((a, b) => a.rev - b.rev);
}
