// The kernel's IPVS rate estimator (net/netfilter/ipvs/ip_vs_est.c), which `ipvsadm -Ln --rate`
// reads: every 2 s each server's counters are sampled, and an average moves a quarter of the way
// to the new rate (connections and packets scaled by 2^10, bytes by 2^5):
//   rate = delta << 9 (per 2 s, i.e. per second << 10);  avg += (rate - avg) >> 2
// and read back as (avg + 0x1FF) >> 10 (bytes: (avg + 0xF) >> 5). A burst of traffic shows for
// a few ticks and decays to 0 within a minute at rest. Here the ticks are replayed when the
// counters are about to move and when they are read (a server's counters are constant between),
// on a grid of 2 s of cluster time.

const TICK_MS = 2000;

/** The counters a server keeps (IPVS virtual and real servers). */
export interface Counted {
  conns: number;
  inPkts: number;
  outPkts: number;
  inBytes: number;
  outBytes: number;
  /** The estimator's state; made at the server's first sample. */
  est?: Estimator;
}

interface Estimator {
  /** The last tick replayed (ms). */
  tick: number;
  /** conns, inPkts, outPkts, inBytes, outBytes at that tick. */
  last: number[];
  /** The scaled averages, in the same order. */
  avg: number[];
}

function values(s: Counted): number[] {
  return [s.conns, s.inPkts, s.outPkts, s.inBytes, s.outBytes];
}

/** Replays the estimator's ticks up to `now`; call before the counters move and before reading. */
export function estimate(s: Counted, now: number): void {
  const target = Math.floor(now / TICK_MS) * TICK_MS;
  const e = s.est;
  if (e === undefined) {
    s.est = { tick: target, last: values(s), avg: [0, 0, 0, 0, 0] };
    return;
  }
  if (e.tick >= target) return;
  const cur = values(s);
  while (e.tick < target) {
    e.tick += TICK_MS;
    let moving = false;
    for (let k = 0; k < 5; k++) {
      const delta = cur[k]! - e.last[k]!;
      e.last[k] = cur[k]!;
      const rate = k < 3 ? delta * 512 : delta * 16;
      e.avg[k] = e.avg[k]! + Math.floor((rate - e.avg[k]!) / 4);
      if (e.avg[k] !== 0 || delta !== 0) moving = true;
    }
    // At rest and decayed: nothing changes until the counters move again.
    if (!moving) e.tick = target;
  }
}

/** CPS, InPPS, OutPPS, InBPS, OutBPS as ipvsadm --rate prints them, at `now`. */
export function rates(s: Counted, now: number): number[] {
  estimate(s, now);
  const a = s.est!.avg;
  return [(a[0]! + 0x1ff) >> 10, (a[1]! + 0x1ff) >> 10, (a[2]! + 0x1ff) >> 10, (a[3]! + 0xf) >> 5, (a[4]! + 0xf) >> 5];
}
