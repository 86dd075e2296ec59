// dmesg (util-linux 2.38) on a node: the kernel's log ring (src/engine/net/context.ts KernelLog),
// each line stamped with the seconds since the node booted, as `[%5lu.%06lu] ` prints them. The
// kernel writes to it what the simulation models (conntrack's "table full"). In a pod, the
// container is not allowed to read it (CAP_SYSLOG), as with containerd's default profile.
import { dataplaneOf } from "../../engine/net/cluster-env.js";
import type { NodeCommand } from "../node-commands.js";

export const dmesg: NodeCommand = (args, ctx) => {
  for (const a of args) {
    if (a.startsWith("--")) return { stdout: "", stderr: `dmesg: unrecognized option '${a}'\nTry 'dmesg --help' for more information.\n`, exitCode: 1 };
    if (a.startsWith("-")) return { stdout: "", stderr: `dmesg: invalid option -- '${a[1] ?? ""}'\nTry 'dmesg --help' for more information.\n`, exitCode: 1 };
  }
  if (ctx.pod) return { stdout: "", stderr: "dmesg: read kernel buffer failed: Operation not permitted\n", exitCode: 1 };
  // The node booted when the kubelet registered it (near enough: seconds apart).
  const node = ctx.cluster.store.list("nodes").find((n) => n.metadata.name === ctx.node);
  const boot = node?.metadata.creationTimestamp ? Date.parse(node.metadata.creationTimestamp) : 0;
  let out = "";
  for (const l of dataplaneOf(ctx.cluster).kernel(ctx.node).log.lines) {
    const us = Math.max(0, Math.round((l.ts - boot) * 1000));
    out += `[${String(Math.floor(us / 1e6)).padStart(5)}.${String(us % 1e6).padStart(6, "0")}] ${l.text}\n`;
  }
  return { stdout: out, stderr: "", exitCode: 0 };
};
