// kubectl rollout (pkg/cmd/rollout): what its subcommands share, and restart, pause and resume
// (status and history/undo have their own files); each works on the objects its arguments name.

import type { Deployment } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { rfc3339 } from "../../../engine/clock.js";
import { dryRun, type DryRunStrategy, f } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import type { FlagSpec, Parsed } from "../flags.js";
import type { Out } from "../out.js";
import { objRef } from "../resources.js";
import { get, oneTarget, type Target } from "../targets.js";

/** What names the objects (-f, -k, -R, -l), which every rollout subcommand takes. */
const RESOURCE_FLAGS = [f("filename", "array", "f"), f("kustomize", "string", "k"), f("recursive", "bool", "R"), f("selector", "string", "l")];
/** The printer's flags (PrintFlags), for the subcommands that print objects. */
export const PRINT_FLAGS = [f("output", "string", "o"), f("show-managed-fields", "bool"), f("template", "string"), f("allow-missing-template-keys", "bool")];

interface RolloutOptions {
  targets: Target[];
  /** undo's --dry-run ("none" for the others, which do not take it). */
  dryRun: DryRunStrategy;
  /** The subcommand's own flags (--revision, --watch, --timeout...). */
  p: Parsed;
}

/**
 * A rollout subcommand: Complete finds the objects (none named: refused); Run does `each` to
 * every one, and an error `each` reports (rather than throws) lets the others run first.
 */
export function rolloutCommand(sub: string, flags: FlagSpec[], each: (t: Target, o: RolloutOptions, ctx: KubectlContext, out: Out, errors: string[]) => void | Promise<void>): KubectlCommand<RolloutOptions> {
  return {
    name: `rollout ${sub}`,
    flags: [...RESOURCE_FLAGS, ...flags],
    complete(p, ctx) {
      const dry = dryRun(p);
      if (!p.args.length) throw new KubectlError("required resource not specified");
      return { targets: oneTarget(p, ctx), dryRun: dry, p };
    },
    validate: noValidation,
    async run(o, ctx, out) {
      const errors: string[] = [];
      for (const t of o.targets) await each(t, o, ctx, out, errors);
      // The errors of a run that went on past them: an aggregate, one line each (MultipleErrors).
      if (errors.length) throw new KubectlError(errors.join("\n"));
    },
  };
}

/** polymorphichelpers' restarters and status viewers: deployments, daemon sets, stateful sets. */
export function checkWorkload(t: Target, what: "restarter" | "viewer"): void {
  if (![R.deployments, R.daemonsets, R.statefulsets].includes(t.info)) throw new KubectlError(`no ${what} has been implemented for "${t.info.kind}"`);
}

export const rolloutRestartCommand = rolloutCommand("restart", [...PRINT_FLAGS, f("field-manager", "string")], (t, _o, ctx, out) => {
  checkWorkload(t, "restarter");
  const restartedAt = rfc3339(ctx.cluster.now()).replace(/\.\d+Z$|Z$/, "Z");
  ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt } } } } }, { fieldManager: "kubectl-rollout" });
  out.out(`${objRef(t.info, t.name)} restarted\n`);
});

/**
 * polymorphichelpers' ObjectPauser / ObjectResumer: deployments only; a patch of spec.paused,
 * or the object as it is when there is nothing to change.
 */
function pauser(pause: boolean): KubectlCommand<RolloutOptions> {
  return rolloutCommand(pause ? "pause" : "resume", [...PRINT_FLAGS, f("field-manager", "string")], (t, _o, ctx, out, errors) => {
    const obj = get<Deployment>(ctx, t.info, t.ns, t.name);
    const resource = `${t.info.resource}${t.info.group ? `.${t.info.group}` : ""}`;
    if (t.info !== R.deployments) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "pausing" : "resuming"} is not supported`);
    else if (Boolean(obj.spec?.paused) === pause) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "is already paused" : "is not paused"}`);
    else {
      ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { paused: pause ? true : null } }, { fieldManager: "kubectl-rollout" });
      out.out(`${objRef(t.info, t.name)} ${pause ? "paused" : "resumed"}\n`);
    }
  });
}

export const rolloutPauseCommand = pauser(true);
export const rolloutResumeCommand = pauser(false);
