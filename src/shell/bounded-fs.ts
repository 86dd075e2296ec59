// A terminal's filesystem with a size, as a node's disk has one: a node's (and a pod shell's)
// files are bounded in bytes and in entries, so that no cluster's terminal state grows past what
// a Durable Object holds (128 MB for everything; the files are saved with the cluster). A write
// past either bound fails as a full disk does: ENOSPC, which bash prints as
// `bash: /tmp/f: No space left on device` and coreutils as `cp: ...: No space left on device`.
import { InMemoryFs } from "just-bash";

/**
 * Bytes of file content one node's filesystem holds (a pod shell's: the same). The terminal's
 * files are one row, rewritten when they change, and a Durable Object's SQLite takes at most
 * 2 MB in one value (at 16 MiB each 4 MB write also took 5 s to persist on Node).
 */
const FS_BYTES = 1024 * 1024;
/** Files, directories and links one node's filesystem holds (a full inode table is ENOSPC too). */
const FS_ENTRIES = 4096;

/** A write that does not fit: errno ENOSPC; commands that print an error's text print strerror's. */
export class NoSpaceError extends Error {
  readonly code = "ENOSPC";
  constructor(readonly path: string) {
    super("No space left on device");
  }
}

/** Methods that may add an entry: refused once the table is full. */
const CREATES = ["writeFile", "writeFileSync", "writeFileLazy", "appendFile", "mkdir", "mkdirSync", "cp", "symlink", "link"] as const;
/** Methods that may add bytes: just-bash's own byte limit refuses them; the error is made ENOSPC. */
const GROWS = ["writeFile", "writeFileSync", "appendFile", "cp", "link", "mv"] as const;

type Files = ConstructorParameters<typeof InMemoryFs>[0];
type Options = ConstructorParameters<typeof InMemoryFs>[1];

/**
 * `files` as a filesystem bounded by FS_BYTES and FS_ENTRIES (a restored one already past them
 * keeps what it has); `make` builds it (the shells' ShellFs).
 */
export function boundedFs<T extends InMemoryFs = InMemoryFs>(files: Files = {}, make: (files: Files, options: Options) => T = (f, o) => new InMemoryFs(f, o) as T): T {
  let bytes = 0;
  for (const v of Object.values(files ?? {})) bytes += typeof v === "string" ? v.length * 3 : v instanceof Uint8Array ? v.byteLength : 0;
  const fs = make(files, { maxTotalBytes: Math.max(FS_BYTES, bytes) });
  const methods = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  // The entry table: InMemoryFs keeps its entries in a Map (`data`); listing them all on each
  // write made a 4000-file loop quadratic.
  const table = (fs as unknown as { data?: unknown }).data;
  const has = table instanceof Map ? (p: string) => table.has(p) : (p: string) => fs.getAllPaths().includes(p);
  const entries = table instanceof Map ? () => table.size : () => fs.getAllPaths().length;
  for (const m of new Set<string>([...CREATES, ...GROWS])) {
    const f = methods[m];
    if (typeof f !== "function") continue;
    const creates = (CREATES as readonly string[]).includes(m);
    methods[m] = (...a: unknown[]) => {
      // The destination: cp/link/symlink name it second.
      const path = String(m === "cp" || m === "link" || m === "symlink" || m === "mv" ? a[1] : a[0]);
      if (creates && entries() >= FS_ENTRIES && !has(normal(path))) throw new NoSpaceError(path);
      try {
        const r = f.apply(fs, a);
        return r instanceof Promise ? r.catch((e: unknown) => Promise.reject(asNoSpace(e, path))) : r;
      } catch (e) {
        throw asNoSpace(e, path);
      }
    };
  }
  return fs;
}

function normal(path: string): string {
  const parts: string[] = [];
  for (const p of path.split("/")) {
    if (!p || p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return "/" + parts.join("/");
}

/** just-bash's "ENOSPC: in-memory filesystem byte limit exceeded" as the disk's ENOSPC. */
function asNoSpace(e: unknown, path: string): unknown {
  return e instanceof Error && !(e instanceof NoSpaceError) && e.message.startsWith("ENOSPC") ? new NoSpaceError(path) : e;
}
