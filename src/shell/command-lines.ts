// Shared by the web terminal (web/src/terminal.ts) and the lab tests: the same reading of a block.
// When a typed line is a whole command for bash, or bash would ask for more with "> ": an open
// quote, a trailing backslash, a here-document until its delimiter, or a compound command
// (for/while/until/if/case/{ ... }) not yet closed. A heuristic of bash's grammar, enough for
// what the labs and students type; the server's bash is what parses the line in the end.

export function needsMore(text: string): boolean {
  // Here-documents: every <<WORD (or <<-WORD, quoted or not) needs a line that is WORD.
  const lines = text.split("\n");
  const heredocs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (heredocs.length) {
      const want = heredocs[0];
      if (line.replace(/^\t+/, "") === want) heredocs.shift();
      continue;
    }
    for (const m of line.matchAll(/<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/g)) heredocs.push(m[2]);
  }
  if (heredocs.length) return true;
  // Outside here-document bodies: quotes, backslash continuation, keywords.
  let body = "";
  let inDoc: string | undefined;
  for (const line of lines) {
    if (inDoc !== undefined) {
      if (line.replace(/^\t+/, "") === inDoc) inDoc = undefined;
      continue;
    }
    body += line + "\n";
    const m = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/.exec(line);
    if (m) inDoc = m[2];
  }
  let quote: string | undefined;
  let words = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === "\\" && quote === '"') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "\\") {
      if (body[i + 1] === "\n" && i + 2 >= body.length) return true;
      i++;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "#" && (i === 0 || /\s/.test(body[i - 1]))) while (i < body.length && body[i] !== "\n") i++;
    else words += ch;
  }
  if (quote) return true;
  let depth = 0;
  for (const w of words.split(/[\s;&|()]+/)) {
    if (w === "do" || w === "then" || w === "case" || w === "{") depth++;
    else if (w === "done" || w === "fi" || w === "esac" || w === "}") depth--;
  }
  return depth > 0 || /(\|\||&&|\|)\s*$/.test(words.trimEnd());
}

/** A block of lines as the command lines bash would read from it, one at a time (a heredoc or a loop stays whole). */
export function splitCommands(text: string): string[] {
  const out: string[] = [];
  let acc: string[] = [];
  for (const line of text.replace(/\n+$/, "").split("\n")) {
    acc.push(line);
    const cmd = acc.join("\n");
    if (!needsMore(cmd)) {
      if (cmd.trim()) out.push(cmd);
      acc = [];
    }
  }
  if (acc.length && acc.join("\n").trim()) out.push(acc.join("\n"));
  return out;
}
