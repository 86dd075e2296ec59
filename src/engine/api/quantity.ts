// resource.Quantity as apimachinery has it: exact decimal values ("100m", "70Mi", "1.5", "3e3")
// with the format they were written in, the arithmetic the scheduler and kubectl describe use
// (Add keeps the first non-zero operand's format, Cmp), and the canonical String() form:
// binary quantities in the largest power of 1024 that divides them ("140Mi", "3867476Ki"),
// decimal ones with an SI suffix whose exponent is a multiple of three ("1500m", "2", "5k").

type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** value = n x 10^scale, exactly. */
export interface Quantity {
  readonly n: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
}

const DEC_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIX).map(([s, e]) => [e, s]));
const BIN_BY_EXP = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

export const ZERO: Quantity = { n: 0n, scale: 0, format: "DecimalSI" };

/** ParseQuantity; undefined where apimachinery answers ErrFormatWrong or ErrSuffix. */
export function parseQuantity(text: string): Quantity | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const [, sign, whole, frac = "", suffix] = m;
  let n = BigInt((whole || "0") + frac) * (sign === "-" ? -1n : 1n);
  let scale = -frac.length;
  let format: QuantityFormat;
  if (suffix in BIN_SUFFIX) {
    format = "BinarySI";
    n *= 1024n ** BigInt(BIN_SUFFIX[suffix]);
  } else if (suffix in DEC_SUFFIX) {
    format = "DecimalSI";
    scale += DEC_SUFFIX[suffix];
  } else {
    const e = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (!e) return undefined;
    format = "DecimalExponent";
    scale += Number(e[1]);
  }
  // Values below a nano unit are rounded up to it, as apimachinery does.
  if (scale < -9) {
    const d = 10n ** BigInt(-9 - scale);
    const q = n / d;
    n = n % d === 0n ? q : n > 0n ? q + 1n : q;
    scale = -9;
  }
  return normalize({ n, scale, format });
}

/** The quantity, or zero for a missing or malformed one (what a ResourceList lookup yields). */
export function quantity(text: string | undefined): Quantity {
  return (text !== undefined && parseQuantity(text)) || ZERO;
}

function normalize(q: Quantity): Quantity {
  if (q.n === 0n) return { n: 0n, scale: 0, format: q.format };
  let { n, scale } = q;
  while (n % 10n === 0n) {
    n /= 10n;
    scale++;
  }
  return { n, scale, format: q.format };
}

function aligned(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const s = Math.min(a.scale, b.scale);
  return [a.n * 10n ** BigInt(a.scale - s), b.n * 10n ** BigInt(b.scale - s), s];
}

/** q.Add(y): the sum, in q's format unless q is zero. */
export function add(q: Quantity, y: Quantity): Quantity {
  const [a, b, scale] = aligned(q, y);
  return normalize({ n: a + b, scale, format: q.n === 0n ? y.format : q.format });
}

export function cmp(q: Quantity, y: Quantity): number {
  const [a, b] = aligned(q, y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** ScaledValue(scale): the value in units of 10^scale, rounded up (Value() is scale 0, MilliValue() -3). */
function scaledValue(q: Quantity, scale: number): number {
  const shift = q.scale - scale;
  if (shift >= 0) return Number(q.n * 10n ** BigInt(shift));
  const d = 10n ** BigInt(-shift);
  const r = q.n / d;
  return Number(q.n % d !== 0n && q.n > 0n ? r + 1n : r);
}

export const value = (q: Quantity): number => scaledValue(q, 0);
export const milliValue = (q: Quantity): number => scaledValue(q, -3);

/** Quantity.String(): the canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.n === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const small = cmp(q, { n: -1024n, scale: 0, format }) > 0 && cmp(q, { n: 1024n, scale: 0, format }) < 0;
    if (small || q.scale < 0) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    let v = q.n * 10n ** BigInt(q.scale);
    let e = 0;
    const neg = v < 0n;
    if (neg) v = -v;
    while (v >= 1024n && v % 1024n === 0n && e < BIN_BY_EXP.length - 1) {
      v /= 1024n;
      e++;
    }
    return `${neg ? "-" : ""}${v}${BIN_BY_EXP[e]}`;
  }
  // Decimal: the mantissa without trailing zeros (normalize did that), exponent a multiple of 3.
  let n = q.n;
  let e = q.scale;
  const extra = ((e % 3) + 3) % 3;
  if (extra) {
    n *= 10n ** BigInt(extra);
    e -= extra;
  }
  if (format === "DecimalExponent") return e === 0 ? `${n}` : `${n}e${e}`;
  const suffix = DEC_BY_EXP.get(e);
  return suffix !== undefined ? `${n}${suffix}` : `${n}e${e}`;
}

export type ResourceList = Map<string, Quantity>;

/** A ResourceList from its JSON form (unparseable entries are left out). */
export function resourceList(json: Record<string, string> | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(json ?? {})) {
    const q = parseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** addResourceList: adds every quantity of `add` into `into`. */
export function addInto(into: ResourceList, more: ResourceList): void {
  for (const [k, q] of more) into.set(k, into.has(k) ? add(into.get(k)!, q) : q);
}

/** maxResourceList: keeps, per resource, the larger of the two. */
function maxInto(into: ResourceList, other: ResourceList): void {
  for (const [k, q] of other) {
    const cur = into.get(k);
    if (!cur || cmp(q, cur) > 0) into.set(k, q);
  }
}

export interface PodLike {
  spec?: {
    containers?: Array<{ resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }>;
    initContainers?: Array<{ restartPolicy?: string; resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }>;
    overhead?: Record<string, string>;
  };
}

/**
 * resourcehelper.PodRequests / PodLimits: the containers' sum, sidecars (restartable init
 * containers) added to it, at least the largest init container plus the sidecars started before
 * it, plus the pod's overhead (for limits, only where a limit is set).
 */
export function podResources(pod: PodLike, which: "requests" | "limits"): ResourceList {
  const total: ResourceList = new Map();
  for (const c of pod.spec?.containers ?? []) addInto(total, resourceList(c.resources?.[which]));
  const sidecars: ResourceList = new Map();
  const inits: ResourceList = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    let own = resourceList(c.resources?.[which]);
    if (c.restartPolicy === "Always") {
      addInto(total, own);
      addInto(sidecars, own);
      own = new Map(sidecars);
    } else {
      addInto(own, sidecars);
    }
    maxInto(inits, own);
  }
  maxInto(total, inits);
  const overhead = resourceList(pod.spec?.overhead);
  if (which === "requests") addInto(total, overhead);
  else for (const [k, q] of overhead) if (total.has(k)) total.set(k, add(total.get(k)!, q));
  return total;
}
