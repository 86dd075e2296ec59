// A container's filesystem: the image's files, overlaid by what the container wrote, with
// configMap volumes and the files the kubelet provides (/etc/resolv.conf, /etc/hosts,
// /etc/hostname) mounted on top. Only the overlay is per container; image files are shared.

export type Mounts = () => ReadonlyMap<string, string>;

/**
 * What a container's filesystem asks of its kubelet: the mounts (built again when the store has
 * moved), and a call after every change. One object per container rather than two closures.
 */
export interface FsHost {
  mounts(): ReadonlyMap<string, string>;
  changed(): void;
  /**
   * Whether `path` can be a mount point at all (false: it is not one, and the mounts need not be
   * built to say so). Without it, the mounts are asked.
   */
  mayMount?(path: string): boolean;
}

export interface FsEntry {
  path: string;
  kind: "file" | "dir";
}

/** An absolute path with no empty, "." or ".." segment and no trailing slash: already normal. */
const NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

function normalize(path: string): string {
  // A web server's or probe's lookups repeat the same normal paths: skip the split and join.
  if (NORMAL.test(path)) return path;
  const parts: string[] = [];
  for (const p of path.split("/")) {
    if (!p || p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return "/" + parts.join("/");
}

export function resolvePath(cwd: string, path: string): string {
  return normalize(path.startsWith("/") ? path : `${cwd}/${path}`);
}

export class FsError extends Error {
  constructor(
    readonly code: "ENOENT" | "EISDIR" | "ENOTDIR" | "EROFS",
    readonly path: string,
  ) {
    super(`${code}: ${path}`);
  }
}

function noChange(): void {}

/** What a container that has written nothing has: shared, never written to. */
const NO_OVERLAY: ReadonlyMap<string, string | null> = new Map();
const NO_DIRS: ReadonlySet<string> = new Set();

export class ContainerFs {
  /** Written files (string) and deleted ones (null), over the image's files; own from the first write. */
  private overlay = NO_OVERLAY;
  /** Directories created with mkdir; own from the first mkdir. */
  private dirs = NO_DIRS;

  private readonly host: FsHost;

  constructor(
    private readonly image: Readonly<Record<string, string>>,
    /** The mounts, or a host that also hears of every change (the kubelet re-runs probes that read files). */
    mounts: Mounts | FsHost,
    readonly workingDir: string,
  ) {
    this.host = typeof mounts === "function" ? { mounts, changed: noChange } : mounts;
  }

  /** Mount points (configMap volumes are read-only). */
  private mountFor(path: string): string | undefined {
    if (this.host.mayMount && !this.host.mayMount(path)) return undefined;
    const m = this.host.mounts();
    return m.get(path);
  }

  read(path: string): string {
    const p = normalize(path);
    const mounted = this.mountFor(p);
    if (mounted !== undefined) return mounted;
    if (this.overlay.has(p)) {
      const v = this.overlay.get(p);
      if (v === null || v === undefined) throw new FsError("ENOENT", p);
      return v;
    }
    if (p in this.image) return this.image[p];
    if (this.isDir(p)) throw new FsError("EISDIR", p);
    throw new FsError("ENOENT", p);
  }

  exists(path: string): boolean {
    const p = normalize(path);
    return this.isFile(p) || this.isDir(p);
  }

  isFile(path: string): boolean {
    const p = normalize(path);
    if (this.mountFor(p) !== undefined) return true;
    if (this.overlay.has(p)) return this.overlay.get(p) !== null;
    return p in this.image;
  }

  isDir(path: string): boolean {
    const p = normalize(path);
    if (p === "/") return true;
    if (this.dirs.has(p)) return true;
    const prefix = p + "/";
    for (const k of this.allFiles()) if (k.startsWith(prefix)) return true;
    return STANDARD_DIRS.has(p);
  }

  write(path: string, content: string): void {
    const p = normalize(path);
    if (this.mountFor(p) !== undefined) throw new FsError("EROFS", p);
    const parent = p.slice(0, p.lastIndexOf("/")) || "/";
    if (!this.isDir(parent)) throw new FsError("ENOENT", p);
    if (this.isDir(p)) throw new FsError("EISDIR", p);
    this.writable().set(p, content);
    this.host.changed();
  }

  remove(path: string): void {
    const p = normalize(path);
    if (this.mountFor(p) !== undefined) throw new FsError("EROFS", p);
    if (!this.isFile(p)) throw new FsError("ENOENT", p);
    this.writable().set(p, null);
    this.host.changed();
  }

  mkdir(path: string): void {
    const p = normalize(path);
    if (this.dirs.has(p)) return;
    if (this.dirs === NO_DIRS) this.dirs = new Set();
    (this.dirs as Set<string>).add(p);
    this.host.changed();
  }

  private writable(): Map<string, string | null> {
    if (this.overlay === NO_OVERLAY) this.overlay = new Map();
    return this.overlay as Map<string, string | null>;
  }

  /** Every file path visible in the container. */
  allFiles(): string[] {
    const out = new Set<string>(Object.keys(this.image));
    for (const [k, v] of this.overlay) {
      if (v === null) out.delete(k);
      else out.add(k);
    }
    for (const k of this.host.mounts().keys()) out.add(k);
    return [...out].sort();
  }

  list(dir: string): FsEntry[] {
    const d = normalize(dir);
    const prefix = d === "/" ? "/" : d + "/";
    const seen = new Map<string, FsEntry>();
    for (const f of this.allFiles()) {
      if (!f.startsWith(prefix)) continue;
      const rest = f.slice(prefix.length);
      const i = rest.indexOf("/");
      const name = i < 0 ? rest : rest.slice(0, i);
      seen.set(name, { path: prefix + name, kind: i < 0 ? "file" : "dir" });
    }
    for (const sd of this.dirs) {
      if (sd.startsWith(prefix) && !sd.slice(prefix.length).includes("/")) seen.set(sd.slice(prefix.length), { path: sd, kind: "dir" });
    }
    return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
  }

  /** The overlay as data, for snapshots. */
  save(): { overlay: [string, string | null][]; dirs: string[] } {
    return { overlay: [...this.overlay.entries()], dirs: [...this.dirs] };
  }

  restore(data: { overlay: [string, string | null][]; dirs: string[] }): void {
    this.overlay = data.overlay.length ? new Map(data.overlay) : NO_OVERLAY;
    this.dirs = data.dirs.length ? new Set(data.dirs) : NO_DIRS;
  }
}

const STANDARD_DIRS = new Set([
  "/bin",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/sys",
  "/tmp",
  "/usr",
  "/usr/bin",
  "/usr/local",
  "/usr/local/bin",
  "/usr/share",
  "/var",
  "/var/log",
  "/var/run",
]);
