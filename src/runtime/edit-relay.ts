// kubectl edit in the web UI's hosted editor. A command line that opens the editor pauses inside
// kubectl; its HTTP request is answered with the file to edit, and the request that brings the
// edited text back is answered with what comes next: the command's result, or the same file
// reopened with kubectl's reasons (an invalid save). The relay passes each answer to the request
// waiting for it; the cluster's host keeps one relay per cluster.
import { conflictMsg } from "../http/errors.js";
import type { ClusterCore } from "./core.js";
import type { ExecResult } from "./shell.js";

interface Waiter {
  resolve(r: ExecResult): void;
  reject(e: unknown): void;
}

export class EditRelay {
  private waiter?: Waiter;

  private take(): Waiter | undefined {
    const w = this.waiter;
    this.waiter = undefined;
    return w;
  }

  /**
   * Runs a command line that may open the hosted editor (`run` loads the core, sets its onEdit to
   * this relay's and persists as exec does); answers with its result or the editor's first file.
   */
  start(run: () => Promise<ExecResult>): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      this.waiter = { resolve, reject };
      run().then(
        (r) => this.take()?.resolve(r),
        (e: unknown) => this.take()?.reject(e),
      );
    });
  }

  /** The core's onEdit: the waiting request gets the file. */
  readonly opened = (edit: NonNullable<ExecResult["edit"]>): void => {
    this.take()?.resolve({ stdout: "", stderr: "", exitCode: 0, edit });
  };

  /** The edited text (null: quit the editor) of edit `id`; answers with what the command does next. */
  resume(core: ClusterCore | undefined, id: string, text: string | null): Promise<ExecResult> {
    const pending = core?.pendingEdit;
    if (!core || !pending || pending.id !== id) return Promise.reject(conflictMsg(`no kubectl edit is waiting for edit "${id}" in this terminal (it was saved, quit, or timed out)`));
    return new Promise<ExecResult>((resolve, reject) => {
      this.waiter = { resolve, reject };
      core.finishEdit(id, text ?? undefined);
    });
  }
}

export const editBusy = () => conflictMsg("kubectl edit is waiting for its editor in this terminal: save or quit the file first");
