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
