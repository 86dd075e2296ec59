// The file system a shell works on (a node's, or a container's scratch copy): just-bash's
// in-memory one, with what a Linux file system does that it does not. A write needs its parent
// directory (just-bash's creates it), read-only mounts refuse writes (EROFS), the character
// devices /dev/null, /dev/zero, /dev/random and /dev/urandom read and write as devices do, and
// modification times come from the terminal's clock (the cluster's), not the host's: a write
// stamps what it changed and the directory it added an entry to or removed one from.

import { InMemoryFs } from "just-bash";

type InitialFiles = ConstructorParameters<typeof InMemoryFs>[0];
type Content = Parameters<InMemoryFs["writeFile"]>[1];

/**
 * What one read of /dev/zero or /dev/urandom yields: a pipe buffer's worth (64 KiB), as `yes`
 * writes. A command here reads a file whole, so an endless device is read to this bound:
 * `head -c 16 /dev/urandom` and `dd bs=512 count=1` get what they ask for, and nothing reads for ever.
 */
const DEVICE_READ_BYTES = 65_536;

const DEVICES = new Set(["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"]);

interface ShellFsOptions {
  /** Paths a write must refuse with EROFS (a configMap volume and everything under it). */
  readOnly?: (path: string) => boolean;
  /** Random 32-bit words for /dev/urandom (the cluster's seeded stream: replays read the same bytes). */
  random: () => number;
  /** When the files were laid out (ms): their modification time until a write changes it. */
  installedAt: number;
}

/** An entry of InMemoryFs's table, as far as times go. */
interface Entry {
  type: "file" | "directory" | "symlink";
  mtime?: Date;
}

/**
 * A failed system call: `code` as Node's fs sets it (bash's redirections read it), the message
 * strerror's text, which just-bash's commands print after their own words
 * (`touch: cannot touch '/nope/x': No such file or directory`).
 */
class ErrnoError extends Error {
  constructor(
    readonly code: "ENOENT" | "EROFS" | "ENOTDIR",
    readonly syscall: string,
    readonly path: string,
  ) {
    super(ERRNO_TEXT[code]);
  }
}

const ERRNO_TEXT = { ENOENT: "No such file or directory", EROFS: "Read-only file system", ENOTDIR: "Not a directory" } as const;

export class ShellFs extends InMemoryFs {
  /** Set once the files are laid out (a volume's own files are written before it refuses writes). */
  readOnly?: (path: string) => boolean;
  private readonly random: () => number;
  /**
   * The time writes are stamped with (ms): the installation's while the shell is laid out, then
   * the terminal's (its line's time source: a replay stamps the same times).
   */
  clock: () => number;
  private readonly installedAt: number;

  constructor(files: InitialFiles, opts: ShellFsOptions, fsOptions?: ConstructorParameters<typeof InMemoryFs>[1]) {
    super(files, fsOptions);
    this.readOnly = opts.readOnly;
    this.random = opts.random;
    // InMemoryFs stamped the initial files with the host's clock: they are the installation's.
    this.installedAt = opts.installedAt;
    const installed = new Date(opts.installedAt);
    for (const e of this.table.values()) e.mtime = installed;
    this.clock = () => opts.installedAt;
    this.mkdirSync("/dev", { recursive: true });
    // Empty files stand for the devices (a saved terminal may hold what an older one wrote there).
    for (const d of DEVICES) this.writeFileSync(d, "");
  }

  /** Whether `path` names one of the character devices. */
  static isDevice(path: string): boolean {
    return DEVICES.has(path);
  }

  // ---- reads ---------------------------------------------------------------------------------

  override async readFile(path: string, options?: Parameters<InMemoryFs["readFile"]>[1]): Promise<string> {
    const dev = this.device(path);
    if (dev) return latin1(dev);
    return super.readFile(path, options);
  }

  override async readFileBuffer(path: string): Promise<Uint8Array> {
    return this.device(path) ?? super.readFileBuffer(path);
  }

  override async readFileBytes(path: string): Promise<Awaited<ReturnType<InMemoryFs["readFileBytes"]>>> {
    const dev = this.device(path);
    if (dev) return latin1(dev) as unknown as Awaited<ReturnType<InMemoryFs["readFileBytes"]>>;
    return super.readFileBytes(path);
  }

  /** What reading a device yields (undefined: not a device). */
  private device(path: string): Uint8Array | undefined {
    const p = this.resolvePath("/", path);
    if (!DEVICES.has(p)) return undefined;
    if (p === "/dev/null") return new Uint8Array();
    const out = new Uint8Array(DEVICE_READ_BYTES);
    if (p === "/dev/zero") return out;
    const words = new Uint32Array(out.buffer);
    for (let i = 0; i < words.length; i++) words[i] = this.random();
    return out;
  }

  // ---- a saved terminal's files: what InMemoryFs's initial files do not carry ------------------

  /** The entries written since the installation, with their modification times (ms). */
  changedTimes(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [p, e] of this.table) {
      const t = e.mtime?.getTime();
      if (t !== undefined && t !== this.installedAt && e.type !== "symlink") out[p] = t;
    }
    return out;
  }

  /** Directories with nothing in them (a file's directories come back with it). */
  emptyDirectories(): string[] {
    const parents = new Set<string>();
    for (const p of this.table.keys()) if (p !== "/") parents.add(parentOf(p));
    return [...this.table].filter(([p, e]) => e.type === "directory" && !parents.has(p)).map(([p]) => p);
  }

  /** Lays out what a saved terminal had besides its files' contents (the clock is still the installation's). */
  restore(dirs: readonly string[] = [], times: Record<string, number> = {}): void {
    for (const d of dirs) if (!this.table.has(d)) super.mkdirSync(d, { recursive: true });
    for (const [p, t] of Object.entries(times)) {
      const e = this.table.get(p);
      if (e) e.mtime = new Date(t);
    }
  }

  // ---- writes --------------------------------------------------------------------------------
  // InMemoryFs's own writes (and the ones below) end in writeFileSync and mkdirSync; each write
  // then stamps what it changed with the clock (InMemoryFs stamps the host's).

  override writeFileSync(path: string, content: Content, options?: Parameters<InMemoryFs["writeFileSync"]>[2], metadata?: Parameters<InMemoryFs["writeFileSync"]>[3]): void {
    const p = this.resolvePath("/", path);
    const added = this.absent(p);
    super.writeFileSync(p, content, options, metadata);
    if (this.constructed) this.stampWrite(p, added);
  }

  override writeFileLazy(path: string, lazy: Parameters<InMemoryFs["writeFileLazy"]>[1], metadata?: Parameters<InMemoryFs["writeFileLazy"]>[2]): void {
    const p = this.resolvePath("/", path);
    const added = this.absent(p);
    super.writeFileLazy(p, lazy, metadata);
    if (this.constructed) this.stampWrite(p, added);
  }

  override mkdirSync(path: string, options?: Parameters<InMemoryFs["mkdirSync"]>[1]): void {
    const p = this.resolvePath("/", path);
    const added = this.absent(p);
    super.mkdirSync(p, options);
    if (this.constructed) this.stampAdded(added);
  }

  override async writeFile(path: string, content: Content, options?: Parameters<InMemoryFs["writeFile"]>[2]): Promise<void> {
    const p = this.resolvePath("/", path);
    if (DEVICES.has(p)) return;
    await this.writable(p, "open");
    return super.writeFile(p, content, options);
  }

  override async appendFile(path: string, content: Content, options?: Parameters<InMemoryFs["appendFile"]>[2]): Promise<void> {
    const p = this.resolvePath("/", path);
    if (DEVICES.has(p)) return;
    await this.writable(p, "open");
    const added = this.absent(p);
    await super.appendFile(p, content, options);
    this.stampWrite(p, added);
  }

  override async mkdir(path: string, options?: Parameters<InMemoryFs["mkdir"]>[1]): Promise<void> {
    const p = this.resolvePath("/", path);
    if (this.readOnly?.(p)) throw new ErrnoError("EROFS", "mkdir", p);
    if (!options?.recursive) await this.parentExists(p, "mkdir");
    return super.mkdir(p, options);
  }

  override async rm(path: string, options?: Parameters<InMemoryFs["rm"]>[1]): Promise<void> {
    const p = this.resolvePath("/", path);
    if (this.readOnly?.(p)) throw new ErrnoError("EROFS", "unlink", p);
    const had = this.table.has(p);
    await super.rm(p, options);
    if (had && !this.table.has(p)) this.stamp(parentOf(p));
  }

  override async cp(src: string, dest: string, options?: Parameters<InMemoryFs["cp"]>[2]): Promise<void> {
    const d = this.resolvePath("/", dest);
    await this.writable(d, "open");
    const added = this.absent(d);
    await super.cp(src, d, options);
    // A copy is a new file (InMemoryFs copies the source's time): everything under it is new.
    for (const p of this.table.keys()) if (p === d || p.startsWith(`${d}/`)) this.stamp(p);
    this.stampAdded(added);
  }

  override async mv(src: string, dest: string): Promise<void> {
    const s = this.resolvePath("/", src);
    const d = this.resolvePath("/", dest);
    if (this.readOnly?.(s)) throw new ErrnoError("EROFS", "rename", s);
    await this.writable(d, "rename");
    // A rename keeps the times of what it moves; the two directories changed.
    const times = new Map<string, Date | undefined>();
    for (const [p, e] of this.table) if (p === s || p.startsWith(`${s}/`)) times.set(d + p.slice(s.length), e.mtime);
    const added = this.absent(d);
    await super.mv(s, d);
    for (const [p, t] of times) {
      const e = this.table.get(p);
      if (e) e.mtime = t;
    }
    this.stampAdded(added.filter((p) => p !== d));
    if (added.includes(d)) this.stamp(parentOf(d));
    if (!this.table.has(s)) this.stamp(parentOf(s));
  }

  override async symlink(target: string, linkPath: string): Promise<void> {
    const p = this.resolvePath("/", linkPath);
    await this.writable(p, "symlink");
    const added = this.absent(p);
    await super.symlink(target, p);
    this.stampAdded(added);
  }

  override async link(existingPath: string, newPath: string): Promise<void> {
    const p = this.resolvePath("/", newPath);
    await this.writable(p, "link");
    const added = this.absent(p);
    await super.link(existingPath, p);
    // A hard link is the same file (its time unchanged); its directory gained an entry.
    this.stampAdded(added.filter((a) => a !== p));
    if (added.includes(p)) this.stamp(parentOf(p));
  }

  override async chmod(path: string, mode: number): Promise<void> {
    const p = this.resolvePath("/", path);
    if (this.readOnly?.(p)) throw new ErrnoError("EROFS", "chmod", p);
    return super.chmod(p, mode);
  }

  override async utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    const p = this.resolvePath("/", path);
    if (this.readOnly?.(p)) throw new ErrnoError("EROFS", "utime", p);
    return super.utimes(p, atime, mtime);
  }

  /** False while InMemoryFs's constructor writes the initial files (stamped once it returns). */
  private get constructed(): boolean {
    return (this as { clock?: unknown }).clock !== undefined;
  }

  /** InMemoryFs's table of entries by normalized path. */
  private get table(): Map<string, Entry> {
    return (this as unknown as { data: Map<string, Entry> }).data;
  }

  /** `p` and those of its directories that do not exist, innermost first. */
  private absent(p: string): string[] {
    const out: string[] = [];
    for (let q = p; q !== "/" && !this.table.has(q); q = parentOf(q)) out.push(q);
    return out;
  }

  private stamp(p: string): void {
    const e = this.table.get(p);
    if (e) e.mtime = new Date(this.clock());
  }

  /** `p`'s content was written (`added`: what the write created, absent() before it). */
  private stampWrite(p: string, added: string[]): void {
    this.stamp(p);
    this.stampAdded(added);
  }

  /** Entries a write created (innermost first): each is new, and so is the outermost's place in its directory. */
  private stampAdded(added: string[]): void {
    const made = added.filter((p) => this.table.has(p));
    if (!made.length) return;
    for (const p of made) this.stamp(p);
    this.stamp(parentOf(made[made.length - 1]));
  }

  /** A path a write may create or replace: not read-only, and its directory exists. */
  private async writable(p: string, syscall: string): Promise<void> {
    if (this.readOnly?.(p)) throw new ErrnoError("EROFS", syscall, p);
    await this.parentExists(p, syscall);
  }

  private async parentExists(p: string, syscall: string): Promise<void> {
    const parent = p.slice(0, p.lastIndexOf("/")) || "/";
    if (!(await this.exists(parent))) throw new ErrnoError("ENOENT", syscall, p);
    if (!(await this.stat(parent)).isDirectory) throw new ErrnoError("ENOTDIR", syscall, p);
  }
}

function parentOf(p: string): string {
  return p.slice(0, p.lastIndexOf("/")) || "/";
}

function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return s;
}
