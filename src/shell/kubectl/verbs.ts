// The verb table: each kubectl command ServiceLab runs, by name, from its file in cmd/ (groups of
// subcommands are built here from theirs, except create's, which picks between -f and generators).

import { apiResourcesCommand } from "./cmd/api-resources.js";
import { apiVersionsCommand } from "./cmd/api-versions.js";
import { applyCommand } from "./cmd/apply.js";
import { authCanICommand, authWhoamiCommand } from "./cmd/auth.js";
import { autoscaleCommand } from "./cmd/autoscale.js";
import { clusterInfoCommand } from "./cmd/cluster-info.js";
import { configCurrentContext, configGetContexts, configSetContext, configUseContext, configView } from "./cmd/config.js";
import { cordon, uncordon } from "./cmd/cordon.js";
import { createCommand } from "./cmd/create.js";
import { deleteCommand } from "./cmd/delete.js";
import { describeCommand } from "./cmd/describe.js";
import { editCommand } from "./cmd/edit.js";
import { execCommand } from "./cmd/exec.js";
import { explainCommand } from "./cmd/explain.js";
import { exposeCommand } from "./cmd/expose.js";
import { getCommand } from "./cmd/get.js";
import { annotate, label } from "./cmd/label.js";
import { logsCommand } from "./cmd/logs.js";
import { optionsCommand } from "./cmd/options.js";
import { patchCommand } from "./cmd/patch.js";
import { replaceCommand } from "./cmd/replace.js";
import { rolloutPauseCommand, rolloutRestartCommand, rolloutResumeCommand } from "./cmd/rollout.js";
import { rolloutHistoryCommand, rolloutUndoCommand } from "./cmd/rollout-history.js";
import { rolloutStatusCommand } from "./cmd/rollout-status.js";
import { runCommand } from "./cmd/run.js";
import { scaleCommand } from "./cmd/scale.js";
import { setEnvCommand } from "./cmd/set-env.js";
import { setImageCommand } from "./cmd/set-image.js";
import { topCommand } from "./cmd/top.js";
import { versionCommand } from "./cmd/version.js";
import { waitCommand } from "./cmd/wait.js";
import { type Command, subcommandGroup } from "./command.js";

export const VERBS: Readonly<Record<string, Command>> = {
  get: getCommand,
  describe: describeCommand,
  create: createCommand,
  run: runCommand,
  expose: exposeCommand,
  apply: applyCommand,
  delete: deleteCommand,
  scale: scaleCommand,
  patch: patchCommand,
  label,
  annotate,
  edit: editCommand,
  replace: replaceCommand,
  set: subcommandGroup("set", { env: setEnvCommand, image: setImageCommand }),
  rollout: subcommandGroup("rollout", {
    history: rolloutHistoryCommand,
    pause: rolloutPauseCommand,
    restart: rolloutRestartCommand,
    resume: rolloutResumeCommand,
    status: rolloutStatusCommand,
    undo: rolloutUndoCommand,
  }, "stdout"),
  wait: waitCommand,
  auth: subcommandGroup("auth", { "can-i": authCanICommand, whoami: authWhoamiCommand }),
  config: subcommandGroup("config", {
    "current-context": configCurrentContext,
    "get-contexts": configGetContexts,
    "set-context": configSetContext,
    "use-context": configUseContext,
    view: configView,
  }),
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
