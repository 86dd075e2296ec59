// kubectl rollout (pkg/cmd/rollout): what its subcommands share, and restart, pause and resume
// (status and history/undo have their own files); each works on the objects its arguments name.

import type { Deployment } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { rfc3339 } from "../../../engine/clock.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import type { Out } from "../out.js";
import { objRef } from "../resources.js";
import { get, oneTarget, type Target } from "../targets.js";

/** The flags every rollout subcommand takes here. */
const ROLLOUT_FLAGS = [...OUTPUT_FLAGS, f("watch", "bool", "w"), f("timeout", "string"), f("revision", "int"), f("to-revision", "int"), f("selector", "string", "l")];

interface RolloutOptions {
  targets: Target[];
  /** The subcommand's own flags (--revision, --watch, --timeout...). */
  p: Parsed;
}

/**
 * A rollout subcommand: Complete finds the objects (none named: refused); Run does `each` to
 * every one, and an error `each` reports (rather than throws) lets the others run first.
 */
export function rolloutCommand(sub: string, each: (t: Target, o: RolloutOptions, ctx: KubectlContext, out: Out, errors: string[]) => void | Promise<void>): KubectlCommand<RolloutOptions> {
  return {
    name: `rollout ${sub}`,
    flags: ROLLOUT_FLAGS,
    complete(p, ctx) {
      if (!p.args.length) throw new KubectlError("required resource not specified");
      return { targets: oneTarget(p, ctx), p };
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

export const rolloutRestartCommand = rolloutCommand("restart", (t, _o, ctx, out) => {
  checkWorkload(t, "restarter");
  const restartedAt = rfc3339(ctx.cluster.now()).replace(/\.\d+Z$|Z$/, "Z");
  ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt } } } } });
  out.out(`${objRef(t.info, t.name)} restarted\n`);
});

/**
 * polymorphichelpers' ObjectPauser / ObjectResumer: deployments only; a patch of spec.paused,
 * or the object as it is when there is nothing to change.
 */
function pauser(pause: boolean): KubectlCommand<RolloutOptions> {
  return rolloutCommand(pause ? "pause" : "resume", (t, _o, ctx, out, errors) => {
    const obj = get<Deployment>(ctx, t.info, t.ns, t.name);
    const resource = `${t.info.resource}${t.info.group ? `.${t.info.group}` : ""}`;
    if (t.info !== R.deployments) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "pausing" : "resuming"} is not supported`);
    else if (Boolean(obj.spec?.paused) === pause) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "is already paused" : "is not paused"}`);
    else {
      ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { paused: pause ? true : null } });
      out.out(`${objRef(t.info, t.name)} ${pause ? "paused" : "resumed"}\n`);
    }
  });
}

export const rolloutPauseCommand = pauser(true);
export const rolloutResumeCommand = pauser(false);
