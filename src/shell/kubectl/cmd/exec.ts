// kubectl exec (pkg/cmd/exec).

import { f, nsOf } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, str } from "../flags.js";
import { podFor } from "../pods.js";
import type { Pod } from "../../../engine/api/types.js";

interface ExecOptions {
  /** POD or TYPE/NAME. */
  target: string;
  /** What follows "--". */
  command: string[];
  container?: string;
  stdin: boolean;
  tty: boolean;
  namespace: string;
}

export const execCommand: KubectlCommand<ExecOptions> = {
  name: "exec",
  flags: [f("stdin", "bool", "i"), f("tty", "bool", "t"), f("container", "string", "c"), f("quiet", "bool", "q"), f("filename", "array", "f"), f("pod-running-timeout", "string")],
  complete(p, ctx) {
    const target = p.args[0];
    if (!target) throw new KubectlError("pod, type/name or --filename must be specified");
    if (!p.rest && p.args.length > 1) throw new KubectlError(`exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples`);
    return { target, command: p.rest ?? [], container: str(p, "container"), stdin: bool(p, "stdin"), tty: bool(p, "tty"), namespace: nsOf(p, ctx) };
  },
  validate(o) {
    if (!o.command.length) throw new KubectlError("you must specify at least one command for the container");
  },
  async run(o, ctx, out) {
    const { pod } = podFor(o.target, o.namespace, ctx, "attach");
    // kubectl's own checks (exec.go): a completed pod first, then the default container.
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") throw new KubectlError(`cannot exec into a container in a completed pod; current phase is ${pod.status.phase}`);
    const containers = pod.spec.containers.map((c) => c.name);
    const cname = o.container ?? containers[0];
    if (!o.container && containers.length > 1) out.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
    notExecutable(pod, cname, ctx);
    const interactive = o.stdin && o.tty;
    const bin = o.command[0].split("/").pop()!;
    if (interactive && o.command.length === 1 && /^(sh|bash|ash)$/.test(bin)) {
      const r = await ctx.execInPod(pod, cname, ["__check_shell__", bin], "");
      if (r.exitCode !== 0) {
        out.err(r.stderr);
        throw new KubectlError("", 1);
      }
      ctx.attach({ pod, container: cname, shell: bin, removeOnExit: false });
      return;
    }
    const r = await ctx.execInPod(pod, cname, o.command, o.stdin ? ctx.stdin : "");
    out.out(r.stdout);
    out.err(r.stderr);
    if (r.exitCode !== 0) {
      if (r.exitCode >= 126 && r.stderr.startsWith("error: Internal error")) throw new KubectlError("", 1);
      // kubectl prints an exec.CodeExitError as it is, without "error: ".
      throw new KubectlError(`command terminated with exit code ${r.exitCode}`, r.exitCode, { raw: true });
    }
  },
};

/**
 * Why the exec request fails before a process starts, worded as the client sees it: the apiserver's
 * streamLocation (a container the pod lacks, a pod not on a node) answers BadRequest; the kubelet
 * (server.go getExec, kubelet_pods.go GetExec) answers a pod it does not run with "pod does not
 * exist" and a container not running with `container not found ("name")`, which kubectl's SPDY
 * upgrade reports as "unable to upgrade connection: ...".
 */
function notExecutable(pod: Pod, cname: string, ctx: KubectlContext): void {
  const name = pod.metadata.name;
  const ephemeral = Array.isArray(pod.spec.ephemeralContainers) ? (pod.spec.ephemeralContainers as { name: string }[]) : [];
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...ephemeral].map((c) => c.name);
  if (!all.includes(cname)) throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${name}`);
  if (!pod.spec.nodeName) throw new KubectlError(`Error from server (BadRequest): pod ${name} does not have a host assigned`);
  if (!ctx.cluster.kubelet.runs(pod)) throw new KubectlError("unable to upgrade connection: pod does not exist");
  if (ctx.cluster.kubelet.containerState(pod, cname) !== "running") throw new KubectlError(`unable to upgrade connection: container not found (${JSON.stringify(cname)})`);
}
