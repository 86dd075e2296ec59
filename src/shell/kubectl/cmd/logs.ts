// kubectl logs (pkg/cmd/logs).

import { R } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { Pod } from "../../../engine/api/types.js";
import { f, nsOf } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool, str } from "../flags.js";
import { podFor } from "../pods.js";

interface LogsOptions {
  /** The pods found (none: the selector matched nothing, said on stderr). */
  pods: Pod[];
  /** -c, or the second argument. */
  container?: string;
  /** The container was named with -c (no "Defaulted container" line). */
  containerFlag: boolean;
  bySelector: boolean;
  previous: boolean;
  /** Lines from the end (-1: all). */
  tail: number;
  prefix: boolean;
}

export const logsCommand: KubectlCommand<LogsOptions> = {
  name: "logs",
  flags: [f("follow", "bool", "f"), f("previous", "bool", "p"), f("container", "string", "c"), f("tail", "int"), f("selector", "string", "l"), f("timestamps", "bool"), f("all-containers", "bool"), f("since", "string"), f("prefix", "bool"), f("max-log-requests", "int"), f("ignore-errors", "bool")],
  // logs.go's Complete finds the object (or the selector's pods) whose logs it reads.
  complete(p, ctx, out) {
    const ns = nsOf(p, ctx);
    const selector = str(p, "selector");
    let pods: Pod[];
    if (selector) {
      pods = ctx.cluster.client.list(R.pods, ns, { labelSelector: selector }).items as Pod[];
      if (!pods.length) out.err(`No resources found in ${ns} namespace.\n`);
    } else {
      if (!p.args[0] || p.args.length > 2) throw new KubectlError("expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples");
      try {
        const first = podFor(p.args[0], ns, ctx, "logging");
        if (first.count > 1) out.err(`Found ${first.count} pods, using pod/${first.pod.metadata.name}\n`);
        pods = [first.pod];
      } catch (e) {
        // The logs command's object lookup words a NotFound as its own error.
        if (!isStatusError(e) || e.reason !== "NotFound") throw e;
        const d = e.status.details ?? {};
        const what = d.group ? `${d.kind}.${d.group}` : d.kind;
        throw new KubectlError(`error from server (NotFound): ${what} "${d.name}" not found in namespace "${ns}"`);
      }
    }
    const tailFlag = str(p, "tail");
    return {
      pods,
      container: str(p, "container") ?? p.args[1],
      containerFlag: str(p, "container") !== undefined,
      bySelector: Boolean(selector),
      previous: bool(p, "previous"),
      tail: tailFlag !== undefined ? Number(tailFlag) : selector ? 10 : -1,
      prefix: bool(p, "prefix"),
    };
  },
  validate: noValidation,
  run(o, ctx, out) {
    for (const pod of o.pods) {
      const containers = pod.spec.containers.map((c) => c.name);
      const cname = o.container ?? containers[0];
      if (!containers.includes(cname)) throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${pod.metadata.name}`);
      if (!o.containerFlag && containers.length > 1 && !o.bySelector) out.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
      const lines = ctx.cluster.kubelet.logs(pod, cname, o.previous);
      if (lines === undefined || (!o.previous && ctx.cluster.kubelet.containerState(pod, cname) === "waiting" && !lines.length)) {
        if (o.previous) throw new KubectlError(`Error from server (BadRequest): previous terminated container "${cname}" in pod "${pod.metadata.name}" not found`);
        const reason = (pod.status?.containerStatuses ?? []).find((c) => c.name === cname)?.state?.waiting?.reason ?? "ContainerCreating";
        throw new KubectlError(`Error from server (BadRequest): container "${cname}" in pod "${pod.metadata.name}" is waiting to start: ${reason === "ContainerCreating" ? "ContainerCreating" : `trying and failing to pull image`}`);
      }
      let text = lines.map((l) => l.line);
      // Integration point: the network module supplies kube-proxy's start-up lines (mode, syncs).
      if (!o.previous && ctx.extraLogs) {
        const extra = ctx.extraLogs(pod, cname);
        if (extra) text = [...extra, ...text];
      }
      if (o.tail >= 0) text = text.slice(Math.max(0, text.length - o.tail));
      const prefix = o.prefix ? `[pod/${pod.metadata.name}/${cname}] ` : "";
      for (const l of text) out.out(prefix + l + "\n");
    }
  },
};
