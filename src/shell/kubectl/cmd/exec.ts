// kubectl exec (pkg/cmd/exec).

import { f, nsOf } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { podFor } from "../pods.js";

export async function cmdExec(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("stdin", "bool", "i"), f("tty", "bool", "t"), f("container", "string", "c"), f("quiet", "bool", "q"), f("filename", "array", "f"), f("pod-running-timeout", "string")], "kubectl exec");
  const target = p.args[0];
  if (!target) throw new KubectlError("pod or type/name must be specified");
  const cmd = p.rest ?? p.args.slice(1);
  if (!p.rest && p.args.length > 1) throw new KubectlError(`exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples`);
  if (!cmd.length) throw new KubectlError("you must specify at least one command for the container");
  const ns = nsOf(p, ctx);
  const { pod } = podFor(target, ns, ctx, "attach");
  const containers = pod.spec.containers.map((c) => c.name);
  const cname = str(p, "container") ?? containers[0];
  if (!containers.includes(cname)) throw new KubectlError(`container ${cname} not found in pod ${pod.metadata.name}`);
  if (!str(p, "container") && containers.length > 1) o.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
  const state = ctx.cluster.kubelet.containerState(pod, cname);
  if (state !== "running") {
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") throw new KubectlError(`cannot exec into a container in a completed pod; current phase is ${pod.status.phase}`);
    throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${pod.metadata.name}`.replace(/^error: /, ""));
  }
  const interactive = bool(p, "stdin") && bool(p, "tty");
  const bin = cmd[0].split("/").pop()!;
  if (interactive && cmd.length === 1 && /^(sh|bash|ash)$/.test(bin)) {
    const r = await ctx.execInPod(pod, cname, ["__check_shell__", bin], "");
    if (r.exitCode !== 0) {
      o.err(r.stderr);
      throw new KubectlError("", 1);
    }
    ctx.attach({ pod, container: cname, shell: bin, removeOnExit: false });
    return;
  }
  const r = await ctx.execInPod(pod, cname, cmd, bool(p, "stdin") ? ctx.stdin : "");
  o.out(r.stdout);
  o.err(r.stderr);
  if (r.exitCode !== 0) {
    if (r.exitCode >= 126 && r.stderr.startsWith("error: Internal error")) throw new KubectlError("", 1);
    // kubectl prints an exec.CodeExitError as it is, without "error: ".
    throw new KubectlError(`command terminated with exit code ${r.exitCode}`, r.exitCode, { raw: true });
  }
}
