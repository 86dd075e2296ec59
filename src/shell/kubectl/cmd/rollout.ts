// kubectl rollout (pkg/cmd/rollout): restart, pause, resume, history, undo, and status (rollout-status.ts).

import type { ControllerRevision, Deployment, KObject, PodTemplateSpec, ReplicaSet } from "../../../engine/api/types.js";
import { R, type ResourceInfo } from "../../../engine/api/resources.js";
import { rfc3339 } from "../../../engine/clock.js";
import { podTemplateText } from "../../../kubectl/describe.js";
import { DESCRIBE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, notInServiceLab } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { objRef } from "../resources.js";
import { get, list, oneTarget } from "../targets.js";
import { rolloutStatus } from "./rollout-status.js";

function restartedAt(ctx: KubectlContext): string {
  return rfc3339(ctx.cluster.now()).replace(/\.\d+Z$|Z$/, "Z");
}

export async function cmdRollout(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const sub = argv[0];
  const p = parseFlags(argv.slice(1), [...OUTPUT_FLAGS, f("watch", "bool", "w"), f("timeout", "string"), f("revision", "int"), f("to-revision", "int"), f("selector", "string", "l")], `kubectl rollout ${sub ?? ""}`);
  // Each subcommand's Complete: no resource, no run.
  if (!p.args.length) throw new KubectlError("required resource not specified");
  const targets = oneTarget(p, ctx, "rollout");
  const errors: string[] = [];
  for (const t of targets) {
    const ref = objRef(t.info, t.name);
    if (sub === "pause" || sub === "resume") {
      // polymorphichelpers' ObjectPauser / ObjectResumer: deployments only; a patch of
      // spec.paused, or the object as it is when there is nothing to change.
      const pause = sub === "pause";
      const obj = get<Deployment>(ctx, t.info, t.ns, t.name);
      const resource = `${t.info.resource}${t.info.group ? `.${t.info.group}` : ""}`;
      if (t.info !== R.deployments) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "pausing" : "resuming"} is not supported`);
      else if (Boolean(obj.spec?.paused) === pause) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "is already paused" : "is not paused"}`);
      else {
        ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { paused: pause ? true : null } });
        o.out(`${ref} ${pause ? "paused" : "resumed"}\n`);
      }
      continue;
    }
    if (![R.deployments, R.daemonsets, R.statefulsets].includes(t.info)) throw new KubectlError(`no ${sub === "restart" ? "restarter" : "viewer"} has been implemented for "${t.info.kind}"`);
    switch (sub) {
      case "restart": {
        const after = ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", {
          spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt(ctx) } } } },
        });
        void after;
        o.out(`${ref} restarted\n`);
        break;
      }
      case "status":
        await rolloutStatus(t.info, t.ns, t.name, p, ctx, o);
        break;
      case "history": {
        const revs = revisions(t.info, t.ns, t.name, ctx);
        const want = Number(str(p, "revision") ?? 0);
        if (want < 0) throw new KubectlError(`revision must be a positive integer: ${want}`);
        if (want > 0) {
          const r = revs.find((x) => x.rev === want);
          if (!r) throw new KubectlError("unable to find the specified revision");
          o.out(`${ref} with revision #${want}\n${podTemplateText(r.template as KObject)}\n`);
          break;
        }
        o.out(`${ref} \n`);
        o.out(tabwrite("REVISION\tCHANGE-CAUSE\n" + revs.map((r) => `${r.rev}\t${r.cause ?? "<none>"}\n`).join(""), DESCRIBE_TABWRITER) + "\n");
        break;
      }
      case "undo": {
        const revs = revisions(t.info, t.ns, t.name, ctx);
        const want = str(p, "to-revision") ? Number(str(p, "to-revision")) : 0;
        const current = revs[revs.length - 1];
        const target = want ? revs.find((r) => r.rev === want) : revs[revs.length - 2];
        if (!target) throw new KubectlError(want ? `unable to find specified revision ${want} in history` : `no rollout history found for ${t.info.kind.toLowerCase()} "${t.name}"`);
        if (target === current) {
          o.out(`${ref} skipped rollback (current template already matches revision ${target.rev})\n`);
          break;
        }
        const template = structuredClone(target.template);
        if (template?.metadata?.labels) delete template.metadata.labels["pod-template-hash"];
        const obj = get<KObject & { spec?: object }>(ctx, t.info, t.ns, t.name);
        ctx.cluster.client.update(t.info, t.ns, t.name, { ...obj, spec: { ...obj.spec, template } });
        o.out(`${ref} rolled back\n`);
        break;
      }
      default:
        throw notInServiceLab(`kubectl rollout ${sub}`);
    }
  }
  // The errors of a run that went on past them: an aggregate, one line each (MultipleErrors).
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

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
