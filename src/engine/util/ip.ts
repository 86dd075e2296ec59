// IP addresses: the one place they are parsed and printed. IPv4 addresses are unsigned 32-bit
// numbers. Three readings of a text, each named once:
//   strict    (parseIPv4, ipv4Num, ipv4Octets): the apiserver's (Go's net.ParseIP); exactly the
//             canonical dotted quads (four decimal octets 0-255 without leading zeros);
//   sloppy    (parseIPv4Sloppy, parsePrefix): kube-proxy's netutils.ParseIPSloppy;
//   canonical (canonicalIP, canonicalCIDR): a sloppy text printed as the strict one.
// ipv4Unchecked reads an address the engine itself produced, without checks.

/** Strict: the address of a canonical dotted quad, or undefined. */
export function parseIPv4(s: string): number | undefined {
  const n = ipv4Num(s);
  return n < 0 ? undefined : n;
}

/** Strict, as a number: the address of a canonical dotted quad, or -1 (no allocation, for the packet path). */
export function ipv4Num(s: string): number {
  const len = s.length;
  if (len < 7 || len > 15) return -1;
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      n = n * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return (n * 256 + part) >>> 0;
}

/** Strict, as four octets (the apiserver's validation reads them). */
export function ipv4Octets(s: string): number[] | null {
  const n = ipv4Num(s);
  return n < 0 ? null : [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
}

// IPv6, as Go's net package reads and prints it (the apiserver's validation only).

/** Parses an IPv6 address into 8 hextets (with an embedded IPv4 tail allowed). */
export function parseIPv6(s: string): number[] | null {
  if (!s.includes(":")) return null;
  let str = s;
  const lastColon = s.lastIndexOf(":");
  const last = s.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = ipv4Octets(last);
    if (!v4) return null;
    str = `${s.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const dbl = str.split("::");
  if (dbl.length > 2) return null;
  const parse = (x: string): number[] | null => {
    if (x === "") return [];
    const out: number[] = [];
    for (const h of x.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(h)) return null;
      out.push(parseInt(h, 16));
    }
    return out;
  };
  const head = parse(dbl[0]);
  if (!head) return null;
  if (dbl.length === 2) {
    const rest = parse(dbl[1]);
    if (!rest) return null;
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return null;
    return [...head, ...new Array<number>(fill).fill(0), ...rest];
  }
  return head.length === 8 ? head : null;
}

/** The canonical (net.IP.String / RFC 5952) form of an IPv6 address. */
export function formatIPv6(h: number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (a: number[]) => a.map((x) => x.toString(16)).join(":");
  if (bestStart < 0) return hex(h);
  return `${hex(h.slice(0, bestStart))}::${hex(h.slice(bestStart + bestLen))}`;
}

/** Four dot-separated groups of one to three digits: what the node's tools take for an address, not a name. */
export function isDottedQuad(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s);
}

export function formatIPv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export function isIPv4(s: string): boolean {
  return parseIPv4(s) !== undefined;
}

export interface CIDR {
  /** Network address (host bits cleared). */
  base: number;
  prefix: number;
  /** Number of addresses in the block. */
  size: number;
  text: string;
}

export function parseCIDR(s: string): CIDR | undefined {
  const i = s.indexOf("/");
  if (i < 0) return undefined;
  const ip = parseIPv4(s.slice(0, i));
  const p = s.slice(i + 1);
  if (ip === undefined || !/^\d{1,2}$/.test(p)) return undefined;
  const prefix = Number(p);
  if (prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const base = prefix === 0 ? 0 : (ip - (ip % size)) >>> 0;
  return { base, prefix, size, text: `${formatIPv4(base)}/${prefix}` };
}

// ---------------------------------------------------------------------------------------------
// Sloppy parsing and prefixes, as kube-proxy reads its inputs (netutils.ParseIPSloppy /
// ParseCIDRSloppy: surrounding whitespace trimmed, leading zeros allowed and read as decimal).

/** Dotted quad -> unsigned 32-bit number, leading zeros and surrounding spaces tolerated. */
export function parseIPv4Sloppy(s: string): number | undefined {
  const parts = s.trim().split(".");
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = v * 256 + n;
  }
  return v;
}

/** A network: address with host bits cleared, and prefix length. */
export interface Prefix {
  addr: number;
  len: number;
}

function maskOf(len: number): number {
  return len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
}

/** "a.b.c.d/len" or a bare address (= /32), sloppy; undefined when not IPv4. */
export function parsePrefix(s: string): Prefix | undefined {
  const t = s.trim();
  const slash = t.indexOf("/");
  const ip = parseIPv4Sloppy(slash < 0 ? t : t.slice(0, slash));
  if (ip === undefined) return undefined;
  let len = 32;
  if (slash >= 0) {
    const l = t.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(l)) return undefined;
    len = Number(l);
    if (len > 32) return undefined;
  }
  return { addr: (ip & maskOf(len)) >>> 0, len };
}

/** net.IPNet.String(): the network address with its prefix length. */
export function formatPrefix(p: Prefix): string {
  return `${formatIPv4(p.addr)}/${p.len}`;
}

export function prefixContains(p: Prefix, ip: number): boolean {
  return ((ip & maskOf(p.len)) >>> 0) === p.addr;
}

/** Canonical CIDR text ("203.0.113.000/025" -> "203.0.113.0/25"); undefined without "/len" or when invalid. */
export function canonicalCIDR(s: string): string | undefined {
  const p = parsePrefix(s);
  return p && s.includes("/") ? formatPrefix(p) : undefined;
}

/** Canonical address text ("10.180.00.001" -> "10.180.0.1"), or the trimmed input when not IPv4. */
export function canonicalIP(s: string): string {
  const v = parseIPv4Sloppy(s);
  if (v === undefined) return s.trim();
  const c = formatIPv4(v);
  return c === s ? s : c; // keep the caller's string when already canonical (no copy retained)
}

/**
 * A dotted-quad already known to be valid, as a number, without checks: for the data plane's
 * hot path (conntrack hashing, CIDR matching of addresses the engine itself produced).
 */
export function ipv4Unchecked(s: string): number {
  let n = 0;
  let part = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      n = n * 256 + part;
      part = 0;
    } else part = part * 10 + (c - 48);
  }
  return (n * 256 + part) >>> 0;
}
