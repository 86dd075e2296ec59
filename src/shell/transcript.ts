// Transcript tests: a script of command lines (blocks separated by lines "$ <command>", with
// continuation lines for here-documents), run in one session; the golden file holds each
// command's stdout, stderr and exit code as a terminal would show them.

import { Session } from "./session.js";

export function parseScript(text: string): string[] {
  const cmds: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("$ ")) cmds.push(line.slice(2));
    else if (line.startsWith("#") || (!cmds.length && line.trim() === "")) continue;
    else if (cmds.length) cmds[cmds.length - 1] += "\n" + line;
  }
  return cmds.map((c) => c.replace(/\n+$/, ""));
}

export async function runTranscript(session: Session, script: string): Promise<string> {
  let out = "";
  for (const cmd of parseScript(script)) {
    const r = await session.run(cmd);
    out += `$ ${cmd}\n`;
    if (r.stdout) out += r.stdout.endsWith("\n") ? r.stdout : r.stdout + "\n";
    if (r.stderr) out += r.stderr.split("\n").filter((l, i, a) => l !== "" || i < a.length - 1).map((l) => `stderr> ${l}`).join("\n") + "\n";
    out += `[exit ${r.exitCode}]\n\n`;
  }
  return out;
}
