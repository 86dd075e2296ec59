// kubectl run (pkg/cmd/run): a pod, printed or created, and attached to with -i.

import type { Container, Pod } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { isBareShell } from "../../../engine/kubelet/script.js";
import { dryRun, type DryRunStrategy, f, labelsFromString, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, bool, type Parsed, str } from "../flags.js";
import { enforceNamespace } from "../generated.js";
import { printResult } from "../print.js";
import { waitRunning } from "../waiting.js";
import { applyOverrides, asTypedPod } from "./overrides.js";

const RUN_FLAGS = [
  ...OUTPUT_FLAGS,
  f("image", "string"),
  f("env", "array"),
  f("port", "string"),
  f("labels", "string", "l"),
  f("image-pull-policy", "string"),
  f("restart", "string"),
  f("command", "bool"),
  f("rm", "bool"),
  f("stdin", "bool", "i"),
  f("tty", "bool", "t"),
  f("attach", "bool"),
  f("expose", "bool"),
  f("annotations", "array"),
  f("privileged", "bool"),
  f("overrides", "string"),
  f("override-type", "string"),
  f("pod-running-timeout", "string"),
  f("quiet", "bool", "q"),
];

interface RunOptions {
  name: string;
  container: Container;
  restart: string;
  interactive: boolean;
  tty: boolean;
  remove: boolean;
  dryRun: DryRunStrategy;
  /** The namespace and printing flags. */
  p: Parsed;
}

export const runCommand: KubectlCommand<RunOptions> = {
  name: "run",
  flags: RUN_FLAGS,
  required: ["image"],
  complete(p) {
    const dry = dryRun(p);
    // cobra checked --image was given; an empty one is refused the same way, before NAME.
    const image = str(p, "image");
    if (!image) throw new KubectlError('required flag(s) "image" not set');
    const name = p.args[0];
    if (!name) throw new KubectlError("NAME is required for run\nSee 'kubectl run -h' for help and examples");
    const extra = [...p.args.slice(1), ...(p.rest ?? [])];
    const container: Container = { name, image };
    if (bool(p, "command") && extra.length) container.command = extra;
    else if (extra.length) container.args = extra;
    const env = arr(p, "env").map((kv) => {
      const i = kv.indexOf("=");
      return { name: kv.slice(0, i), value: kv.slice(i + 1) };
    });
    if (env.length) container.env = env;
    if (str(p, "image-pull-policy")) container.imagePullPolicy = str(p, "image-pull-policy");
    if (str(p, "port")) container.ports = [{ containerPort: Number(str(p, "port")) }];
    container.resources = {};
    const interactive = bool(p, "stdin");
    const tty = bool(p, "tty");
    if (interactive) {
      container.stdin = true;
      container.stdinOnce = true;
    }
    if (tty) container.tty = true;
    return { name, container, restart: str(p, "restart") ?? "Always", interactive, tty, remove: bool(p, "rm"), dryRun: dry, p };
  },
  validate(o) {
    if (!["Always", "OnFailure", "Never"].includes(o.restart)) throw new KubectlError(`invalid restart policy: ${o.restart}`);
    if (o.remove && !o.interactive) throw new KubectlError("--rm should only be used for attached containers");
  },
  async run(o, ctx, out) {
    const { p, name, container } = o;
    const labels = str(p, "labels") ? labelsFromString(str(p, "labels")!) : { run: name };
    const obj: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { creationTimestamp: null, labels, name },
      spec: { containers: [container], dnsPolicy: "ClusterFirst", restartPolicy: o.restart },
      status: {},
    };
    // --overrides: the generated pod patched before it is printed or sent (cmdutil.Overrider).
    const pod = str(p, "overrides") ? (asTypedPod(applyOverrides(obj, str(p, "overrides")!, str(p, "override-type") ?? "merge")) as Pod) : obj;
    const mode = o.dryRun;
    if (mode === "client") {
      printResult(R.pods, enforceNamespace(R.pods, pod, p), p, out, "created");
      return;
    }
    const ns = nsOf(p, ctx);
    const created = ctx.cluster.client.create(R.pods, ns, pod, { dryRun: mode === "server", fieldManager: "kubectl-run" });
    if (!o.interactive) {
      printResult(R.pods, created, p, out, "created");
      return;
    }
    const cmd = [...(container.command ?? []), ...(container.args ?? [])];
    if (cmd.length > 0 && !isBareShell(cmd)) {
      // The container's command runs once with its output on the terminal: kubectl attaches to
      // it, or prints the logs of a container that has already ended.
      const started = await waitRunning(ctx, ns, name, true);
      if (!started) return;
      const r = await ctx.execInPod(started, name, cmd, "");
      out.out(r.stdout);
      out.err(r.stderr);
      if (o.remove) {
        ctx.cluster.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
        out.out(`pod "${name}" deleted\n`);
      }
      // Never and OnFailure: kubectl waits for the pod to end and exits with its container's code.
      if (o.restart !== "Always" && r.exitCode !== 0) throw new KubectlError(`pod ${ns}/${name} terminated (Error)`, r.exitCode, { raw: true });
      return;
    }
    // Attach: wait for the container to run, then hand the terminal to its shell.
    const running = await waitRunning(ctx, ns, name);
    if (!running) return;
    const shell = cmd.length ? cmd[0].split("/").pop()! : ctx.cluster.kubelet.profile(running)?.shell ?? "sh";
    if (o.tty) out.err("If you don't see a command prompt, try pressing enter.\n");
    ctx.attach({ pod: running, container: name, shell, removeOnExit: o.remove });
  },
};
