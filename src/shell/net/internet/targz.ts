// A .tar.gz built in memory, byte for byte what tar and gzip would read: ustar headers (POSIX
// 1003.1-1988, 512-byte blocks, two zero blocks at the end) inside a gzip member (RFC 1952)
// whose deflate stream uses stored blocks (RFC 1951 BTYPE 00). Stored blocks need no compressor,
// so the archive is the same in Node and in workerd and is built in a few milliseconds; every
// gunzip reads it.

interface TarEntry {
  /** Path inside the archive; directories end with "/". */
  path: string;
  content?: string;
}

const enc = new TextEncoder();

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function header(path: string, size: number, dir: boolean, mtime: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, at: number) => h.set(enc.encode(s), at);
  const name = enc.encode(path);
  if (name.length > 100) {
    // ustar's prefix field holds the leading directories of a long name.
    const cut = path.lastIndexOf("/", path.length - 2);
    put(path.slice(0, cut), 345);
    put(path.slice(cut + 1), 0);
  } else put(path, 0);
  put(octal(dir ? 0o775 : 0o664, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148);
  h[156] = (dir ? "5" : "0").charCodeAt(0);
  put("ustar\u000000", 257);
  put("root", 265);
  put("root", 297);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

/** A tar archive of `entries` (all with modification time `mtime`, in seconds). */
export function tar(entries: TarEntry[], mtime: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const dir = e.path.endsWith("/");
    const body = dir ? new Uint8Array() : enc.encode(e.content ?? "");
    parts.push(header(e.path, body.length, dir, mtime));
    if (body.length) {
      const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
      padded.set(body);
      parts.push(padded);
    }
  }
  parts.push(new Uint8Array(1024));
  return concat(parts);
}

let CRC_TABLE: Uint32Array | undefined;
function crc32(data: Uint8Array): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One gzip member holding `data` in stored deflate blocks. */
export function gzipStored(data: Uint8Array, mtime: number): Uint8Array {
  const MAX = 0xffff;
  const blocks = Math.max(1, Math.ceil(data.length / MAX));
  const out = new Uint8Array(10 + blocks * 5 + data.length + 8);
  const dv = new DataView(out.buffer);
  out.set([0x1f, 0x8b, 8, 0], 0);
  dv.setUint32(4, mtime >>> 0, true);
  out[8] = 0; // XFL
  out[9] = 3; // OS: Unix
  let o = 10;
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * MAX, Math.min(data.length, (b + 1) * MAX));
    out[o] = b === blocks - 1 ? 1 : 0; // BFINAL, BTYPE 00 (stored)
    dv.setUint16(o + 1, chunk.length, true);
    dv.setUint16(o + 3, ~chunk.length & 0xffff, true);
    out.set(chunk, o + 5);
    o += 5 + chunk.length;
  }
  dv.setUint32(o, crc32(data), true);
  dv.setUint32(o + 4, data.length >>> 0, true);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
