// Hashes the engine needs to match Kubernetes byte for byte, in plain TypeScript so the engine
// runs unchanged in Node and in workerd (no node:crypto, no async WebCrypto).

// Int32Array throughout: every word stays a small integer (a Uint32Array hands out values above
// 2^31 as heap numbers until the code is optimized, and a cold chain-name hash runs ~100k times).
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const W = new Int32Array(64);
/** Message words, reused across calls (grown on demand). */
let M = new Int32Array(64);
const H = new Int32Array(8);
const encoder = new TextEncoder();

/** Hashes `blocks` padded blocks of M into H. */
function compress(blocks: number): void {
  const w = W, k = K, m = M;
  let h0 = 0x6a09e667 | 0, h1 = 0xbb67ae85 | 0, h2 = 0x3c6ef372 | 0, h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0, h5 = 0x9b05688c | 0, h6 = 0x1f83d9ab | 0, h7 = 0x5be0cd19 | 0;
  for (let blk = 0; blk < blocks; blk++) {
    const off = blk << 4;
    for (let i = 0; i < 16; i++) w[i] = m[off + i];
    for (let i = 16; i < 64; i++) {
      const w15 = w[i - 15], w2 = w[i - 2];
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + k[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  H[0] = h0; H[1] = h1; H[2] = h2; H[3] = h3; H[4] = h4; H[5] = h5; H[6] = h6; H[7] = h7;
}

/** Pads `len` bytes already packed big-endian into M and returns the number of blocks. */
function pad(len: number): number {
  const blocks = (len + 9 + 63) >> 6;
  const total = blocks * 16;
  const wi = len >> 2;
  M[wi] |= 0x80 << (24 - (len & 3) * 8);
  for (let i = wi + 1; i < total; i++) M[i] = 0;
  const bits = len * 8;
  M[total - 2] = Math.floor(bits / 0x100000000);
  M[total - 1] = bits | 0;
  return blocks;
}

function ensure(len: number): void {
  const need = (((len + 9 + 63) >> 6) * 16) | 0;
  if (M.length < need) M = new Int32Array(need * 2);
}

/** Hashes the message in M (already padded) into H. */
function hashString(input: string): void {
  const n = input.length;
  let ascii = true;
  for (let i = 0; i < n; i++) {
    if (input.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (!ascii) {
    hashBytes(encoder.encode(input));
    return;
  }
  ensure(n);
  const words = (n + 3) >> 2;
  for (let w = 0; w < words; w++) {
    const i = w * 4;
    M[w] =
      ((input.charCodeAt(i) << 24) |
        ((i + 1 < n ? input.charCodeAt(i + 1) : 0) << 16) |
        ((i + 2 < n ? input.charCodeAt(i + 2) : 0) << 8) |
        (i + 3 < n ? input.charCodeAt(i + 3) : 0));
  }
  if (words === 0) M[0] = 0;
  else if ((n & 3) === 0) M[words] = 0;
  compress(pad(n));
}

function hashBytes(msg: Uint8Array): void {
  const n = msg.length;
  ensure(n);
  const words = (n + 3) >> 2;
  for (let w = 0; w < words; w++) {
    const i = w * 4;
    M[w] = (msg[i] << 24) | ((msg[i + 1] ?? 0) << 16) | ((msg[i + 2] ?? 0) << 8) | (msg[i + 3] ?? 0);
  }
  if (words === 0) M[0] = 0;
  else if ((n & 3) === 0) M[words] = 0;
  compress(pad(n));
}

/** SHA-256 of the UTF-8 bytes of `input`. */
export function sha256(input: string | Uint8Array): Uint8Array {
  if (typeof input === "string") hashString(input);
  else hashBytes(input);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    out[i * 4] = v >>> 24;
    out[i * 4 + 1] = (v >>> 16) & 255;
    out[i * 4 + 2] = (v >>> 8) & 255;
    out[i * 4 + 3] = v & 255;
  }
  return out;
}

/**
 * The first `n` characters of base32(sha256(input)): kube-proxy's chain-name hashes
 * (`n` = 16) and nftables' hashAndTruncate (`n` = 8), without building the whole encoding.
 */
export function sha256Base32Prefix(input: string, n: number): string {
  hashString(input);
  // Character codes first, then one flat string (appending character by character allocated a
  // string per character: ~1.8M of them for the chain names of a 10k-service iptables sync).
  const codes = (prefixCodes[n] ??= new Array<number>(n).fill(0));
  base32Into(codes, 0);
  return String.fromCharCode.apply(null, codes);
}

/** Fills `codes` from index `start` to its end with the character codes of base32(H). */
function base32Into(codes: number[], start: number): void {
  const size = codes.length;
  let len = start;
  let bits = 0;
  let value = 0;
  for (let i = 0; i < 32 && len < size; i++) {
    const byte = (H[i >> 2] >>> (24 - (i & 3) * 8)) & 255;
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && len < size) {
      codes[len++] = B32_CODES[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
}

/** Reused character-code buffers of sha256Base32Prefix, by prefix length. */
const prefixCodes: number[][] = [];

/**
 * Packs ASCII strings one after another into M as the big-endian bytes of their concatenation.
 * Returns false (M partly written) at the first character above 0x7f.
 */
let packWord = 0;
let packLen = 0;
function packAscii(part: string): boolean {
  let word = packWord;
  let len = packLen;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c > 0x7f) return false;
    word = (word << 8) | c;
    if ((++len & 3) === 0) {
      M[(len >> 2) - 1] = word;
      word = 0;
    }
  }
  packWord = word;
  packLen = len;
  return true;
}

/**
 * `prefix` followed by the first `n` characters of base32(sha256(a + b + c + d + e)), as one flat
 * string, without building the concatenation or the hash as strings of their own: kube-proxy's
 * chain names (KUBE-SEP- + hash of spn, protocol and "IP:port"), ~110k of them in a cold
 * 10k-service iptables sync.
 */
export function sha256Base32Name(prefix: string, n: number, a: string, b: string, c = "", d = "", e = ""): string {
  const total = a.length + b.length + c.length + d.length + e.length;
  ensure(total);
  packWord = 0;
  packLen = 0;
  if (!(packAscii(a) && packAscii(b) && packAscii(c) && packAscii(d) && packAscii(e))) {
    hashBytes(encoder.encode(a + b + c + d + e));
  } else {
    const rest = total & 3;
    M[total >> 2] = rest === 0 ? 0 : packWord << (8 * (4 - rest));
    compress(pad(total));
  }
  return nameFromHash(prefix, n);
}

/** `prefix` followed by the first `n` characters of base32(H), as one flat string. */
function nameFromHash(prefix: string, n: number): string {
  if (n === 16 && (prefix.length === 0 || prefix.length === 9)) return name16(prefix);
  const size = prefix.length + n;
  const codes = (nameCodes[size] ??= new Array<number>(size).fill(0));
  for (let i = 0; i < prefix.length; i++) codes[i] = prefix.charCodeAt(i);
  base32Into(codes, prefix.length);
  return String.fromCharCode.apply(null, codes);
}

/**
 * nameFromHash of kube-proxy's names: 16 hash characters (80 bits: H[0], H[1] and the top 16
 * bits of H[2]) after no prefix or a 9-character one (KUBE-SVC-, KUBE-SEP-...), passed to
 * fromCharCode as arguments (a fifth cheaper than applying it to an array).
 */
function name16(prefix: string): string {
  const t = B32_CODES;
  const h0 = H[0], h1 = H[1], h2 = H[2];
  const c0 = t[h0 >>> 27], c1 = t[(h0 >>> 22) & 31], c2 = t[(h0 >>> 17) & 31], c3 = t[(h0 >>> 12) & 31];
  const c4 = t[(h0 >>> 7) & 31], c5 = t[(h0 >>> 2) & 31], c6 = t[((h0 << 3) | (h1 >>> 29)) & 31], c7 = t[(h1 >>> 24) & 31];
  const c8 = t[(h1 >>> 19) & 31], c9 = t[(h1 >>> 14) & 31], c10 = t[(h1 >>> 9) & 31], c11 = t[(h1 >>> 4) & 31];
  const c12 = t[((h1 << 1) | (h2 >>> 31)) & 31], c13 = t[(h2 >>> 26) & 31], c14 = t[(h2 >>> 21) & 31], c15 = t[(h2 >>> 16) & 31];
  if (prefix.length === 0) return String.fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15);
  return String.fromCharCode(
    prefix.charCodeAt(0), prefix.charCodeAt(1), prefix.charCodeAt(2), prefix.charCodeAt(3), prefix.charCodeAt(4),
    prefix.charCodeAt(5), prefix.charCodeAt(6), prefix.charCodeAt(7), prefix.charCodeAt(8),
    c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
  );
}

/** Message bytes of sha256Base32KeyName; the first `headLen` are those of `headA + headB`. */
const bytes = new Uint8Array(256);
let headA = "";
let headB = "";
let headLen = -1;

/**
 * `prefix` followed by the first `n` characters of base32(sha256(a + b)), or with an endpoint of
 * base32(sha256(a + b + ip + ":" + port)): kube-proxy's per-service chain hashes (service port
 * name + protocol) and KUBE-SEP names (the same + "IP:port"), ~110k of them in a cold
 * 10k-service sync. Consecutive calls with the same `a` and `b` (one service port's endpoints)
 * pack those once, and the port is written as digits without making its string. One function
 * for both, so that the hashing code is compiled once.
 */
export function sha256Base32KeyName(prefix: string, n: number, a: string, b: string, ip?: string, port = 0): string {
  if (a !== headA || b !== headB || headLen < 0) {
    headLen = -1;
    if (a.length + b.length > 64 || !putAscii(a, 0) || !putAscii(b, a.length)) return slowKeyName(prefix, n, a, b, ip, port);
    headA = a;
    headB = b;
    headLen = a.length + b.length;
  }
  let len = headLen;
  if (ip !== undefined) {
    if (ip.length > 64 || !putAscii(ip, len)) return slowKeyName(prefix, n, a, b, ip, port);
    len += ip.length;
    bytes[len++] = 0x3a;
    let div = 1;
    while (div * 10 <= port) div *= 10;
    for (; div >= 1; div = (div / 10) | 0) bytes[len++] = 0x30 + (((port / div) | 0) % 10);
  }
  // Padding: 0x80, zeros, the bit length in the last word (messages here are under 2^29 bytes).
  const blocks = (len + 9 + 63) >> 6;
  const words = blocks << 4;
  bytes[len] = 0x80;
  for (let i = len + 1; i < words << 2; i++) bytes[i] = 0;
  for (let w = 0; w < words - 1; w++) {
    const i = w << 2;
    M[w] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
  }
  M[words - 1] = len << 3;
  compress(blocks);
  return nameFromHash(prefix, n);
}

function slowKeyName(prefix: string, n: number, a: string, b: string, ip: string | undefined, port: number): string {
  return ip === undefined ? sha256Base32Name(prefix, n, a, b) : sha256Base32Name(prefix, n, a, b, ip, ":", String(port));
}

/** Writes the character codes of ASCII `s` into `bytes` from `at`; false at the first non-ASCII one. */
function putAscii(s: string, at: number): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return false;
    bytes[at + i] = c;
  }
  return true;
}

/** Reused character-code buffers of sha256Base32Name, by name length. */
const nameCodes: number[][] = [];

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B32_CODES = Array.from(B32, (c) => c.charCodeAt(0));


/** base32.StdEncoding.EncodeToString (RFC 4648, with padding). */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

/** FNV-1a 32-bit, as hash/fnv New32a (used for pod-template-hash and controller revisions). */
export function fnv32a(input: string): number {
  const bytes = encoder.encode(input);
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/**
 * rand.SafeEncodeString (k8s.io/apimachinery/pkg/util/rand): maps each character of s onto an
 * alphabet without vowels, so that generated names never spell words.
 */
export function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}
