// What a command line prints, and the files it names, read before it runs.

import type { KubectlContext } from "./context.js";

export class Out {
  stdout = "";
  stderr = "";
  /** Files the command line names (readCommandFiles), read before it runs (undefined: unreadable). */
  commandFiles = new Map<string, string | undefined>();
  /**
   * The terminal, when the line is this one kubectl command: stdout and stderr go there as they
   * are written (get -w rows; a warning above the table it warns about), as on a real terminal.
   */
  constructor(private readonly tty?: (chunk: string) => void) {}
  out(s: string): void {
    if (this.tty) this.tty(s);
    else this.stdout += s;
  }
  err(s: string): void {
    if (this.tty) this.tty(s);
    else this.stderr += s;
  }
}

/**
 * Reads the files a command line names (-o go-template-file=PATH, -o templatefile=PATH,
 * --template PATH, patch's --patch-file PATH) before the command runs: commands are synchronous.
 */
export async function readCommandFiles(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const paths = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /(?:^|=)(?:go-template-file|templatefile|jsonpath-file|custom-columns-file)=(.*)$/s.exec(argv[i]) ?? /^(?:-o|--output)?(?:go-template-file|templatefile|jsonpath-file|custom-columns-file)=(.*)$/s.exec(argv[i]);
    if (m) paths.add(m[1]);
    for (const flag of ["--template", "--patch-file"]) {
      if (argv[i] === flag && i + 1 < argv.length) paths.add(argv[i + 1]);
      else if (argv[i].startsWith(`${flag}=`)) paths.add(argv[i].slice(flag.length + 1));
    }
  }
  for (const path of paths) {
    if (!path || o.commandFiles.has(path)) continue;
    try {
      o.commandFiles.set(path, await ctx.readFile(path));
    } catch {
      o.commandFiles.set(path, undefined);
    }
  }
}
