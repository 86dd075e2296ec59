// The flags that choose kubectl's client configuration (--kubeconfig, --context, --cluster,
// --request-timeout), checked as kubectl's config loader checks them before any request. The
// node's kubeconfig has one cluster, one user and one context.

import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";

const CONTEXT = "kubernetes-admin@kubernetes";
const CLUSTER = "kubernetes";

/** The last value of a global flag written --name=V, --name V (or -s V for its shorthand). */
function flagValue(args: readonly string[], name: string, short?: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
    else if ((a === `--${name}` || (short && a === `-${short}`)) && i + 1 < args.length) value = args[++i];
  }
  return value;
}

/** A Go duration (time.ParseDuration), or whole seconds: what --request-timeout takes. */
const TIMEOUT = /^(\d+|[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+)$/;

export async function checkClientConfig(args: readonly string[], ctx: KubectlContext): Promise<void> {
  const kubeconfig = flagValue(args, "kubeconfig");
  if (kubeconfig) {
    try {
      await ctx.readFile(kubeconfig);
    } catch {
      throw new KubectlError(`stat ${kubeconfig}: no such file or directory`);
    }
  }
  const context = flagValue(args, "context");
  if (context && context !== CONTEXT) throw new KubectlError(`Error in configuration: context was not found for specified context: ${context}`, 1, { raw: true });
  const cluster = flagValue(args, "cluster");
  if (cluster && cluster !== CLUSTER) throw new KubectlError(`no server found for cluster ${JSON.stringify(cluster)}`);
  const timeout = flagValue(args, "request-timeout");
  if (timeout !== undefined && !TIMEOUT.test(timeout)) throw new KubectlError("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)");
}
