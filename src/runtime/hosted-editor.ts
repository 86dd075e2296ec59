// kubectl edit's editor during a command line: the web UI's hosted editor (the line waits for
// the file to come back through finish()), the answers a replay gives again, or none (kubectl's
// own). The answers a line got are kept for its journal line, so time travel replays them.
import type { EditorFn, PendingEdit } from "./shell.js";

/** How long kubectl edit waits for the hosted editor before it quits as if the file was closed unchanged. */
const EDIT_TIMEOUT_MS = 15 * 60_000;

export class HostedEditor {
  /** Told when a command line's kubectl edit opens a file in the hosted editor (set by the host). */
  onEdit?: (e: PendingEdit) => void;
  private pending?: PendingEdit & { finish(text: string | undefined): void };
  /** The hosted editor's answers during the command line running now. */
  private answers?: Array<string | null>;
  private edits = 0;

  /** The file kubectl edit waits on in the hosted editor, if one does. */
  get waiting(): PendingEdit | undefined {
    return this.pending && { id: this.pending.id, file: this.pending.file, text: this.pending.text };
  }

  /** The hosted editor's answer to edit `id` (undefined: quit); false when no such edit waits. */
  finish(id: string, text: string | undefined): boolean {
    if (this.pending?.id !== id) return false;
    this.pending.finish(text);
    return true;
  }

  /**
   * The editor of a command line that starts: the answers `replay` gives again, or the hosted
   * editor (`hosted`), or none. end() then says what the line's kubectl edit got.
   */
  begin(opts: { hosted?: boolean; replay?: ReadonlyArray<string | null> }): EditorFn | undefined {
    this.answers = [];
    if (opts.replay) {
      const replayed = [...opts.replay];
      return async () => replayed.shift() ?? undefined;
    }
    return opts.hosted ? (text, file) => this.open(text, file) : undefined;
  }

  /** The answers the line's kubectl edit got (a replay's, given again). */
  end(replay?: ReadonlyArray<string | null>): Array<string | null> {
    const answers = replay ? [...replay] : (this.answers ?? []);
    this.answers = undefined;
    return answers;
  }

  /** Opens the file in the hosted editor, and waits for its answer. */
  private open(text: string, file: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const id = `e${++this.edits}`;
      // A tab closed while editing must not hold the terminal for ever: quit the editor.
      const timer = setTimeout(() => this.finish(id, undefined), EDIT_TIMEOUT_MS);
      this.pending = {
        id,
        file,
        text,
        finish: (t) => {
          clearTimeout(timer);
          this.pending = undefined;
          this.answers?.push(t ?? null);
          resolve(t);
        },
      };
      this.onEdit?.({ id, file, text });
    });
  }
}
