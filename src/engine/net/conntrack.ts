// Per-node connection tracking: the kernel remembers each connection's NAT so that later packets
// of an established flow skip the nat chains and keep their destination. `conntrack -L` prints
// the table as conntrack-tools 1.4.7 does.
import type { L4, Tuple } from "./packet.js";

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

export class ConntrackTable {
  private readonly entries = new Map<string, CtEntry>();
  constructor(private readonly max = DEFAULT_MAX) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live entry whose original or reply tuple is `t`. */
  lookup(t: Tuple, now: number): CtEntry | undefined {
    const k = tupleKey(t);
    const e = this.entries.get(k);
    if (e === undefined) return undefined;
    if (e.expires <= now) {
      this.entries.delete(k);
      return undefined;
    }
    return e;
  }

  add(e: CtEntry, now: number): void {
    if (this.entries.size >= this.max) this.evict(now);
    const k = tupleKey(e.orig);
    this.entries.delete(k);
    this.entries.set(k, e);
  }

  /** conntrack -F */
  flush(): number {
    const n = this.entries.size;
    this.entries.clear();
    return n;
  }

  /** conntrack -D -d IP / kube-proxy's stale UDP cleanup. */
  deleteWhere(pred: (e: CtEntry) => boolean): number {
    let n = 0;
    for (const [k, e] of this.entries) if (pred(e)) (this.entries.delete(k), n++);
    return n;
  }

  /** Live entries, oldest first. */
  list(now: number): CtEntry[] {
    const out: CtEntry[] = [];
    for (const [k, e] of this.entries) {
      if (e.expires <= now) this.entries.delete(k);
      else out.push(e);
    }
    return out;
  }

  private evict(now: number): void {
    // Amortised: one pass drops the expired entries and, if that is not enough, the oldest
    // eighth (the kernel's early_drop picks non-assured ones; close enough for a simulation).
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    const target = this.max - (this.max >> 3);
    let excess = this.entries.size - target;
    if (excess > 0) {
      for (const k of this.entries.keys()) {
        if (excess-- <= 0) break;
        this.entries.delete(k);
      }
    }
  }
}

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
