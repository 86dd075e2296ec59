// The engine's only source of randomness: a small seeded PRNG (sfc32) whose state is four
// 32-bit words, so a cluster can be persisted and replayed exactly.

export type RngState = [number, number, number, number];

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string | RngState) {
    if (Array.isArray(seed)) {
      [this.a, this.b, this.c, this.d] = seed;
      return;
    }
    // Derive four words from the seed with splitmix32, then warm up.
    let s = typeof seed === "number" ? seed >>> 0 : hashString(seed);
    s = (s + 0x9e3779b9) | 0;
    this.a = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.b = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.c = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.d = splitmix32(s);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  state(): RngState {
    return [this.a, this.b, this.c, this.d];
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 0x100000000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** `n` characters drawn uniformly from `alphabet`. */
  string(n: number, alphabet: string): string {
    // Joined, not concatenated: `+=` leaves a rope of one heap object per character, and ids
    // live as long as their objects.
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = alphabet[this.int(alphabet.length)];
    return out.join("");
  }

  /** A version-4 UUID, as the apiserver assigns to metadata.uid. */
  uuid(): string {
    const w0 = this.uint32();
    const w1 = this.uint32();
    const w2 = this.uint32();
    const w3 = this.uint32();
    const p3 = 0x4000 | (w1 & 0x0fff);
    const p4 = 0x8000 | ((w2 >>> 16) & 0x3fff);
    // The 36 characters written as codes and made into one flat string at once (several events
    // and objects per pod draw one): the same text as the hex parts joined with "-".
    const c = UUID_CODES;
    hexInto(c, 0, w0, 8);
    hexInto(c, 9, w1 >>> 16, 4);
    hexInto(c, 14, p3, 4);
    hexInto(c, 19, p4, 4);
    hexInto(c, 24, w2 & 0xffff, 4);
    hexInto(c, 28, w3, 8);
    return String.fromCharCode.apply(null, c);
  }
}

const HEX_CODES = Array.from("0123456789abcdef", (ch) => ch.charCodeAt(0));
/** A uuid's character codes, dashes in place (reused: filled and read within one call). */
const UUID_CODES: number[] = Array.from("00000000-0000-0000-0000-000000000000", (ch) => ch.charCodeAt(0));

/** `digits` lowercase hex digits of the unsigned `n`, zero-padded, into `out` at `at`. */
function hexInto(out: number[], at: number, n: number, digits: number): void {
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = HEX_CODES[n & 15];
    n >>>= 4;
  }
}


/** splitmix32's output for state `s` (already advanced). */
function splitmix32(s: number): number {
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** k8s.io/apimachinery/pkg/util/rand alphabet used for generateName suffixes. */
export const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** The purposes a cluster draws randomness for; each has its own stream. */
type StreamName = "uid" | "event" | "name" | "alloc" | "schedule" | "runtime" | "traffic" | "bootstrap" | "leases" | "dns" | "devrandom";

/**
 * A cluster's randomness as independent named streams, all derived from the cluster's seed.
 * Drawing for one purpose never shifts another: a new object kind taking uids does not change
 * pod names, IP allocation or which pod a request reaches, so golden outputs stay put.
 */
export class RandomStreams {
  private readonly streams = new Map<string, Rng>();
  /** The streams in name order (state() runs on every acknowledged write; streams are few and rarely new). */
  private sorted?: Array<[string, Rng]>;

  constructor(
    private readonly seed: number | string,
    saved: Record<string, RngState> = {},
  ) {
    for (const [name, state] of Object.entries(saved)) this.streams.set(name, new Rng(state));
  }

  get(name: StreamName): Rng {
    let r = this.streams.get(name);
    if (!r) {
      r = new Rng(`${String(this.seed)}/${name}`);
      this.streams.set(name, r);
      this.sorted = undefined;
    }
    return r;
  }

  state(): Record<string, RngState> {
    const out: Record<string, RngState> = {};
    this.sorted ??= [...this.streams].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [name, rng] of this.sorted) out[name] = rng.state();
    return out;
  }
}
