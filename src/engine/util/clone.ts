// Deep copy of plain JSON data (objects, arrays, strings, numbers, booleans, null). Several
// times faster than structuredClone for the small objects the apiserver copies on every write.

export function cloneJSON<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJSON(v[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = cloneJSON(x);
  }
  return out as T;
}
