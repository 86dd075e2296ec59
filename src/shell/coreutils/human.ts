// gnulib's human_readable, as ls, df and du print amounts: `n` blocks of `from` bytes in `to`-byte
// units, rounded up; with autoscale in powers of 1024 or 1000 (one decimal below 10: 4.0K); with
// `suffix` the SI letter of the unit (K, M...; 'k' for 1000), and `B` its B or iB.

export interface HumanOptions {
  autoscale?: boolean;
  suffix?: boolean;
  base1024?: boolean;
  B?: boolean;
}

const LETTERS = "KMGTPEZY";

export function humanReadable(n: number, from: number, to: number, opts: HumanOptions = {}): string {
  const base = opts.base1024 ? 1024 : 1000;
  let amt: number;
  let tenths = 0;
  let rounding = 0;
  let exponent = -1;
  let point = "";
  if (to <= from && from % to === 0) amt = n * (from / to);
  else if (from < to && to % from === 0) {
    const divisor = to / from;
    const r10 = (n % divisor) * 10;
    const r2 = (r10 % divisor) * 2;
    amt = Math.floor(n / divisor);
    tenths = Math.floor(r10 / divisor);
    rounding = r2 < divisor ? (0 < r2 ? 1 : 0) : 2 + (divisor < r2 ? 1 : 0);
  } else {
    // Block sizes that do not divide each other (--block-size=3000): rounded up, no decimals.
    amt = Math.ceil((n * from) / to);
  }
  if (opts.autoscale) {
    exponent = 0;
    if (base <= amt) {
      do {
        const r10 = (amt % base) * 10 + tenths;
        const r2 = (r10 % base) * 2 + (rounding >> 1);
        amt = Math.floor(amt / base);
        tenths = Math.floor(r10 / base);
        rounding = r2 < base ? (r2 + rounding !== 0 ? 1 : 0) : 2 + (base < r2 + rounding ? 1 : 0);
        exponent++;
      } while (base <= amt && exponent < LETTERS.length);
      if (amt < 10) {
        if (0 < rounding) {
          tenths++;
          rounding = 0;
          if (tenths === 10) {
            amt++;
            tenths = 0;
          }
        }
        if (amt < 10) {
          point = `.${tenths}`;
          tenths = 0;
          rounding = 0;
        }
      }
    }
  }
  if (0 < tenths + rounding) {
    amt++;
    if (opts.autoscale && amt === base && exponent < LETTERS.length) {
      exponent++;
      point = ".0";
      amt = 1;
    }
  }
  let suffix = "";
  if (opts.suffix) {
    if (exponent < 0) {
      exponent = 0;
      for (let power = 1; power < to; power *= base) if (++exponent === LETTERS.length) break;
    }
    if (exponent) suffix = !opts.base1024 && exponent === 1 ? "k" : LETTERS[exponent - 1];
    if (opts.B) suffix += `${opts.base1024 && exponent ? "i" : ""}B`;
  }
  return `${amt}${point}${suffix}`;
}

/** humblock: a --block-size (or BLOCK_SIZE) spec as a block size and options (undefined: invalid). */
export function blockSizeSpec(spec: string): { size: number; opts: HumanOptions } | undefined {
  if (spec === "human-readable") return { size: 1, opts: { autoscale: true, suffix: true, base1024: true } };
  if (spec === "si") return { size: 1, opts: { autoscale: true, suffix: true } };
  const m = /^(\d*)([kKMGTPEZY]?)(iB|B)?$/.exec(spec.replace(/^'/, ""));
  if (!m || (!m[1] && !m[2] && !m[3])) return undefined;
  const letter = m[2].toUpperCase();
  const base = m[3] === "B" && letter ? 1000 : 1024;
  const size = (m[1] ? Number(m[1]) : 1) * base ** (letter ? LETTERS.indexOf(letter) + 1 : 0);
  if (!size) return undefined;
  // A spec that starts with its unit prints the unit (`M` gives 1M); one with digits does not.
  const opts: HumanOptions = m[1] ? {} : { suffix: true, B: m[3] !== undefined, base1024: m[3] !== "B" };
  return { size, opts };
}
