// Sets of field paths, as structured-merge-diff's fieldpath.Set keeps them, in the FieldsV1
// encoding managedFields carry: a tree whose keys are path elements ("f:name" a field,
// `k:{"name":"web"}` a keyed list item, `v:"x"` a set item, "i:0" a list index) and whose "."
// marks the node itself as a member when it also has children.

/** A path element in its FieldsV1 spelling. */
export type PathElement = string;

export class FieldSet {
  /** Children by path element; `self` marks the node itself as a member. */
  readonly children = new Map<PathElement, FieldSet>();
  self = false;

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    readInto(s, v);
    return s;
  }

  child(pe: PathElement): FieldSet | undefined {
    return this.children.get(pe);
  }

  private at(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) this.children.set(pe, (c = new FieldSet()));
    return c;
  }

  insert(path: readonly PathElement[]): void {
    if (path.length === 0) return;
    let n: FieldSet = this;
    for (const pe of path) n = n.at(pe);
    n.self = true;
  }

  has(path: readonly PathElement[]): boolean {
    let n: FieldSet | undefined = this;
    for (const pe of path) {
      n = n.children.get(pe);
      if (!n) return false;
    }
    return n.self;
  }

  /** The subtree at `path` (members at or below it), if any. */
  subtree(path: readonly PathElement[]): FieldSet | undefined {
    let n: FieldSet | undefined = this;
    for (const pe of path) {
      n = n?.children.get(pe);
      if (!n) return undefined;
    }
    return n;
  }

  empty(): boolean {
    if (this.self) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  /** Every member path, in sorted order. */
  paths(prefix: PathElement[] = [], out: PathElement[][] = []): PathElement[][] {
    for (const pe of sortedKeys(this.children)) {
      const c = this.children.get(pe)!;
      const p = [...prefix, pe];
      if (c.self) out.push(p);
      c.paths(p, out);
    }
    return out;
  }

  clone(): FieldSet {
    const s = new FieldSet();
    s.self = this.self;
    for (const [k, c] of this.children) s.children.set(k, c.clone());
    return s;
  }

  // union, difference and intersection walk the two trees together: every write's managed
  // fields go through them, so no path is spelled out as an array.
  union(o: FieldSet): FieldSet {
    const s = this.clone();
    addMembers(s, o);
    return s;
  }

  difference(o: FieldSet): FieldSet {
    return keep(this, o, false);
  }

  intersection(o: FieldSet): FieldSet {
    return keep(this, o, true);
  }

  /** Members of this set that are neither in `o` nor below one of `o`'s members. */
  recursiveDifference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const p of this.paths()) if (!coveredBy(o, p)) s.insert(p);
    return s;
  }

  equals(o: FieldSet): boolean {
    const a = this.paths().map((p) => p.join("\u0000"));
    const b = o.paths().map((p) => p.join("\u0000"));
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }

  /** The FieldsV1 JSON value. */
  toFieldsV1(): Record<string, unknown> {
    if (this.children.size === 0) return LEAF;
    const out: Record<string, unknown> = {};
    if (this.self) out["."] = LEAF;
    for (const pe of sortedKeys(this.children)) {
      const c = this.children.get(pe)!;
      if (c.empty()) continue;
      out[pe] = c.toFieldsV1();
    }
    return out;
  }
}

/**
 * The one `{}` every leaf of an encoding shares: managedFields are stored in every object of the
 * cluster (10k pods), and stored objects are never changed in place. Frozen, so a change throws.
 */
const LEAF: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Adds the members of `o` to `s`, making only the nodes on the way to them. */
function addMembers(s: FieldSet, o: FieldSet): void {
  if (o.self) s.self = true;
  for (const [k, c] of o.children) {
    const had = s.children.get(k);
    const t = had ?? new FieldSet();
    addMembers(t, c);
    if (!had && (t.self || t.children.size)) s.children.set(k, t);
  }
}

/** The members of `a` that are (`inB`) or are not members of `b`. */
function keep(a: FieldSet, b: FieldSet | undefined, inB: boolean): FieldSet {
  const s = new FieldSet();
  s.self = a.self && (inB ? !!b?.self : !b?.self);
  for (const [k, c] of a.children) {
    const bc = b?.children.get(k);
    if (inB && !bc) continue;
    const t = keep(c, bc, inB);
    if (t.self || t.children.size) s.children.set(k, t);
  }
  return s;
}

/** Whether `path` or one of its ancestors is a member of `s`. */
function coveredBy(s: FieldSet, path: readonly PathElement[]): boolean {
  let n: FieldSet | undefined = s;
  for (const pe of path) {
    n = n.children.get(pe);
    if (!n) return false;
    if (n.self) return true;
  }
  return false;
}

function readInto(s: FieldSet, v: unknown): void {
  if (!v || typeof v !== "object" || Array.isArray(v)) return;
  for (const [k, c] of Object.entries(v as Record<string, unknown>)) {
    if (k === ".") {
      s.self = true;
      continue;
    }
    const child = new FieldSet();
    readInto(child, c);
    // A leaf ({}) is a member; an inner node is one only with ".".
    if (child.children.size === 0) child.self = true;
    s.children.set(k, child);
  }
}

/** fieldpath's order: fields, then keys, then values, then indexes; each by its text. */
const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function sortedKeys(m: Map<PathElement, FieldSet>): PathElement[] {
  return [...m.keys()].sort((a, b) => {
    const ra = RANK[a[0]] ?? 4;
    const rb = RANK[b[0]] ?? 4;
    if (ra !== rb) return ra - rb;
    if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

// ---------------------------------------------------------------------------------------------
// Path elements

export function fieldPE(name: string): PathElement {
  return `f:${name}`;
}

/** A keyed list item: the key fields as a JSON object, fields sorted. */
export function keyPE(keys: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(keys).sort()) sorted[k] = keys[k];
  return `k:${JSON.stringify(sorted)}`;
}

export function valuePE(v: unknown): PathElement {
  return `v:${JSON.stringify(v)}`;
}

/** fieldpath.Path.String(): `.spec.containers[name="web"].image`, `[="x"]`, `[0]`. */
export function pathString(path: readonly PathElement[]): string {
  let out = "";
  for (const pe of path) {
    const body = pe.slice(2);
    switch (pe[0]) {
      case "f":
        out += `.${body}`;
        break;
      case "k": {
        const keys = JSON.parse(body) as Record<string, unknown>;
        out += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(",")}]`;
        break;
      }
      case "v":
        out += `[=${body}]`;
        break;
      default:
        out += `[${body}]`;
    }
  }
  return out;
}
