// The file system a shell works on (a node's, or a container's scratch copy): just-bash's
// in-memory one, with what a Linux file system does that it does not. A write needs its parent
// directory (just-bash's creates it), read-only mounts refuse writes (EROFS), and the character
// devices /dev/null, /dev/zero, /dev/random and /dev/urandom read and write as devices do.

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

  constructor(files: InitialFiles, opts: ShellFsOptions, fsOptions?: ConstructorParameters<typeof InMemoryFs>[1]) {
    super(files, fsOptions);
    this.readOnly = opts.readOnly;
    this.random = opts.random;
    this.mkdirSync("/dev", { recursive: true });
    // Empty files stand for the devices (a saved terminal may hold what an older one wrote there).
    for (const d of DEVICES) this.writeFileSync(d, "");
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

  // ---- writes --------------------------------------------------------------------------------

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
    return super.appendFile(p, content, options);
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
    return super.rm(p, options);
  }

  override async cp(src: string, dest: string, options?: Parameters<InMemoryFs["cp"]>[2]): Promise<void> {
    const d = this.resolvePath("/", dest);
    await this.writable(d, "open");
    return super.cp(src, d, options);
  }

  override async mv(src: string, dest: string): Promise<void> {
    const s = this.resolvePath("/", src);
    const d = this.resolvePath("/", dest);
    if (this.readOnly?.(s)) throw new ErrnoError("EROFS", "rename", s);
    await this.writable(d, "rename");
    return super.mv(s, d);
  }

  override async symlink(target: string, linkPath: string): Promise<void> {
    const p = this.resolvePath("/", linkPath);
    await this.writable(p, "symlink");
    return super.symlink(target, p);
  }

  override async link(existingPath: string, newPath: string): Promise<void> {
    const p = this.resolvePath("/", newPath);
    await this.writable(p, "link");
    return super.link(existingPath, p);
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

function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return s;
}
