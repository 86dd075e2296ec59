// Per-node connection tracking: the kernel remembers each connection's NAT so that later packets
// of an established flow skip the nat chains and keep their destination. `conntrack -L` prints
// the table as conntrack-tools 1.4.7 does.
import type { L4, Tuple } from "./packet.js";
import { formatIPv4, ipv4Num, ipv4Unchecked } from "../util/ip.js";

/** Kernel timeouts (seconds), with kube-proxy's conntrack settings (tcp established 24h, close_wait 1h). */
export const CT_TIMEOUTS = {
  tcpSynSent: 120,
  tcpEstablished: 86400,
  tcpTimeWait: 120,
  tcpClose: 10,
  udp: 30,
  udpStream: 120,
  icmp: 30,
} as const;

export type TcpState = "SYN_SENT" | "ESTABLISHED" | "TIME_WAIT" | "CLOSE";

export interface CtEntry {
  orig: Tuple;
  /** The reply direction: from the final destination back to the (masqueraded) source. */
  reply: Tuple;
  state: TcpState | undefined;
  /** Absolute expiry time on the cluster clock, ms. */
  expires: number;
  assured: boolean;
  unreplied: boolean;
  mark: number;
  /** The connection was DNATed (ctstate DNAT). */
  dnat: boolean;
  snat: boolean;
}

const PROTO_NUM: Record<L4, number> = { tcp: 6, udp: 17, sctp: 132, icmp: 1 };

/** nf_conntrack_max for a small node (kube-proxy: 32768 per CPU, min 131072); we keep fewer. */
const DEFAULT_MAX = 65536;
/**
 * How many of the oldest flows early_drop looks at for one it may drop. The kernel looks at the
 * flows of NF_CT_EVICTION_RANGE (8) hash buckets near the new flow's, about 32 in a full table
 * (nf_conntrack_max is 4 buckets' worth per bucket); here the 32 oldest.
 */
const EARLY_DROP_RANGE = 32;
/**
 * The gc worker's period: it reaps expired flows on its own schedule (adaptive, seconds apart),
 * so a flow that expired more than this long ago is gone when the table fills. After a refused
 * flow it runs with early drop (gc_work->early_drop): it also drops the flows it may
 * (gc_worker_can_early_drop: not assured, or TCP closing: TIME_WAIT, CLOSE) until the table is
 * below 95% of nf_conntrack_max. Here it runs at the first flow a period after it was due.
 */
const GC_PERIOD_MS = 1000;

const ipNum = ipv4Unchecked;

/**
 * Hash key of a flow (a small integer) from its addresses read as numbers (ipNum: canonical
 * addresses read the same either way); flows are told apart by comparing the whole tuple.
 */
function flowKeyOf(src: number, sport: number, dst: number, dport: number): number {
  let h = Math.imul(src ^ Math.imul(sport, 0x27d4eb2d), 0x9e3779b1) ^ Math.imul(dst ^ Math.imul(dport, 0x165667b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & 0x3fffffff;
}

/** Marks a used slot's tag (flow keys are 30-bit, so a tag is never 0). */
const USED = 0x40000000;

const PROTOS: readonly L4[] = ["tcp", "udp", "sctp", "icmp"];
const PROTO_CODE: Record<L4, number> = { tcp: 0, udp: 1, sctp: 2, icmp: 3 };
const STATES: readonly (TcpState | undefined)[] = [undefined, "SYN_SENT", "ESTABLISHED", "TIME_WAIT", "CLOSE"];
const STATE_CODE: Record<TcpState, number> = { SYN_SENT: 1, ESTABLISHED: 2, TIME_WAIT: 3, CLOSE: 4 };
const ASSURED = 1;
const UNREPLIED = 2;
const DNAT = 4;
const SNAT = 8;
/** Some address of the flow is not a canonical dotted quad: its texts are kept in `oddAddrs`. */
const ODD = 16;
const NONE = -1;

/**
 * A flow as `addFlow` takes it: the original and reply tuples flat, without tuple objects. The
 * data plane fills one per node it records and the table copies the fields out, so nothing a
 * connection leaves in the table is an object.
 */
export interface FlowFields extends Omit<CtEntry, "orig" | "reply"> {
  proto: L4;
  src: string;
  sport: number;
  dst: string;
  dport: number;
  rsrc: string;
  rsport: number;
  rdst: string;
  rdport: number;
}

/** Int32s per flow record: one 64-byte cache line. */
const W = 16;
// A record's fields (int32 offsets).
const R_KEY = 0;
/** proto code | state code << 4 | flags << 8 */
const R_META = 1;
const R_SPORT = 2;
const R_DPORT = 3;
const R_RSPORT = 4;
const R_RDPORT = 5;
/** src, dst, rsrc, rdst as uint32 at R_ADDR + 0..3. */
const R_ADDR = 6;
const R_OLDER = 10;
const R_NEWER = 11;
const R_MARK = 12;
/** The expiry (a float64) is int32s 14-15: float64 index W/2 * i + R_EXPIRES. */
const R_EXPIRES = 7;

/** Every field of an ODD flow, as given (see ODD). */
type OddFlow = readonly [src: string, dst: string, rsrc: string, rdst: string, sport: number, dport: number, rsport: number, rdport: number, mark: number];

/**
 * An open-addressing hash table (linear probing, at most half full) over flows stored as
 * records of numbers (typed arrays only: addresses are kept as numbers). A table holds ~65k
 * flows per node and every new connection inserts one per node it crosses while a full table
 * evicts as often: flows kept as objects lived long enough to be promoted and then died in the
 * old generation, and the collector's work for them was most of a connection's cost. A flow
 * here is an index into `rec`, its fields one 64-byte record (kept as columns, a flow was a
 * dozen cache lines, and writing one into a full table read each from memory: most of a
 * connection's memory traffic). `find` reads the slots and a flow's record only when its key
 * matches. Deletion shifts the following run back (no tombstones); freed indexes are reused. Age
 * order (oldest first) is a doubly linked list of indexes. Slots double and records quadruple
 * as the table fills, up to `max` flows, so an idle node's table stays small. (A busy node
 * fills its table in seconds of traffic: each growth copies every record into freshly mapped
 * memory, and with four times the room, 16 to 65536 flows copy a third of the final records
 * instead of all of them. Room not yet written is memory the system has not handed out.)
 */
export class ConntrackTable {
  /**
   * Slot s: its tag at 2s (0: empty) and its flow index at 2s+1 (valid where the tag is set),
   * side by side: a probe of a 65k-flow table reads one cache line for both.
   */
  private slots = new Int32Array(64);
  private mask = 31;

  /** Flow records (W int32s each), and the same memory as float64s for the expiry. */
  private cap = 0;
  private rec = new Int32Array(0);
  private exp = new Float64Array(0);
  /**
   * A flow with a field the record cannot hold exactly (an address that is not a canonical
   * dotted quad, a port or mark that is not a 32-bit integer: flag ODD) keeps them here.
   */
  private readonly odd = new Map<number, OddFlow>();
  /** Flow indexes never used are `used`..cap-1; freed ones are chained through R_NEWER. */
  private used = 0;
  private freeHead = NONE;

  /** Age order: oldest first (an entry re-added moves to the end). */
  private oldest = NONE;
  private newest = NONE;
  private count = 0;
  /**
   * No flow expires before this (a lower bound: flows only get later timeouts, see
   * Dataplane.established). A full table whose flows all outlive `now` skips the expiry pass.
   */
  private earliestExpiry = Infinity;
  /** What `conntrack -S` counts: flows dropped early for room, and new flows refused (table full). */
  readonly stats = { earlyDrop: 0, drop: 0 };
  /** When the gc worker's next pass over a full table runs, or Infinity (none due). */
  private gcAt = Infinity;
  /** A flow was refused since the last pass: the next one drops early too. */
  private gcEarlyDrop = false;
  /** nf_conntrack_max, settable as the sysctl is. */
  constructor(public max = DEFAULT_MAX) {}

  get size(): number {
    return this.count;
  }

  /** The live entry whose original tuple is `t` (a copy). */
  lookup(t: Tuple, now: number): CtEntry | undefined {
    const i = this.lookupFlow(t.proto, t.src, t.sport, t.dst, t.dport, now);
    return i === NONE ? undefined : this.entry(i);
  }

  /** The index of the live flow whose original tuple this is, or -1. Valid until the table changes. */
  lookupFlow(proto: L4, src: string, sport: number, dst: string, dport: number, now: number): number {
    const a = ipv4Num(src);
    const b = src === dst ? a : ipv4Num(dst);
    const key = flowKeyOf(a < 0 ? ipNum(src) : a, sport, b < 0 ? ipNum(dst) : b, dport);
    const i = this.find(key, PROTO_CODE[proto], src, a, sport, dst, b, dport);
    if (i === NONE) return NONE;
    if (this.expiresOf(i) <= now) {
      this.remove(i);
      return NONE;
    }
    return i;
  }

  // Fields of a flow found by lookupFlow.
  protoOf(i: number): L4 {
    return PROTOS[this.rec[W * i + R_META] & 15];
  }
  replySrc(i: number): string {
    return this.addrText(i, 2);
  }
  replySport(i: number): number {
    return this.port(i, 2);
  }
  replyDst(i: number): string {
    return this.addrText(i, 3);
  }
  replyDport(i: number): number {
    return this.port(i, 3);
  }
  snatOf(i: number): boolean {
    return (this.flags(i) & SNAT) !== 0;
  }
  /** A later expiry for a flow (never an earlier one: `earliestExpiry` is a lower bound). */
  extend(i: number, expires: number): void {
    this.exp[(W / 2) * i + R_EXPIRES] = expires;
  }

  add(e: CtEntry, now: number): boolean {
    const o = e.orig;
    const r = e.reply;
    return this.addFlow(
      {
        proto: o.proto,
        src: o.src,
        sport: o.sport,
        dst: o.dst,
        dport: o.dport,
        rsrc: r.src,
        rsport: r.sport,
        rdst: r.dst,
        rdport: r.dport,
        state: e.state,
        expires: e.expires,
        assured: e.assured,
        unreplied: e.unreplied,
        mark: e.mark,
        dnat: e.dnat,
        snat: e.snat,
      },
      now,
    );
  }

  /**
   * Room for one new flow, as __nf_conntrack_alloc finds it: below nf_conntrack_max there is.
   * At it, early_drop looks at a few flows (the oldest EARLY_DROP_RANGE here): expired ones it
   * meets are reaped (they free room for the next flow, not this one) and the first that is
   * not ASSURED (never replied to, refused) is dropped for this one. Found none: no room; the
   * kernel drops the packet and logs `nf_conntrack: table full, dropping packet` (the data
   * plane does both), the client's connection times out, and the gc worker is asked to drop
   * early on its next pass.
   */
  admit(now: number): boolean {
    if (this.count < this.max) return true;
    // The gc worker's passes since the table was last seen full.
    if (now >= this.gcAt || this.earliestExpiry <= now - GC_PERIOD_MS) this.gcPass(now);
    if (this.count < this.max) return true;
    let i = this.oldest;
    for (let n = 0; n < EARLY_DROP_RANGE && i !== NONE; n++) {
      const next = this.newer(i);
      if (this.expiresOf(i) <= now) this.remove(i);
      else if ((this.flags(i) & ASSURED) === 0) {
        this.remove(i);
        this.stats.earlyDrop++;
        return true;
      }
      i = next;
    }
    this.stats.drop++;
    this.gcEarlyDrop = true;
    if (this.gcAt === Infinity) this.gcAt = now + GC_PERIOD_MS;
    return false;
  }

  /** One pass of the gc worker: the expired flows go; after a refusal, droppable ones down to 95%. */
  private gcPass(now: number): void {
    this.gcAt = Infinity;
    if (this.earliestExpiry <= now) this.expire(now);
    if (!this.gcEarlyDrop) return;
    this.gcEarlyDrop = false;
    // nf_conntrack_max / 100u * 95u, in the kernel's integer arithmetic.
    const target = Math.floor(this.max / 100) * 95;
    for (let i = this.oldest; i !== NONE && this.count > target; ) {
      const next = this.newer(i);
      const meta = this.rec[W * i + R_META];
      const state = STATES[(meta >>> 4) & 15];
      if (((meta >>> 8) & ASSURED) === 0 || state === "TIME_WAIT" || state === "CLOSE") {
        this.remove(i);
        this.stats.earlyDrop++;
      }
      i = next;
    }
  }

  /**
   * Adds (or replaces, moving it to the newest end) the flow with f's original tuple; f is copied.
   * False when the table is full (see admit): nothing was added.
   */
  addFlow(f: FlowFields, now: number): boolean {
    // The reply's addresses are mostly the original's own strings (no NAT on that side).
    const src = ipv4Num(f.src);
    const dst = ipv4Num(f.dst);
    const rsrc = f.rsrc === f.dst ? dst : ipv4Num(f.rsrc);
    const rdst = f.rdst === f.src ? src : ipv4Num(f.rdst);
    const odd =
      src < 0 || dst < 0 || rsrc < 0 || rdst < 0 || !isInt32(f.sport) || !isInt32(f.dport) || !isInt32(f.rsport) || !isInt32(f.rdport) || f.mark !== f.mark >>> 0;
    const key = flowKeyOf(src < 0 ? ipNum(f.src) : src, f.sport, dst < 0 ? ipNum(f.dst) : dst, f.dport);
    const proto = PROTO_CODE[f.proto];
    const old = this.find(key, proto, f.src, src, f.sport, f.dst, dst, f.dport);
    if (old !== NONE) this.remove(old);
    else if (!this.admit(now)) return false;
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    const i = this.alloc();
    const flags = (f.assured ? ASSURED : 0) | (f.unreplied ? UNREPLIED : 0) | (f.dnat ? DNAT : 0) | (f.snat ? SNAT : 0) | (odd ? ODD : 0);
    const r = this.rec;
    const p = W * i;
    r[p + R_KEY] = key;
    r[p + R_META] = proto | ((f.state === undefined ? 0 : STATE_CODE[f.state]) << 4) | (flags << 8);
    r[p + R_SPORT] = f.sport;
    r[p + R_DPORT] = f.dport;
    r[p + R_RSPORT] = f.rsport;
    r[p + R_RDPORT] = f.rdport;
    r[p + R_ADDR] = src;
    r[p + R_ADDR + 1] = dst;
    r[p + R_ADDR + 2] = rsrc;
    r[p + R_ADDR + 3] = rdst;
    r[p + R_MARK] = f.mark;
    this.exp[(W / 2) * i + R_EXPIRES] = f.expires;
    if (odd) this.odd.set(i, [f.src, f.dst, f.rsrc, f.rdst, f.sport, f.dport, f.rsport, f.rdport, f.mark]);
    this.place(i, key);
    if (f.expires < this.earliestExpiry) this.earliestExpiry = f.expires;
    r[p + R_OLDER] = this.newest;
    r[p + R_NEWER] = NONE;
    if (this.newest !== NONE) r[W * this.newest + R_NEWER] = i;
    else this.oldest = i;
    this.newest = i;
    this.count++;
    return true;
  }

  /** conntrack -F */
  flush(): number {
    const n = this.count;
    this.slots.fill(0);
    this.odd.clear();
    this.used = 0;
    this.freeHead = NONE;
    this.earliestExpiry = Infinity;
    this.oldest = this.newest = NONE;
    this.count = 0;
    this.gcAt = Infinity;
    this.gcEarlyDrop = false;
    return n;
  }

  /** conntrack -D -d IP / kube-proxy's stale UDP cleanup. */
  deleteWhere(pred: (e: CtEntry) => boolean): number {
    let n = 0;
    for (let i = this.oldest; i !== NONE; ) {
      const next = this.newer(i);
      if (pred(this.entry(i))) (this.remove(i), n++);
      i = next;
    }
    return n;
  }

  /** Live entries, oldest first (copies). */
  list(now: number): CtEntry[] {
    const out: CtEntry[] = [];
    for (let i = this.oldest; i !== NONE; ) {
      const next = this.newer(i);
      if (this.expiresOf(i) <= now) this.remove(i);
      else out.push(this.entry(i));
      i = next;
    }
    return out;
  }

  private entry(i: number): CtEntry {
    const meta = this.rec[W * i + R_META];
    const proto = PROTOS[meta & 15];
    const flags = meta >>> 8;
    const o = (flags & ODD) !== 0 ? this.odd.get(i)! : undefined;
    return {
      orig: { proto, src: this.addrText(i, 0), sport: this.port(i, 0), dst: this.addrText(i, 1), dport: this.port(i, 1) },
      reply: { proto, src: this.addrText(i, 2), sport: this.port(i, 2), dst: this.addrText(i, 3), dport: this.port(i, 3) },
      state: STATES[(meta >>> 4) & 15],
      expires: this.expiresOf(i),
      assured: (flags & ASSURED) !== 0,
      unreplied: (flags & UNREPLIED) !== 0,
      mark: o !== undefined ? o[8] : this.rec[W * i + R_MARK] >>> 0,
      dnat: (flags & DNAT) !== 0,
      snat: (flags & SNAT) !== 0,
    };
  }

  private flags(i: number): number {
    return this.rec[W * i + R_META] >>> 8;
  }

  private expiresOf(i: number): number {
    return this.exp[(W / 2) * i + R_EXPIRES];
  }

  private newer(i: number): number {
    return this.rec[W * i + R_NEWER];
  }

  /** Address `k` (0 src, 1 dst, 2 rsrc, 3 rdst) of flow i, as the packet had it. */
  private addrText(i: number, k: number): string {
    return (this.flags(i) & ODD) !== 0 ? (this.odd.get(i)![k] as string) : formatIPv4(this.rec[W * i + R_ADDR + k] >>> 0);
  }

  /** Port `k` (0 sport, 1 dport, 2 rsport, 3 rdport) of flow i. */
  private port(i: number, k: number): number {
    return (this.flags(i) & ODD) !== 0 ? (this.odd.get(i)![4 + k] as number) : this.rec[W * i + R_SPORT + k];
  }

  /**
   * The flow with this original tuple; `a` and `b` are addrNum of src and dst (-1:
   * not canonical, so only an ODD flow can have that text).
   */
  private find(key: number, proto: number, src: string, a: number, sport: number, dst: string, b: number, dport: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const tag = key | USED;
    const r = this.rec;
    for (let s = key & mask; ; s = (s + 1) & mask) {
      const t = slots[2 * s];
      if (t === 0) return NONE;
      if (t === tag) {
        const i = slots[2 * s + 1];
        const p = W * i;
        const meta = r[p + R_META];
        if ((meta & 15) !== proto) continue;
        if (((meta >>> 8) & ODD) === 0) {
          if (r[p + R_SPORT] === sport && r[p + R_DPORT] === dport && r[p + R_ADDR + 1] === (b | 0) && r[p + R_ADDR] === (a | 0) && a >= 0 && b >= 0) return i;
        } else {
          const o = this.odd.get(i)!;
          if (o[4] === sport && o[5] === dport && o[1] === dst && o[0] === src) return i;
        }
      }
    }
  }

  /** Puts flow i into the first free slot of its probe sequence (the table is never full). */
  private place(i: number, key: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = key & mask;
    while (slots[2 * s] !== 0) s = (s + 1) & mask;
    slots[2 * s] = key | USED;
    slots[2 * s + 1] = i;
  }

  /** A free flow index, the records grown if none is left. */
  private alloc(): number {
    const f = this.freeHead;
    if (f !== NONE) {
      this.freeHead = this.rec[W * f + R_NEWER];
      return f;
    }
    if (this.used === this.cap) this.growRecords();
    return this.used++;
  }

  private growRecords(): void {
    const cap = Math.max(16, this.cap * 4);
    const rec = new Int32Array(W * cap);
    rec.set(this.rec);
    this.rec = rec;
    this.exp = new Float64Array(rec.buffer);
    this.cap = cap;
  }

  private remove(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    const r = this.rec;
    let s = r[W * i + R_KEY] & mask;
    for (;;) {
      if (slots[2 * s] === 0) throw new Error("conntrack: flow not in its table");
      if (slots[2 * s + 1] === i) break;
      s = (s + 1) & mask;
    }
    // Backward-shift deletion: move each later entry of the run whose home slot is not in
    // (s, j] into the hole, so every entry stays reachable from its home slot.
    for (let j = s; ; ) {
      slots[2 * s] = 0;
      for (;;) {
        j = (j + 1) & mask;
        const t = slots[2 * j];
        if (t === 0) {
          j = -1;
          break;
        }
        const home = t & mask;
        if (s <= j ? home <= s || home > j : home <= s && home > j) {
          slots[2 * s] = t;
          slots[2 * s + 1] = slots[2 * j + 1];
          s = j;
          break;
        }
      }
      if (j < 0) break;
    }
    const older = r[W * i + R_OLDER];
    const newer = r[W * i + R_NEWER];
    if (older !== NONE) r[W * older + R_NEWER] = newer;
    else this.oldest = newer;
    if (newer !== NONE) r[W * newer + R_OLDER] = older;
    else this.newest = older;
    // Odd fields go with the flow (an idle table keeps no strings alive).
    if (((r[W * i + R_META] >>> 8) & ODD) !== 0) this.odd.delete(i);
    r[W * i + R_NEWER] = this.freeHead;
    this.freeHead = i;
    this.count--;
  }

  /** Twice the slots, each flow placed again. */
  private grow(): void {
    const n = (this.mask + 1) * 2;
    this.slots = new Int32Array(2 * n);
    this.mask = n - 1;
    for (let i = this.oldest; i !== NONE; i = this.newer(i)) this.place(i, this.rec[W * i + R_KEY]);
  }

  /** The gc worker's pass over a full table: every expired flow goes. */
  private expire(now: number): void {
    let earliest = Infinity;
    for (let i = this.oldest; i !== NONE; ) {
      const next = this.newer(i);
      const x = this.expiresOf(i);
      if (x <= now) this.remove(i);
      else if (x < earliest) earliest = x;
      i = next;
    }
    this.earliestExpiry = earliest;
  }
}

/** A number an Int32Array holds exactly. */
function isInt32(n: number): boolean {
  return n === (n | 0);
}

function fields(t: Tuple): string {
  if (t.proto === "icmp") {
    // The reply of an echo request (type 8) is an echo reply (type 0); the id stays.
    return `src=${t.src} dst=${t.dst} type=${t.sport} code=0 id=${t.dport}`;
  }
  return `src=${t.src} dst=${t.dst} sport=${t.sport} dport=${t.dport}`;
}

/** One line of `conntrack -L` (conntrack-tools 1.4.7, default output format). */
function formatEntry(e: CtEntry, now: number): string {
  const secs = Math.max(0, Math.ceil((e.expires - now) / 1000));
  let s = `${e.orig.proto.padEnd(8)} ${PROTO_NUM[e.orig.proto]} ${secs} `;
  if (e.state) s += `${e.state} `;
  s += fields(e.orig) + " ";
  if (e.unreplied) s += "[UNREPLIED] ";
  s += fields(e.reply) + " ";
  if (e.assured) s += "[ASSURED] ";
  s += `mark=${e.mark} use=1`;
  return s;
}

interface ConntrackListOptions {
  proto?: string;
  src?: string;
  dst?: string;
  replySrc?: string;
  dport?: number;
}

/** `conntrack -L [filters]`: stdout lines and the summary conntrack writes to stderr. */
export function conntrackList(table: ConntrackTable, now: number, o: ConntrackListOptions = {}): { stdout: string; stderr: string } {
  const lines: string[] = [];
  for (const e of table.list(now)) {
    if (o.proto && e.orig.proto !== o.proto) continue;
    if (o.src && e.orig.src !== o.src) continue;
    if (o.dst && e.orig.dst !== o.dst) continue;
    if (o.replySrc && e.reply.src !== o.replySrc) continue;
    if (o.dport !== undefined && e.orig.dport !== o.dport) continue;
    lines.push(formatEntry(e, now));
  }
  return {
    stdout: lines.length ? lines.join("\n") + "\n" : "",
    stderr: `conntrack v1.4.7 (conntrack-tools): ${lines.length} flow entries have been shown.\n`,
  };
}
