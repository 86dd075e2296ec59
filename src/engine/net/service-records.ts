// Service ports of an nftables `ip daddr . meta l4proto . th dport vmap @service-ips` map, each
// as one record of numbers, for the trace-less packet path (nftables-eval.ts runs them).
//
// A connection to a ClusterIP goes map element -> service chain -> its endpoint chains ->
// the endpoint's address. In a table of 10k services each of those objects (the index's value
// array, the element, the chain, its endpoints array, the endpoint chain, the address string) is
// a cache miss and, in a heap of hundreds of MB, a TLB miss: together about half of a
// connection. Here a service port is a record in one Int32Array, found by a probe of a slot
// array that holds the record's offset, so a connection reads two or three cache lines.
//
// A record says exactly what its chains say (ServiceChain and EndpointChain in
// proxy/nftables/proxier.ts keep the fields their rules are built from, and are immutable), and
// only chains of the plain shape get one: no ClientIP affinity, canonical addresses, every
// endpoint chain the table's chain of its name. Records are dropped when the table's chains or
// the map's elements change (ChainMap.version, IndexedMap.version) and made again, one by one,
// by the connections that look them up.
import { AddrOffsets, addrNum, canonicalIPv4Num, portNum, protoCode } from "./addr-index.js";
import { cidrOf, ipNum } from "./context.js";
import { ChainMap, ElementMap, gotoTarget, heldBy, type SetElement } from "../proxy/nftables/model.js";
import { EndpointChain, ServiceChain } from "../proxy/nftables/proxier.js";

/** ChainMap as a module-local constant: usable() runs per connection (see nftables-eval.ts on instanceof under tsx). */
const ChainMapC = ChainMap;

// Record layout (offsets from the record's start).
/** Index of the record's ServiceChain in `chains` (for the rare rules a record does not run). */
const R_CHAIN = 0;
/** Flags: masquerade rule, its `ip saddr/daddr != CIDR` match, that match's field and sense. */
const R_FLAGS = 1;
/** The masquerade rule's daddr (as int32). */
const R_MASQ_DADDR = 2;
/** The masquerade rule's CIDR match: base and mask (as int32). */
const R_FROM_BASE = 3;
const R_FROM_MASK = 4;
/** Number of endpoints (numgen's modulus). */
const R_COUNT = 5;
/** Endpoint k: its address (int32) at R_EPS + 2k, port | protoCode << 16 at R_EPS + 2k + 1. */
const R_EPS = 6;

/** What find answers for a service port whose chains have another shape (affinity, odd addresses). */
export const NO_RECORD = -2;

const F_MASQ = 1;
const F_FROM = 2;
const F_FROM_SADDR = 4;
const F_FROM_NEG = 8;

/** An endpoint chain's protocol code, as protoCode gives it for a packet's protocol. */
const PROTO_SHIFT = 16;

export class ServiceRecords {
  /** (address, tag) -> the record's offset, or NO_RECORD. */
  private readonly index = new AddrOffsets();
  private recs = new Int32Array(1024);
  private used = 0;
  /** The service chains, by record (R_CHAIN). */
  private readonly chains: ServiceChain[] = [];
  private chainVersion = -1;
  private mapVersion = -1;

  /**
   * Drops every record when the table's chains or the map's elements changed since they were
   * made. Records are only kept for a ChainMap (whose version says when chains change).
   */
  usable(chains: ReadonlyMap<string, unknown>, els: ElementMap): boolean {
    if (!(chains instanceof ChainMapC)) return false;
    if (chains.version !== this.chainVersion || els.version !== this.mapVersion) {
      if (this.index.size !== 0) this.clear();
      this.chainVersion = chains.version;
      this.mapVersion = els.version;
    }
    return true;
  }

  // Record o's fields, for the packet path (nftables-eval.ts runRecord). The layout stays in this
  // module: read through imported constants, the packet path ran ~1.5x slower when its modules
  // were loaded one by one (as tsx and Node load them) instead of bundled.

  /**
   * Record o's masquerade rule (ip daddr <clusterIP> [ip saddr != <cluster CIDR>] jump
   * mark-for-masquerade) for a packet from `src` to `dst`: -1 none, 0 not taken, 1 taken.
   */
  masquerade(o: number, src: string, dst: string): number {
    const r = this.recs;
    const flags = r[o + R_FLAGS];
    if ((flags & F_MASQ) === 0) return -1;
    if (addrNum(dst) !== r[o + R_MASQ_DADDR] >>> 0) return 0;
    if ((flags & F_FROM) === 0) return 1;
    const ip = (flags & F_FROM_SADDR) !== 0 ? src : dst;
    const x = addrNum(ip);
    const inside = ((x >= 0 ? x : ipNum(ip)) & r[o + R_FROM_MASK]) >>> 0 === r[o + R_FROM_BASE] >>> 0;
    return inside !== ((flags & F_FROM_NEG) !== 0) ? 1 : 0;
  }

  /** Record o's service chain. */
  chain(o: number): ServiceChain {
    return this.chains[this.recs[o + R_CHAIN]];
  }

  /** Record o's number of endpoints (numgen's modulus). */
  count(o: number): number {
    return this.recs[o + R_COUNT];
  }

  /** Endpoint k of record o: its address (uint32). */
  endpointAddr(o: number, k: number): number {
    return this.recs[o + R_EPS + 2 * k] >>> 0;
  }

  /** Endpoint k of record o: its port. */
  endpointPort(o: number, k: number): number {
    return this.recs[o + R_EPS + 2 * k + 1] & 0xffff;
  }

  /** Endpoint k of record o: its protocol's code (protoCode). */
  endpointProto(o: number, k: number): number {
    return this.recs[o + R_EPS + 2 * k + 1] >>> PROTO_SHIFT;
  }

  /** The offset of the record at (addr, tag), NO_RECORD (its chains run as they are), or -1 (not seen). */
  find(addr: number, tag: number): number {
    return this.index.get(addr, tag);
  }

  /**
   * Makes the record of the element found at (addr, tag) when its chains have the plain shape,
   * and returns its offset; else notes NO_RECORD there and returns it.
   */
  add(addr: number, tag: number, el: SetElement, chains: ReadonlyMap<string, unknown>): number {
    const o = this.make(el, chains);
    this.index.add(addr, tag, o);
    return o;
  }

  private make(el: SetElement, chains: ReadonlyMap<string, unknown>): number {
    const chain = gotoTarget(chains as ChainMap, el);
    if (!(chain instanceof ServiceChain) || chain.affinitySets !== undefined) return NO_RECORD;
    const count = chain.count;
    const eps = chain.endpoints;
    if (count === 0 || eps.length !== count) return NO_RECORD;
    let flags = 0;
    let masq = 0;
    let fromBase = 0;
    let fromMask = 0;
    if (chain.masqDaddr !== undefined) {
      if (chain.masqDaddrNum < 0) return NO_RECORD;
      flags |= F_MASQ;
      masq = chain.masqDaddrNum;
      const from = chain.masqFrom;
      if (from !== undefined) {
        // kube-proxy's is `ip saddr != <cluster CIDR>`; an address alone (a text comparison) keeps its chain.
        const c = cidrOf(from.value);
        if (c === undefined) return NO_RECORD;
        flags |= F_FROM | (from.field === "saddr" ? F_FROM_SADDR : 0) | (from.neg ? F_FROM_NEG : 0);
        fromBase = c.base;
        fromMask = c.mask;
      }
    }
    const size = R_EPS + 2 * count;
    if (this.used + size > this.recs.length) this.growRecs(this.used + size);
    const o = this.used;
    const r = this.recs;
    for (let k = 0; k < count; k++) {
      const ep = eps[k];
      if (!(ep instanceof EndpointChain) || ep.affinitySet !== undefined || !heldBy(chains as ChainMap, ep)) return NO_RECORD;
      const a = canonicalIPv4Num(ep.ip);
      const p = protoCode(ep.proto);
      if (a < 0 || p === 0 || portNum(ep.port) < 0) return NO_RECORD;
      r[o + R_EPS + 2 * k] = a | 0;
      r[o + R_EPS + 2 * k + 1] = ep.port | (p << PROTO_SHIFT);
    }
    r[o + R_CHAIN] = this.chains.length;
    r[o + R_FLAGS] = flags;
    r[o + R_MASQ_DADDR] = masq | 0;
    r[o + R_FROM_BASE] = fromBase | 0;
    r[o + R_FROM_MASK] = fromMask | 0;
    r[o + R_COUNT] = count;
    this.chains.push(chain);
    this.used = o + size;
    return o;
  }

  private growRecs(need: number): void {
    let n = this.recs.length * 2;
    while (n < need) n *= 2;
    const r = new Int32Array(n);
    r.set(this.recs.subarray(0, this.used));
    this.recs = r;
  }

  private clear(): void {
    this.index.clear();
    this.recs = new Int32Array(1024);
    this.used = 0;
    this.chains.length = 0;
  }
}
