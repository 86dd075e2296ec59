// Text views of the iptables ruleset, each produced line by line (a 10k-service ruleset is never
// held as one string unless a caller joins it):
//  - iptables-save, exactly as iptables v1.8.9 (nf_tables) prints what the kernel holds;
//  - kube-proxy's iptables-restore input, in the order its unit tests sort it (sortIPTablesRules);
//  - iptables [-t T] -L [CHAIN] [-n] [-v] [-x] [--line-numbers] and iptables [-t T] -S [CHAIN].
// All formats were checked against a real kernel (see render.test.ts and kernel.test.ts).
import {
  BUILTIN_CHAINS,
  type Chain,
  type CtState,
  type Match,
  type Rule,
  type Ruleset,
  type Table,
  type TableName,
  type Target,
} from "./model.js";
import { KUBE_NODEPORTS, KUBE_SERVICES } from "./names.js";
import { serviceName } from "./services.js";

const IPTABLES_VERSION = "v1.8.9";
const IPTABLES_BANNER = `iptables ${IPTABLES_VERSION} (nf_tables)`;

/** Result of one iptables command: `lines` is lazy; join it with `joinLines` or `toOutput`. */
interface RenderResult {
  lines: Iterable<string>;
  stderr: string;
  exitCode: number;
}

interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Every line followed by "\n". */
export function joinLines(lines: Iterable<string>): string {
  const parts: string[] = [];
  for (const l of lines) parts.push(l);
  return parts.length === 0 ? "" : parts.join("\n") + "\n";
}

export function toOutput(r: RenderResult): CommandOutput {
  return { stdout: joinLines(r.lines), stderr: r.stderr, exitCode: r.exitCode };
}

// ---------------------------------------------------------------------------------------------
// Tables and chains as the kernel knows them.

/** Every table iptables knows, in iptables-save's order, with its built-in chains. */
const KNOWN_TABLES: ReadonlyArray<{ name: string; builtins: readonly string[] }> = [
  { name: "raw", builtins: ["PREROUTING", "OUTPUT"] },
  { name: "mangle", builtins: BUILTIN_CHAINS.mangle },
  { name: "filter", builtins: BUILTIN_CHAINS.filter },
  { name: "security", builtins: ["INPUT", "FORWARD", "OUTPUT"] },
  { name: "nat", builtins: BUILTIN_CHAINS.nat },
];

/** A table the ruleset does not hold still lists (empty built-ins), as iptables-nft creates it on demand. */
function tableView(rs: Ruleset, name: string): Table | undefined {
  const t = rs.tables.find((x) => x.name === name);
  if (t) return t;
  const known = KNOWN_TABLES.find((k) => k.name === name);
  if (!known) return undefined;
  const chains = new Map<string, Chain>();
  for (const b of known.builtins) chains.set(b, { name: b, origin: "builtin", policy: "ACCEPT", rules: [] });
  return { name: name as TableName, chains, chainSetVersion: 0 };
}

const sortedCache = new WeakMap<Table, { version: number; names: string[] }>();

/** Built-in chains in kernel order, then user chains sorted by name (as iptables-save lists them). */
export function chainOrder(t: Table): Chain[] {
  let cached = sortedCache.get(t);
  if (!cached || cached.version !== t.chainSetVersion) {
    const user: string[] = [];
    for (const c of t.chains.values()) if (c.origin !== "builtin") user.push(c.name);
    user.sort(cmp);
    cached = { version: t.chainSetVersion, names: user };
    sortedCache.set(t, cached);
  }
  const out: Chain[] = [];
  for (const c of t.chains.values()) if (c.origin === "builtin") out.push(c);
  for (const n of cached.names) out.push(t.chains.get(n)!);
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Pieces of rule text.

/** xtables_save_string: bare when only [A-Za-z0-9_-], else double-quoted with \ " ' escaped. */
export function saveString(value: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(value)) return value;
  return `"${value.replace(/["\\']/g, (c) => "\\" + c)}"`;
}

const TWO31 = 0x80000000;
const P10_20 = 10n ** 20n;
const P5_31 = 5n ** 31n;

/**
 * The kernel stores --probability p as lround(p * 2^31); libxt_statistic prints that back with
 * "%.11f". The quotient is exact in decimal (v * 5^31 / 10^31), so round it half-to-even like glibc.
 */
export function kernelProbability(p: number): string {
  const v = BigInt(Math.round(p * TWO31)); // lround: p >= 0, so half rounds up as Math.round does
  const exact = v * P5_31; // value * 10^31
  let q = exact / P10_20;
  const r = exact % P10_20;
  if (r * 2n > P10_20 || (r * 2n === P10_20 && q % 2n === 1n)) q += 1n;
  const digits = q.toString().padStart(12, "0");
  return `${digits.slice(0, -11)}.${digits.slice(-11)}`;
}

function hex(v: number): string {
  return "0x" + (v >>> 0).toString(16);
}

const CT_ORDER: readonly CtState[] = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED", "SNAT", "DNAT"];
function ctstates(states: readonly CtState[]): string {
  return CT_ORDER.filter((s) => states.includes(s)).join(",");
}

function withPrefix(addr: string): string {
  return addr.includes("/") ? addr : `${addr}/32`;
}

// ---------------------------------------------------------------------------------------------
// iptables-save / iptables -S: the kernel's canonical rule form.

function matchSave(m: Match): string {
  switch (m.m) {
    case "comment":
      return `-m comment --comment ${saveString(m.text)}`;
    case "tcp":
    case "udp":
    case "sctp":
      return m.dport === undefined ? `-m ${m.m}` : `-m ${m.m} --dport ${m.dport}`;
    case "addrtype":
      return `-m addrtype${m.srcType ? ` --src-type ${m.srcType}` : ""}${m.dstType ? ` --dst-type ${m.dstType}` : ""}`;
    case "statistic":
      return `-m statistic --mode random --probability ${kernelProbability(m.probability)}`;
    case "recent":
      return m.op === "rcheck"
        ? `-m recent --rcheck${m.seconds !== undefined ? ` --seconds ${m.seconds}` : ""}${m.reap ? " --reap" : ""} --name ${m.name} --mask 255.255.255.255 --rsource`
        : `-m recent --set --name ${m.name} --mask 255.255.255.255 --rsource`;
    case "conntrack":
      return `-m conntrack ${m.invert ? "! " : ""}--ctstate ${ctstates(m.ctstate)}`;
    case "mark":
      return `-m mark ${m.invert ? "! " : ""}--mark ${hex(m.value)}/${hex(m.mask)}`;
    case "nfacct":
      return `-m nfacct --nfacct-name ${m.name}`;
    case "set":
      return `-m set --match-set ${m.name} ${m.flags}`;
  }
}

function targetSave(t: Target): string {
  switch (t.t) {
    case "jump":
      return `-j ${t.chain}`;
    case "REJECT":
      return "-j REJECT --reject-with icmp-port-unreachable";
    case "DNAT":
      return `-j DNAT --to-destination ${t.to}`;
    case "MARK":
      return `-j MARK --set-xmark ${hex(t.value)}/${t.op === "or" ? hex(t.value) : "0x0"}`;
    case "MASQUERADE":
      return t.randomFully ? "-j MASQUERADE --random-fully" : "-j MASQUERADE";
    default:
      return `-j ${t.t}`;
  }
}

/**
 * One rule as iptables-save prints it: `-A CHAIN [!] -s [!] -d -p <matches> -j ...`; with a
 * counter (`iptables -S -v`), `-c PACKETS BYTES` goes before the target.
 */
export function saveRule(chain: string, r: Rule, counter?: { packets: number; bytes: number }): string {
  let s = `-A ${chain}`;
  if (r.src !== undefined) s += `${r.srcNeg ? " !" : ""} -s ${withPrefix(r.src)}`;
  if (r.dst !== undefined) s += `${r.dstNeg ? " !" : ""} -d ${withPrefix(r.dst)}`;
  if (r.proto !== undefined) s += ` -p ${r.proto}`;
  for (const m of r.matches) s += " " + matchSave(m);
  if (counter) s += ` -c ${counter.packets} ${counter.bytes}`;
  if (r.target) s += " " + targetSave(r.target);
  return s;
}

const KNOWN_TABLE_NAMES = new Set(KNOWN_TABLES.map((t) => t.name));

/**
 * `iptables-save [-t TABLE]`. `date` is what the header comments print (the caller's clock, in
 * ctime format such as "Sun Nov 29 16:04:57 2026"). Without a table, only tables that exist.
 */
export function iptablesSave(rs: Ruleset, opts: { date: string; table?: string; counters?: CounterSource; withRuleCounters?: boolean }): RenderResult {
  if (opts.table !== undefined && !KNOWN_TABLE_NAMES.has(opts.table)) {
    return { lines: [], stderr: `Table \`${opts.table}' does not exist\n`, exitCode: 1 };
  }
  const tables = opts.table !== undefined ? [tableView(rs, opts.table)!] : rs.tables;
  return { lines: saveLines(tables, opts.date, opts.counters, opts.withRuleCounters === true), stderr: "", exitCode: 0 };
}

/** iptables-save prints built-in chains' policy counters always, and each rule's with -c (`[p:b] -A ...`). */
function* saveLines(tables: readonly Table[], date: string, counters: CounterSource | undefined, ruleCounters: boolean): Generator<string> {
  for (const t of tables) {
    const chains = chainOrder(t);
    yield `# Generated by iptables-save ${IPTABLES_VERSION} (nf_tables) on ${date}`;
    yield `*${t.name}`;
    for (const c of chains) {
      const pc = c.policy ? counters?.policy(t.name, c.name) : undefined;
      yield `:${c.name} ${c.policy ?? "-"} [${pc?.packets ?? 0}:${pc?.bytes ?? 0}]`;
    }
    for (const c of chains) {
      if (!ruleCounters) {
        for (const r of c.rules) yield saveRule(c.name, r);
        continue;
      }
      let i = 0;
      for (const r of c.rules) {
        const rc = counters?.rule(t.name, c.name, i++, r);
        yield `[${rc?.packets ?? 0}:${rc?.bytes ?? 0}] ${saveRule(c.name, r)}`;
      }
    }
    yield "COMMIT";
    yield `# Completed on ${date}`;
  }
}

function noChain(table: string, chain: string): RenderResult {
  // iptables 1.8.9 (nf_tables) reports a missing chain for -L/-S this way (checked on a kernel);
  // `iptables: No chain/target/match by that name.` is what -F/-X/-A say.
  return {
    lines: [],
    stderr: `${IPTABLES_BANNER}: chain \`${chain}' in table \`${table}' is incompatible, use 'nft' tool.\n`,
    exitCode: 1,
  };
}

function noTable(table: string): RenderResult {
  return {
    lines: [],
    stderr: `${IPTABLES_BANNER}: table '${table}' does not exist\nPerhaps iptables or your kernel needs to be upgraded.\n`,
    exitCode: 3,
  };
}

/** `iptables [-t TABLE] -S [CHAIN] [-v]` (-v: `-c PACKETS BYTES` on policies and rules). */
export function iptablesRules(rs: Ruleset, opts: { table?: string; chain?: string; counters?: CounterSource } = {}): RenderResult {
  const tname = opts.table ?? "filter";
  const t = tableView(rs, tname);
  if (!t) return noTable(tname);
  if (opts.chain !== undefined) {
    const c = t.chains.get(opts.chain);
    if (!c) return noChain(tname, opts.chain);
    return { lines: specLines(t, [c], opts.counters), stderr: "", exitCode: 0 };
  }
  return { lines: specLines(t, chainOrder(t), opts.counters), stderr: "", exitCode: 0 };
}

const ZERO = Object.freeze({ packets: 0, bytes: 0 });

function* specLines(t: Table, chains: readonly Chain[], counters: CounterSource | undefined): Generator<string> {
  for (const c of chains) {
    if (!c.policy) yield `-N ${c.name}`;
    else if (!counters) yield `-P ${c.name} ${c.policy}`;
    else {
      const pc = counters.policy(t.name, c.name) ?? ZERO;
      yield `-P ${c.name} ${c.policy} -c ${pc.packets} ${pc.bytes}`;
    }
  }
  for (const c of chains) {
    let i = 0;
    for (const r of c.rules) yield saveRule(c.name, r, counters ? (counters.rule(t.name, c.name, i++, r) ?? ZERO) : undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// kube-proxy's iptables-restore input, in its unit tests' sort order.

/** A comment as kube-proxy writes it: its format strings quote exactly the texts with spaces. */
function restoreComment(text: string): string {
  return text.includes(" ") ? `"${text}"` : text;
}

function matchRestore(m: Match): string {
  switch (m.m) {
    case "comment":
      return `-m comment --comment ${restoreComment(m.text)}`;
    case "tcp":
    case "udp":
    case "sctp":
      return `-m ${m.m} -p ${m.m}`;
    case "addrtype":
      return `-m addrtype${m.srcType ? ` --src-type ${m.srcType}` : ""}${m.dstType ? ` --dst-type ${m.dstType}` : ""}`;
    case "statistic":
      return `-m statistic --mode random --probability ${m.probability.toFixed(10)}`;
    case "recent":
      return m.op === "rcheck"
        ? `-m recent --name ${m.name} --rcheck --seconds ${m.seconds} --reap`
        : `-m recent --name ${m.name} --set`;
    case "conntrack":
      return `-m conntrack ${m.invert ? "! " : ""}--ctstate ${m.ctstate.join(",")}`;
    case "mark":
      return `-m mark ${m.invert ? "! " : ""}--mark ${hex(m.value)}/${hex(m.mask)}`;
    case "nfacct":
      return `-m nfacct --nfacct-name ${m.name}`;
    case "set":
      return `-m set --match-set ${m.name} ${m.flags}`;
  }
}

function targetRestore(t: Target): string {
  switch (t.t) {
    case "jump":
      return `-j ${t.chain}`;
    case "DNAT":
      return `-j DNAT --to-destination ${t.to}`;
    case "MARK":
      return `-j MARK --${t.op}-mark ${hex(t.value)}`;
    case "MASQUERADE":
      return t.randomFully ? "-j MASQUERADE --random-fully" : "-j MASQUERADE";
    default:
      return `-j ${t.t}`;
  }
}

/**
 * One rule in kube-proxy's argument order (see the shapes in model.ts): `-d` and `--dport` follow
 * `-m P -p P`, a `-s` on such a rule comes after `--dport`; without a protocol match the addresses
 * (`-d` before `-s`) go before a conntrack match, else at the end of the matches.
 */
function restoreRule(chain: string, r: Rule): string {
  let s = `-A ${chain}`;
  let addrs = r.src === undefined && r.dst === undefined;
  const dst = () => (r.dst !== undefined ? `${r.dstNeg ? " !" : ""} -d ${r.dst}` : "");
  const src = () => (r.src !== undefined ? `${r.srcNeg ? " !" : ""} -s ${r.src}` : "");
  for (const m of r.matches) {
    if (m.m === "tcp" || m.m === "udp" || m.m === "sctp") {
      s += " " + matchRestore(m) + dst();
      if (m.dport !== undefined) s += ` --dport ${m.dport}`;
      s += src();
      addrs = true;
      continue;
    }
    if (m.m === "conntrack" && !addrs) {
      s += dst() + src();
      addrs = true;
    }
    s += " " + matchRestore(m);
  }
  if (!addrs) s += dst() + src();
  if (r.target) s += " " + targetRestore(r.target);
  return s;
}

/** The service name in a comment: up to the first space or colon (orderByCommentServiceName). */
function commentServiceName(r: Rule): string | undefined {
  const c = r.matches.find((m) => m.m === "comment");
  if (!c || c.m !== "comment") return undefined;
  const i = c.text.search(/[ :]/);
  return i < 0 ? c.text : c.text.slice(0, i);
}

function byServiceName(a: Rule, b: Rule): number {
  const x = commentServiceName(a);
  const y = commentServiceName(b);
  if (x === undefined || y === undefined) return 0;
  return cmp(x, y);
}

function testChainOrder(a: string, b: string): number {
  const rank = (n: string) => (n === KUBE_NODEPORTS ? 0 : n === KUBE_SERVICES ? 1 : n.startsWith("KUBE-") ? 2 : 3);
  const ra = rank(a);
  const rb = rank(b);
  return ra !== rb ? ra - rb : cmp(a, b);
}

/**
 * kube-proxy's restore input (`*filter` and `*nat`, only the chains it writes) after its tests'
 * sortIPTablesRules: tables by name; KUBE-NODEPORTS, KUBE-SERVICES, then the other chains by name;
 * rules grouped by chain; KUBE-NODEPORTS and KUBE-SERVICES rules stably sorted by the service
 * name in their comment, the nodeports tail rule kept last.
 */
export function* restoreLines(rs: Ruleset): Generator<string> {
  const tables = rs.tables.filter((t) => t.name === "filter" || t.name === "nat").sort((a, b) => cmp(a.name, b.name));
  for (const t of tables) {
    const chains = [...t.chains.values()].filter((c) => c.origin === "restore").sort((a, b) => testChainOrder(a.name, b.name));
    yield `*${t.name}`;
    for (const c of chains) yield `:${c.name} - [0:0]`;
    for (const c of chains) {
      let rules = c.rules;
      if (c.name === KUBE_NODEPORTS || c.name === KUBE_SERVICES) {
        rules = rules.slice().sort((a, b) => {
          if (t.name === "nat" && c.name === KUBE_SERVICES) {
            const la = isNodePortsTail(a);
            const lb = isNodePortsTail(b);
            if (la !== lb) return la ? 1 : -1;
            if (la) return 0;
          }
          return byServiceName(a, b);
        });
      }
      for (const r of rules) yield restoreRule(c.name, r);
    }
    yield "COMMIT";
  }
}

function isNodePortsTail(r: Rule): boolean {
  return r.matches.some((m) => m.m === "comment" && m.text.includes("must be the last rule"));
}

// ---------------------------------------------------------------------------------------------
// iptables -L

/** The node's packet and byte counters, for -v, iptables-save's chain lines and -c (zero when absent). */
export interface CounterSource {
  rule(table: string, chain: string, index: number, rule: Rule): { packets: number; bytes: number } | undefined;
  policy(table: string, chain: string): { packets: number; bytes: number } | undefined;
}

/**
 * xtables_print_num: exact with -x ("%8llu "), else up to 99999 as is ("%5llu ") and above in
 * K, M, G, T rounded ("%4lluK "); `table` false drops the padding (FMT_NOTABLE: policy lines).
 */
function counterText(n: number, exact: boolean, table: boolean): string {
  if (exact) return table ? `${padLeft(String(n), 8)} ` : `${n} `;
  if (n <= 99999) return table ? `${padLeft(String(n), 5)} ` : `${n} `;
  let v = n;
  for (const unit of ["K", "M", "G"]) {
    v = Math.floor((v + 500) / 1000);
    if (v <= 9999) return table ? `${padLeft(String(v), 4)}${unit} ` : `${v}${unit} `;
  }
  v = Math.floor((v + 500) / 1000);
  return table ? `${padLeft(String(v), 4)}T ` : `${v}T `;
}

export interface ListOptions {
  /** Counters for -v (zero without). */
  counters?: CounterSource;
  table?: string;
  chain?: string;
  /** -n: no name lookups (addresses, ports, protocols as numbers). */
  numeric?: boolean;
  /** -v: counters, interfaces, policy counters. */
  verbose?: boolean;
  /** -x: exact counters (wider columns). */
  exact?: boolean;
  lineNumbers?: boolean;
  /** Name lookup for host addresses without -n (default: 127.0.0.1 is localhost, others stay numeric). */
  resolveHost?: HostResolver;
}

const PROTO_NUM: Record<string, number> = { tcp: 6, udp: 17, sctp: 132 };

function port(proto: string, n: number, numeric: boolean): string {
  return numeric ? String(n) : (serviceName(proto, n) ?? String(n));
}

/** Without -n, host addresses are looked up (/etc/hosts, DNS); the node's own /etc/hosts knows localhost. */
type HostResolver = (ip: string) => string | undefined;
const defaultHosts: HostResolver = (ip) => (ip === "127.0.0.1" ? "localhost" : undefined);

/** Address column: 0.0.0.0/0, a host without /32, or a CIDR; names from /etc/networks unless -n. */
function listAddr(a: string | undefined, numeric: boolean, hosts: HostResolver): string {
  if (a === undefined || a === "0.0.0.0/0") return numeric ? "0.0.0.0/0" : "anywhere";
  const [ip, bits] = a.split("/");
  const host = bits === undefined || bits === "32" ? ip : `${ip}/${bits}`;
  if (numeric) return host;
  if (bits === undefined || bits === "32") return hosts(ip) ?? ip;
  if (ip === "127.0.0.0" && bits !== undefined && bits !== "32") return `loopback/${bits}`;
  if (ip === "169.254.0.0" && bits !== undefined && bits !== "32") return `link-local/${bits}`;
  return host;
}

function matchList(m: Match, numeric: boolean): string {
  switch (m.m) {
    case "comment":
      return ` /* ${m.text} */`;
    case "tcp":
    case "udp":
    case "sctp":
      return m.dport === undefined ? ` ${m.m}` : ` ${m.m} dpt:${port(m.m, m.dport, numeric)}`;
    case "addrtype":
      return ` ADDRTYPE match${m.srcType ? ` src-type ${m.srcType}` : ""}${m.dstType ? ` dst-type ${m.dstType}` : ""}`;
    case "statistic":
      return ` statistic mode random probability ${kernelProbability(m.probability)}`;
    case "recent":
      return m.op === "rcheck"
        ? ` recent: CHECK${m.seconds !== undefined ? ` seconds: ${m.seconds}` : ""}${m.reap ? " reap" : ""} name: ${m.name} side: source mask: 255.255.255.255`
        : ` recent: SET name: ${m.name} side: source mask: 255.255.255.255`;
    case "conntrack":
      return ` ${m.invert ? "! " : ""}ctstate ${ctstates(m.ctstate)}`;
    case "mark":
      return ` mark match ${m.invert ? "! " : ""}${hex(m.value)}/${hex(m.mask)}`;
    case "nfacct":
      return ` nfacct-name  ${m.name}`;
    case "set":
      return ` match-set ${m.name} ${m.flags}`;
  }
}

function targetList(t: Target | null): string {
  if (!t) return "";
  switch (t.t) {
    case "REJECT":
      return " reject-with icmp-port-unreachable";
    case "DNAT":
      return ` to:${t.to}`;
    case "MARK":
      return ` MARK ${t.op} ${hex(t.value)}`;
    case "MASQUERADE":
      return t.randomFully ? " random-fully" : "";
    default:
      return "";
  }
}

function targetName(t: Target | null): string {
  if (!t) return "";
  return t.t === "jump" ? t.chain : t.t;
}

function pad(s: string, width: number): string {
  return s.length >= width ? s : s + " ".repeat(width - s.length);
}
function padLeft(s: string, width: number): string {
  return s.length >= width ? s : " ".repeat(width - s.length) + s;
}

function header(o: ListOptions): string {
  let h = o.lineNumbers ? "num  " : "";
  if (o.verbose) h += o.exact ? "    pkts      bytes " : " pkts bytes ";
  h += "target     prot opt ";
  if (o.verbose) h += "in     out     ";
  return h + "source               destination         ";
}

function listRule(r: Rule, n: number, o: ListOptions, c: { packets: number; bytes: number } | undefined): string {
  const numeric = o.numeric === true;
  let s = o.lineNumbers ? pad(String(n), 4) + " " : "";
  if (o.verbose) s += counterText(c?.packets ?? 0, o.exact === true, true) + counterText(c?.bytes ?? 0, o.exact === true, true);
  s += pad(targetName(r.target), 9) + " ";
  s += " ";
  s += r.proto ? (numeric ? pad(String(PROTO_NUM[r.proto]), 5) : pad(r.proto, 5)) : numeric ? "0    " : "all  ";
  s += "-- ";
  // print_ifaces: " %-6s " for in, "%-6s " for out.
  if (o.verbose) s += " " + pad(numeric ? "*" : "any", 6) + " " + pad(numeric ? "*" : "any", 6) + " ";
  const hosts = o.resolveHost ?? defaultHosts;
  s += (r.srcNeg ? "!" : " ") + pad(listAddr(r.src, numeric, hosts), 19) + " ";
  s += (r.dstNeg ? "!" : " ") + pad(listAddr(r.dst, numeric, hosts), 19) + " ";
  for (const m of r.matches) s += matchList(m, numeric);
  return s + targetList(r.target);
}

function* listChain(t: Table, c: Chain, refs: number, o: ListOptions): Generator<string> {
  if (c.policy) {
    const pc = o.verbose ? o.counters?.policy(t.name, c.name) : undefined;
    const x = o.exact === true;
    yield o.verbose ? `Chain ${c.name} (policy ${c.policy} ${counterText(pc?.packets ?? 0, x, false)}packets, ${counterText(pc?.bytes ?? 0, x, false)}bytes)` : `Chain ${c.name} (policy ${c.policy})`;
  } else {
    yield `Chain ${c.name} (${refs} references)`;
  }
  yield header(o);
  let n = 1;
  for (const r of c.rules) {
    yield listRule(r, n, o, o.verbose ? o.counters?.rule(t.name, c.name, n - 1, r) : undefined);
    n++;
  }
}

function referenceCounts(t: Table): Map<string, number> {
  const refs = new Map<string, number>();
  for (const c of t.chains.values()) {
    for (const r of c.rules) if (r.target?.t === "jump") refs.set(r.target.chain, (refs.get(r.target.chain) ?? 0) + 1);
  }
  return refs;
}

/** `iptables [-t TABLE] -L [CHAIN] [-n] [-v] [-x] [--line-numbers]`. */
export function iptablesList(rs: Ruleset, o: ListOptions = {}): RenderResult {
  const tname = o.table ?? "filter";
  const t = tableView(rs, tname);
  if (!t) return noTable(tname);
  if (o.chain !== undefined) {
    const c = t.chains.get(o.chain);
    if (!c) return noChain(tname, o.chain);
    return { lines: listChain(t, c, referenceCounts(t).get(c.name) ?? 0, o), stderr: "", exitCode: 0 };
  }
  return { lines: listAll(t, o), stderr: "", exitCode: 0 };
}

function* listAll(t: Table, o: ListOptions): Generator<string> {
  const refs = referenceCounts(t);
  let first = true;
  for (const c of chainOrder(t)) {
    if (!first) yield "";
    first = false;
    yield* listChain(t, c, refs.get(c.name) ?? 0, o);
  }
}
