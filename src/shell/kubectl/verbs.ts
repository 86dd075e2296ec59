// The verb table: each kubectl command ServiceLab runs, by name, from its file in cmd/.

import { apiResourcesCommand } from "./cmd/api-resources.js";
import { apiVersionsCommand } from "./cmd/api-versions.js";
import { cmdApply } from "./cmd/apply.js";
import { autoscaleCommand } from "./cmd/autoscale.js";
import { cmdConfig } from "./cmd/config.js";
import { cordon, uncordon } from "./cmd/cordon.js";
import { cmdCreate } from "./cmd/create.js";
import { cmdDelete } from "./cmd/delete.js";
import { describeCommand } from "./cmd/describe.js";
import { cmdEdit } from "./cmd/edit.js";
import { execCommand } from "./cmd/exec.js";
import { explainCommand } from "./cmd/explain.js";
import { cmdExpose } from "./cmd/expose.js";
import { cmdGet } from "./cmd/get.js";
import { annotate, label } from "./cmd/label.js";
import { logsCommand } from "./cmd/logs.js";
import { patchCommand } from "./cmd/patch.js";
import { cmdReplace } from "./cmd/replace.js";
import { cmdRollout } from "./cmd/rollout.js";
import { cmdRun } from "./cmd/run.js";
import { scaleCommand } from "./cmd/scale.js";
import { cmdSet } from "./cmd/set.js";
import { versionCommand } from "./cmd/version.js";
import { waitCommand } from "./cmd/wait.js";
import { clusterInfoCommand } from "./cmd/cluster-info.js";
import { optionsCommand } from "./cmd/options.js";
import { topCommand } from "./cmd/top.js";
import { type Command, type KubectlCommand, noValidation } from "./command.js";
import type { KubectlContext } from "./context.js";
import type { Out } from "./out.js";

/** A verb not yet written as a KubectlCommand: its function gets the words as they are. */
function legacy(name: string, fn: (args: string[], ctx: KubectlContext, o: Out) => Promise<void> | void): KubectlCommand<string[]> {
  return { name, complete: (p) => p.args, validate: noValidation, run: (args, ctx, out) => fn(args, ctx, out) };
}

export const VERBS: Record<string, Command> = {
  get: legacy("get", cmdGet),
  describe: describeCommand,
  create: legacy("create", cmdCreate),
  run: legacy("run", cmdRun),
  expose: legacy("expose", cmdExpose),
  apply: legacy("apply", cmdApply),
  delete: legacy("delete", cmdDelete),
  scale: scaleCommand,
  patch: patchCommand,
  label,
  annotate,
  edit: legacy("edit", cmdEdit),
  replace: legacy("replace", cmdReplace),
  set: legacy("set", cmdSet),
  rollout: legacy("rollout", cmdRollout),
  wait: waitCommand,
  config: legacy("config", cmdConfig),
  exec: execCommand,
  logs: logsCommand,
  "api-resources": apiResourcesCommand,
  "api-versions": apiVersionsCommand,
  autoscale: autoscaleCommand,
  explain: explainCommand,
  version: versionCommand,
  cordon,
  uncordon,
  options: optionsCommand,
  top: topCommand,
  "cluster-info": clusterInfoCommand,
};
