// The verb table: each kubectl command ServiceLab runs, by name, from its file in cmd/.

import { cmdApiResources } from "./cmd/api-resources.js";
import { cmdApiVersions } from "./cmd/api-versions.js";
import { cmdApply } from "./cmd/apply.js";
import { cmdAutoscale } from "./cmd/autoscale.js";
import { cmdConfig } from "./cmd/config.js";
import { cmdCordon } from "./cmd/cordon.js";
import { cmdCreate } from "./cmd/create.js";
import { cmdDelete } from "./cmd/delete.js";
import { cmdDescribe } from "./cmd/describe.js";
import { cmdEdit } from "./cmd/edit.js";
import { cmdExec } from "./cmd/exec.js";
import { cmdExplain } from "./cmd/explain.js";
import { cmdExpose } from "./cmd/expose.js";
import { cmdGet } from "./cmd/get.js";
import { cmdLabel } from "./cmd/label.js";
import { cmdLogs } from "./cmd/logs.js";
import { cmdPatch } from "./cmd/patch.js";
import { cmdReplace } from "./cmd/replace.js";
import { cmdRollout } from "./cmd/rollout.js";
import { cmdRun } from "./cmd/run.js";
import { cmdScale } from "./cmd/scale.js";
import { cmdSet } from "./cmd/set.js";
import { cmdVersion } from "./cmd/version.js";
import { cmdWait } from "./cmd/wait.js";
import { wantsHelp } from "./cmdline.js";
import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { OPTIONS_TEXT } from "./help-texts.js";
import { Out } from "./out.js";

export const VERBS: Record<string, (args: string[], ctx: KubectlContext, o: Out) => Promise<void> | void> = {
  get: cmdGet,
  describe: cmdDescribe,
  create: cmdCreate,
  run: cmdRun,
  expose: cmdExpose,
  apply: cmdApply,
  delete: cmdDelete,
  scale: cmdScale,
  patch: cmdPatch,
  label: (a, c, o) => cmdLabel(a, c, o, "labels"),
  annotate: (a, c, o) => cmdLabel(a, c, o, "annotations"),
  edit: cmdEdit,
  replace: cmdReplace,
  set: cmdSet,
  rollout: cmdRollout,
  wait: cmdWait,
  config: cmdConfig,
  exec: cmdExec,
  logs: cmdLogs,
  "api-resources": cmdApiResources,
  "api-versions": cmdApiVersions,
  autoscale: cmdAutoscale,
  explain: cmdExplain,
  version: cmdVersion,
  cordon: (a, c, o) => cmdCordon(a, c, o, true),
  uncordon: (a, c, o) => cmdCordon(a, c, o, false),
  // `kubectl options`: the flags every command takes (its own --help prints nothing).
  options: (a, _c, o) => void (wantsHelp(a) || o.out(OPTIONS_TEXT)),
  // A kubeadm cluster has no metrics-server: top has nothing to read.
  top: () => {
    throw new KubectlError("Metrics API not available");
  },
  "cluster-info": (_a, c, o) => {
    const ip = c.cluster.config.nodes.find((n) => n.controlPlane)?.ip ?? c.cluster.config.nodes[0].ip;
    o.out(`\x1b[0;32mKubernetes control plane\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443\x1b[0m\n\x1b[0;32mCoreDNS\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\x1b[0m\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`);
  },
};
