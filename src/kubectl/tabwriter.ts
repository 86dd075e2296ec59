// text/tabwriter as Go implements it (AlignLeft, no flags): cells are tab-terminated, the text
// after a line's last tab is not part of any column, a column block is a run of consecutive lines
// that have a cell in that column, and a line without tabs ends every block above it. kubectl's
// tables use (minwidth 6, tabwidth 4, padding 3); describe uses (0, 8, 2). kubectl's table writer
// also sets liggitt/tabwriter's RememberWidths: across flushes a column never gets narrower than
// it has been, which keeps `kubectl get -w` rows aligned under the header (TabwriterStream).

interface TabwriterOptions {
  minwidth: number;
  padding: number;
}

export const TABLE_TABWRITER: TabwriterOptions = { minwidth: 6, padding: 3 };
export const DESCRIBE_TABWRITER: TabwriterOptions = { minwidth: 0, padding: 2 };

function width(s: string): number {
  // Go counts runes; ASCII text (nearly every cell) needs no iteration.
  if (!/[^\x00-\x7f]/.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Formats `text` (lines separated by \n, cells by \t) as a Go tabwriter with `opts` would. */
export function tabwrite(text: string, opts: TabwriterOptions): string {
  return formatText(text, opts, undefined);
}

/**
 * One tabwriter written to and flushed again and again (kubectl get -w flushes after the list and
 * after each event): column widths are remembered across flushes, as with RememberWidths.
 */
export class TabwriterStream {
  private readonly maxwidths: number[] = [];
  constructor(private readonly opts: TabwriterOptions) {}
  /** The formatted text of one flush. */
  flush(text: string): string {
    return formatText(text, this.opts, this.maxwidths);
  }
}

function formatText(text: string, opts: TabwriterOptions, maxwidths: number[] | undefined): string {
  const out: string[] = [];
  let block: string[][] = [];
  const flush = () => {
    if (block.length) formatBlock(block, opts, out, maxwidths);
    block = [];
  };
  const lines = text.split("\n");
  const trailingNewline = text.endsWith("\n");
  if (trailingNewline) lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const cells = lines[i].split("\t");
    block.push(cells);
    // A line of one cell flushes (Go: ncells == 1 at a newline).
    if (cells.length === 1) flush();
  }
  flush();
  let s = out.join("\n");
  if (trailingNewline) s += "\n";
  return s;
}

function formatBlock(lines: string[][], opts: TabwriterOptions, out: string[], maxwidths: number[] | undefined): void {
  const rendered: string[] = lines.map(() => "");
  format(lines, rendered, [], 0, lines.length, opts, maxwidths);
  out.push(...rendered);
}

/** Go's Writer.format: widths of columns left of `widths.length` are known. */
function format(lines: string[][], rendered: string[], widths: number[], line0: number, line1: number, opts: TabwriterOptions, maxwidths: number[] | undefined): void {
  const column = widths.length;
  for (let t = line0; t < line1; t++) {
    if (column >= lines[t].length - 1) continue;
    writeLines(lines, rendered, widths, line0, t);
    line0 = t;
    let w = opts.minwidth;
    for (; t < line1; t++) {
      const line = lines[t];
      if (column >= line.length - 1) break;
      const cw = width(line[column]) + opts.padding;
      if (cw > w) w = cw;
    }
    if (maxwidths) {
      // RememberWidths: the widest this column has been, in this flush or an earlier one.
      if (maxwidths.length < widths.length) maxwidths.push(...widths.slice(maxwidths.length));
      if (maxwidths.length === widths.length) maxwidths.push(w);
      else if (maxwidths[column] > w) w = maxwidths[column];
      else maxwidths[column] = w;
    }
    widths.push(w);
    format(lines, rendered, widths, line0, t, opts, maxwidths);
    widths.pop();
    line0 = t;
  }
  writeLines(lines, rendered, widths, line0, line1);
}

function writeLines(lines: string[][], rendered: string[], widths: number[], line0: number, line1: number): void {
  for (let i = line0; i < line1; i++) {
    const line = lines[i];
    let s = "";
    for (let j = 0; j < line.length; j++) {
      const c = line[j];
      s += c;
      if (j < widths.length) s += " ".repeat(Math.max(0, widths[j] - width(c)));
    }
    rendered[i] = s;
  }
}
