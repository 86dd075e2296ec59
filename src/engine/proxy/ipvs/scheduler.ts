// The kernel's IPVS schedulers (net/netfilter/ipvs/ip_vs_{rr,wrr,lc,wlc,sh,dh,sed,nq}.c) over
// the proxier's virtual servers. Each picks among real servers in the kernel's list order (the
// order kube-proxy added them) and skips unavailable ones (weight 0: gracefully terminating).

/** One real server (ipvsadm "-> RemoteAddress:Port Forward Weight ActiveConn InActConn"). */
export interface RealServer {
  readonly ip: string;
  /** `ip` as a uint32 when it is a canonical dotted quad (canonicalIPv4Num), else -1. */
  readonly addr: number;
  readonly port: number;
  /** 1 for every endpoint kube-proxy adds; 0 while gracefully terminating. */
  weight: number;
  activeConns: number;
  inactiveConns: number;
  /** Totals for ipvsadm --stats. */
  conns: number;
  inPkts: number;
  outPkts: number;
  inBytes: number;
  outBytes: number;
  /** The rate estimator's state (estimator.ts). */
  est?: { tick: number; last: number[]; avg: number[] };
}

export type Scheduler = "rr" | "wrr" | "lc" | "wlc" | "sh" | "dh" | "sed" | "nq";

/** Per-virtual-server scheduler state (the kernel's svc->sched_data). */
export interface SchedState {
  /** rr: index of the last chosen server (-1: the list head). */
  rrLast: number;
  /** wrr: index and current weight (mark->cl, mark->cw). */
  wrrIndex: number;
  wrrCw: number;
  /** sh / dh: 256 buckets filled from the server list, rebuilt when the list changes. */
  table: (RealServer | undefined)[] | undefined;
}

const TAB_BITS = 8;
const TAB_SIZE = 1 << TAB_BITS;
const GOLDEN_RATIO_32 = 0x61c88647;

/** Linux hash_32(val, bits). */
function hash32(val: number, bits: number): number {
  return (Math.imul(val >>> 0, GOLDEN_RATIO_32) >>> 0) >>> (32 - bits);
}

function available(d: RealServer): boolean {
  return d.weight > 0;
}

/** ip_vs_dest_conn_overhead: active connections weigh 256 times inactive ones. */
function lcOverhead(d: RealServer): number {
  return d.activeConns * 256 + d.inactiveConns;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** ip_vs_sh_reassign / ip_vs_dh_reassign: buckets handed out round the list, `weight` each. */
function buildTable(dests: readonly RealServer[]): (RealServer | undefined)[] {
  const table: (RealServer | undefined)[] = new Array(TAB_SIZE);
  if (dests.length === 0) return table.fill(undefined);
  let i = 0;
  let count = 0;
  for (let b = 0; b < TAB_SIZE; b++) {
    const d = dests[i];
    table[b] = d;
    if (++count >= d.weight) {
      i = (i + 1) % dests.length;
      count = 0;
    }
  }
  return table;
}

function ipKey(ip: string): number {
  const p = ip.split(".");
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

/**
 * The server the kernel would pick for a new connection, or undefined ("no destination
 * available"). `clientIP` feeds sh; `vip` feeds dh. Mutates rr/wrr position as the kernel does.
 */
export function pick(sched: Scheduler, st: SchedState, dests: readonly RealServer[], clientIP: string, vip: string): RealServer | undefined {
  const n = dests.length;
  if (n === 0) return undefined;
  switch (sched) {
    case "rr": {
      for (let k = 1; k <= n; k++) {
        const i = (st.rrLast + k) % n;
        if (available(dests[i])) {
          st.rrLast = i;
          return dests[i];
        }
      }
      return undefined;
    }
    case "wrr": {
      // ip_vs_wrr_schedule: walk the list; each pass lowers cw by the gcd of weights.
      let max = 0;
      let g = 0;
      for (const d of dests) {
        if (d.weight > 0) {
          max = Math.max(max, d.weight);
          g = g ? gcd(g, d.weight) : d.weight;
        }
      }
      if (max === 0) return undefined;
      for (let guard = 0; guard < n * (max / g + 1) + 1; guard++) {
        st.wrrIndex = (st.wrrIndex + 1) % n;
        if (st.wrrIndex === 0) {
          st.wrrCw -= g;
          if (st.wrrCw <= 0) st.wrrCw = max;
        }
        const d = dests[st.wrrIndex];
        if (d.weight >= st.wrrCw && d.weight > 0) return d;
      }
      return undefined;
    }
    case "lc": {
      let least: RealServer | undefined;
      for (const d of dests) {
        if (!available(d)) continue;
        if (!least || lcOverhead(d) < lcOverhead(least)) least = d;
      }
      return least;
    }
    case "wlc":
    case "sed":
    case "nq": {
      const oh = sched === "wlc" ? lcOverhead : (d: RealServer) => d.activeConns + 1;
      let least: RealServer | undefined;
      for (const d of dests) {
        if (!available(d)) continue;
        // nq: an idle server is taken at once.
        if (sched === "nq" && d.activeConns === 0) return d;
        // loh * dw > doh * lw: the smaller overhead per unit of weight wins; ties keep the first.
        if (!least || oh(least) * d.weight > oh(d) * least.weight) least = d;
      }
      return least;
    }
    case "sh":
    case "dh": {
      st.table ??= buildTable(dests);
      const key = hash32(ipKey(sched === "sh" ? clientIP : vip), TAB_BITS);
      const d = st.table[key];
      return d && available(d) ? d : undefined;
    }
  }
}
