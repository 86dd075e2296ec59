// nft's listing of anonymous interval sets. The IPv4 parsing it needs is shared by every proxier
// and lives in src/engine/net/ip.ts.
import { formatIPv4, parsePrefix } from "../../util/ip.js";

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
