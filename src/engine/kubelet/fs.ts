// A container's filesystem: the image's files, overlaid by what the container wrote, with
// configMap volumes and the files the kubelet provides (/etc/resolv.conf, /etc/hosts,
// /etc/hostname) mounted on top. Only the overlay is per container; image files are shared.

type Mounts = () => ReadonlyMap<string, string>;

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
  /**
   * The container's configMap volume mount points (a directory, or a subPath file). They are
   * read-only, and a directory one replaces what the image had there.
   */
  volumes?(): readonly string[];
}

interface FsEntry {
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

  /** The volume `path` is in or is (undefined: none): nothing under it but the volume's files. */
  private volumeOf(path: string): string | undefined {
    if (!this.host.volumes || (this.host.mayMount && !this.host.mayMount(path))) return undefined;
    for (const v of this.host.volumes()) if (path === v || path.startsWith(`${v}/`)) return v;
    return undefined;
  }

  /** Mount points that refuse writes (configMap volumes), for a shell's copy of the files. */
  readOnlyPaths(): readonly string[] {
    return this.host.volumes?.() ?? [];
  }

  /** The directories that exist without a file in them: the standard ones and those made with mkdir. */
  directories(): string[] {
    return [...STANDARD_DIRS, ...this.dirs];
  }

  read(path: string): string {
    const p = normalize(path);
    const mounted = this.mountFor(p);
    if (mounted !== undefined) return mounted;
    if (this.volumeOf(p) !== undefined) {
      if (this.isDir(p)) throw new FsError("EISDIR", p);
      throw new FsError("ENOENT", p);
    }
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
    if (this.volumeOf(p) !== undefined) return false;
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
    if (this.mountFor(p) !== undefined || this.volumeOf(p) !== undefined) throw new FsError("EROFS", p);
    const parent = p.slice(0, p.lastIndexOf("/")) || "/";
    if (!this.isDir(parent)) throw new FsError("ENOENT", p);
    if (this.isDir(p)) throw new FsError("EISDIR", p);
    this.writable().set(p, content);
    this.host.changed();
  }

  remove(path: string): void {
    const p = normalize(path);
    if (this.mountFor(p) !== undefined || this.volumeOf(p) !== undefined) throw new FsError("EROFS", p);
    if (!this.isFile(p)) throw new FsError("ENOENT", p);
    this.writable().set(p, null);
    this.host.changed();
  }

  mkdir(path: string): void {
    const p = normalize(path);
    if (this.dirs.has(p)) return;
    if (this.volumeOf(p) !== undefined) throw new FsError("EROFS", p);
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
    // A directory volume hides what the image and the overlay had under its mount point.
    const mounts = this.host.mounts();
    for (const v of this.host.volumes?.() ?? []) {
      if (mounts.has(v)) continue;
      for (const k of out) if (k.startsWith(`${v}/`)) out.delete(k);
    }
    for (const k of mounts.keys()) out.add(k);
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
