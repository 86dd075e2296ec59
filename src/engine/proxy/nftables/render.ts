// Text views of the nftables ruleset, produced lazily line by line:
//  - the transaction form, laid out as K/pkg/proxy/nftables/proxier_test.go writes its expected
//    text (TestOverallNFTablesRules): baseRules, then one "# <service>" section per service port;
//  - `nft list table|ruleset|chain|set|map ...` exactly as nft 1.0.6 prints what the kernel holds
//    (element order, line wrapping, priority names, normalised mark expressions, timeouts).
import { parseIPv4Sloppy } from "../../util/ip.js";
import { mergeIntervalsForListing } from "./ipv4.js";
import type { Chain, Expr, KeyPart, KeyType, KeyValue, NftSet, NftTable, Rule, SetElement, Verdict } from "./model.js";
import type { TableHandles } from "./handles.js";
import * as N from "./names.js";
import type { ElementRef, NftablesProxier, ServicePortRecord } from "./proxier.js";

// ---- expressions ------------------------------------------------------------------------------

const KEY_PART_TEXT: Record<KeyPart, string> = { daddr: "ip daddr", l4proto: "meta l4proto", dport: "th dport" };

function verdictText(v: Verdict): string {
  return v.kind === "jump" || v.kind === "goto" ? `${v.kind} ${v.chain}` : v.kind;
}

function hex(v: number): string {
  return `0x${v.toString(16)}`;
}

/** nft prints marks as 32-bit hex with leading zeros. */
function hex8(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, "0")}`;
}

type Syntax = "tx" | "list";

function exprText(e: Expr, syntax: Syntax, markText: (v: number) => string): string {
  switch (e.t) {
    case "ct-state":
      return `ct state ${e.states.join(",")}`;
    case "ip":
      return `ip ${e.field} ${e.neg ? "!= " : ""}${e.value}`;
    case "ip-anon": {
      const op = e.neg ? "!= " : "";
      if (syntax === "tx") return `ip ${e.field} ${op}{ ${e.values.join(" , ")} }`;
      // One element: nft turns it into a plain comparison; more: an anonymous interval set.
      if (e.values.length === 1) return `ip ${e.field} ${op}${e.values[0]}`;
      return `ip ${e.field} ${op}{ ${mergeIntervalsForListing(e.values).join(", ")} }`;
    }
    case "ip-lookup":
      return `ip ${e.field} @${e.set}`;
    case "fib-local":
      return `fib ${e.field} type local`;
    case "l4proto":
      return `meta l4proto ${e.proto}`;
    case "mark-zero":
      return syntax === "tx" ? `mark and ${markText(e.mask)} == 0` : `meta mark & ${hex8(e.mask)} == ${hex8(0)}`;
    case "vmap":
      return `${e.key.map((k) => KEY_PART_TEXT[k]).join(" . ")} vmap @${e.map}`;
    case "numgen-vmap": {
      const sep = syntax === "tx" ? " , " : ", ";
      return `numgen random mod ${e.mod} vmap { ${e.targets.map((v, i) => `${i} : ${verdictText(v)}`).join(sep)} }`;
    }
    case "mark-set":
      return syntax === "tx"
        ? `mark set mark ${e.op} ${markText(e.value)}`
        : `meta mark set meta mark ${e.op === "or" ? "|" : "^"} ${hex8(e.value)}`;
    case "update-set":
      return `update @${e.set} { ip ${e.field} }`;
    case "dnat":
      return `dnat to ${e.addr}:${e.port}`;
    case "masquerade":
      return e.fullyRandom ? "masquerade fully-random" : "masquerade";
    case "reject":
      return "reject";
    case "verdict":
      return verdictText(e.verdict);
  }
}

export function ruleText(r: Rule, syntax: Syntax, markText: (v: number) => string = hex): string {
  let s = "";
  for (const e of r.exprs) s += (s ? " " : "") + exprText(e, syntax, markText);
  return r.comment === undefined ? s : `${s} comment ${JSON.stringify(r.comment)}`;
}

function keyText(key: readonly KeyValue[]): string {
  return key.join(" . ");
}

function elementText(el: SetElement): string {
  let s = keyText(el.key);
  if (el.comment !== undefined) s += ` comment ${JSON.stringify(el.comment)}`;
  if (el.value) s += ` : ${verdictText(el.value)}`;
  return s;
}

function setTypeText(set: NftSet): string {
  const key = set.keyType.join(" . ");
  return set.isMap ? `${key} : verdict` : key;
}

// ---- transaction form -------------------------------------------------------------------------

const T = (table: NftTable) => `${table.family} ${table.name}`;

function txSetLine(table: NftTable, set: NftSet): string {
  const props = [`type ${setTypeText(set)}`];
  if (set.flags.length) props.push(`flags ${set.flags.join(",")}`);
  if (set.timeout !== undefined) props.push(`timeout ${set.timeout}s`);
  if (set.comment !== undefined) props.push(`comment ${JSON.stringify(set.comment)}`);
  return `add ${set.isMap ? "map" : "set"} ${T(table)} ${set.name} { ${props.join(" ; ")} ; }`;
}

function txChainLine(table: NftTable, c: Chain): string {
  const props: string[] = [];
  if (c.base) props.push(`type ${c.base.type} hook ${c.base.hook} priority ${c.base.priority}`);
  if (c.comment !== undefined) props.push(`comment ${JSON.stringify(c.comment)}`);
  return props.length ? `add chain ${T(table)} ${c.name} { ${props.join(" ; ")} ; }` : `add chain ${T(table)} ${c.name}`;
}

function txRuleLine(table: NftTable, chain: string, r: Rule, mark: (v: number) => string): string {
  return `add rule ${T(table)} ${chain} ${ruleText(r, "tx", mark)}`;
}

function txElementLine(table: NftTable, set: string, el: SetElement): string {
  return `add element ${T(table)} ${set} { ${elementText(el)} }`;
}

/**
 * Order of the base rules in the test's baseRules text: chains in table order, except that the
 * pre-DNAT output chain's rule sits between filter-output's two rules, and the
 * service-endpoints-check rule comes last, after the nodeport-ips elements.
 */
function* txBaseRules(table: NftTable, mark: (v: number) => string): Generator<string> {
  for (const c of table.chains.values()) {
    if (N.isServiceChainName(c.name) || c.name === N.FILTER_OUTPUT_PRE_DNAT || c.name === N.SERVICE_ENDPOINTS_CHECK) continue;
    if (c.name === N.FILTER_OUTPUT) {
      const [first, ...rest] = c.rules;
      if (first) yield txRuleLine(table, c.name, first, mark);
      for (const r of table.chains.get(N.FILTER_OUTPUT_PRE_DNAT)?.rules ?? []) yield txRuleLine(table, N.FILTER_OUTPUT_PRE_DNAT, r, mark);
      for (const r of rest) yield txRuleLine(table, c.name, r, mark);
      continue;
    }
    for (const r of c.rules) yield txRuleLine(table, c.name, r, mark);
  }
}

const E1_RANK: Record<string, number> = {
  [N.CLUSTER_IPS_SET]: 0,
  [N.SERVICE_IPS_MAP]: 1,
  [N.SERVICE_NODEPORTS_MAP]: 2,
  [N.FIREWALL_IPS_MAP]: 3,
};

function* txService(table: NftTable, rec: ServicePortRecord, header: string, mark: (v: number) => string): Generator<string> {
  const chainLines = (names: readonly string[]): string[] => {
    const out: string[] = [];
    for (const name of names) {
      const c = table.chains.get(name);
      if (!c) continue;
      out.push(txChainLine(table, c));
      for (const r of c.rules) out.push(txRuleLine(table, name, r, mark));
    }
    return out;
  };
  const elLines = (refs: readonly ElementRef[]): string[] => {
    const out: string[] = [];
    for (const ref of refs) {
      const el = table.sets.get(ref.set)?.elements.get(ref.key);
      if (el) out.push(txElementLine(table, ref.set, el));
    }
    return out;
  };
  const isPolicyOrExt = (n: string) =>
    n.startsWith(N.SERVICE_CHAIN_PREFIX) || n.startsWith(N.LOCAL_CHAIN_PREFIX) || n.startsWith(N.EXTERNAL_CHAIN_PREFIX);
  const a = chainLines(rec.chains.filter(isPolicyOrExt));
  const b = chainLines(rec.chains.filter((n) => n.startsWith(N.ENDPOINT_CHAIN_PREFIX)));
  const c = chainLines(rec.chains.filter((n) => n.startsWith(N.FIREWALL_CHAIN_PREFIX)));
  const e1refs = [...rec.elements].sort((x, y) => (E1_RANK[x.set] ?? 9) - (E1_RANK[y.set] ?? 9));
  const e1 = elLines(rec.hasEndpoints ? e1refs : [...e1refs, ...rec.noEndpointElements]);
  const e2 = rec.hasEndpoints ? elLines(rec.noEndpointElements).sort() : [];

  yield "";
  yield header;
  for (const name of rec.affinitySets) {
    const set = table.sets.get(name);
    if (set) yield txSetLine(table, set);
  }
  // The hand-written expected text keeps a service's policy/external chains and its endpoint
  // chains in one paragraph when there is an external chain and no affinity; we follow it.
  const groups: string[][] = rec.hasExternalChain && rec.affinitySets.length === 0 ? [[...a, ...b], c, e1, e2] : [a, b, c, e1, e2];
  let first = true;
  for (const g of groups) {
    if (g.length === 0) continue;
    if (!first) yield "";
    first = false;
    yield* g;
  }
}

/** The whole ruleset as kube-proxy's unit tests write it (baseRules + "# svcN" sections). */
export function* transactionLines(proxier: NftablesProxier): Generator<string> {
  const table = proxier.table;
  const markValue = proxier.masqueradeMarkText();
  const mark = (v: number) => (hex(v) === markValue ? markValue : hex(v));
  yield `add table ${T(table)}${table.comment !== undefined ? ` { comment ${JSON.stringify(table.comment)} ; }` : ""}`;
  const baseSets = [...table.sets.values()].filter((s) => !s.name.startsWith(N.AFFINITY_SET_PREFIX));
  yield "";
  for (const s of baseSets) if (!s.isMap) yield txSetLine(table, s);
  yield "";
  for (const s of baseSets) if (s.isMap) yield txSetLine(table, s);
  yield "";
  for (const c of table.chains.values()) if (!N.isServiceChainName(c.name)) yield txChainLine(table, c);
  yield "";
  yield* txBaseRules(table, mark);
  yield "";
  for (const el of table.sets.get(N.NODEPORT_IPS_SET)?.elements.values() ?? []) yield txElementLine(table, N.NODEPORT_IPS_SET, el);
  for (const r of table.chains.get(N.SERVICE_ENDPOINTS_CHECK)?.rules ?? []) yield txRuleLine(table, N.SERVICE_ENDPOINTS_CHECK, r, mark);

  const records = proxier.serviceRecords();
  const ports = new Map<string, number>();
  for (const r of records) {
    const k = `${r.svc.name.namespace}/${r.svc.name.name}`;
    ports.set(k, (ports.get(k) ?? 0) + 1);
  }
  for (const rec of records) {
    const n = rec.svc.name;
    const single = ports.get(`${n.namespace}/${n.name}`) === 1;
    yield* txService(table, rec, single ? `# ${n.name}` : `# ${n.name}:${n.port || n.protocol.toLowerCase()}`, mark);
  }
  const stale = proxier.staleChainNames();
  if (stale.length) {
    yield "";
    yield "# stale chains (flushed; deleted at the next sync)";
    for (const name of stale) yield `add chain ${T(table)} ${name}`;
  }
}

export function renderTransaction(proxier: NftablesProxier): string {
  return joinLines(transactionLines(proxier));
}

// ---- nft list ---------------------------------------------------------------------------------

const STD_PRIOS: readonly { value: number; name: string }[] = [
  { value: -300, name: "raw" },
  { value: -150, name: "mangle" },
  { value: -100, name: "dstnat" },
  { value: 0, name: "filter" },
  { value: 50, name: "security" },
  { value: 100, name: "srcnat" },
];

/** nft's prio2str for the ip family: a standard name within +-10 when valid for the hook. */
export function priorityText(priority: number, hook: string): string {
  for (const p of STD_PRIOS) {
    if (p.name === "dstnat" && hook !== "prerouting") continue;
    if (p.name === "srcnat" && hook !== "postrouting") continue;
    const off = priority - p.value;
    if (Math.abs(off) > 10) continue;
    return off === 0 ? p.name : off > 0 ? `${p.name} + ${off}` : `${p.name} - ${-off}`;
  }
  return String(priority);
}

/** nft's time_print: "3h", "1d1h1m1s", "1m". */
export function durationText(seconds: number): string {
  let s = seconds;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  let out = "";
  if (d) out += `${d}d`;
  if (h) out += `${h}h`;
  if (m) out += `${m}m`;
  if (s || !out) out += `${s}s`;
  return out;
}

const PROTO_NUM: Record<string, number> = { tcp: 6, udp: 17, sctp: 132, icmp: 1 };

function keyBytes(types: readonly KeyType[], key: readonly KeyValue[]): number[] {
  const out: number[] = [];
  types.forEach((t, i) => {
    const v = key[i];
    if (t === "ipv4_addr") {
      const n = parseIPv4Sloppy(String(v)) ?? 0;
      out.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
    } else if (t === "inet_proto") {
      out.push(typeof v === "number" ? v : (PROTO_NUM[v] ?? 0));
    } else {
      const n = Number(v);
      out.push((n >>> 8) & 255, n & 255);
    }
  });
  return out;
}

/**
 * nft sorts listed elements (mergesort.c): a single value by its number; a concatenation by
 * its bytes read as one host-endian (little-endian) number, so the last byte weighs most.
 */
function sortedElements(set: NftSet): SetElement[] {
  const els = [...set.elements.values()];
  const keyed = els.map((el) => ({ el, b: keyBytes(set.keyType, el.key) }));
  const concat = set.keyType.length > 1;
  keyed.sort((x, y) => {
    const n = x.b.length;
    if (concat) {
      for (let i = n - 1; i >= 0; i--) if (x.b[i] !== y.b[i]) return x.b[i]! - y.b[i]!;
    } else {
      for (let i = 0; i < n; i++) if (x.b[i] !== y.b[i]) return x.b[i]! - y.b[i]!;
    }
    return 0;
  });
  return keyed.map((k) => k.el);
}

/** calculate_delim: how many elements nft puts on one line before wrapping. */
function perLine(set: NftSet): number {
  if (set.keyType.length > 1) return 1;
  switch (set.keyType[0]) {
    case "ipv4_addr":
      return 2;
    case "inet_proto":
    case "inet_service":
      return 5;
    default:
      return 1;
  }
}

const NEWLINE_DELIM = ",\n\t\t\t     ";

/** nft -a: ` # handle N` after an object's opening brace or a rule. */
function handleText(h: number | undefined): string {
  return h === undefined ? "" : ` # handle ${h}`;
}

/** What `nft -a` adds: the table's handles (undefined without -a). */
type Handles = TableHandles | undefined;

function* setBlock(set: NftSet, withElements: boolean, h?: Handles): Generator<string> {
  yield `\t${set.isMap ? "map" : "set"} ${set.name} {${handleText(h?.set(set.name))}`;
  yield `\t\ttype ${setTypeText(set)}`;
  if (set.size !== undefined) yield `\t\tsize ${set.size}`;
  if (set.flags.length) yield `\t\tflags ${set.flags.join(",")}`;
  if (set.timeout !== undefined) yield `\t\ttimeout ${durationText(set.timeout)}`;
  if (set.comment !== undefined) yield `\t\tcomment ${JSON.stringify(set.comment)}`;
  if (withElements && set.elements.size > 0) {
    const per = perLine(set);
    let text = "\t\telements = { ";
    let i = 0;
    for (const el of sortedElements(set)) {
      if (i > 0) text += i % per === 0 ? NEWLINE_DELIM : ", ";
      text += elementText(el);
      i++;
    }
    text += " }";
    // One logical line that nft breaks with embedded newlines.
    yield* text.split("\n");
  }
  yield "\t}";
}

function* chainBlock(c: Chain, withRules: boolean, h?: Handles): Generator<string> {
  yield `\tchain ${c.name} {${handleText(h?.chain(c.name))}`;
  if (c.comment !== undefined) yield `\t\tcomment ${JSON.stringify(c.comment)}`;
  if (c.base) {
    yield `\t\ttype ${c.base.type} hook ${c.base.hook} priority ${priorityText(c.base.priority, c.base.hook)}; policy ${c.base.policy};`;
  }
  if (withRules) {
    let i = 0;
    for (const r of c.rules) yield `\t\t${ruleText(r, "list")}${handleText(h?.rule(c.name, i++))}`;
  }
  yield "\t}";
}

/** `nft list table ip kube-proxy`. */
export function* listTableLines(table: NftTable, h?: Handles): Generator<string> {
  yield `table ${T(table)} {${handleText(h?.table)}`;
  if (table.comment !== undefined) yield `\tcomment ${JSON.stringify(table.comment)}`;
  let first = true;
  for (const set of table.sets.values()) {
    if (!first) yield "";
    first = false;
    yield* setBlock(set, true, h);
  }
  for (const c of table.chains.values()) {
    if (!first) yield "";
    first = false;
    yield* chainBlock(c, true, h);
  }
  yield "}";
}

/** `nft list ruleset`: every table; here only kube-proxy's (nothing when it does not exist). */
function* listRulesetLines(table: NftTable | undefined, h?: Handles): Generator<string> {
  if (table) yield* listTableLines(table, h);
}

function* listChainLines(table: NftTable, chain: Chain, h?: Handles): Generator<string> {
  yield `table ${T(table)} {`;
  yield* chainBlock(chain, true, h);
  yield "}";
}

function* listSetLines(table: NftTable, set: NftSet, h?: Handles): Generator<string> {
  yield `table ${T(table)} {`;
  yield* setBlock(set, true, h);
  yield "}";
}

export function joinLines(lines: Iterable<string>): string {
  let out = "";
  for (const l of lines) out += `${l}\n`;
  return out;
}

// ---- the `nft list ...` command ----------------------------------------------------------------

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const FAMILIES = new Set(["ip", "ip6", "inet", "arp", "bridge", "netdev"]);

/** nft's error report: message, the command line, carets under the offending token. */
export function nftError(message: string, words: readonly string[], index: number): CommandResult {
  const line = words.join(" ");
  let col = 0;
  for (let i = 0; i < index && i < words.length; i++) col += words[i]!.length + 1;
  const width = index < words.length ? Math.max(1, words[index]!.length) : 1;
  if (index >= words.length) col = line.length;
  return { stdout: "", stderr: `Error: ${message}\n${line}\n${" ".repeat(col)}${"^".repeat(width)}\n`, exitCode: 1 };
}

const ENOENT = "No such file or directory";

/**
 * Runs `nft <words>` for the list commands against the node's kube-proxy table
 * (undefined when kube-proxy has not created it). Other commands are not handled here.
 */
export function nftList(table: NftTable | undefined, words: readonly string[], opts: { handles?: boolean } = {}): CommandResult {
  const h = opts.handles ? table?.handles : undefined;
  const ok = (lines: Iterable<string>): CommandResult => ({ stdout: joinLines(lines), stderr: "", exitCode: 0 });
  if (words[0] !== "list" || words.length < 2) {
    return nftError("syntax error, unexpected newline", words, words.length);
  }
  const what = words[1]!;
  let i = 2;
  let family = "ip";
  if (i < words.length && FAMILIES.has(words[i]!)) family = words[i++]!;
  const familyMatches = table !== undefined && family === table.family;

  switch (what) {
    case "ruleset":
      return ok(table && (familyMatches || i === 2) ? listRulesetLines(table, h) : []);
    case "tables":
      return ok(table && (familyMatches || i === 2) ? [`table ${T(table)}`] : []);
    case "table": {
      if (i >= words.length) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      if (!familyMatches || words[i] !== table!.name) return nftError(ENOENT, words, i);
      return ok(listTableLines(table!, h));
    }
    case "chains":
    case "sets":
    case "maps": {
      if (!table || (i > 2 && !familyMatches)) return ok([]);
      const lines: string[] = [`table ${T(table)} {`];
      if (what === "chains") for (const c of table.chains.values()) lines.push(...chainBlock(c, false, h));
      else for (const s of table.sets.values()) if (s.isMap === (what === "maps")) lines.push(...setBlock(s, true, h));
      lines.push("}");
      return ok(lines);
    }
    case "chain":
    case "set":
    case "map": {
      if (i >= words.length) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      if (!familyMatches || words[i] !== table!.name) return nftError(ENOENT, words, i);
      const name = words[i + 1];
      if (name === undefined) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      if (what === "chain") {
        const c = table!.chains.get(name);
        return c ? ok(listChainLines(table!, c, h)) : nftError(ENOENT, words, i + 1);
      }
      const s = table!.sets.get(name);
      if (!s || s.isMap !== (what === "map")) return nftError(ENOENT, words, i + 1);
      return ok(listSetLines(table!, s, h));
    }
    default:
      return nftError(`syntax error, unexpected ${what}`, words, 1);
  }
}
