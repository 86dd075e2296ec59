// Numeric lookup keys for the packet path. A packet's addresses are dotted-quad strings; the
// maps the data plane probes per packet (nft service-ips and @cluster-ips, ipsets, IPVS virtual
// servers) hold tens of thousands of string keys. Probing those cost cache misses on the hash
// table, its entries and the key strings it compares. Keyed instead by the address as a uint32
// (plus a small tag for protocol and port), a probe reads two typed arrays and the value. Only
// canonical keys are indexed (ipv4Num: one text per number), so an index answers as its map does.
import { ipv4Num } from "./ip.js";

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
    const a = ipv4Num(ip);
    return a < 0 ? super.has(ip) : this.index.has(a, TAG_ADDR);
  }
}
