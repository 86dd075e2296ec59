// Which terminal the host runs: src/shell's Session (just-bash with kubectl and the node's
// commands), its state saved with the cluster. Tests swap in their own runner with useShell().
import { R } from "../engine/api/resources.js";
import { notFound } from "../engine/api/status.js";
import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { Session, type SessionState } from "../shell/session.js";
// Registers curl, wget, nslookup, dig, iptables-save, nft, ipvsadm, ... in the node's commands.
import type { ShellFactory } from "./shell.js";

let override: ShellFactory | undefined;

/** Replaces the terminal for this isolate (tests). */
export function useShell(f: ShellFactory | undefined): void {
  override = f;
}

export const sessionShell: ShellFactory = (cluster: Cluster, saved: unknown, hooks) => {
  const state = saved && typeof saved === "object" && (saved as SessionState).version === 1 ? (saved as SessionState) : undefined;
  const s = new Session(cluster, { state, hostedEditor: hooks?.editor });
  return {
    run: (line, opts) => s.run(line, opts),
    save: () => s.save(),
    revision: () => s.revision(),
    prompt: () => s.prompt,
    execInPod: (namespace, name, container, argv, stdin, signal) => {
      const pod = cluster.api.peek(R.pods, namespace, name) as Pod | undefined;
      if (!pod) throw notFound("pods", "", name);
      return s.execInPod(pod, container, argv, stdin, signal);
    },
  };
};

export async function shellFactory(): Promise<ShellFactory> {
  return override ?? sessionShell;
}
