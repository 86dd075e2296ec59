// GNU ls (coreutils 8.32 on the node, 9.1 in Debian-based containers: the same output), after
// ls.c: its options, its long listing (column widths over each listing, the SELinux '.' after
// the mode on the node, dates from the terminal's clock, six months "recent"), its columns on a
// terminal, its sort orders in the locale's collation, and its messages and exit statuses.
import type { CommandContext, IFileSystem } from "just-bash";
import { collation } from "./collate.js";
import { type FileStat, lstatFile, readdirTyped, selinuxContext, statFile } from "./files.js";
import { argmatch, argmatchError, getoptLong, type LongOption } from "./getopt.js";
import { filevercmp } from "./filevercmp.js";
import { blockSizeSpec, type HumanOptions, humanReadable } from "./human.js";
import { needsQuoting, quote, quoteaf, shellEscape, utf8Locale } from "./quote.js";
import { strftime } from "./strftime.js";
import { helpText, LS_8_32_HELP, LS_9_1_HELP } from "./help.js";

/** Where ls runs: which coreutils, whether files carry SELinux labels, and the terminal it writes to. */
export interface LsPlace {
  version: "8.32" | "9.1";
  selinux: boolean;
  /** When the node was installed (files unchanged since are system_u's). */
  installedAt: number;
  /** The clock (ms): "recent" is within six months of it. */
  now(): number;
  /** The terminal's width when ls's stdout is the terminal (isatty), else undefined. */
  tty?(): number | undefined;
}

type Result = { stdout: string; stderr: string; exitCode: number };

const LONG: readonly LongOption[] = [
  ["all", "none", "a"], ["escape", "none", "b"], ["directory", "none", "d"], ["dired", "none", "D"], ["full-time", "none", "full-time"],
  ["group-directories-first", "none", "group-directories-first"], ["human-readable", "none", "h"], ["inode", "none", "i"], ["kibibytes", "none", "k"],
  ["numeric-uid-gid", "none", "n"], ["no-group", "none", "G"], ["hide-control-chars", "none", "q"], ["reverse", "none", "r"], ["size", "none", "s"],
  ["width", "required", "w"], ["almost-all", "none", "A"], ["ignore-backups", "none", "B"], ["classify", "none", "F"], ["file-type", "none", "file-type"],
  ["si", "none", "si"], ["dereference-command-line", "none", "H"], ["dereference-command-line-symlink-to-dir", "none", "deref-dir"], ["hide", "required", "hide"],
  ["ignore", "required", "I"], ["indicator-style", "required", "indicator-style"], ["dereference", "none", "L"], ["literal", "none", "N"], ["quote-name", "none", "Q"],
  ["quoting-style", "required", "quoting-style"], ["recursive", "none", "R"], ["format", "required", "format"], ["show-control-chars", "none", "show-control-chars"],
  ["sort", "required", "sort"], ["tabsize", "required", "T"], ["time", "required", "time"], ["time-style", "required", "time-style"], ["color", "optional", "color"],
  ["hyperlink", "optional", "hyperlink"], ["block-size", "required", "block-size"], ["context", "none", "Z"], ["author", "none", "author"], ["help", "none", "help"], ["version", "none", "version"],
].map(([name, arg, key]) => ({ name, arg: arg as LongOption["arg"], key }));

type Format = "long" | "one" | "columns" | "across" | "commas";
type Sort = "name" | "none" | "time" | "size" | "extension" | "version" | "width";
type Indicator = "none" | "slash" | "file-type" | "classify";
type Quoting = "literal" | "shell" | "shell-always" | "shell-escape" | "shell-escape-always" | "c" | "escape" | "locale" | "clocale";

const FORMATS = ["verbose", "long", "commas", "horizontal", "across", "vertical", "single-column"];
const FORMAT_VALUES: Format[] = ["long", "long", "commas", "across", "across", "columns", "one"];
const SORTS = ["none", "time", "size", "extension", "version"];
const SORT_VALUES: Sort[] = ["none", "time", "size", "extension", "version"];
const TIMES = ["atime", "access", "use", "ctime", "status", "birth", "creation"];
const TIME_VALUES = ["atime", "atime", "atime", "ctime", "ctime", "birth", "birth"];
const WHEN = ["always", "yes", "force", "never", "no", "none", "auto", "tty", "if-tty"];
const WHEN_VALUES = ["always", "always", "always", "never", "never", "never", "auto", "auto", "auto"];
const INDICATORS = ["none", "slash", "file-type", "classify"];
const QUOTINGS = ["literal", "shell", "shell-always", "shell-escape", "shell-escape-always", "c", "escape", "locale", "clocale"];
const TIME_STYLES = ["full-iso", "long-iso", "iso", "locale"];

/** Half a Gregorian year: a file older (or in the future) shows its year instead of its time. */
const SIX_MONTHS_MS = (31_556_952 / 2) * 1000;

interface Config {
  format: Format;
  all: "default" | "almost" | "all";
  dirs: boolean;
  recursive: boolean;
  sort: Sort;
  reverse: boolean;
  dirsFirst: boolean;
  time: "mtime" | "atime" | "ctime" | "birth";
  indicator: Indicator;
  quoting: Quoting;
  qmark: boolean;
  inode: boolean;
  blocks: boolean;
  context: boolean;
  owner: boolean;
  group: boolean;
  author: boolean;
  numeric: boolean;
  /** How sizes print (-h, --si, --block-size): the unit and human_readable's options. */
  sizes: { block: number; opts: HumanOptions };
  /** How block counts print (-s, total): 1 KiB by default. */
  blockCounts: { block: number; opts: HumanOptions };
  lineLength: number;
  tabsize: number;
  deref: "never" | "args" | "args-to-dir" | "always";
  ignore: string[];
  hide: string[];
  timeFormat: [string, string];
}

interface Entry {
  /** The name as listed (an operand as typed, or a directory's entry). */
  name: string;
  /** Its path from the working directory (for stat and recursion). */
  path: string;
  st?: FileStat;
  /** Listed as a directory's contents (a directory operand without -d). */
  argDir?: boolean;
  link?: { target: string; st?: FileStat };
  context?: string;
}

export async function ls(args: string[], ctx: Pick<CommandContext, "fs" | "cwd" | "env">, place: LsPlace): Promise<Result> {
  const env = (k: string) => ctx.env.get(k);
  const utf8 = utf8Locale(env);
  const parsed = getoptLong("ls", args, "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1", LONG);
  const tryHelp = "Try 'ls --help' for more information.\n";
  if ("error" in parsed) return { stdout: "", stderr: parsed.error + tryHelp, exitCode: 2 };
  const tty = place.tty?.();
  const cfg: Config = {
    format: tty !== undefined ? "columns" : "one",
    all: "default",
    dirs: false,
    recursive: false,
    sort: "name",
    reverse: false,
    dirsFirst: false,
    time: "mtime",
    indicator: "none",
    quoting: tty !== undefined ? "shell-escape" : "literal",
    qmark: tty !== undefined,
    inode: false,
    blocks: false,
    context: false,
    owner: true,
    group: true,
    author: false,
    numeric: false,
    sizes: { block: 1, opts: {} },
    blockCounts: { block: 1024, opts: {} },
    lineLength: 80,
    tabsize: 8,
    deref: "never",
    ignore: [],
    hide: [],
    timeFormat: ["%b %e  %Y", "%b %e %H:%M"],
  };
  const columns = env("COLUMNS");
  if (columns && /^\d+$/.test(columns)) cfg.lineLength = Number(columns);
  if (tty) cfg.lineLength = tty;
  let sortSpecified = false;
  let kibibytes = false;
  let sizeSet = false;
  let derefSet = false;
  let timeStyle: string | undefined;
  // XARGMATCH's refusal exits 1 (usage(EXIT_FAILURE)), where ls's own failures exit 2.
  const bad = (option: string, value: string, valid: string[], values: unknown[]) => ({ stdout: "", stderr: argmatchError("ls", option, value, valid, values, utf8), exitCode: 1 });
  for (const { key, arg } of parsed.options) {
    switch (key) {
      case "a": cfg.all = "all"; break;
      case "b": cfg.quoting = "escape"; break;
      case "c": cfg.time = "ctime"; break;
      case "d": cfg.dirs = true; break;
      case "f":
        cfg.all = "all";
        cfg.sort = "none";
        sortSpecified = true;
        if (cfg.format === "long") cfg.format = tty !== undefined ? "columns" : "one";
        cfg.blocks = false;
        break;
      case "file-type": cfg.indicator = "file-type"; break;
      case "g": cfg.format = "long"; cfg.owner = false; break;
      case "h": sizeSet = true; cfg.sizes = cfg.blockCounts = { block: 1, opts: { autoscale: true, suffix: true, base1024: true } }; break;
      case "i": cfg.inode = true; break;
      case "k": kibibytes = true; break;
      case "l": cfg.format = "long"; break;
      case "m": cfg.format = "commas"; break;
      case "n": cfg.numeric = true; cfg.format = "long"; break;
      case "o": cfg.format = "long"; cfg.group = false; break;
      case "p": cfg.indicator = "slash"; break;
      case "q": cfg.qmark = true; break;
      case "r": cfg.reverse = true; break;
      case "s": cfg.blocks = true; break;
      case "t": cfg.sort = "time"; sortSpecified = true; break;
      case "u": cfg.time = "atime"; break;
      case "v": cfg.sort = "version"; sortSpecified = true; break;
      case "w":
        if (!/^\d+$/.test(arg!)) return { stdout: "", stderr: `ls: invalid line width: ${quote(arg!, utf8)}\n`, exitCode: 2 };
        cfg.lineLength = Number(arg);
        break;
      case "x": cfg.format = "across"; break;
      case "A": cfg.all = "almost"; break;
      case "B": cfg.ignore.push("*~", ".*~"); break;
      case "C": cfg.format = "columns"; break;
      case "D": break; // --dired only adds Emacs' offsets to -l; not kept here
      case "F": cfg.indicator = "classify"; break;
      case "G": cfg.group = false; break;
      case "H": cfg.deref = "args"; derefSet = true; break;
      case "deref-dir": cfg.deref = "args-to-dir"; derefSet = true; break;
      case "I": cfg.ignore.push(arg!); break;
      case "L": cfg.deref = "always"; derefSet = true; break;
      case "N": cfg.quoting = "literal"; break;
      case "Q": cfg.quoting = "c"; break;
      case "R": cfg.recursive = true; break;
      case "S": cfg.sort = "size"; sortSpecified = true; break;
      case "T":
        if (!/^\d+$/.test(arg!)) return { stdout: "", stderr: `ls: invalid tab size: ${quote(arg!, utf8)}\n`, exitCode: 2 };
        cfg.tabsize = Number(arg);
        break;
      case "U": cfg.sort = "none"; sortSpecified = true; break;
      case "X": cfg.sort = "extension"; sortSpecified = true; break;
      case "1": if (cfg.format !== "long") cfg.format = "one"; break;
      case "author": cfg.author = true; break;
      case "hide": cfg.hide.push(arg!); break;
      case "sort": {
        // coreutils 9.0 added --sort=width.
        const sorts = place.version === "8.32" ? SORTS : [...SORTS, "width"];
        const values = place.version === "8.32" ? SORT_VALUES : [...SORT_VALUES, "width" as const];
        const v = argmatch(arg!, sorts, values);
        if (!v) return bad("--sort", arg!, sorts, values);
        cfg.sort = v;
        sortSpecified = true;
        break;
      }
      case "group-directories-first": cfg.dirsFirst = true; break;
      case "time": {
        const v = argmatch(arg!, TIMES, TIME_VALUES);
        if (!v) return bad("--time", arg!, TIMES, TIME_VALUES);
        cfg.time = v as Config["time"];
        break;
      }
      case "format": {
        const v = argmatch(arg!, FORMATS, FORMAT_VALUES);
        if (!v) return bad("--format", arg!, FORMATS, FORMAT_VALUES);
        cfg.format = v;
        break;
      }
      case "full-time": cfg.format = "long"; timeStyle = "full-iso"; break;
      case "color": case "hyperlink": {
        // Colors and hyperlinks are not drawn here; the option is still checked as ls checks it.
        if (arg !== undefined && !argmatch(arg, WHEN, WHEN_VALUES)) return bad(`--${key}`, arg, WHEN, WHEN_VALUES);
        if (key === "color" && (arg === undefined || argmatch(arg, WHEN, WHEN_VALUES) === "always" || (tty !== undefined && argmatch(arg, WHEN, WHEN_VALUES) === "auto"))) cfg.tabsize = 0;
        break;
      }
      case "indicator-style": {
        const v = argmatch(arg!, INDICATORS, INDICATORS);
        if (!v) return bad("--indicator-style", arg!, INDICATORS, INDICATORS);
        cfg.indicator = v as Indicator;
        break;
      }
      case "quoting-style": {
        const v = argmatch(arg!, QUOTINGS, QUOTINGS);
        if (!v) return bad("--quoting-style", arg!, QUOTINGS, QUOTINGS);
        cfg.quoting = v as Quoting;
        break;
      }
      case "time-style": timeStyle = arg; break;
      case "show-control-chars": cfg.qmark = false; break;
      case "block-size": {
        const spec = blockSizeSpec(arg!);
        if (!spec) return { stdout: "", stderr: `ls: invalid --block-size argument ${quote(arg!, utf8)}\n`, exitCode: 2 };
        sizeSet = true;
        cfg.sizes = cfg.blockCounts = { block: spec.size, opts: spec.opts };
        break;
      }
      case "si": sizeSet = true; cfg.sizes = cfg.blockCounts = { block: 1, opts: { autoscale: true, suffix: true } }; break;
      case "Z": cfg.context = true; break;
      case "help": return { stdout: helpText(place.version === "8.32" ? LS_8_32_HELP : LS_9_1_HELP, env), stderr: "", exitCode: 0 };
      case "version": return { stdout: version(place.version), stderr: "", exitCode: 0 };
    }
  }
  if (!sizeSet) {
    // LS_BLOCK_SIZE, BLOCK_SIZE and BLOCKSIZE set both; -k sets the blocks' back to KiB.
    const env_ = env("LS_BLOCK_SIZE") ?? env("BLOCK_SIZE") ?? env("BLOCKSIZE");
    const spec = env_ !== undefined ? blockSizeSpec(env_) : undefined;
    if (spec) cfg.sizes = cfg.blockCounts = { block: spec.size, opts: spec.opts };
    if (kibibytes) cfg.blockCounts = { block: 1024, opts: {} };
  }
  if (cfg.time !== "mtime" && !sortSpecified && cfg.format !== "long") cfg.sort = "time";
  if (!derefSet) cfg.deref = cfg.dirs || cfg.indicator === "classify" || cfg.format === "long" ? "never" : "args-to-dir";
  if (cfg.format === "long") {
    let style = timeStyle ?? env("TIME_STYLE") ?? "locale";
    // posix-STYLE applies outside the C locale only.
    while (style.startsWith("posix-")) {
      if (!utf8Locale(env, "LC_TIME")) {
        style = "locale";
        break;
      }
      style = style.slice(6);
    }
    if (style.startsWith("+")) {
      const [a, b, extra] = style.slice(1).split("\n");
      if (extra !== undefined) return { stdout: "", stderr: `ls: invalid time style format ${quote(style.slice(1), utf8)}\n`, exitCode: 2 };
      cfg.timeFormat = [a, b ?? a];
    } else {
      const v = argmatch(style, TIME_STYLES, TIME_STYLES);
      if (!v) {
        const head = argmatchError("ls", "time style", style, TIME_STYLES, TIME_STYLES, utf8).split("\nValid")[0];
        return { stdout: "", stderr: `${head}\nValid arguments are:\n${TIME_STYLES.map((s) => `  - [posix-]${s}\n`).join("")}  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\n${tryHelp}`, exitCode: 2 };
      }
      if (v === "full-iso") cfg.timeFormat = ["%Y-%m-%d %H:%M:%S.%N %z", "%Y-%m-%d %H:%M:%S.%N %z"];
      else if (v === "long-iso") cfg.timeFormat = ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M"];
      else if (v === "iso") cfg.timeFormat = ["%Y-%m-%d ", "%m-%d %H:%M"];
    }
  }
  return new Lister(ctx.fs, ctx.cwd, cfg, place, collation(env)).run(parsed.operands);
}

function version(v: string): string {
  const year = v === "8.32" ? 2020 : 2022;
  return `ls (GNU coreutils) ${v}\nCopyright (C) ${year} Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n\nWritten by Richard M. Stallman and David MacKenzie.\n`;
}

/** One run of ls over its operands, as ls.c's main: the files first, then each directory. */
class Lister {
  private out = "";
  private err = "";
  private status = 0;
  private first = true;

  constructor(
    private readonly fs: IFileSystem,
    private readonly cwd: string,
    private readonly cfg: Config,
    private readonly place: LsPlace,
    private readonly coll: (a: string, b: string) => number,
  ) {}

  async run(operands: string[]): Promise<Result> {
    const files: Entry[] = [];
    const pending: { name: string; cmdline: boolean }[] = [];
    if (!operands.length) {
      if (this.cfg.dirs) {
        const e = await this.gobble(".", ".", true);
        if (e) files.push(e);
      } else pending.push({ name: ".", cmdline: true });
    }
    for (const op of operands) {
      const e = await this.gobble(op, op, true);
      if (e) files.push(e);
    }
    this.sortEntries(files);
    const listed = files.filter((f) => !f.argDir);
    // Directory operands are listed after the files, in the same order.
    const dirs = files.filter((f) => f.argDir).map((f) => ({ name: f.name, cmdline: true }));
    pending.push(...dirs);
    let printNames = true;
    if (listed.length) {
      this.print(listed);
      if (pending.length) this.out += "\n";
    } else if (operands.length <= 1 && pending.length === 1) printNames = false;
    while (pending.length) {
      const d = pending.shift()!;
      const sub = await this.listDir(d.name, d.cmdline, printNames);
      pending.unshift(...sub);
      printNames = true;
    }
    return { stdout: this.out, stderr: this.err, exitCode: this.status };
  }

  private fail(serious: boolean, message: string): void {
    this.err += `ls: ${message}\n`;
    if (serious) this.status = 2;
    else if (!this.status) this.status = 1;
  }

  private abs(path: string): string {
    return this.fs.resolvePath(this.cwd, path);
  }

  /** A file as ls.c's gobble_file takes it (undefined: a command-line operand that is not there). */
  private async gobble(name: string, path: string, cmdline: boolean): Promise<Entry | undefined> {
    const abs = this.abs(path);
    const follow = this.cfg.deref === "always" || (cmdline && (this.cfg.deref === "args" || this.cfg.deref === "args-to-dir"));
    let st = follow ? await statFile(this.fs, abs) : await lstatFile(this.fs, abs);
    if (follow && this.cfg.deref === "args-to-dir" && st?.type !== "directory") st = await lstatFile(this.fs, abs);
    if (!st) {
      this.fail(cmdline, `cannot access ${quoteaf(path)}: No such file or directory`);
      return cmdline ? undefined : { name, path };
    }
    const e: Entry = { name, path, st };
    if (st.type === "directory" && cmdline && !this.cfg.dirs) e.argDir = true;
    if (st.type === "symlink") {
      const target = await this.fs.readlink(abs).catch(() => "");
      e.link = { target, st: await statFile(this.fs, abs) };
    }
    if (this.cfg.context) e.context = this.place.selinux ? selinuxContext(abs, st, this.place.installedAt) : "?";
    return e;
  }

  /** Lists one directory; returns the subdirectories -R lists next, in order. */
  private async listDir(name: string, cmdline: boolean, printName: boolean): Promise<{ name: string; cmdline: boolean }[]> {
    const abs = this.abs(name);
    let entries: { name: string }[];
    try {
      entries = await readdirTyped(this.fs, abs);
    } catch {
      this.fail(cmdline, `cannot open directory ${quoteaf(name)}: No such file or directory`);
      return [];
    }
    if (this.cfg.recursive || printName) {
      if (!this.first) this.out += "\n";
      this.first = false;
      this.out += `${this.quoteName(name, true)}:\n`;
    }
    this.first = false;
    const names = [".", "..", ...entries.map((e) => e.name)].filter((n) => !this.ignored(n));
    const list: Entry[] = [];
    // An entry's path is the directory's name and its own (file_name_concat: `./sub` under `.`).
    for (const n of names) {
      const e = await this.gobble(n, `${name.endsWith("/") ? name : `${name}/`}${n}`, false);
      if (e) list.push(e);
    }
    this.sortEntries(list);
    if (this.cfg.format === "long" || this.cfg.blocks) {
      const total = list.reduce((s, e) => s + (e.st?.blocks ?? 0), 0);
      this.out += `total ${this.blockText(total)}\n`;
    }
    if (list.length) this.print(list);
    if (!this.cfg.recursive) return [];
    return list
      .filter((e) => e.st?.type === "directory" && e.name !== "." && e.name !== "..")
      .map((e) => ({ name: e.path, cmdline: false }));
  }

  /** Whether a directory's entry is left out (ls.c's file_ignored: dot files, --hide, then -I and -B even with -a). */
  private ignored(name: string): boolean {
    const { all, hide, ignore } = this.cfg;
    if (all !== "all" && name.startsWith(".") && (all === "default" || name === "." || name === "..")) return true;
    if (all === "default" && hide.some((p) => glob(p, name))) return true;
    return ignore.some((p) => glob(p, name));
  }

  private sortEntries(list: Entry[]): void {
    const { sort, reverse, dirsFirst, time } = this.cfg;
    if (sort === "none") return;
    const coll = this.coll;
    const when = (e: Entry) => (time === "birth" ? (e.st?.mtime ?? 0) : (e.st?.mtime ?? 0));
    const key: (a: Entry, b: Entry) => number =
      sort === "time" ? (a, b) => when(b) - when(a) || coll(a.name, b.name)
      : sort === "size" ? (a, b) => (b.st?.size ?? 0) - (a.st?.size ?? 0) || coll(a.name, b.name)
      : sort === "extension" ? (a, b) => coll(ext(a.name), ext(b.name)) || coll(a.name, b.name)
      : sort === "version" ? (a, b) => filevercmp(a.name, b.name)
      : sort === "width" ? (a, b) => width(this.quoteName(a.name)) - width(this.quoteName(b.name)) || coll(a.name, b.name)
      : (a, b) => coll(a.name, b.name);
    const isDir = (e: Entry) => e.st?.type === "directory" || e.link?.st?.type === "directory";
    list.sort((a, b) => {
      if (dirsFirst && isDir(a) !== isDir(b)) return isDir(a) ? -1 : 1;
      return reverse ? key(b, a) : key(a, b);
    });
  }

  // ---- printing ----------------------------------------------------------------------------

  private print(list: Entry[]): void {
    switch (this.cfg.format) {
      case "long":
        this.printLong(list);
        return;
      case "one": {
        const widths = this.frillWidths(list);
        for (const e of list) this.out += `${this.nameAndFrills(e, list, widths)}\n`;
        return;
      }
      case "commas":
        this.printCommas(list);
        return;
      default:
        if (!this.cfg.lineLength) this.printCommas(list, " ");
        else this.printColumns(list, this.cfg.format === "columns");
    }
  }

  /** Whether a listing pads unquoted names by a space to line up with quoted ones. */
  private alignQuotes(list: Entry[]): boolean {
    const q = this.cfg.quoting;
    return this.cfg.format !== "commas" && this.cfg.format !== "one" && (this.cfg.lineLength > 0 || this.cfg.format === "long") && (q === "shell" || q === "shell-escape") && list.some((e) => needsQuoting(e.name));
  }

  /** A name in the listing's quoting style (`dir`: a directory heading, whose ':' is quoted too). */
  private quoteName(name: string, dir = false): string {
    // ls.c quotes its indicators' characters too: "*=>@|" from --file-type's place in the table on.
    const extra = dir ? ":" : this.cfg.indicator === "file-type" ? "*=>@|" : this.cfg.indicator === "classify" ? "=>@|" : "";
    let q: string;
    switch (this.cfg.quoting) {
      case "literal": q = name; break;
      case "shell": case "shell-escape": q = shellEscape(name, false, extra); break;
      case "shell-always": case "shell-escape-always": q = shellEscape(name, true); break;
      case "c": q = `"${cEscape(name)}"`; break;
      case "escape": q = cEscape(name).replace(/ /g, "\\ "); break;
      case "locale": q = `\u2018${cEscape(name)}\u2019`; break;
      case "clocale": q = `"${cEscape(name)}"`; break;
    }
    // -q: nonprinting characters as '?' where the style leaves them.
    if (this.cfg.qmark && (this.cfg.quoting === "literal" || this.cfg.quoting === "shell" || this.cfg.quoting === "shell-always")) q = q.replace(/[\x00-\x1f\x7f]/g, "?");
    return q;
  }

  private indicator(st: FileStat | undefined): string {
    const style = this.cfg.indicator;
    if (style === "none" || !st) return "";
    if (st.type === "file") return style === "classify" && st.perm & 0o111 ? "*" : "";
    if (st.type === "directory") return "/";
    if (style === "slash") return "";
    return st.type === "symlink" ? "@" : "";
  }

  private blockText(blocks: number): string {
    return humanReadable(blocks, 512, this.cfg.blockCounts.block, this.cfg.blockCounts.opts);
  }

  private sizeText(size: number): string {
    return humanReadable(size, 1, this.cfg.sizes.block, this.cfg.sizes.opts);
  }

  /** Name, and before it inode, blocks and context as asked, padded to the listing's widths. */
  private nameAndFrills(e: Entry, list: Entry[], widths = this.frillWidths(list)): string {
    let s = "";
    const commas = this.cfg.format === "commas";
    if (this.cfg.inode) s += `${String(e.st?.ino ?? "?").padStart(commas ? 0 : widths.inode)} `;
    if (this.cfg.blocks) s += `${(e.st ? this.blockText(e.st.blocks) : "?").padStart(commas ? 0 : widths.blocks)} `;
    if (this.cfg.context) s += `${(e.context ?? "?").padStart(commas ? 0 : widths.context)} `;
    const pad = widths.align && !needsQuoting(e.name) ? " " : "";
    return `${s}${pad}${this.quoteName(e.name)}${this.indicator(e.st)}`;
  }

  private frillWidths(list: Entry[]): { inode: number; blocks: number; context: number; align: boolean } {
    const max = (f: (e: Entry) => string) => list.reduce((m, e) => Math.max(m, f(e).length), 0);
    return {
      inode: this.cfg.inode ? max((e) => String(e.st?.ino ?? "?")) : 0,
      blocks: this.cfg.blocks ? max((e) => (e.st ? this.blockText(e.st.blocks) : "?")) : 0,
      context: this.cfg.context ? max((e) => e.context ?? "?") : 0,
      align: this.alignQuotes(list),
    };
  }

  private printLong(list: Entry[]): void {
    const c = this.cfg;
    const widths = this.frillWidths(list);
    const user = (e: Entry) => (!e.st ? "?" : c.numeric ? String(e.st.uid) : "root");
    const grp = (e: Entry) => (!e.st ? "?" : c.numeric ? String(e.st.gid) : "root");
    const dev = (e: Entry) => e.st?.type === "chardev" && e.st.rdev;
    const majorW = Math.max(0, ...list.map((e) => (dev(e) ? String(e.st!.rdev![0]).length : 0)));
    const minorW = Math.max(0, ...list.map((e) => (dev(e) ? String(e.st!.rdev![1]).length : 0)));
    const sizeOf = (e: Entry) => (!e.st ? "?" : this.sizeText(e.st.size));
    const sizeW = Math.max(0, ...list.map((e) => (dev(e) ? majorW + 2 + minorW : sizeOf(e).length)));
    const nlinkW = Math.max(0, ...list.map((e) => String(e.st?.nlink ?? "?").length));
    const ownerW = Math.max(0, ...list.map((e) => user(e).length));
    const groupW = Math.max(0, ...list.map((e) => grp(e).length));
    const now = this.place.now();
    for (const e of list) {
      let line = "";
      if (c.inode) line += `${String(e.st?.ino ?? "?").padStart(widths.inode)} `;
      if (c.blocks) line += `${(e.st ? this.blockText(e.st.blocks) : "?").padStart(widths.blocks)} `;
      line += `${modeString(e.st, this.place.selinux)} ${String(e.st?.nlink ?? "?").padStart(nlinkW)} `;
      if (c.owner) line += `${user(e).padEnd(ownerW)} `;
      if (c.group) line += `${grp(e).padEnd(groupW)} `;
      if (c.author) line += `${user(e).padEnd(ownerW)} `;
      if (c.context) line += `${(e.context ?? "?").padEnd(widths.context)} `;
      const d = dev(e);
      if (d) line += `${String(d[0]).padStart(majorW + Math.max(0, sizeW - (majorW + 2 + minorW)))}, ${String(d[1]).padStart(minorW)} `;
      else line += `${sizeOf(e).padStart(sizeW)} `;
      if (e.st) {
        const t = e.st.mtime;
        // A file written "now" is recent: the real clock has always moved on by the time ls reads it.
        const recent = t > now - SIX_MONTHS_MS && t <= now;
        line += `${strftime(c.timeFormat[recent ? 1 : 0], t)} `;
      } else line += `${"?".padStart(12)} `;
      const pad = widths.align && !needsQuoting(e.name) ? " " : "";
      line += `${pad}${this.quoteName(e.name)}`;
      if (e.st?.type === "symlink" && e.link) {
        line += ` -> ${this.quoteName(e.link.target)}`;
        if (c.indicator !== "none" && e.link.st) line += this.indicator(e.link.st);
      } else line += this.indicator(e.st);
      this.out += `${line}\n`;
    }
  }

  /** Each name's width in the listing (frills and indicator included), as ls.c's length_of_file_name_and_frills. */
  private lengths(list: Entry[]): number[] {
    const widths = this.frillWidths(list);
    return list.map((e) => width(this.nameAndFrills(e, list, widths)));
  }

  private printCommas(list: Entry[], sep = ","): void {
    const lens = this.lengths(list);
    const widths = this.frillWidths(list);
    let pos = 0;
    list.forEach((e, i) => {
      const len = this.cfg.lineLength ? lens[i] : 0;
      if (i) {
        if (!this.cfg.lineLength || pos + len + 2 < this.cfg.lineLength) {
          pos += 2;
          this.out += `${sep} `;
        } else {
          pos = 0;
          this.out += `${sep}\n`;
        }
      }
      this.out += this.nameAndFrills(e, list, widths);
      pos += len;
    });
    this.out += "\n";
  }

  /** -C (down the columns) and -x (across), as ls.c's calculate_columns and print_many_per_line. */
  private printColumns(list: Entry[], byColumns: boolean): void {
    const lens = this.lengths(list);
    const widths = this.frillWidths(list);
    const n = list.length;
    const lineLength = this.cfg.lineLength;
    const maxIdx = Math.floor(lineLength / 3) + (lineLength % 3 !== 0 ? 1 : 0);
    const maxCols = Math.min(maxIdx, n);
    const info = Array.from({ length: maxCols }, (_, i) => ({ valid: true, lineLen: (i + 1) * 3, cols: Array<number>(i + 1).fill(3) }));
    for (let f = 0; f < n; f++) {
      for (let i = 0; i < maxCols; i++) {
        const ci = info[i];
        if (!ci.valid) continue;
        const idx = byColumns ? Math.floor(f / Math.floor((n + i) / (i + 1))) : f % (i + 1);
        const real = lens[f] + (idx === i ? 0 : 2);
        if (ci.cols[idx] < real) {
          ci.lineLen += real - ci.cols[idx];
          ci.cols[idx] = real;
          ci.valid = ci.lineLen < lineLength;
        }
      }
    }
    let cols = maxCols;
    while (cols > 1 && !info[cols - 1].valid) cols--;
    const fmt = info[Math.max(cols, 1) - 1]?.cols ?? [0];
    if (byColumns) {
      const rows = Math.floor(n / cols) + (n % cols !== 0 ? 1 : 0);
      for (let row = 0; row < rows; row++) {
        let col = 0;
        let pos = 0;
        for (let f = row; ; ) {
          const max = fmt[col++];
          this.out += this.nameAndFrills(list[f], list, widths);
          const len = lens[f];
          f += rows;
          if (f >= n) break;
          this.out += this.indent(pos + len, pos + max);
          pos += max;
        }
        this.out += "\n";
      }
      return;
    }
    let pos = 0;
    this.out += this.nameAndFrills(list[0], list, widths);
    let len = lens[0];
    let max = fmt[0];
    for (let f = 1; f < n; f++) {
      const col = f % cols;
      if (col === 0) {
        this.out += "\n";
        pos = 0;
      } else {
        this.out += this.indent(pos + len, pos + max);
        pos += max;
      }
      this.out += this.nameAndFrills(list[f], list, widths);
      len = lens[f];
      max = fmt[col];
    }
    this.out += "\n";
  }

  /** Blanks from column `from` to `to`: a tab wherever it reaches a tab stop, else spaces. */
  private indent(from: number, to: number): string {
    let s = "";
    const tab = this.cfg.tabsize;
    while (from < to) {
      if (tab && Math.floor(to / tab) > Math.floor((from + 1) / tab)) {
        s += "\t";
        from += tab - (from % tab);
      } else {
        s += " ";
        from++;
      }
    }
    return s;
  }
}

/** The mode string (`drwxr-xr-x`), with SELinux's '.' where files carry a label. */
function modeString(st: FileStat | undefined, selinux: boolean): string {
  if (!st) return `?????????${selinux ? "?" : ""}`.padStart(10, "?");
  const type = { file: "-", directory: "d", symlink: "l", chardev: "c" }[st.type];
  const p = st.perm;
  const bit = (mask: number, c: string) => (p & mask ? c : "-");
  const special = (x: boolean, s: boolean, on: string, off: string) => (s ? (x ? on : off) : x ? "x" : "-");
  const s =
    type +
    bit(0o400, "r") + bit(0o200, "w") + special(!!(p & 0o100), !!(p & 0o4000), "s", "S") +
    bit(0o040, "r") + bit(0o020, "w") + special(!!(p & 0o010), !!(p & 0o2000), "s", "S") +
    bit(0o004, "r") + bit(0o002, "w") + special(!!(p & 0o001), !!(p & 0o1000), "t", "T");
  return selinux ? `${s}.` : s;
}

/** The extension -X sorts by: from the last '.', or nothing. */
function ext(name: string): string {
  const i = name.lastIndexOf(".");
  return i < 0 ? "" : name.slice(i);
}

/** C-style escapes for the c, escape and locale quoting styles. */
function cEscape(name: string): string {
  const map: Record<string, string> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v" };
  return [...name].map((c) => map[c] ?? (c < " " || c === "\x7f" ? `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}` : c)).join("");
}

/** Columns a string takes on a terminal (a tab never appears in what is measured). */
function width(s: string): number {
  return [...s].length;
}

/** fnmatch for -I and --hide patterns (*, ?, [...]), a leading '.' matched only by a '.'. */
function glob(pattern: string, name: string): boolean {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") re += "[^]*";
    else if (c === "?") re += "[^]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) re += "\\[";
      else {
        re += `[${pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  if (name.startsWith(".") && !pattern.startsWith(".")) return false;
  return new RegExp(`${re}$`).test(name);
}
