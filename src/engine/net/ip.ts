// IPv4 arithmetic for allocators, routing and rule matching. Addresses are unsigned 32-bit numbers.

export function parseIPv4(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i];
    if (part.length > 1 && part[0] === "0") return undefined;
    const v = Number(part);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
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

export function cidrContains(c: CIDR, ip: number): boolean {
  return ip >= c.base && ip < c.base + c.size;
}

export function inCIDR(cidr: string, ip: string): boolean {
  const c = parseCIDR(cidr);
  const n = parseIPv4(ip);
  return c !== undefined && n !== undefined && cidrContains(c, n);
}

// ---------------------------------------------------------------------------------------------
// Sloppy parsing and prefixes, as kube-proxy reads its inputs (netutils.ParseIPSloppy /
// ParseCIDRSloppy: surrounding whitespace trimmed, leading zeros allowed and read as decimal),
// shared by the iptables, IPVS and nftables proxiers. The strict parsers above are the
// apiserver's.

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

export function isIPv4Sloppy(s: string): boolean {
  return parseIPv4Sloppy(s) !== undefined;
}

/** A network: address with host bits cleared, and prefix length. */
export interface Prefix {
  addr: number;
  len: number;
}

export function maskOf(len: number): number {
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
