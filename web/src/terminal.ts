// The terminal: xterm.js with a line editor in front of the exec API. bash's own line editing
// keys (arrows, Home/End, Ctrl-A/E/U/K/W, history with up/down, Tab completion, Ctrl-C, Ctrl-L),
// output streamed while a command runs, Ctrl-C that interrupts it (the exec API's interrupt),
// bash's "> " continuation for unfinished lines, and the server's prompt after every command (it
// changes with cd, ssh node1 and kubectl exec -it). Typed commands and replayed ones (a reload, a
// share link) are drawn the same way.
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import "@xterm/xterm/css/xterm.css";
import { commonPrefix } from "./completion";
import { needsMore, splitCommands } from "../../src/shell/command-lines";

/** More output than this from one command is cut with a notice (xterm keeps 5000 lines anyway). */
const OUTPUT_LIMIT = 256 * 1024;

interface TerminalOptions {
  readOnly: boolean;
  submit(command: string): Promise<void>;
  complete(line: string): { word: string; candidates: string[] };
  cutNotice: string;
  /** Escape leaves the terminal (Tab completes inside it), so keyboard users can move on. */
  onEscape?: () => void;
  /** Ctrl-C while a command runs: the server stops it (its answer then ends with ^C). */
  interrupt?: () => void;
}

const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");

export class LabTerminal {
  readonly term: Terminal;
  private readonly fit = new FitAddon();
  private prompt = "[root@master ~]# ";
  private buffer = "";
  private cursor = 0;
  private pending: string[] = [];
  private history: string[] = [];
  private historyAt = -1;
  private draft = "";
  private busy = false;
  private lastTab = 0;
  private readonly resizeObserver: ResizeObserver;

  constructor(
    readonly el: HTMLElement,
    private readonly opts: TerminalOptions,
  ) {
    this.term = new Terminal({
      fontFamily: '"DejaVu Sans Mono", "Noto Sans Mono CJK SC", Menlo, Consolas, monospace',
      fontSize: Number(localStorage.getItem("servicelab.fontSize")) || 14,
      screenReaderMode: localStorage.getItem("servicelab.screenReader") === "1",
      scrollback: 5000,
      cursorBlink: !opts.readOnly,
      disableStdin: opts.readOnly,
      convertEol: false,
      allowProposedApi: false,
      theme: { background: "#0b1020", foreground: "#e5e7eb", cursor: "#93c5fd", selectionBackground: "#334155" },
    });
    this.term.loadAddon(this.fit);
    this.term.open(el);
    this.fitNow();
    this.resizeObserver = new ResizeObserver(() => this.fitNow());
    this.resizeObserver.observe(el);
    if (!opts.readOnly) this.term.onData((d) => this.onData(d));
    // Ctrl-C with a selection copies, as terminals in browsers do; without one it interrupts.
    this.term.attachCustomKeyEventHandler((e) => {
      if (e.type === "keydown" && e.key === "Escape" && this.opts.onEscape) {
        this.opts.onEscape();
        return false;
      }
      if (e.type === "keydown" && (e.ctrlKey || e.metaKey) && e.key === "c" && this.term.hasSelection()) {
        void navigator.clipboard?.writeText(this.term.getSelection());
        return false;
      }
      return true;
    });
  }

  private fitNow(): void {
    try {
      if (this.el.clientWidth > 0 && this.el.clientHeight > 0) this.fit.fit();
    } catch {
      // not laid out yet
    }
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.term.dispose();
  }

  focus(): void {
    this.term.focus();
  }

  setHistory(commands: string[]): void {
    this.history = commands.filter((c) => c.trim()).slice(-500);
    this.historyAt = -1;
  }

  /** Shows the prompt for the next line. */
  showPrompt(prompt: string): void {
    this.prompt = prompt;
    this.buffer = "";
    this.cursor = 0;
    this.pending = [];
    this.term.write(crlf(prompt));
  }

  /** A command and its output as the terminal showed them (journal replay, a share link's live feed). */
  writeEntry(prompt: string, command: string, stdout: string, stderr: string, cut?: boolean): void {
    this.term.write(crlf(prompt + command.split("\n").join("\n> ") + "\n"));
    this.writeOutput(stdout, stderr, cut);
  }

  /** A command's output: stderr as plain as stdout, as a node's terminal shows both. */
  writeOutput(stdout: string, stderr: string, cut?: boolean): void {
    let out = stdout + stderr;
    if (out.length > OUTPUT_LIMIT) {
      out = out.slice(0, OUTPUT_LIMIT);
      cut = true;
    }
    if (out) this.term.write(crlf(out.endsWith("\n") ? out : out + "\n"));
    if (cut) this.term.write(crlf(`\x1b[33m${this.opts.cutNotice}\x1b[0m\n`));
  }

  /** Output of a running command as it comes (kubectl get -w, watch). */
  writeStream(chunk: string): void {
    this.term.write(crlf(chunk));
  }

  /** ServiceLab's own error (not the node's output): in red, so it is not taken for bash's. */
  writeError(text: string): void {
    this.term.write(crlf(`\x1b[31m${text}\x1b[0m\n`));
  }

  writeNotice(text: string): void {
    this.term.write(crlf(`\x1b[33m${text}\x1b[0m\n`));
  }

  /**
   * Types `text` at the prompt and runs it, as if the student had (the steps' run buttons, a
   * paste): one command line at a time, each after the last one's output and prompt.
   */
  run(text: string): Promise<void> {
    // A Run pressed while another block still runs waits its turn, as typed-ahead lines would.
    this.queue = this.queue.then(() => this.runNow(text));
    return this.queue;
  }
  private queue: Promise<void> = Promise.resolve();

  private async runNow(text: string): Promise<void> {
    // (a typed command may still be running)
    while (this.busy) await new Promise((r) => setTimeout(r, 50));
    if (this.opts.readOnly || this.locked) return;
    this.clearLine();
    const commands = splitCommands(text);
    for (const [i, cmd] of commands.entries()) {
      if (i > 0) this.clearLine();
      this.term.write(crlf(cmd.split("\n").join("\n> ")));
      await this.submit(cmd);
    }
  }

  private clearLine(): void {
    // Erase what is typed (all of it, over several lines) and start from the prompt again.
    const rows = this.pending.length;
    this.term.write("\r\x1b[K" + (rows ? `\x1b[${rows}A\r\x1b[J` : ""));
    this.term.write(crlf(this.prompt));
    this.buffer = "";
    this.cursor = 0;
    this.pending = [];
  }

  private async submit(command: string): Promise<void> {
    this.term.write("\r\n");
    this.busy = true;
    this.historyAt = -1;
    if (command.trim()) {
      if (this.history.at(-1) !== command) this.history.push(command);
    }
    try {
      await this.opts.submit(command);
    } finally {
      this.busy = false;
    }
  }

  private redraw(): void {
    const linePrompt = this.pending.length ? "> " : this.prompt.split("\n").at(-1)!;
    this.term.write(`\r\x1b[K${linePrompt}${this.buffer}`);
    const back = this.buffer.length - this.cursor;
    if (back > 0) this.term.write(`\x1b[${back}D`);
  }

  private insert(text: string): void {
    this.buffer = this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor);
    this.cursor += text.length;
    this.redraw();
  }

  /** Text size and xterm's screen-reader mode (lines read out as they come), kept per browser. */
  setView(o: { fontSize?: number; screenReader?: boolean }): void {
    if (o.fontSize !== undefined) this.term.options.fontSize = o.fontSize;
    if (o.screenReader !== undefined) this.term.options.screenReaderMode = o.screenReader;
    this.fitNow();
  }

  /** No more input (a classroom's time is up): what is on screen stays. */
  setReadOnly(): void {
    this.locked = true;
    this.term.options.disableStdin = true;
    this.term.options.cursorBlink = false;
  }
  private locked = false;

  private onData(data: string): void {
    // Ctrl-C while a command runs interrupts it, as the terminal's SIGINT would.
    if (this.busy && data === "\x03" && !this.locked) {
      this.opts.interrupt?.();
      return;
    }
    if (this.busy || this.locked) return;
    // A paste of several lines: each completed command runs in turn, as a terminal would feed bash.
    if (data.length > 1 && /[\r\n]/.test(data) && !data.startsWith("\x1b")) {
      const text = data.replace(/\r\n?/g, "\n");
      const all = [...this.pending, this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor)].join("\n");
      const commands = splitCommands(all);
      // What follows the last newline, or a command bash would still ask more of, stays typed.
      const last = commands.at(-1);
      const rest = !text.endsWith("\n") || (last !== undefined && needsMore(last)) ? (commands.pop() ?? "") : "";
      void (async () => {
        if (commands.length) await this.run(commands.join("\n"));
        const parts = rest.split("\n");
        this.buffer = parts.pop()!;
        this.cursor = this.buffer.length;
        this.pending = parts;
        if (rest) this.term.write(crlf(rest.split("\n").join("\n> ")));
      })();
      return;
    }
    switch (data) {
      case "\r": {
        const full = [...this.pending, this.buffer].join("\n");
        if (needsMore(full)) {
          this.pending.push(this.buffer);
          this.buffer = "";
          this.cursor = 0;
          this.term.write("\r\n> ");
          return;
        }
        void this.submit(full);
        return;
      }
      case "\x7f": // Backspace
      case "\b":
        if (this.cursor > 0) {
          this.buffer = this.buffer.slice(0, this.cursor - 1) + this.buffer.slice(this.cursor);
          this.cursor--;
          this.redraw();
        }
        return;
      case "\x1b[3~": // Delete
        this.buffer = this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1);
        this.redraw();
        return;
      case "\x1b[D":
        if (this.cursor > 0) this.cursor--, this.redraw();
        return;
      case "\x1b[C":
        if (this.cursor < this.buffer.length) this.cursor++, this.redraw();
        return;
      case "\x1b[H":
      case "\x1bOH":
      case "\x01": // Ctrl-A
        this.cursor = 0;
        this.redraw();
        return;
      case "\x1b[F":
      case "\x1bOF":
      case "\x05": // Ctrl-E
        this.cursor = this.buffer.length;
        this.redraw();
        return;
      case "\x15": // Ctrl-U
        this.buffer = this.buffer.slice(this.cursor);
        this.cursor = 0;
        this.redraw();
        return;
      case "\x0b": // Ctrl-K
        this.buffer = this.buffer.slice(0, this.cursor);
        this.redraw();
        return;
      case "\x17": {
        // Ctrl-W: the word before the cursor
        const before = this.buffer.slice(0, this.cursor).replace(/\S+\s*$/, "");
        this.buffer = before + this.buffer.slice(this.cursor);
        this.cursor = before.length;
        this.redraw();
        return;
      }
      case "\x03": // Ctrl-C: bash prints ^C and a new prompt
        this.term.write("^C\r\n");
        this.showPrompt(this.prompt);
        return;
      case "\x0c": // Ctrl-L: clear the screen, keep the line
        this.term.write("\x1b[H\x1b[2J");
        this.term.clear();
        this.term.write(crlf(this.prompt.split("\n").slice(0, -1).join("\n")));
        this.redraw();
        return;
      case "\x04": // Ctrl-D on an empty line: exit (leaves a pod shell or an ssh session)
        if (!this.buffer && !this.pending.length) {
          this.term.write("exit");
          void this.submit("exit");
        }
        return;
      case "\x1b[A":
        this.recall(-1);
        return;
      case "\x1b[B":
        this.recall(1);
        return;
      case "\t":
        this.tab();
        return;
    }
    if (data.startsWith("\x1b")) return; // other escape sequences: ignored, as readline ignores unbound keys
    const printable = data.replace(/[\x00-\x1f]/g, "");
    if (printable) this.insert(printable);
  }

  private recall(dir: -1 | 1): void {
    if (!this.history.length || this.pending.length) return;
    if (this.historyAt === -1) {
      if (dir === 1) return;
      this.draft = this.buffer;
      this.historyAt = this.history.length;
    }
    const at = this.historyAt + dir;
    if (at < 0) return;
    if (at >= this.history.length) {
      this.historyAt = -1;
      this.buffer = this.draft;
    } else {
      this.historyAt = at;
      // A multi-line command comes back on one line, as bash's history shows it.
      this.buffer = this.history[at].replace(/\n/g, "; ").replace(/(do|then|\{);/g, "$1");
    }
    this.cursor = this.buffer.length;
    this.redraw();
  }

  private tab(): void {
    const before = this.buffer.slice(0, this.cursor);
    const { word, candidates } = this.opts.complete(before);
    if (!candidates.length) return;
    if (candidates.length === 1) {
      this.insert(candidates[0].slice(word.length) + " ");
      return;
    }
    const prefix = commonPrefix(candidates);
    if (prefix.length > word.length) {
      this.insert(prefix.slice(word.length));
      return;
    }
    // A second Tab lists the candidates, as bash does.
    const now = Date.now();
    if (now - this.lastTab < 800) {
      this.term.write("\r\n" + candidates.join("  ") + "\r\n");
      this.term.write(crlf(this.prompt.split("\n").slice(0, -1).join("\n")) + (this.prompt.includes("\n") ? "\r\n" : ""));
      this.redraw();
    }
    this.lastTab = now;
  }
}
