// Golden transcripts of kubectl lines: "== LINE", stdout, "--- stderr", stderr, "--- exit N".
import { readFileSync } from "node:fs";

interface GoldenCase {
  line: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function readGolden(path: string): GoldenCase[] {
  const text = readFileSync(path, "utf8");
  return text.split(/^== /m).slice(1).map((block) => {
    const nl = block.indexOf("\n");
    const line = block.slice(0, nl);
    const m = /^([\s\S]*?)--- stderr\n([\s\S]*?)--- exit (\d+)\n$/.exec(block.slice(nl + 1));
    if (!m) throw new Error(`malformed golden case: ${line}`);
    return { line, stdout: m[1], stderr: m[2], exitCode: Number(m[3]) };
  });
}
