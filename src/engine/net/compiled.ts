// What the evaluators keep on rule objects for the trace-less path: a value in a hidden slot
// (a non-enumerable symbol property, with a WeakMap for objects that cannot take one), and a
// chain's rules compiled into closures once, made again when the chain's rules change; and the
// address matcher both evaluators' compiled rules use.
import { addrNum } from "./addr-index.js";
import { cidrOf, ipNum } from "./context.js";

/**
 * A value kept on an object in a non-enumerable symbol property, or beside it in a WeakMap when
 * the object cannot take one (frozen, sealed). On paths that run per packet, reading a property
 * the object's shape already has is cheaper than a WeakMap probe.
 */
export class HiddenSlot<O extends object, V> {
  private readonly key: symbol;
  private readonly aside = new WeakMap<O, V>();

  constructor(name: string) {
    this.key = Symbol(name);
  }

  get(o: O): V | undefined {
    const own = (o as Record<symbol, V | undefined>)[this.key];
    return own !== undefined ? own : this.aside.get(o);
  }

  set(o: O, v: V): void {
    if (Object.prototype.hasOwnProperty.call(o, this.key)) (o as Record<symbol, V>)[this.key] = v;
    else if (Object.isExtensible(o)) Object.defineProperty(o, this.key, { value: v, writable: true, enumerable: false, configurable: false });
    else this.aside.set(o, v);
  }
}

/** A chain's rules as compiled: the rules array and its rules then, and one function per rule. */
export interface CompiledRules<R, F> {
  readonly src: readonly R[];
  /** `src` was frozen: it holds `rules` for good, and identity alone says the compiled form is current. */
  readonly frozen: boolean;
  readonly rules: readonly R[];
  readonly fns: readonly F[];
}

/**
 * The chain's rules compiled with `compile` (chain, rule, 1-based number), kept in `slot` and checked
 * on each use against the chain's rules array and the rules in it: proxiers replace a chain's
 * array or refill it in place, and rules themselves are immutable. A frozen array cannot be
 * refilled, so for one the array's identity is the whole check.
 */
export function compiledRules<C extends { readonly rules: readonly R[] }, R, F>(
  slot: HiddenSlot<C, CompiledRules<R, F>>,
  chain: C,
  compile: (chain: C, rule: R, n: number) => F,
): CompiledRules<R, F> {
  const rules = chain.rules;
  const c = slot.get(chain);
  if (c !== undefined && c.src === rules && (c.frozen || sameRules(c.rules, rules))) return c;
  return compileChain(slot, chain, rules, compile);
}

/**
 * compiledRules' compiling, in a function of its own: the closure it makes for `map` captures
 * `chain` and `compile`, and a function that makes a closure allocates the context for the
 * captured variables on every call, on whichever path. Inline in compiledRules it cost a
 * 48-byte context per call (~15 per connection in nftables mode, 60% of what one allocated).
 */
function compileChain<C extends { readonly rules: readonly R[] }, R, F>(
  slot: HiddenSlot<C, CompiledRules<R, F>>,
  chain: C,
  rules: readonly R[],
  compile: (chain: C, rule: R, n: number) => F,
): CompiledRules<R, F> {
  const frozen = Object.isFrozen(rules);
  const fresh: CompiledRules<R, F> = { src: rules, frozen, rules: frozen ? rules : rules.slice(), fns: rules.map((r, i) => compile(chain, r, i + 1)) };
  slot.set(chain, fresh);
  return fresh;
}

function sameRules<R>(a: readonly R[], b: readonly R[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** An address matcher as addrMatches(spec, ·) answers, with the spec parsed once. */
export function addrMatcher(spec: string): (ip: string) => boolean {
  const c = cidrOf(spec);
  if (c === undefined) return (ip) => ip === spec;
  const { base, mask } = c;
  return (ip) => {
    const a = addrNum(ip); // canonical addresses read the same as with ipNum
    return (((a >= 0 ? a : ipNum(ip)) & mask) >>> 0) === base;
  };
}
