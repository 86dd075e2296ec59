// The terminal as the host sees it: one ShellRunner per cluster, whose state (working
// directory, files, history) is saved with the cluster. The terminal itself lives in src/shell;
// the host only needs this interface, so it can run before and after the terminal lands.
import type { Cluster } from "../engine/cluster.js";
import type { LineTime } from "../shell/time.js";
import type { StopReason } from "./budget.js";

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The prompt the terminal shows before the next line (changes with ssh, kubectl exec -it, cd). */
  prompt?: string;
  /** The command's place in the cluster's journal (src/runtime/journal.ts). */
  seq?: number;
  /** kubectl edit opened this file in the hosted editor: the command waits for it (src/runtime/edit-relay.ts). */
  edit?: PendingEdit;
  /** What stopped the line before it ended by itself (Ctrl-C, the exec's time limit, a budget). */
  stopped?: StopReason;
  /** The shell: the line's command caught the interrupt and ended by itself (watch exits 0). */
  caught?: boolean;
}

/** How a host runs one line: its time and stop signal, and the terminal it may stream to. */
interface LineOptions {
  /** The line's stop (src/runtime/budget.ts). */
  signal?: AbortSignal;
  time?: LineTime;
  /** Output of a line that is one streaming command (kubectl get -w, watch), as it is produced. */
  write?: (chunk: string, kept: boolean) => void;
  /** The terminal's width. */
  columns?: number;
}

/** A file kubectl edit waits on in the web UI's hosted editor. */
export interface PendingEdit {
  id: string;
  file: string;
  text: string;
}

export interface ShellRunner {
  /**
   * Runs one bash command line against the cluster (may write through cluster.client); `signal`
   * stops it (src/runtime/budget.ts), `time` is what its commands wait on.
   */
  run(commandLine: string, opts?: LineOptions): ExecResult | Promise<ExecResult>;
  /** JSON-serializable state, handed back to the factory when the cluster is restored. */
  save(): unknown;
  /** Changes whenever save() may return something new; without it, save() runs after every command. */
  revision?(): string | number;
  /** The prompt before the next line. */
  prompt?(): string;
  /**
   * Runs argv in a pod's container, in the pod shells the terminal's kubectl exec uses (the
   * Kubernetes API's exec streams run their commands here). Throws a Status for a pod that is gone.
   */
  execInPod?(namespace: string, pod: string, container: string, argv: string[], stdin: string, signal?: AbortSignal): Promise<ExecResult>;
}

/** An editor for `kubectl edit`: the text and its file name in, the edited text out (undefined: quit unchanged). */
export type EditorFn = (text: string, file: string) => Promise<string | undefined>;

/** What the host lends the terminal: an editor while a command line may use one (the web UI's). */
export interface ShellHooks {
  editor: { current?: EditorFn };
}

/** Builds a cluster's runner; `saved` is what its save() returned last time (undefined when new). */
export type ShellFactory = (cluster: Cluster, saved: unknown, hooks?: ShellHooks) => ShellRunner;

/** Until src/shell is wired in: every command answers 127 and says why. */
export const missingShell: ShellFactory = () => ({
  run: (line) => ({
    stdout: "",
    stderr: `servicelab: the terminal is not installed in this build: ${line.split(/\s+/)[0] ?? ""}: command not found\n`,
    exitCode: 127,
  }),
  save: () => null,
});
