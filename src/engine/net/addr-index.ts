// Numeric lookup keys for the packet path. A packet's addresses are dotted-quad strings; the
// maps the data plane probes per packet (nft service-ips and @cluster-ips, ipsets, IPVS virtual
// servers) hold tens of thousands of string keys. Probing those cost cache misses on the hash
// table, its entries and the key strings it compares. Keyed instead by the address as a uint32
// (plus a small tag for protocol and port), a probe reads two typed arrays and the value.
import { formatIPv4 } from "./ip.js";

/**
 * The address of a canonical dotted quad ("10.96.0.1": four decimal octets 0-255 without
 * leading zeros) as a uint32, or -1 for any other text. Two strings give the same number only
 * if they are the same text, so a numeric index over canonical keys answers exactly as the
 * string map, and anything else falls back to the string map.
 */
export function canonicalIPv4Num(s: string): number {
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

/**
 * The last four addresses parsed or noted, most recently used first. A connection's packet
 * carries a handful of addresses (the client's, the ClusterIP, the endpoint's, a masquerade
 * address) and each is read several times per node: by rules, lookups and the conntrack tables.
 * Comparing a string with a few others costs less than parsing it again, and the address read
 * now is the one most likely read next (iptables' KUBE-SERVICES reads the destination once per
 * rule): a hit moves to the front, so a run of reads of one address compares once each.
 */
let t0 = "";
let t1 = "";
let t2 = "";
let t3 = "";
let n0 = -1;
let n1 = -1;
let n2 = -1;
let n3 = -1;

/** Puts (s, n) in front; the last entry drops out. */
function remember(s: string, n: number): void {
  (t3 = t2), (n3 = n2);
  (t2 = t1), (n2 = n1);
  (t1 = t0), (n1 = n0);
  (t0 = s), (n0 = n);
}

/** canonicalIPv4Num with a four-entry cache. */
export function addrNum(s: string): number {
  if (s === t0) return n0;
  let n: number;
  if (s === t1) {
    n = n1;
    (t1 = t0), (n1 = n0);
  } else if (s === t2) {
    n = n2;
    (t2 = t1), (n2 = n1);
    (t1 = t0), (n1 = n0);
  } else if (s === t3) {
    n = n3;
    (t3 = t2), (n3 = n2);
    (t2 = t1), (n2 = n1);
    (t1 = t0), (n1 = n0);
  } else {
    n = canonicalIPv4Num(s);
    remember(s, n);
    return n;
  }
  (t0 = s), (n0 = n);
  return n;
}

/**
 * addrNum will answer `num` for `text` (the canonical text of num, as addrText gives it): a
 * packet rewritten to an address whose number the rewriter knew is not parsed again.
 */
export function noteAddrNum(text: string, num: number): void {
  if (text === t0 || text === t1 || text === t2 || text === t3) return;
  remember(text, num);
}

/** addrText's cache: direct-mapped by a hash of the address (a slot holds the last one). */
const TEXT_BITS = 12;
const textNums = new Int32Array(1 << TEXT_BITS);
const texts: (string | undefined)[] = new Array<string | undefined>(1 << TEXT_BITS).fill(undefined);

/**
 * The canonical dotted quad of a uint32 (formatIPv4), from a small cache: the packet path
 * rewrites packets to endpoint addresses it keeps as numbers, and the few thousand addresses a
 * node's traffic goes to most are then one string each (read and hashed once), not a string
 * per rewrite, nor one per rule that holds the address.
 */
export function addrText(num: number): string {
  const h = Math.imul(num | 0, 0x9e3779b1) >>> (32 - TEXT_BITS);
  const t = texts[h];
  if (t !== undefined && textNums[h] === (num | 0)) return t;
  const s = formatIPv4(num >>> 0);
  texts[h] = s;
  textNums[h] = num | 0;
  return s;
}

/** Protocol codes for tags (0: none / unknown). */
export function protoCode(p: string): number {
  return p === "tcp" ? 1 : p === "udp" ? 2 : p === "sctp" ? 3 : 0;
}

/** A tag for (protocol code 1-3, port 0-65535); 1 is the tag of an address alone. */
export function protoPortTag(proto: number, port: number): number {
  return 2 + (proto << 16) + port;
}

/** A port as a tag component: an integer 0-65535, or -1. */
export function portNum(port: number): number {
  return port >= 0 && port <= 65535 && port === Math.floor(port) ? port : -1;
}

/** The canonical decimal text of a port 0-65535 as a number, or -1. */
export function portTextNum(text: string): number {
  const n = Number(text);
  return String(n) === text && portNum(n) >= 0 ? n : -1;
}

export const TAG_ADDR = 1;

/**
 * An open-addressing hash table (linear probing, at most half full, backward-shift deletion)
 * from (uint32 address, tag >= 1) to a value. A slot's tag and address sit side by side, so a
 * probe of a large index reads one cache line for both.
 */
export class AddrIndex<T> {
  /** Slot s: tag at 2s (0: empty), address at 2s+1. */
  private slots = new Int32Array(32);
  private vals: (T | undefined)[] = new Array<T | undefined>(16).fill(undefined);
  private mask = 15;
  private n = 0;
  /**
   * Bounds of every address set since the last clear (deletions leave them wider, never
   * wrong). A set of ClusterIPs is probed with pod addresses on most nodes a connection
   * crosses: outside the bounds, a probe that would have missed in a large table (a cache
   * miss) is answered without touching it.
   */
  private lo = 0xffffffff;
  private hi = 0;

  get size(): number {
    return this.n;
  }

  get(addr: number, tag: number): T | undefined {
    const s = this.find(addr, tag);
    return s < 0 ? undefined : this.vals[s];
  }

  /**
   * Is there an entry at (addr, tag), whatever its value? A membership probe that reads only
   * the slots: in a table of 10k+ entries the value array is one more cache miss.
   */
  has(addr: number, tag: number): boolean {
    return this.find(addr, tag) >= 0;
  }

  /** The slot of (addr, tag), or -1 (outside the bounds, the table is not touched). */
  private find(addr: number, tag: number): number {
    const u = addr >>> 0;
    if (u < this.lo || u > this.hi) return -1;
    return probeSlot(this.slots, 2, this.mask, addr | 0, tag);
  }

  set(addr: number, tag: number, v: T): void {
    const a = addr | 0;
    const slots = this.slots;
    const mask = this.mask;
    let s = slotOf(a, tag, mask);
    for (; ; s = (s + 1) & mask) {
      const t = slots[2 * s];
      if (t === 0) break;
      if (t === tag && slots[2 * s + 1] === a) {
        this.vals[s] = v;
        return;
      }
    }
    if ((this.n + 1) * 2 > mask + 1) {
      this.grow();
      this.set(addr, tag, v);
      return;
    }
    slots[2 * s] = tag;
    slots[2 * s + 1] = a;
    this.vals[s] = v;
    this.n++;
    const u = addr >>> 0;
    if (u < this.lo) this.lo = u;
    if (u > this.hi) this.hi = u;
  }

  delete(addr: number, tag: number): boolean {
    const a = addr | 0;
    const slots = this.slots;
    const vals = this.vals;
    const mask = this.mask;
    let s = slotOf(a, tag, mask);
    for (; ; s = (s + 1) & mask) {
      const t = slots[2 * s];
      if (t === 0) return false;
      if (t === tag && slots[2 * s + 1] === a) break;
    }
    // Backward shift: move each later entry of the run whose home is not in (s, j] into the hole.
    for (let j = s; ; ) {
      slots[2 * s] = 0;
      vals[s] = undefined;
      for (;;) {
        j = (j + 1) & mask;
        const t = slots[2 * j];
        if (t === 0) {
          this.n--;
          return true;
        }
        const home = slotOf(slots[2 * j + 1], t, mask);
        if (s <= j ? home <= s || home > j : home <= s && home > j) {
          slots[2 * s] = t;
          slots[2 * s + 1] = slots[2 * j + 1];
          vals[s] = vals[j];
          s = j;
          break;
        }
      }
    }
  }

  clear(): void {
    this.slots = new Int32Array(32);
    this.vals = new Array<T | undefined>(16).fill(undefined);
    this.mask = 15;
    this.n = 0;
    this.lo = 0xffffffff;
    this.hi = 0;
  }

  private grow(): void {
    const { slots, vals } = this;
    const size = (this.mask + 1) * 2;
    this.slots = new Int32Array(2 * size);
    this.vals = new Array<T | undefined>(size).fill(undefined);
    this.mask = size - 1;
    this.n = 0;
    for (let s = 0; s < vals.length; s++) if (slots[2 * s] !== 0) this.set(slots[2 * s + 1], slots[2 * s], vals[s] as T);
  }
}

/**
 * The slot of (a, tag) in open-addressing `slots` (linear probing; `stride` int32s per slot: the
 * tag, 0 for an empty slot, then the address as int32), or -1.
 */
function probeSlot(slots: Int32Array, stride: number, mask: number, a: number, tag: number): number {
  for (let s = slotOf(a, tag, mask); ; s = (s + 1) & mask) {
    const t = slots[stride * s];
    if (t === 0) return -1;
    if (t === tag && slots[stride * s + 1] === a) return s;
  }
}

/** The home slot of (a, tag) in a table of mask + 1 slots. */
function slotOf(a: number, tag: number, mask: number): number {
  let h = Math.imul(a ^ Math.imul(tag, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & mask;
}


/**
 * A Map by key text that also keeps, in an AddrIndex, the entries whose key `indexKey` reads as
 * (address, tag): lookups by address then need no key text. `hasAddr(ip)` is exactly `has(ip)`
 * for keys that are an address alone. Values must not be undefined (the index's "absent").
 */
export abstract class IndexedMap<V> extends Map<string, V> {
  protected readonly index = new AddrIndex<V>();

  /** The index key of a key text, undefined when it is not a canonical one. */
  protected abstract indexKey(key: string): { addr: number; tag: number } | undefined;

  override set(key: string, v: V): this {
    const k = this.indexKey(key);
    if (k !== undefined) this.index.set(k.addr, k.tag, v);
    return super.set(key, v);
  }

  override delete(key: string): boolean {
    if (!super.delete(key)) return false;
    const k = this.indexKey(key);
    if (k !== undefined) this.index.delete(k.addr, k.tag);
    return true;
  }

  override clear(): void {
    super.clear();
    this.index.clear();
  }

  hasAddr(ip: string): boolean {
    const a = addrNum(ip);
    return a < 0 ? super.has(ip) : this.index.has(a, TAG_ADDR);
  }
}
