// What stat(2) says of a terminal's file, beyond what the in-memory file system keeps: the
// node's disk is XFS (Rocky's default), so a small directory is stored in its inode (size
// 6 + 8 + name per entry, no blocks) and a file takes whole 4 KiB blocks; everything is root's;
// the character devices are devices; and under SELinux every file has a label.
import type { IFileSystem } from "just-bash";

export type FileType = "file" | "directory" | "symlink" | "chardev";

export interface FileStat {
  type: FileType;
  /** Permission bits, with setuid/setgid/sticky. */
  perm: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  /** Allocated 512-byte blocks (st_blocks). */
  blocks: number;
  /** Modification time (ms). */
  mtime: number;
  ino: number;
  /** A device's major and minor numbers. */
  rdev?: [number, number];
}

/** The character devices the shells have, with their numbers (devices.txt). */
const DEVICES: Record<string, [number, number]> = { "/dev/null": [1, 3], "/dev/zero": [1, 5], "/dev/random": [1, 8], "/dev/urandom": [1, 9] };

/** XFS's block and the room an inode leaves a short-form directory (512-byte inodes with an SELinux label). */
const BLOCK = 4096;
const INLINE_DIR_BYTES = 288;

/** The file at `path` (not following a final symlink), or undefined when there is none. */
export async function lstatFile(fs: IFileSystem, path: string): Promise<FileStat | undefined> {
  let st;
  try {
    st = await fs.lstat(path);
  } catch {
    return undefined;
  }
  const ino = inode(path);
  const mtime = st.mtime.getTime();
  if (st.isSymbolicLink) {
    const target = await fs.readlink(path).catch(() => "");
    // A short target is stored in the inode.
    return { type: "symlink", perm: 0o777, nlink: 1, uid: 0, gid: 0, size: new TextEncoder().encode(target).length, blocks: 0, mtime, ino };
  }
  if (DEVICES[path]) return { type: "chardev", perm: 0o666, nlink: 1, uid: 0, gid: 0, size: 0, blocks: 0, mtime, ino, rdev: DEVICES[path] };
  if (st.isDirectory) {
    const entries = await readdirTyped(fs, path);
    const size = directorySize(entries.map((e) => e.name));
    return { type: "directory", perm: st.mode & 0o7777, nlink: 2 + entries.filter((e) => e.isDirectory).length, uid: 0, gid: 0, size, blocks: size <= INLINE_DIR_BYTES ? 0 : Math.ceil(size / BLOCK) * (BLOCK / 512), mtime, ino };
  }
  return { type: "file", perm: st.mode & 0o7777, nlink: 1, uid: 0, gid: 0, size: st.size, blocks: Math.ceil(st.size / BLOCK) * (BLOCK / 512), mtime, ino };
}

/** The file `path` names, following symlinks (undefined: none, or a dangling link). */
export async function statFile(fs: IFileSystem, path: string): Promise<FileStat | undefined> {
  let real = path;
  try {
    real = await fs.realpath(path);
  } catch {
    return undefined;
  }
  const st = await lstatFile(fs, real);
  return st && { ...st, ino: inode(real) };
}

/** A directory's entries with their types. */
export async function readdirTyped(fs: IFileSystem, path: string): Promise<{ name: string; isDirectory: boolean; isSymbolicLink: boolean }[]> {
  if (fs.readdirWithFileTypes) return fs.readdirWithFileTypes(path);
  const names = await fs.readdir(path);
  const out = [];
  for (const name of names) {
    const st = await fs.lstat(`${path === "/" ? "" : path}/${name}`).catch(() => undefined);
    out.push({ name, isDirectory: !!st?.isDirectory, isSymbolicLink: !!st?.isSymbolicLink });
  }
  return out;
}

/**
 * An XFS directory's size: short form in the inode (a 6-byte header and 8 bytes + the name per
 * entry) while it fits, else 4 KiB data blocks of 8-byte-aligned entries after a 64-byte header.
 */
function directorySize(names: string[]): number {
  const bytes = (n: string) => new TextEncoder().encode(n).length;
  const inline = names.reduce((s, n) => s + 8 + bytes(n), 6);
  if (inline <= INLINE_DIR_BYTES) return inline;
  const data = [".", "..", ...names].reduce((s, n) => s + Math.ceil((12 + bytes(n)) / 8) * 8, 64);
  return Math.ceil(data / (BLOCK - 64)) * BLOCK;
}

/** A stable inode number for a path (XFS's root directory is 128). */
export function inode(path: string): number {
  if (path === "/") return 128;
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193) >>> 0;
  return 131 + (h % 134_000_000);
}

/**
 * A file's SELinux label on the node (targeted policy): what the installation labelled
 * system_u, what root made since unconfined_u, each with its path's type.
 */
export function selinuxContext(path: string, st: FileStat, installedAt: number): string {
  const user = st.mtime > installedAt ? "unconfined_u" : "system_u";
  const type =
    path === "/dev/null" ? "null_device_t"
    : path === "/dev/zero" ? "zero_device_t"
    : path === "/dev/random" || path === "/dev/urandom" ? "random_device_t"
    : path === "/dev" || path.startsWith("/dev/") ? "device_t"
    : path === "/root" || path.startsWith("/root/") ? "admin_home_t"
    : path === "/tmp" ? "tmp_t"
    : path.startsWith("/tmp/") ? "user_tmp_t"
    : path === "/etc/hosts" || path === "/etc/resolv.conf" ? "net_conf_t"
    : path === "/etc/hostname" ? "hostname_etc_t"
    : path === "/etc" || path.startsWith("/etc/") ? "etc_t"
    : /^\/(usr\/)?s?bin(\/|$)/.test(path) ? "bin_t"
    : path === "/proc" || path.startsWith("/proc/") ? "proc_t"
    : path === "/" ? "root_t"
    : "default_t";
  return `${path.startsWith("/proc") || path.startsWith("/dev") || path === "/" ? "system_u" : user}:object_r:${type}:s0`;
}
