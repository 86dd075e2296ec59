// kubectl logs (pkg/cmd/logs).

import { R } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import type { Pod } from "../../../engine/api/types.js";
import { f, nsOf } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { podFor } from "../pods.js";

export function cmdLogs(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("follow", "bool", "f"), f("previous", "bool", "p"), f("container", "string", "c"), f("tail", "int"), f("selector", "string", "l"), f("timestamps", "bool"), f("all-containers", "bool"), f("since", "string"), f("prefix", "bool"), f("max-log-requests", "int"), f("ignore-errors", "bool")], "kubectl logs");
  const ns = nsOf(p, ctx);
  let pods: Pod[];
  if (str(p, "selector")) {
    pods = ctx.cluster.client.list(R.pods, ns, { labelSelector: str(p, "selector") }).items as Pod[];
    if (!pods.length) {
      o.err(`No resources found in ${ns} namespace.\n`);
      return;
    }
  } else {
    if (!p.args[0] || p.args.length > 2) throw new KubectlError("expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples");
    try {
      const first = podFor(p.args[0], ns, ctx, "logging");
      if (first.count > 1) o.err(`Found ${first.count} pods, using pod/${first.pod.metadata.name}\n`);
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
  const tail = tailFlag !== undefined ? Number(tailFlag) : str(p, "selector") ? 10 : -1;
  for (const pod of pods) {
    const containers = pod.spec.containers.map((c) => c.name);
    const cname = str(p, "container") ?? p.args[1] ?? containers[0];
    if (!containers.includes(cname)) throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${pod.metadata.name}`);
    if (!str(p, "container") && containers.length > 1 && !str(p, "selector")) o.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
    const previous = bool(p, "previous");
    const lines = ctx.cluster.kubelet.logs(pod, cname, previous);
    if (lines === undefined || (!previous && ctx.cluster.kubelet.containerState(pod, cname) === "waiting" && !lines.length)) {
      if (previous) throw new KubectlError(`Error from server (BadRequest): previous terminated container "${cname}" in pod "${pod.metadata.name}" not found`);
      const reason = (pod.status?.containerStatuses ?? []).find((c) => c.name === cname)?.state?.waiting?.reason ?? "ContainerCreating";
      throw new KubectlError(`Error from server (BadRequest): container "${cname}" in pod "${pod.metadata.name}" is waiting to start: ${reason === "ContainerCreating" ? "ContainerCreating" : `trying and failing to pull image`}`);
    }
    let text = lines.map((l) => l.line);
    // Integration point: the network module supplies kube-proxy's start-up lines (mode, syncs).
    if (!previous && ctx.extraLogs) {
      const extra = ctx.extraLogs(pod, cname);
      if (extra) text = [...extra, ...text];
    }
    if (tail >= 0) text = text.slice(Math.max(0, text.length - tail));
    const prefix = bool(p, "prefix") ? `[pod/${pod.metadata.name}/${cname}] ` : "";
    for (const l of text) o.out(prefix + l + "\n");
  }
}
