// kubectl's JSONPath dialect (k8s.io/client-go/util/jsonpath): text with {expressions}, {range
// x}...{end}, quoted literals like {"\n"}, .field, ..field, [n], [a:b], [*], .*, ['key'] and
// [?(@.path op value)] filters. Missing keys print nothing (--allow-missing-template-keys=true).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

type Step =
  | { t: "field"; name: string }
  | { t: "recursive"; name: string }
  | { t: "wild" }
  | { t: "index"; i: number }
  | { t: "slice"; a?: number; b?: number; step?: number }
  | { t: "filter"; path: Step[]; op?: string; value?: Any; rhsPath?: Step[] }
  | { t: "union"; names: string[] };

type Node =
  | { t: "text"; s: string }
  | { t: "expr"; path: Step[]; root: boolean }
  | { t: "range"; path: Step[]; body: Node[]; open?: boolean };

export class JsonPathError extends Error {}

function parseLiteral(s: string): string {
  // Go strconv.Unquote of a "..." literal.
  try {
    return JSON.parse(s.replace(/\\'/g, "'")) as string;
  } catch {
    return s.slice(1, -1);
  }
}

function parsePath(src: string): Step[] {
  let s = src.trim();
  if (s.startsWith("$")) s = s.slice(1);
  else if (s.startsWith("@")) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  // A field name runs to the next unescaped terminator; a backslash escapes the character after
  // it and is dropped (jsonpath's advance and parseField): {.data.config\.conf}.
  const ident = () => {
    const m = /^(?:\\.|[^.[\]\s\\])*\\?/.exec(s.slice(i))!;
    i += m[0].length;
    return m[0].replace(/\\(.)/g, "$1").replace(/\\$/, "");
  };
  while (i < s.length) {
    if (s.startsWith("..", i)) {
      i += 2;
      steps.push({ t: "recursive", name: ident() });
    } else if (s[i] === ".") {
      i++;
      const name = ident();
      if (name === "*") steps.push({ t: "wild" });
      else if (name !== "") steps.push({ t: "field", name });
    } else if (s[i] === "[") {
      let depth = 0;
      let j = i;
      let quote = "";
      for (; j < s.length; j++) {
        const ch = s[j];
        if (quote) {
          if (ch === quote) quote = "";
          continue;
        }
        if (ch === "'" || ch === '"') quote = ch;
        else if (ch === "[") depth++;
        else if (ch === "]" && --depth === 0) break;
      }
      if (j >= s.length) throw new JsonPathError(`unterminated array`);
      const inner = s.slice(i + 1, j).trim();
      i = j + 1;
      if (inner === "*") steps.push({ t: "wild" });
      else if (inner.startsWith("?(")) steps.push(parseFilter(inner.slice(2, -1)));
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ t: "field", name: inner.slice(1, -1) });
      else if (inner.includes(",")) steps.push({ t: "union", names: inner.split(",").map((x) => x.trim().replace(/^['"]|['"]$/g, "")) });
      else if (inner.includes(":")) {
        const [a, b, st] = inner.split(":").map((x) => (x.trim() === "" ? undefined : Number(x)));
        steps.push({ t: "slice", a, b, step: st });
      } else if (/^-?\d+$/.test(inner)) steps.push({ t: "index", i: Number(inner) });
      else throw new JsonPathError(`invalid array index ${inner}`);
    } else if (/\s/.test(s[i])) {
      i++;
    } else {
      const name = ident();
      if (!name) throw new JsonPathError(`unrecognized character in action: ${goRune(s[i])}`);
      steps.push({ t: "field", name });
    }
  }
  return steps;
}

function parseFilter(expr: string): Step {
  // jsonpath's parseFilter: left, an operator run and a non-empty right; anything else is one
  // path (so "@.a==" fails as a path does, on its '=').
  const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(expr);
  if (!m) return { t: "filter", path: parsePath(expr) };
  const lhs = parsePath(m[1]);
  const r = m[3].trim();
  // The right side is parsed as an action too: an operator character left over ("@.a==" splits
  // as "=" and "=") is a character no action can start with.
  if (/^[!<>=]/.test(r)) throw new JsonPathError(`unrecognized character in action: ${goRune(r[0])}`);
  // Go reports an unknown operator only when the filter runs; the template error it prints
  // then is not reproduced.
  if (!["==", "!=", "<", ">", "<=", ">="].includes(m[2])) throw new JsonPathError(`unrecognized filter operator ${m[2]}`);
  if (r.startsWith("@") || r.startsWith("$")) return { t: "filter", path: lhs, op: m[2], rhsPath: parsePath(r) };
  let value: Any = r;
  if (/^'.*'$|^".*"$/.test(r)) value = r.slice(1, -1);
  else if (/^-?\d+(\.\d+)?$/.test(r)) value = Number(r);
  else if (r === "true" || r === "false") value = r === "true";
  return { t: "filter", path: lhs, op: m[2], value };
}

/** A rune as Go's %#U prints it: U+003D '='. */
function goRune(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} '${ch}'`;
}

/** Whether a "[" is left open (outside quotes) in an action's text. */
function openBracket(action: string): boolean {
  let depth = 0;
  let quote = "";
  for (const ch of action) {
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "[") depth++;
    else if (ch === "]") depth--;
  }
  return depth > 0;
}

function parseTemplate(tpl: string): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  let i = 0;
  while (i < tpl.length) {
    const open = tpl.indexOf("{", i);
    if (open < 0) {
      stack[stack.length - 1].push({ t: "text", s: tpl.slice(i) });
      break;
    }
    if (open > i) stack[stack.length - 1].push({ t: "text", s: tpl.slice(i, open) });
    // Find the closing brace outside quotes.
    let j = open + 1;
    let quote = "";
    for (; j < tpl.length; j++) {
      const ch = tpl[j];
      if (quote) {
        if (ch === "\\") j++;
        else if (ch === quote) quote = "";
        continue;
      }
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "}") break;
    }
    // Go's lexer reads the action to the end: an open "[" there is what it complains about.
    if (j >= tpl.length) throw new JsonPathError(openBracket(tpl.slice(open + 1)) ? "unterminated array" : "unclosed action");
    const inner = tpl.slice(open + 1, j).trim();
    i = j + 1;
    const cur = stack[stack.length - 1];
    if (inner === "end") {
      if (stack.length === 1) throw new JsonPathError(`not in range, nothing to end`);
      stack.pop();
    } else if (/^range(?=[\s.,[\]$@{}]|$)/.test(inner)) {
      // Go's lexer reads "range" as an identifier, ended by a space or by the path's first character.
      const node: Node = { t: "range", path: parsePath(inner.slice(5).trim()), body: [] };
      cur.push(node);
      stack.push(node.body);
    } else if (/^".*"$/s.test(inner) || /^'.*'$/s.test(inner)) {
      cur.push({ t: "text", s: parseLiteral(inner.startsWith("'") ? `"${inner.slice(1, -1)}"` : inner) });
    } else {
      cur.push({ t: "expr", path: parsePath(inner), root: inner.startsWith("$") });
    }
  }
  // A range without {end} runs to the end of the template (FindResults finds no end node).
  for (let k = 1; k < stack.length; k++) {
    const parent = stack[k - 1];
    const node = parent[parent.length - 1];
    if (node?.t === "range") node.open = true;
  }
  return root;
}

function evalSteps(values: Any[], steps: Step[]): Any[] {
  let cur = values;
  for (const st of steps) {
    const next: Any[] = [];
    for (const v of cur) {
      switch (st.t) {
        case "field":
          if (v && typeof v === "object" && !Array.isArray(v) && st.name in v) next.push(v[st.name]);
          break;
        case "union":
          for (const n of st.names) if (v && typeof v === "object" && n in v) next.push(v[n]);
          break;
        case "wild":
          if (Array.isArray(v)) next.push(...v);
          else if (v && typeof v === "object") for (const k of Object.keys(v).sort()) next.push(v[k]);
          break;
        case "index":
          if (Array.isArray(v)) {
            const i = st.i < 0 ? v.length + st.i : st.i;
            if (i >= 0 && i < v.length) next.push(v[i]);
            else throw new JsonPathError(`array index out of bounds: index ${st.i}, length ${v.length}`);
          }
          break;
        case "slice":
          if (Array.isArray(v)) {
            const n = v.length;
            let a = st.a ?? 0;
            let b = st.b ?? n;
            if (a < 0) a += n;
            if (b < 0) b += n;
            a = Math.max(0, Math.min(n, a));
            b = Math.max(0, Math.min(n, b));
            for (let k = a; k < b; k += st.step ?? 1) next.push(v[k]);
          }
          break;
        case "recursive": {
          const walk = (x: Any) => {
            if (Array.isArray(x)) x.forEach(walk);
            else if (x && typeof x === "object") {
              if (st.name === "" || st.name === "*") next.push(x);
              else if (st.name in x) next.push(x[st.name]);
              for (const k of Object.keys(x).sort()) walk(x[k]);
            }
          };
          walk(v);
          break;
        }
        case "filter": {
          const items = Array.isArray(v) ? v : [v];
          for (const item of items) {
            const lhs = evalSteps([item], st.path);
            if (st.op === undefined) {
              if (lhs.length) next.push(item);
              continue;
            }
            const rhs = st.rhsPath ? evalSteps([item], st.rhsPath) : [st.value];
            if (!lhs.length || !rhs.length) continue;
            if (compare(lhs[0], st.op, rhs[0])) next.push(item);
          }
          break;
        }
      }
    }
    cur = next;
  }
  return cur;
}

function compare(a: Any, op: string, b: Any): boolean {
  switch (op) {
    case "==":
      return a === b || String(a) === String(b);
    case "!=":
      return !(a === b || String(a) === String(b));
    case "<":
      return a < b;
    case ">":
      return a > b;
    case "<=":
      return a <= b;
    case ">=":
      return a >= b;
  }
  return false;
}

/** A value as jsonpath prints it: strings raw, others as compact JSON (Go map keys sorted). */
export function jsonPathText(v: Any): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(sortDeep(v));
  return String(v);
}

function sortDeep(v: Any): Any {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === "object") {
    const o: Any = {};
    for (const k of Object.keys(v).sort()) o[k] = sortDeep(v[k]);
    return o;
  }
  return v;
}

function execNodes(nodes: Node[], data: Any, root: Any, out: string[]): void {
  for (const n of nodes) {
    if (n.t === "text") out.push(n.s);
    else if (n.t === "expr") out.push(evalSteps([n.root ? root : data], n.path).map(jsonPathText).join(" "));
    else {
      const results = evalSteps([data], n.path);
      // {range .items} walks the array; {range .items[*]} walks the selected elements.
      const elems = results.length === 1 && Array.isArray(results[0]) ? results[0] : results;
      for (const e of elems) execNodes(n.body, e, root, out);
      // FindResults, not finding the range's end, goes on with the body's nodes at this level.
      if (n.open) execNodes(n.body, data, root, out);
    }
  }
}

/** parseTemplate with kubectl's wording of a parse error. */
function parseForPrinter(template: string): Node[] {
  try {
    return parseTemplate(template);
  } catch (e) {
    if (e instanceof JsonPathError) throw new JsonPathError(`error parsing jsonpath ${template}, ${e.message}`);
    throw e;
  }
}

export function executeJsonPath(template: string, data: Any): string {
  const nodes = parseForPrinter(template);
  const out: string[] = [];
  execNodes(nodes, data, data, out);
  return out.join("");
}

/**
 * `-o jsonpath-as-json`: each result set the template produces (an expression's values, a text
 * node's text, a range body's per element) printed as its own JSON array, the way
 * json.MarshalIndent(results, "", "    ") prints it (map keys sorted, <, > and & escaped).
 */
export function executeJsonPathAsJson(template: string, data: Any): string {
  const nodes = parseForPrinter(template);
  const out: string[] = [];
  const print = (values: Any[]) => out.push(JSON.stringify(sortDeep(values), null, 4).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`) + "\n");
  const walk = (ns: Node[], cur: Any): void => {
    for (const n of ns) {
      if (n.t === "text") print([n.s]);
      else if (n.t === "expr") print(evalSteps([n.root ? data : cur], n.path));
      else {
        const results = evalSteps([cur], n.path);
        const elems = results.length === 1 && Array.isArray(results[0]) ? results[0] : results;
        for (const e of elems) walk(n.body, e);
      }
    }
  };
  walk(nodes, data);
  return out.join("");
}

/** The values a custom-columns spec selects, or undefined when none. */
export function selectValues(expr: string, data: Any): Any[] {
  let e = expr.trim();
  if (e.startsWith("{") && e.endsWith("}")) e = e.slice(1, -1);
  if (!e.startsWith(".") && !e.startsWith("$") && !e.startsWith("@")) e = "." + e;
  return evalSteps([data], parsePath(e));
}
