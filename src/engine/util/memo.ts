// A pure function's results, remembered for repeated inputs.

/**
 * `fn`, remembering its result for up to `max` distinct inputs; past that the memory is dropped
 * at once and starts again (the inputs that repeat, a pod's IP or a condition's timestamp, come
 * back soon after). `fn` must be pure: a remembered result stands for every later call.
 */
export function memoize<K, V>(fn: (input: K) => V, max: number): (input: K) => V {
  const seen = new Map<K, V>();
  return (input) => {
    let v = seen.get(input);
    if (v === undefined && !seen.has(input)) {
      if (seen.size >= max) seen.clear();
      v = fn(input);
      seen.set(input, v);
    }
    return v as V;
  };
}
