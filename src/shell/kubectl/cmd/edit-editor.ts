// The editor kubectl edit runs (cmd/util/editor/editor.go): KUBE_EDITOR, EDITOR or vi, in the node's shell.

import type { Editor, KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { Out } from "../out.js";

/**
 * KUBE_EDITOR, then EDITOR (default vi), run as kubectl's editor.go runs it: a value without
 * spaces is the program, one with spaces but no quotes or backslashes is split on spaces, and
 * anything else goes to $SHELL -c with the file's path appended (%q). The editor runs in the
 * node's shell on the file kubectl wrote, and what it prints reaches the terminal.
 */
export function shellEditor(ctx: KubectlContext, o: Out): Editor | undefined {
  const run = ctx.runShell;
  const write = ctx.writeFile;
  if (!run || !write) return undefined;
  let value = "";
  for (const k of ["KUBE_EDITOR", "EDITOR"]) if ((value = ctx.getenv?.(k) ?? "")) break;
  if (!value) value = "vi";
  const q = (w: string) => `'${w.replace(/'/g, "'\\''")}'`;
  let args: string[];
  let command: (path: string) => string;
  const viaShell = value.includes(" ") && /["'\\]/.test(value);
  if (!viaShell) {
    args = value.includes(" ") ? value.split(" ") : [value];
    command = (path) => [...args, path].map(q).join(" ");
  } else {
    args = [ctx.getenv?.("SHELL") || "/bin/bash", "-c", value];
    command = (path) => `${value} ${JSON.stringify(path)}`;
  }
  return async (text, file) => {
    await write(file, text);
    const r = await run(command(file));
    const launched = viaShell || r.exitCode !== 127 || !/command not found|No such file or directory/.test(r.stderr);
    if (!launched) throw new KubectlError(`unable to launch the editor ${JSON.stringify(args.join(" "))}`);
    o.out(r.stdout);
    o.err(r.stderr);
    if (r.exitCode !== 0) throw new KubectlError(`there was a problem with the editor ${JSON.stringify(args.join(" "))}`);
    return ctx.readFile(file);
  };
}
