// kubectl's YAML errors: the file is split into documents at "---" lines as
// k8s.io/apimachinery's YAMLReader splits it, and each document goes through sigs.k8s.io/yaml,
// whose go-yaml v2 reports the first problem as "yaml: line N: <problem>". Scanner problems
// carry the 1-based line; parser problems ("did not find expected key") the 0-based line of the
// offending token, one less. This reads block YAML line by line for the mistakes people make
// (tabs, unclosed quotes and flow collections, a value with a colon, bad indentation), checked
// against the real kubectl 1.33 (test/kubeapi/kubectl.e2e.test.ts).

/** YAMLReader: documents between lines that are "---" (optionally followed by a comment). */
export function yamlDocuments(text: string): string[] {
  const docs: string[] = [];
  // Line by line with indexOf: a split with a lookbehind took ~60 ms on a 3000-document file.
  let start = 0;
  let from = 0;
  while (from < text.length) {
    const nl = text.indexOf("\n", from);
    const end = nl < 0 ? text.length : nl + 1;
    if (text.startsWith("---", from) && /^---\s*(#.*)?\r?\n?$/.test(text.slice(from, end))) {
      docs.push(text.slice(start, from));
      start = end;
    }
    from = end;
  }
  docs.push(text.slice(start));
  return docs;
}

interface Level {
  indent: number;
  kind: "map" | "seq";
}

const KEY = /^((?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{},&*!|>%@`-][^:#]*?|-[^\s:][^:#]*?))\s*:(?=\s|$)(.*)$/;

/** go-yaml's first complaint about one document, or undefined when these rules see none. */
export function goYamlProblem(doc: string): string | undefined {
  const lines = doc.split("\n");
  const endLine = doc.endsWith("\n") ? lines.length : lines.length + 1;
  const scanner = (n: number, msg: string) => `yaml: line ${n}: ${msg}`;
  const parser = (n1: number, msg: string) => `yaml: line ${n1 - 1}: ${msg}`;
  const levels: Level[] = [];
  /** The line before opened a nested block ("key:" or "-" with nothing after): its indent. */
  let opener: number | undefined;
  /** A plain scalar that may continue on more-indented lines: the indent of what owns it. */
  let plain: number | undefined;
  let block: number | undefined; // a literal/folded block scalar: its owner's indent
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i].replace(/\r$/, "");
    const lead = /^[ \t]*/.exec(raw)![0];
    const body = raw.slice(lead.length);
    if (body === "" || body.startsWith("#")) continue;
    const indent = lead.length;
    if (block !== undefined) {
      if (indent > block) continue;
      block = undefined;
    }
    if (lead.includes("\t")) return scanner(n, "found character that cannot start any token");
    if (plain !== undefined && indent > plain) {
      if (/:(\s|$)/.test(body.replace(/\s+#.*$/, ""))) return scanner(n, "mapping values are not allowed in this context");
      continue;
    }
    plain = undefined;
    // Close the levels this line is outside of.
    while (levels.length && levels[levels.length - 1].indent > indent) levels.pop();
    const top = levels[levels.length - 1];
    let rest = body;
    let at = indent;
    const entry = /^-(\s+|$)/.exec(rest);
    const nested = opener !== undefined && indent > opener;
    if (entry) {
      // A sequence continues at its indent, or starts under a key (indented or at the key's indent).
      if (!(top && top.indent === indent && top.kind === "seq")) {
        if (opener === undefined || indent < opener) return parser(n, "did not find expected key");
        levels.push({ indent, kind: "seq" });
      }
      opener = undefined;
      at = indent + entry[0].length;
      rest = rest.slice(entry[0].length);
      if (rest === "" || rest.startsWith("#")) {
        opener = indent;
        continue;
      }
    } else if (!nested && !levels.some((l) => l.kind === "map" && l.indent === indent) && !(levels.length === 0 && indent === 0)) {
      // A key at an indent no open mapping has.
      return parser(n, "did not find expected key");
    }
    // From here: `rest` at column `at` is a mapping entry "key: value", or a scalar.
    const kv = KEY.exec(rest);
    if (!kv) {
      opener = undefined;
      // A bare scalar continues on lines deeper than its block: the sequence's dash, or the key's column.
      const r = scalar(rest, entry ? indent : at, i);
      if (r) return r;
      continue;
    }
    while (levels.length && levels[levels.length - 1].indent > at) levels.pop();
    if (!levels.length || levels[levels.length - 1].indent !== at || levels[levels.length - 1].kind !== "map") levels.push({ indent: at, kind: "map" });
    const value = kv[2].trim();
    opener = undefined;
    if (value === "" || value.startsWith("#")) {
      opener = at;
      continue;
    }
    const r = scalar(value, at, i);
    if (r) return r;
  }
  return undefined;

  /** A value starting on line i (0-based) at whose owner's indent is `owner`. */
  function scalar(value: string, owner: number, i: number): string | undefined {
    const n = i + 1;
    const v = value.replace(/\s+#.*$/, "");
    if (v.startsWith('"') || v.startsWith("'")) {
      const q = v[0];
      // Find the closing quote, on this line or a later one.
      let text = v.slice(1);
      for (let k = i; ; ) {
        const close = q === '"' ? /(?:^|[^\\])(?:\\\\)*"/.exec(text) : /(?:^|[^'])(?:'')*'(?!')/.exec(text);
        if (close) {
          const after = text.slice(close.index + close[0].length).trim();
          if (after && !after.startsWith("#")) return parser(k + 1, "did not find expected key");
          return undefined;
        }
        k++;
        if (k >= lines.length || (k === lines.length - 1 && lines[k] === "")) return scanner(endLine, "found unexpected end of stream");
        text = lines[k];
        i = k;
      }
    }
    if (v.startsWith("[") || v.startsWith("{")) {
      const close = v[0] === "[" ? "]" : "}";
      let depth = 0;
      for (const ch of v) depth += ch === "[" || ch === "{" ? 1 : ch === "]" || ch === "}" ? -1 : 0;
      if (depth <= 0) return undefined;
      for (let k = i + 1; k < lines.length; k++) {
        const b = lines[k].trim();
        if (b === "" || b.startsWith("#")) continue;
        for (const ch of b) depth += ch === "[" || ch === "{" ? 1 : ch === "]" || ch === "}" ? -1 : 0;
        if (depth <= 0) return undefined;
        // go-yaml meets the next line's "key:" or "- " where it wants ',' or the closing bracket.
        if (/^-(\s|$)/.test(b) || /:(\s|$)/.test(b)) return parser(k + 1, `did not find expected ',' or '${close}'`);
      }
      return scanner(endLine, `did not find expected ',' or '${close}'`);
    }
    if (v.startsWith("|") || v.startsWith(">")) {
      block = owner;
      return undefined;
    }
    if (/:(\s|$)/.test(v)) return scanner(n, "mapping values are not allowed in this context");
    plain = owner;
    return undefined;
  }
}
