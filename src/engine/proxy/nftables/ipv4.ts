// IPv4 helpers for the nftables proxier. Parsing follows netutils.ParseIPSloppy / ParseCIDRSloppy
// (leading zeros allowed and read as decimal, surrounding whitespace trimmed, as kube-proxy
// does for loadBalancerSourceRanges), and CIDRs are canonicalised (host bits masked) the way
// Go's net.IPNet.String() prints them.

/** The address as an unsigned 32-bit number, or undefined when it is not IPv4. */
export function parseIPv4(s: string): number | undefined {
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

export function formatIPv4(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export interface Prefix {
  /** Network address (host bits cleared). */
  addr: number;
  len: number;
}

/** "a.b.c.d/len" or a bare address (= /32). */
export function parsePrefix(s: string): Prefix | undefined {
  const t = s.trim();
  const slash = t.indexOf("/");
  const ip = parseIPv4(slash < 0 ? t : t.slice(0, slash));
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

export function maskOf(len: number): number {
  return len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
}

export function formatPrefix(p: Prefix): string {
  return `${formatIPv4(p.addr)}/${p.len}`;
}

/** Canonical CIDR text ("203.0.113.000/025" -> "203.0.113.0/25"), or undefined if invalid. */
export function canonicalCIDR(s: string): string | undefined {
  const p = parsePrefix(s);
  return p && s.includes("/") ? formatPrefix(p) : undefined;
}

/** Canonical address text ("10.180.00.001" -> "10.180.0.1"), or the input when not IPv4. */
export function canonicalIP(s: string): string {
  const v = parseIPv4(s);
  if (v === undefined) return s.trim();
  const c = formatIPv4(v);
  return c === s ? s : c; // keep the caller's string when already canonical (no copy retained)
}

export function prefixContains(p: Prefix, ip: number): boolean {
  return ((ip & maskOf(p.len)) >>> 0) === p.addr;
}

/**
 * How nft prints an anonymous interval set read back from the kernel: sorted by start,
 * overlapping ranges merged, adjacent ranges (not single addresses) merged, each interval
 * printed as an address, a prefix, or "first-last".
 */
export function mergeIntervalsForListing(values: readonly string[]): string[] {
  const iv: { lo: number; hi: number; range: boolean }[] = [];
  for (const v of values) {
    const p = parsePrefix(v);
    if (!p) continue;
    const size = 2 ** (32 - p.len);
    iv.push({ lo: p.addr, hi: p.addr + size - 1, range: p.len < 32 });
  }
  iv.sort((a, b) => a.lo - b.lo || a.hi - b.hi);
  const merged: { lo: number; hi: number; range: boolean }[] = [];
  for (const cur of iv) {
    const last = merged[merged.length - 1];
    if (last && (cur.lo <= last.hi || (cur.lo === last.hi + 1 && last.range && cur.range))) {
      last.hi = Math.max(last.hi, cur.hi);
      last.range = true;
    } else {
      merged.push({ ...cur });
    }
  }
  return merged.map(({ lo, hi }) => {
    if (lo === hi) return formatIPv4(lo);
    const size = hi - lo + 1;
    const bits = Math.log2(size);
    if (Number.isInteger(bits) && lo % size === 0) return `${formatIPv4(lo)}/${32 - bits}`;
    return `${formatIPv4(lo)}-${formatIPv4(hi)}`;
  });
}
