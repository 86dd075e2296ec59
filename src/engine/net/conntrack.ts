// Per-node connection tracking: the kernel remembers each connection's NAT so that later packets
// of an established flow skip the nat chains and keep their destination. `conntrack -L` prints
// the table as conntrack-tools 1.4.7 does.
import type { L4, Tuple } from "./packet.js";
import { canonicalIPv4Num } from "./addr-index.js";
import { formatIPv4, ipv4Unchecked } from "./ip.js";

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

export function tupleKey(t: Tuple): string {
  return `${t.proto} ${t.src} ${t.sport} ${t.dst} ${t.dport}`;
}

/** nf_conntrack_max for a small node (kube-proxy: 32768 per CPU, min 131072); we keep fewer. */
const DEFAULT_MAX = 65536;

const ipNum = ipv4Unchecked;

/** Hash key of a flow (a small integer); flows are told apart by comparing the whole tuple. */
function flowKey(src: string, sport: number, dst: string, dport: number): number {
  return flowKeyOf(ipNum(src), sport, ipNum(dst), dport);
}

/** flowKey of addresses already read as numbers (ipNum: canonical addresses read the same either way). */
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

/**
 * An open-addressing hash table (linear probing, at most half full) over flows stored as columns
 * (typed arrays only: addresses are kept as numbers, see `fAddr`). A table holds ~65k flows per node and every
 * new connection inserts one per node it crosses while a full table evicts as often: flows kept
 * as objects lived long enough to be promoted and then died in the old generation, and the
 * collector's work for them was most of a connection's cost. A flow here is an index; `find`
 * reads the compact key array and compares a flow's columns only when its key matches. Deletion
 * shifts the following run back (no tombstones); freed indexes are reused. Age order (oldest
 * first) is a doubly linked list of indexes. Slots double and columns quadruple as the table
 * fills, up to `max` flows, so an idle node's table stays small. (A busy node fills its table
 * in seconds of traffic: each growth copies every column into freshly mapped memory, and with
 * four times the room, 16 to 65536 flows copy a third of the final columns instead of all of
 * them. Room not yet written is memory the system has not handed out.)
 */
export class ConntrackTable {
  /**
   * Slot s: its tag at 2s (0: empty) and its flow index at 2s+1 (valid where the tag is set),
   * side by side: a probe of a 65k-flow table reads one cache line for both.
   */
  private slots = new Int32Array(64);
  private mask = 31;

  // Flow columns, by flow index.
  private cap = 0;
  private fKey = new Int32Array(0);
  private fProto = new Uint8Array(0);
  private fState = new Uint8Array(0);
  private fFlags = new Uint8Array(0);
  /** sport, dport, rsport, rdport of flow i at 4i..4i+3. */
  private fPorts = new Float64Array(0);
  private fExpires = new Float64Array(0);
  private fMark = new Float64Array(0);
  /**
   * src, dst, rsrc, rdst of flow i at 4i..4i+3, as uint32 (canonical dotted quads, whose text
   * the number gives back exactly). They were columns of the packets' strings: growing arrays
   * of 65k references as a table filled cost more than the flows put into them, and each
   * string stored was a young object referenced from the old generation. A flow with any other
   * address text (flag ODD) keeps its four texts in `oddAddrs` instead.
   */
  private fAddr = new Int32Array(0);
  private readonly oddAddrs = new Map<number, readonly [src: string, dst: string, rsrc: string, rdst: string]>();
  private fOlder = new Int32Array(0);
  private fNewer = new Int32Array(0);
  /** Flow indexes never used are `used`..cap-1; freed ones are chained through fNewer. */
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
  constructor(private readonly max = DEFAULT_MAX) {}

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
    const a = canonicalIPv4Num(src);
    const b = src === dst ? a : canonicalIPv4Num(dst);
    const key = flowKeyOf(a < 0 ? ipNum(src) : a, sport, b < 0 ? ipNum(dst) : b, dport);
    const i = this.find(key, PROTO_CODE[proto], src, a, sport, dst, b, dport);
    if (i === NONE) return NONE;
    if (this.fExpires[i] <= now) {
      this.remove(i);
      return NONE;
    }
    return i;
  }

  // Fields of a flow found by lookupFlow.
  protoOf(i: number): L4 {
    return PROTOS[this.fProto[i]];
  }
  replySrc(i: number): string {
    return this.addrText(i, 2);
  }
  replySport(i: number): number {
    return this.fPorts[4 * i + 2];
  }
  replyDst(i: number): string {
    return this.addrText(i, 3);
  }
  replyDport(i: number): number {
    return this.fPorts[4 * i + 3];
  }
  snatOf(i: number): boolean {
    return (this.fFlags[i] & SNAT) !== 0;
  }
  /** A later expiry for a flow (never an earlier one: `earliestExpiry` is a lower bound). */
  extend(i: number, expires: number): void {
    this.fExpires[i] = expires;
  }

  add(e: CtEntry, now: number): void {
    const o = e.orig;
    const r = e.reply;
    this.addFlow(
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

  /** Adds (or replaces, moving it to the newest end) the flow with f's original tuple; f is copied. */
  addFlow(f: FlowFields, now: number): void {
    if (this.count >= this.max) this.evict(now);
    // The reply's addresses are mostly the original's own strings (no NAT on that side).
    const src = canonicalIPv4Num(f.src);
    const dst = canonicalIPv4Num(f.dst);
    const rsrc = f.rsrc === f.dst ? dst : canonicalIPv4Num(f.rsrc);
    const rdst = f.rdst === f.src ? src : canonicalIPv4Num(f.rdst);
    const odd = src < 0 || dst < 0 || rsrc < 0 || rdst < 0;
    const key = flowKeyOf(src < 0 ? ipNum(f.src) : src, f.sport, dst < 0 ? ipNum(f.dst) : dst, f.dport);
    const proto = PROTO_CODE[f.proto];
    const old = this.find(key, proto, f.src, src, f.sport, f.dst, dst, f.dport);
    if (old !== NONE) this.remove(old);
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    const i = this.alloc();
    this.fKey[i] = key;
    this.fProto[i] = proto;
    this.fState[i] = f.state === undefined ? 0 : STATE_CODE[f.state];
    this.fFlags[i] = (f.assured ? ASSURED : 0) | (f.unreplied ? UNREPLIED : 0) | (f.dnat ? DNAT : 0) | (f.snat ? SNAT : 0) | (odd ? ODD : 0);
    const p = 4 * i;
    const ports = this.fPorts;
    ports[p] = f.sport;
    ports[p + 1] = f.dport;
    ports[p + 2] = f.rsport;
    ports[p + 3] = f.rdport;
    this.fExpires[i] = f.expires;
    this.fMark[i] = f.mark;
    const addr = this.fAddr;
    addr[p] = src;
    addr[p + 1] = dst;
    addr[p + 2] = rsrc;
    addr[p + 3] = rdst;
    if (odd) this.oddAddrs.set(i, [f.src, f.dst, f.rsrc, f.rdst]);
    this.place(i, key);
    if (f.expires < this.earliestExpiry) this.earliestExpiry = f.expires;
    this.fOlder[i] = this.newest;
    this.fNewer[i] = NONE;
    if (this.newest !== NONE) this.fNewer[this.newest] = i;
    else this.oldest = i;
    this.newest = i;
    this.count++;
  }

  /** conntrack -F */
  flush(): number {
    const n = this.count;
    this.slots.fill(0);
    this.oddAddrs.clear();
    this.used = 0;
    this.freeHead = NONE;
    this.earliestExpiry = Infinity;
    this.oldest = this.newest = NONE;
    this.count = 0;
    return n;
  }

  /** conntrack -D -d IP / kube-proxy's stale UDP cleanup. */
  deleteWhere(pred: (e: CtEntry) => boolean): number {
    let n = 0;
    for (let i = this.oldest; i !== NONE; ) {
      const next = this.fNewer[i];
      if (pred(this.entry(i))) (this.remove(i), n++);
      i = next;
    }
    return n;
  }

  /** Live entries, oldest first (copies). */
  list(now: number): CtEntry[] {
    const out: CtEntry[] = [];
    for (let i = this.oldest; i !== NONE; ) {
      const next = this.fNewer[i];
      if (this.fExpires[i] <= now) this.remove(i);
      else out.push(this.entry(i));
      i = next;
    }
    return out;
  }

  private entry(i: number): CtEntry {
    const proto = PROTOS[this.fProto[i]];
    const p = 4 * i;
    const ports = this.fPorts;
    const flags = this.fFlags[i];
    return {
      orig: { proto, src: this.addrText(i, 0), sport: ports[p], dst: this.addrText(i, 1), dport: ports[p + 1] },
      reply: { proto, src: this.addrText(i, 2), sport: ports[p + 2], dst: this.addrText(i, 3), dport: ports[p + 3] },
      state: STATES[this.fState[i]],
      expires: this.fExpires[i],
      assured: (flags & ASSURED) !== 0,
      unreplied: (flags & UNREPLIED) !== 0,
      mark: this.fMark[i],
      dnat: (flags & DNAT) !== 0,
      snat: (flags & SNAT) !== 0,
    };
  }

  /** Address `k` (0 src, 1 dst, 2 rsrc, 3 rdst) of flow i, as the packet had it. */
  private addrText(i: number, k: number): string {
    return (this.fFlags[i] & ODD) !== 0 ? this.oddAddrs.get(i)![k] : formatIPv4(this.fAddr[4 * i + k] >>> 0);
  }

  /**
   * The flow with this original tuple; `a` and `b` are canonicalIPv4Num of src and dst (-1:
   * not canonical, so only an ODD flow can have that text).
   */
  private find(key: number, proto: number, src: string, a: number, sport: number, dst: string, b: number, dport: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const tag = key | USED;
    for (let s = key & mask; ; s = (s + 1) & mask) {
      const t = slots[2 * s];
      if (t === 0) return NONE;
      if (t === tag) {
        const i = slots[2 * s + 1];
        const p = 4 * i;
        if (this.fPorts[p] !== sport || this.fPorts[p + 1] !== dport || this.fProto[i] !== proto) continue;
        if ((this.fFlags[i] & ODD) === 0) {
          if (this.fAddr[p + 1] === (b | 0) && this.fAddr[p] === (a | 0) && a >= 0 && b >= 0) return i;
        } else {
          const texts = this.oddAddrs.get(i)!;
          if (texts[1] === dst && texts[0] === src) return i;
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

  /** A free flow index, the columns grown if none is left. */
  private alloc(): number {
    const f = this.freeHead;
    if (f !== NONE) {
      this.freeHead = this.fNewer[f];
      return f;
    }
    if (this.used === this.cap) this.growColumns();
    return this.used++;
  }

  private growColumns(): void {
    const cap = Math.max(16, this.cap * 4);
    const i32 = (a: Int32Array, n: number) => (((b) => (b.set(a), b))(new Int32Array(n)));
    const u8 = (a: Uint8Array, n: number) => (((b) => (b.set(a), b))(new Uint8Array(n)));
    const f64 = (a: Float64Array, n: number) => (((b) => (b.set(a), b))(new Float64Array(n)));
    this.fKey = i32(this.fKey, cap);
    this.fOlder = i32(this.fOlder, cap);
    this.fNewer = i32(this.fNewer, cap);
    this.fProto = u8(this.fProto, cap);
    this.fState = u8(this.fState, cap);
    this.fFlags = u8(this.fFlags, cap);
    this.fPorts = f64(this.fPorts, 4 * cap);
    this.fAddr = i32(this.fAddr, 4 * cap);
    this.fExpires = f64(this.fExpires, cap);
    this.fMark = f64(this.fMark, cap);
    this.cap = cap;
  }

  private remove(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = this.fKey[i] & mask;
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
    const older = this.fOlder[i];
    const newer = this.fNewer[i];
    if (older !== NONE) this.fNewer[older] = newer;
    else this.oldest = newer;
    if (newer !== NONE) this.fOlder[newer] = older;
    else this.newest = older;
    // Odd address texts go with the flow (an idle table keeps no strings alive).
    if ((this.fFlags[i] & ODD) !== 0) this.oddAddrs.delete(i);
    this.fNewer[i] = this.freeHead;
    this.freeHead = i;
    this.count--;
  }

  /** Twice the slots, each flow placed again. */
  private grow(): void {
    const n = (this.mask + 1) * 2;
    this.slots = new Int32Array(2 * n);
    this.mask = n - 1;
    for (let i = this.oldest; i !== NONE; i = this.fNewer[i]) this.place(i, this.fKey[i]);
  }

  private evict(now: number): void {
    // Amortised: one pass drops the expired entries and, if that is not enough, the oldest
    // eighth (the kernel's early_drop picks non-assured ones; close enough for a simulation).
    if (this.earliestExpiry <= now) {
      let earliest = Infinity;
      for (let i = this.oldest; i !== NONE; ) {
        const next = this.fNewer[i];
        const x = this.fExpires[i];
        if (x <= now) this.remove(i);
        else if (x < earliest) earliest = x;
        i = next;
      }
      this.earliestExpiry = earliest;
    }
    const target = this.max - (this.max >> 3);
    let excess = this.count - target;
    while (excess-- > 0 && this.oldest !== NONE) this.remove(this.oldest);
  }
}

/** The hash of a flow's original tuple (tests reproduce collisions with it). */
export { flowKey };

function fields(t: Tuple): string {
  if (t.proto === "icmp") {
    // The reply of an echo request (type 8) is an echo reply (type 0); the id stays.
    return `src=${t.src} dst=${t.dst} type=${t.sport} code=0 id=${t.dport}`;
  }
  return `src=${t.src} dst=${t.dst} sport=${t.sport} dport=${t.dport}`;
}

/** One line of `conntrack -L` (conntrack-tools 1.4.7, default output format). */
export function formatEntry(e: CtEntry, now: number): string {
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

export interface ConntrackListOptions {
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
