// Minimal IPv4 helpers for the iptables proxier (which, like kube-proxy's per-family proxier,
// only ever sees one family).

/** Dotted quad -> unsigned 32-bit number, undefined when not an IPv4 address. */
export function parseIPv4(s: string): number | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = v * 256 + n;
  }
  return v;
}

export function formatIPv4(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export interface Cidr {
  base: number;
  bits: number;
}

function maskOf(bits: number): number {
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
}

/** "a.b.c.d/n" (or a bare address, as /32) -> network; undefined when not IPv4. Sloppy about spaces. */
export function parseCidr(s: string): Cidr | undefined {
  const t = s.trim();
  const slash = t.indexOf("/");
  const ip = parseIPv4(slash < 0 ? t : t.slice(0, slash));
  if (ip === undefined) return undefined;
  const bits = slash < 0 ? 32 : Number(t.slice(slash + 1));
  if (!Number.isInteger(bits) || bits < 0 || bits > 32 || (slash >= 0 && !/^\d+$/.test(t.slice(slash + 1)))) return undefined;
  return { base: (ip & maskOf(bits)) >>> 0, bits };
}

/** net.IPNet.String(): the network address with its prefix length. */
export function formatCidr(c: Cidr): string {
  return `${formatIPv4(c.base)}/${c.bits}`;
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return ((ip & maskOf(c.bits)) >>> 0) === c.base;
}

export function isIPv4(s: string): boolean {
  return parseIPv4(s) !== undefined;
}
