// Per-node connection tracking: the kernel remembers each connection's NAT so that later packets
// of an established flow skip the nat chains and keep their destination. `conntrack -L` prints
// the table as conntrack-tools 1.4.7 does.
import type { L4, Tuple } from "./packet.js";
import { ipv4Unchecked } from "./ip.js";

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

/**
 * One flow, stored flat (no tuple objects): the orig and reply tuples are fields, and the table
 * threads its flows on an intrusive list in age order, so a table of ~65k flows is ~65k objects
 * that hold no garbage. `orig` and `reply` build tuples when read (listing).
 */
export class CtFlow implements CtEntry {
  /** Age order (oldest first), owned by the table. */
  older: CtFlow | undefined = undefined;
  newer: CtFlow | undefined = undefined;
  constructor(
    readonly key: number,
    readonly proto: L4,
    readonly src: string,
    readonly sport: number,
    readonly dst: string,
    readonly dport: number,
    readonly rsrc: string,
    readonly rsport: number,
    readonly rdst: string,
    readonly rdport: number,
    public state: TcpState | undefined,
    public expires: number,
    public assured: boolean,
    public unreplied: boolean,
    public mark: number,
    public dnat: boolean,
    public snat: boolean,
  ) {}
  get orig(): Tuple {
    return { proto: this.proto, src: this.src, sport: this.sport, dst: this.dst, dport: this.dport };
  }
  get reply(): Tuple {
    return { proto: this.proto, src: this.rsrc, sport: this.rsport, dst: this.rdst, dport: this.rdport };
  }
}

const ipNum = ipv4Unchecked;

/** Hash key of a flow (a small integer); flows are told apart by comparing the whole tuple. */
function flowKey(src: string, sport: number, dst: string, dport: number): number {
  let h = Math.imul(ipNum(src) ^ Math.imul(sport, 0x27d4eb2d), 0x9e3779b1) ^ Math.imul(ipNum(dst) ^ Math.imul(dport, 0x165667b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & 0x3fffffff;
}

/** Marks a used slot in `tags` (flow keys are 30-bit, so a tag is never 0). */
const USED = 0x40000000;

/**
 * An open-addressing hash table (linear probing, at most half full) whose slots hold each flow's
 * hash key in a typed array beside the flow itself. A lookup reads the compact key array and
 * touches a flow only when its key matches: a new connection's miss, the common case, reads no
 * flow at all (chained buckets read a flow or two per probe, each a cache miss in a table of
 * ~65k flows per node). Deletion shifts the following run back (no tombstones), so nothing
 * degrades under constant insert/evict churn. The arrays double as the table fills, up to two
 * slots per flow of `max`, so an idle node's table stays small.
 */
export class ConntrackTable {
  private tags = new Int32Array(32);
  private slots: (CtFlow | undefined)[] = new Array<CtFlow | undefined>(32).fill(undefined);
  private mask = 31;
  /** Age order: oldest first (an entry re-added moves to the end). */
  private oldest: CtFlow | undefined = undefined;
  private newest: CtFlow | undefined = undefined;
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

  /** The live entry whose original or reply tuple is `t`. */
  lookup(t: Tuple, now: number): CtFlow | undefined {
    return this.lookupFlow(t.proto, t.src, t.sport, t.dst, t.dport, now);
  }

  lookupFlow(proto: L4, src: string, sport: number, dst: string, dport: number, now: number): CtFlow | undefined {
    const e = this.find(flowKey(src, sport, dst, dport), proto, src, sport, dst, dport);
    if (e === undefined) return undefined;
    if (e.expires <= now) {
      this.remove(e);
      return undefined;
    }
    return e;
  }

  add(e: CtEntry, now: number): void {
    const o = e.orig;
    const r = e.reply;
    this.addFlow(
      new CtFlow(flowKey(o.src, o.sport, o.dst, o.dport), o.proto, o.src, o.sport, o.dst, o.dport, r.src, r.sport, r.dst, r.dport, e.state, e.expires, e.assured, e.unreplied, e.mark, e.dnat, e.snat),
      now,
    );
  }

  /** Adds (or replaces, moving it to the newest end) the flow with f's original tuple. */
  addFlow(f: CtFlow, now: number): void {
    if (this.count >= this.max) this.evict(now);
    const old = this.find(f.key, f.proto, f.src, f.sport, f.dst, f.dport);
    if (old !== undefined) this.remove(old);
    if ((this.count + 1) * 2 > this.tags.length) this.grow();
    this.place(f);
    if (f.expires < this.earliestExpiry) this.earliestExpiry = f.expires;
    f.older = this.newest;
    f.newer = undefined;
    if (this.newest) this.newest.newer = f;
    else this.oldest = f;
    this.newest = f;
    this.count++;
  }

  /** conntrack -F */
  flush(): number {
    const n = this.count;
    this.tags.fill(0);
    this.slots.fill(undefined);
    this.earliestExpiry = Infinity;
    this.oldest = this.newest = undefined;
    this.count = 0;
    return n;
  }

  /** conntrack -D -d IP / kube-proxy's stale UDP cleanup. */
  deleteWhere(pred: (e: CtEntry) => boolean): number {
    let n = 0;
    for (let e = this.oldest; e !== undefined; ) {
      const next = e.newer;
      if (pred(e)) (this.remove(e), n++);
      e = next;
    }
    return n;
  }

  /** Live entries, oldest first. */
  list(now: number): CtEntry[] {
    const out: CtEntry[] = [];
    for (let e = this.oldest; e !== undefined; ) {
      const next = e.newer;
      if (e.expires <= now) this.remove(e);
      else out.push(e);
      e = next;
    }
    return out;
  }

  private find(key: number, proto: L4, src: string, sport: number, dst: string, dport: number): CtFlow | undefined {
    const tags = this.tags;
    const mask = this.mask;
    const tag = key | USED;
    for (let i = key & mask; ; i = (i + 1) & mask) {
      const t = tags[i];
      if (t === 0) return undefined;
      if (t === tag) {
        const e = this.slots[i]!;
        if (e.sport === sport && e.dport === dport && e.dst === dst && e.src === src && e.proto === proto) return e;
      }
    }
  }

  /** Puts f into the first free slot of its probe sequence (the table is never full). */
  private place(f: CtFlow): void {
    const tags = this.tags;
    const mask = this.mask;
    let i = f.key & mask;
    while (tags[i] !== 0) i = (i + 1) & mask;
    tags[i] = f.key | USED;
    this.slots[i] = f;
  }

  private remove(e: CtFlow): void {
    const tags = this.tags;
    const slots = this.slots;
    const mask = this.mask;
    let i = e.key & mask;
    while (slots[i] !== e) {
      if (tags[i] === 0) throw new Error("conntrack: flow not in its table");
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: move each later entry of the run whose home slot is not in
    // (i, j] into the hole, so every entry stays reachable from its home slot.
    for (let j = i; ; ) {
      tags[i] = 0;
      slots[i] = undefined;
      for (;;) {
        j = (j + 1) & mask;
        const t = tags[j];
        if (t === 0) {
          j = -1;
          break;
        }
        const home = t & mask;
        if (i <= j ? home <= i || home > j : home <= i && home > j) {
          tags[i] = t;
          slots[i] = slots[j];
          i = j;
          break;
        }
      }
      if (j < 0) break;
    }
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.newest = e.older;
    e.older = e.newer = undefined;
    this.count--;
  }

  /** Twice the slots, each flow placed again. */
  private grow(): void {
    const n = this.tags.length * 2;
    this.tags = new Int32Array(n);
    this.slots = new Array<CtFlow | undefined>(n).fill(undefined);
    this.mask = n - 1;
    for (let e = this.oldest; e !== undefined; e = e.newer) this.place(e);
  }

  private evict(now: number): void {
    // Amortised: one pass drops the expired entries and, if that is not enough, the oldest
    // eighth (the kernel's early_drop picks non-assured ones; close enough for a simulation).
    if (this.earliestExpiry <= now) {
      let earliest = Infinity;
      for (let e = this.oldest; e !== undefined; ) {
        const next = e.newer;
        if (e.expires <= now) this.remove(e);
        else if (e.expires < earliest) earliest = e.expires;
        e = next;
      }
      this.earliestExpiry = earliest;
    }
    const target = this.max - (this.max >> 3);
    let excess = this.count - target;
    while (excess-- > 0 && this.oldest !== undefined) this.remove(this.oldest);
  }
}

/** flowKey for callers building CtFlow directly. */
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
