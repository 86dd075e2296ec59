// Transcript tests: a script of command lines (blocks separated by lines "$ <command>", with
// continuation lines for here-documents and multi-line loops), run in one session; the golden
// file holds each command's stdout, stderr and exit code as a terminal would show them.
// Directives in comments: "#! edit OLD => NEW" scripts `kubectl edit` (the n-th edit applies the
// n-th directive; each replaces OLD by NEW in the text the editor is given).

import type { Editor } from "./kubectl/context.js";
import { Session } from "./session.js";

export interface Step {
  cmd: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

function parseScript(text: string): string[] {
  const cmds: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("$ ")) cmds.push(line.slice(2));
    else if (line.startsWith("#") || (!cmds.length && line.trim() === "")) continue;
    else if (cmds.length) cmds[cmds.length - 1] += "\n" + line;
  }
  return cmds.map((c) => c.replace(/\n+$/, ""));
}

/** The editor a script's "#! edit OLD => NEW" lines describe, one directive per `kubectl edit`. */
export function scriptedEditor(text: string): Editor {
  const edits = [...text.matchAll(/^#! edit (.*?) => (.*)$/gm)].map((m) => [m[1], m[2]] as const);
  let n = 0;
  return (t) => {
    const e = edits[n++];
    return e ? t.replace(e[0], e[1]) : t;
  };
}

export async function runSteps(session: Session, script: string): Promise<Step[]> {
  const steps: Step[] = [];
  for (const cmd of parseScript(script)) steps.push({ cmd, ...(await session.run(cmd)) });
  return steps;
}

export function formatSteps(steps: Step[]): string {
  let out = "";
  for (const r of steps) {
    out += `$ ${r.cmd}\n`;
    if (r.stdout) out += r.stdout.endsWith("\n") ? r.stdout : r.stdout + "\n";
    if (r.stderr) out += r.stderr.split("\n").filter((l, i, a) => l !== "" || i < a.length - 1).map((l) => `stderr> ${l}`).join("\n") + "\n";
    out += `[exit ${r.exitCode}]\n\n`;
  }
  return out;
}

export async function runTranscript(session: Session, script: string): Promise<string> {
  return formatSteps(await runSteps(session, script));
}
