// Label selectors exactly as k8s.io/apimachinery/pkg/labels parses, prints and matches them, and
// the conversion from a metav1.LabelSelector (LabelSelectorAsSelector).

import { isQualifiedName, isValidLabelValue } from "./validation/names";

type Operator = "!" | "=" | "==" | "in" | "!=" | "notin" | "exists" | "gt" | "lt";

const UNARY: Operator[] = ["exists", "!"];
const BINARY: Operator[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const VALID_OPERATORS = [...BINARY, ...UNARY];

type Labels = Readonly<Record<string, string>> | null | undefined;

/** A parse or construction failure; `message` is the text the apiserver returns. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

const q = (s: string) => JSON.stringify(s);
const goStrings = (vals: readonly string[]) => `[]string{${vals.map(q).join(", ")}}`;

/** `path.c`, or `c` without a path (a module function: no closure per requirement made). */
function childPath(path: string | undefined, c: string): string {
  return path ? `${path}.${c}` : c;
}

/** field.Error rendering with a nil field.Path ("<nil>") or a path as NewRequirement builds. */
function invalidErr(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${value}: ${detail}`;
}

/** utilerrors.NewAggregate(...).Error(): one error alone, several as "[a, b]". */
function aggregate(errs: string[]): string | null {
  const uniq = [...new Set(errs)];
  if (uniq.length === 0) return null;
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(", ")}]`;
}

class Requirement {
  constructor(
    readonly key: string,
    readonly operator: Operator,
    readonly values: readonly string[],
  ) {}

  /**
   * labels.NewRequirement: validates key, operator and values. `path` is the field path the
   * parser passes (none from the query string, hence Go's "<nil>" for the key errors there).
   */
  static create(key: string, op: Operator, vals: readonly string[], path?: string): Requirement {
    const errs: string[] = [];
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) errs.push(invalidErr(childPath(path, "key"), q(key), keyErrs.join("; ")));
    const valuePath = childPath(path, "values");
    switch (op) {
      case "in":
      case "notin":
        if (vals.length === 0) errs.push(invalidErr(valuePath, goStrings(vals), "for 'in', 'notin' operators, values set can't be empty"));
        break;
      case "=":
      case "==":
      case "!=":
        if (vals.length !== 1) errs.push(invalidErr(valuePath, goStrings(vals), "exact-match compatibility requires one single value"));
        break;
      case "exists":
      case "!":
        if (vals.length !== 0) errs.push(invalidErr(valuePath, goStrings(vals), "values set must be empty for exists and does not exist"));
        break;
      case "gt":
      case "lt":
        if (vals.length !== 1) errs.push(invalidErr(valuePath, goStrings(vals), "for 'Gt', 'Lt' operators, exactly one value is required"));
        vals.forEach((v, i) => {
          if (!/^[+-]?[0-9]+$/.test(v)) errs.push(invalidErr(`${valuePath}[${i}]`, q(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
        });
        break;
      default:
        errs.push(`${childPath(path, "operator")}: Unsupported value: ${q(op)}: supported values: ${VALID_OPERATORS.map(q).join(", ")}`);
    }
    vals.forEach((v, i) => {
      const m = isValidLabelValue(v);
      if (m.length) errs.push(invalidErr(`${valuePath}[${i}][${key}]`, q(v), m.join("; ")));
    });
    const agg = aggregate(errs);
    if (agg) throw new SelectorError(agg);
    return new Requirement(key, op, [...vals]);
  }

  matches(ls: Labels): boolean {
    const has = ls != null && Object.prototype.hasOwnProperty.call(ls, this.key);
    const val = has ? (ls as Record<string, string>)[this.key] : "";
    switch (this.operator) {
      case "in":
      case "=":
      case "==":
        return has && this.values.includes(val);
      case "notin":
      case "!=":
        return !has || !this.values.includes(val);
      case "exists":
        return has;
      case "!":
        return !has;
      case "gt":
      case "lt": {
        if (!has || this.values.length !== 1) return false;
        if (!/^[+-]?[0-9]+$/.test(val) || !/^[+-]?[0-9]+$/.test(this.values[0])) return false;
        const l = BigInt(val);
        const r = BigInt(this.values[0]);
        return this.operator === "gt" ? l > r : l < r;
      }
      default:
        return false;
    }
  }

  toString(): string {
    let s = this.operator === "!" ? "!" : "";
    s += this.key;
    switch (this.operator) {
      case "=":
        s += "=";
        break;
      case "==":
        s += "==";
        break;
      case "!=":
        s += "!=";
        break;
      case "in":
        s += " in ";
        break;
      case "notin":
        s += " notin ";
        break;
      case "gt":
        s += ">";
        break;
      case "lt":
        s += "<";
        break;
      default:
        return s;
    }
    const vals = this.values.length === 1 ? this.values[0] : [...this.values].sort().join(",");
    return this.operator === "in" || this.operator === "notin" ? `${s}(${vals})` : `${s}${vals}`;
  }
}

export interface Selector {
  matches(labels: Labels): boolean;
  empty(): boolean;
  /** The canonical form: requirements sorted by key, joined by ",". */
  toString(): string;
  requirements(): readonly Requirement[];
  /** The value a key must equal (=, == or a single-valued in), as RequiresExactMatch. */
  requiresExactMatch(key: string): string | undefined;
}

class InternalSelector implements Selector {
  readonly reqs: readonly Requirement[];
  constructor(reqs: readonly Requirement[]) {
    // sort.Sort(ByKey): by key only; JS sort is stable where Go's is not, which only matters for
    // two requirements on one key.
    this.reqs = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  matches(l: Labels): boolean {
    return this.reqs.every((r) => r.matches(l));
  }
  empty(): boolean {
    return this.reqs.length === 0;
  }
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(",");
  }
  requirements(): readonly Requirement[] {
    return this.reqs;
  }
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== key) continue;
      if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }
}

class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  toString(): string {
    return "";
  }
  requirements(): readonly Requirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
}

const everything = (): Selector => new InternalSelector([]);
const nothing = (): Selector => new NothingSelector();

// ---------------------------------------------------------------------------------------------
// Lexer and parser (labels.Parse)

const enum Tok {
  Error,
  EOS,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const STRING_TO_TOKEN: Record<string, Tok> = {
  ")": Tok.ClosedPar,
  ",": Tok.Comma,
  "!": Tok.DoesNotExist,
  "==": Tok.DoubleEquals,
  "=": Tok.Equals,
  ">": Tok.GreaterThan,
  in: Tok.In,
  "<": Tok.LessThan,
  "!=": Tok.NotEquals,
  notin: Tok.NotIn,
  "(": Tok.OpenPar,
};

const isWhitespace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isSpecial = (c: string) => "=!(),><".includes(c) && c !== "";

interface Item {
  tok: Tok;
  lit: string;
}

function lex(s: string): Item[] {
  // Works on UTF-8 bytes in Go; JS code units give the same tokens for any input whose
  // special characters are ASCII, which they all are.
  const items: Item[] = [];
  let pos = 0;
  const read = () => (pos < s.length ? s[pos++] : "");
  for (;;) {
    let ch = read();
    while (ch !== "" && isWhitespace(ch)) ch = read();
    if (ch === "") {
      items.push({ tok: Tok.EOS, lit: "" });
      return items;
    }
    if (isSpecial(ch)) {
      pos--;
      let buf = "";
      let last: Item | null = null;
      for (;;) {
        const c = read();
        if (c === "") break;
        if (isSpecial(c)) {
          buf += c;
          const t = STRING_TO_TOKEN[buf];
          if (t !== undefined) last = { tok: t, lit: buf };
          else if (last) {
            pos--;
            break;
          }
        } else {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    pos--;
    let buf = "";
    for (;;) {
      const c = read();
      if (c === "") break;
      if (isSpecial(c) || isWhitespace(c)) {
        pos--;
        break;
      }
      buf += c;
    }
    const t = STRING_TO_TOKEN[buf];
    items.push({ tok: t ?? Tok.Identifier, lit: buf });
  }
}

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private lookahead(values: boolean): Item {
    const it = this.items[this.position];
    return values && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }
  private consume(values: boolean): Item {
    const it = this.lookahead(values);
    this.position++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        let r: Requirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          throw new SelectorError(`unable to parse requirement: ${(e as Error).message}`);
        }
        reqs.push(r);
        const t = this.consume(true);
        if (t.tok === Tok.EOS) return reqs;
        if (t.tok === Tok.Comma) {
          const t2 = this.lookahead(true);
          if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
            throw new SelectorError(`found '${t2.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new SelectorError(`found '${t.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === Tok.EOS) return reqs;
      throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): Requirement {
    let op: Operator | "" = "";
    let t = this.consume(true);
    if (t.tok === Tok.DoesNotExist) {
      op = "!";
      t = this.consume(true);
    }
    if (t.tok !== Tok.Identifier) throw new Error(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new Error(invalidErr("<nil>", q(key), keyErrs.join("; ")));
    const next = this.lookahead(true).tok;
    if (next === Tok.EOS || next === Tok.Comma) {
      if (op !== "!") op = "exists";
    }
    if (op === "exists" || op === "!") return Requirement.create(key, op, []);
    const o = this.parseOperator();
    const values = o === "in" || o === "notin" ? this.parseValues() : this.parseExactValue();
    return Requirement.create(key, o, [...values].sort());
  }

  private parseOperator(): Operator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new Error(`found '${lit}', expected: ${BINARY.join(", ")}`);
    }
  }

  private parseValues(): Set<string> {
    let { tok, lit } = this.consume(true);
    if (tok !== Tok.OpenPar) throw new Error(`found '${lit}' expected: '('`);
    ({ tok, lit } = this.lookahead(true));
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const s = this.parseIdentifiersList();
      if (this.consume(true).tok !== Tok.ClosedPar) throw new Error(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === Tok.ClosedPar) {
      this.consume(true);
      return new Set([""]);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (s.size === 0) s.add("");
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.ClosedPar) {
          s.add("");
          return s;
        }
        if (t2.tok === Tok.Comma) {
          this.consume(true);
          s.add("");
        }
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const la = this.lookahead(true);
    if (la.tok === Tok.EOS || la.tok === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** labels.Parse. Throws SelectorError with the apimachinery message. */
export function parseSelector(selector: string): Selector {
  return new InternalSelector(new Parser(lex(selector)).parse());
}

/** labels.SelectorFromSet (the pre-validated form: no checks, "k=v" requirements). */
export function selectorFromSet(set: Labels): Selector {
  if (!set) return new InternalSelector([]);
  return new InternalSelector(Object.entries(set).map(([k, v]) => new Requirement(k, "=", [v])));
}

/** labels.Set(...).String() / FormatLabels: "k=v" sorted, joined by ","; FormatLabels gives "<none>" when empty. */
export function formatLabels(set: Labels, none = "<none>"): string {
  const s = Object.entries(set ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(",");
  return s === "" ? none : s;
}

interface LabelSelectorRequirementLike {
  key: string;
  operator: string;
  values?: readonly string[] | null;
}
export interface LabelSelectorLike {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: readonly LabelSelectorRequirementLike[] | null;
}

/**
 * labelSelectorAsSelector of a stored object's selector, made once per selector object:
 * controllers ask it on every sync, and making one validates every key and value. Stored
 * objects are never changed, so the selector made before is the one this would make (an
 * invalid selector is not remembered, and throws again).
 */
export function storedSelector(ps: LabelSelectorLike | null | undefined): Selector {
  if (ps === null || ps === undefined) return labelSelectorAsSelector(ps);
  let s = storedSelectors.get(ps);
  if (s === undefined) storedSelectors.set(ps, (s = labelSelectorAsSelector(ps)));
  return s;
}
const storedSelectors = new WeakMap<object, Selector>();

/**
 * metav1.LabelSelectorAsSelector: nil selects nothing, an empty selector everything. Throws
 * SelectorError with the NewRequirement / operator message on a bad selector.
 */
export function labelSelectorAsSelector(ps: LabelSelectorLike | null | undefined): Selector {
  if (ps === null || ps === undefined) return nothing();
  const ml = Object.entries(ps.matchLabels ?? {});
  const me = ps.matchExpressions ?? [];
  if (ml.length + me.length === 0) return everything();
  const reqs: Requirement[] = [];
  for (const [k, v] of ml) reqs.push(Requirement.create(k, "=", [v]));
  for (const e of me) {
    let op: Operator;
    switch (e.operator) {
      case "In":
        op = "in";
        break;
      case "NotIn":
        op = "notin";
        break;
      case "Exists":
        op = "exists";
        break;
      case "DoesNotExist":
        op = "!";
        break;
      default:
        throw new SelectorError(`${q(e.operator)} is not a valid label selector operator`);
    }
    reqs.push(Requirement.create(e.key, op, [...(e.values ?? [])]));
  }
  return new InternalSelector(reqs);
}

/** Convenience: does a metav1.LabelSelector select these labels (nil selects nothing). */
export function labelSelectorMatches(ps: LabelSelectorLike | null | undefined, labels: Labels): boolean {
  try {
    return labelSelectorAsSelector(ps).matches(labels);
  } catch {
    return false;
  }
}
