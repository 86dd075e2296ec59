// What kubectl needs from the terminal around it: the cluster, the session's kubeconfig
// namespace, files relative to the working directory, stdin, the editor and pod shells.

import type { Cluster } from "../../engine/cluster.js";
import type { Pod } from "../../engine/api/types.js";
import type { LineTime } from "../time.js";

export interface Output {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The line was interrupted and its command caught it, ending by itself (watch). */
  caught?: boolean;
}

/** `kubectl edit`'s $EDITOR: gets the text and a file name, returns the edited text (undefined = quit). */
export type Editor = (text: string, file: string) => Promise<string | undefined> | string | undefined;

export interface AttachRequest {
  pod: Pod;
  container: string;
  /** The shell the session runs lines in ("sh" or "bash"). */
  shell: string;
  /** Delete the pod when the shell exits (kubectl run --rm). */
  removeOnExit: boolean;
}

export interface KubectlContext {
  cluster: Cluster;
  namespace: string;
  setNamespace(ns: string): void;
  cwd: string;
  stdin: string;
  readFile(path: string): Promise<string>;
  /** Files (not directories) directly in `path`, or undefined if it is not a directory. */
  listDir(path: string): Promise<string[] | undefined>;
  /** An editor the host provides (the web UI's): used before KUBE_EDITOR / EDITOR. */
  editor?: Editor;
  /** The environment kubectl runs in (KUBE_EDITOR, EDITOR, SHELL). */
  getenv?(name: string): string | undefined;
  /** Runs a command line in the node's shell, in kubectl's directory (kubectl edit's editor). */
  runShell?(command: string): Promise<Output>;
  /** Writes a file of the node (kubectl edit's copy of changes it could not save). */
  writeFile?(path: string, text: string): Promise<void>;
  attach(req: AttachRequest): void;
  /** Runs argv in the pod's container (kubectl exec). */
  execInPod(pod: Pod, container: string, argv: string[], stdin: string): Promise<Output>;
  /** Extra log lines for a container (e.g. kube-proxy's start-up lines), from the network module. */
  extraLogs?(pod: Pod, container: string): string[] | undefined;
  /** The command line's stop (src/runtime/budget.ts): commands that wait or run long heed it. */
  signal?: AbortSignal;
  /** The command line's time: what waits (rollout status, wait, get -w) waits on it and stops with it. */
  time?: LineTime;
  /** The command's own stop (bash's `timeout` around it), beside the line's. */
  commandSignal?: AbortSignal;
  /** The terminal, when kubectl's stdout is it: output written as it is produced (not also returned). */
  tty?: (chunk: string) => void;
}

/**
 * Between two objects of a long kubectl (`apply -f` of 3000 objects): the line's slice, which on
 * Node lets other clusters' requests in (the function the host put on the signal under
 * Symbol.for("servicelab.slice"), as the interpreter calls it between commands). False once the
 * line was stopped: the command ends there, with what it did so far.
 */
export async function between(ctx: KubectlContext): Promise<boolean> {
  const s = ctx.signal;
  if (!s) return true;
  const slice = (s as unknown as Record<symbol, unknown>)[Symbol.for("servicelab.slice")];
  if (typeof slice === "function") await (slice as () => Promise<void> | undefined)();
  return !s.aborted;
}
