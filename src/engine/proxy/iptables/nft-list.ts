// `nft list ruleset` on a node in iptables mode: iptables is iptables-nft (v1.8.9, nf_tables), so
// its tables are nf_tables tables, and nft 1.0.6 prints them as below. Every shape here was read
// off the real nft after `iptables-restore` of our iptables-save (kernel.test.ts checks it):
//  - tables and chains in creation order, i.e. iptables-save's (built-ins, then user chains by name);
//  - every rule carries iptables-nft's counter (`counter packets N bytes M`);
//  - the rule's items are joined by one space, and some print as nothing, hence the double spaces:
//    `-m comment` (kept as an xt match nft does not show), `-m tcp` without --dport;
//  - `-p`, `-s`, `-d` print first (`meta l4proto tcp ip saddr ... ip daddr ...`), /32 dropped;
//  - matches nft has no native form for print as `xt match NAME`; a table holding any xt match
//    (comments included) gets nft's warning on stderr.
import { type Chain, type CtState, type Match, type Rule, type Ruleset, type Table, type Target } from "./model.js";
import { nftError, type CommandResult as NftResult } from "../nftables/render.js";
import { chainOrder, type CounterSource } from "./render.js";

const BASE: Record<string, Record<string, string>> = {
  filter: {
    INPUT: "type filter hook input priority filter;",
    FORWARD: "type filter hook forward priority filter;",
    OUTPUT: "type filter hook output priority filter;",
  },
  nat: {
    PREROUTING: "type nat hook prerouting priority dstnat;",
    INPUT: "type nat hook input priority 100;",
    OUTPUT: "type nat hook output priority -100;",
    POSTROUTING: "type nat hook postrouting priority srcnat;",
  },
  mangle: {
    PREROUTING: "type filter hook prerouting priority mangle;",
    INPUT: "type filter hook input priority mangle;",
    FORWARD: "type filter hook forward priority mangle;",
    OUTPUT: "type route hook output priority mangle;",
    POSTROUTING: "type filter hook postrouting priority mangle;",
  },
};

function addr(a: string): string {
  return a.endsWith("/32") ? a.slice(0, -3) : a;
}

function hex8(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, "0")}`;
}

function ctText(states: readonly CtState[], invert: boolean): string {
  // iptables-nft turns the DNAT/SNAT pseudo-states into a ct status test; nft 1.0.6 then shows
  // only that part of the match (checked: `! --ctstate RELATED,ESTABLISHED,DNAT` lists so).
  if (states.includes("DNAT")) return "ct status dnat";
  if (states.includes("SNAT")) return "ct status snat";
  const order: readonly CtState[] = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED"];
  return `ct state ${invert ? "! " : ""}${order.filter((s) => states.includes(s)).map((s) => s.toLowerCase()).join(",")}`;
}

/** What a match prints as, and whether it is an xt (compat) expression. */
function matchText(m: Match): { text: string; xt: boolean } {
  switch (m.m) {
    case "comment":
      return { text: "", xt: true };
    case "tcp":
    case "udp":
    case "sctp":
      return { text: m.dport === undefined ? "" : `${m.m} dport ${m.dport}`, xt: false };
    case "addrtype":
      return { text: m.srcType ? "fib saddr type local" : "fib daddr type local", xt: false };
    case "statistic":
      return { text: `meta random & 2147483647 < ${Math.round(m.probability * 0x80000000)}`, xt: false };
    case "conntrack":
      return { text: ctText(m.ctstate, m.invert), xt: false };
    case "mark":
      return { text: `meta mark & ${hex8(m.mask)} ${m.invert ? "!=" : "=="} ${hex8(m.value)}`, xt: false };
    case "recent":
    case "nfacct":
    case "set":
      // recent checked against the kernel; nfacct and set need kernel objects this check
      // cannot create, and are printed the same way as every other xt match.
      return { text: `xt match ${m.m}`, xt: true };
  }
}

function targetText(t: Target): string {
  switch (t.t) {
    case "jump":
      return `jump ${t.chain}`;
    case "ACCEPT":
    case "DROP":
    case "RETURN":
    case "REJECT":
      return t.t.toLowerCase();
    case "DNAT":
      return `dnat to ${t.to}`;
    case "MARK":
      return `meta mark set mark ${t.op} 0x${t.value.toString(16)}`;
    case "MASQUERADE":
      return t.randomFully ? "masquerade fully-random" : "masquerade";
  }
}

/** One rule as nft lists it (without the leading tabs). */
function nftRuleText(r: Rule, c: { packets: number; bytes: number } | undefined): string {
  const items: string[] = [];
  const head: string[] = [];
  if (r.proto !== undefined) head.push(`meta l4proto ${r.proto}`);
  if (r.src !== undefined) head.push(`ip saddr ${r.srcNeg ? "!= " : ""}${addr(r.src)}`);
  if (r.dst !== undefined) head.push(`ip daddr ${r.dstNeg ? "!= " : ""}${addr(r.dst)}`);
  if (head.length) items.push(head.join(" "));
  for (const m of r.matches) items.push(matchText(m).text);
  items.push(`counter packets ${c?.packets ?? 0} bytes ${c?.bytes ?? 0}`);
  if (r.target) items.push(targetText(r.target));
  return items.join(" ");
}

function hasXt(t: Table): boolean {
  for (const c of t.chains.values()) for (const r of c.rules) for (const m of r.matches) if (matchText(m).xt) return true;
  return false;
}

/**
 * nft -a: the handles the kernel gives after `iptables-restore` of iptables-save's text (checked):
 * tables 1, 2... in order; in each table its chains 1..n in order, then the rules chain by chain.
 * They are those of a fresh restore: kube-proxy's incremental syncs here do not renumber them.
 */
class RestoreHandles {
  private readonly chains = new Map<string, number>();
  private readonly firstRule = new Map<string, number>();
  constructor(readonly table: number, t: Table) {
    const order = chainOrder(t);
    let n = 0;
    for (const c of order) this.chains.set(c.name, ++n);
    for (const c of order) {
      this.firstRule.set(c.name, n + 1);
      n += c.rules.length;
    }
  }
  chain(name: string): string {
    return ` # handle ${this.chains.get(name)}`;
  }
  rule(name: string, i: number): string {
    return ` # handle ${this.firstRule.get(name)! + i}`;
  }
}

function* chainLines(table: string, c: Chain, counters: CounterSource | undefined, h?: RestoreHandles): Generator<string> {
  yield `\tchain ${c.name} {${h ? h.chain(c.name) : ""}`;
  const base = c.origin === "builtin" ? BASE[table]?.[c.name] : undefined;
  if (base) yield `\t\t${base} policy ${(c.policy ?? "ACCEPT").toLowerCase()};`;
  let i = 0;
  for (const r of c.rules) {
    yield `\t\t${nftRuleText(r, counters?.rule(table, c.name, i, r))}${h ? h.rule(c.name, i) : ""}`;
    i++;
  }
  yield "\t}";
}

function* tableLines(t: Table, counters: CounterSource | undefined, h?: RestoreHandles): Generator<string> {
  yield `table ip ${t.name} {${h ? ` # handle ${h.table}` : ""}`;
  let first = true;
  for (const c of chainOrder(t)) {
    if (!first) yield "";
    first = false;
    yield* chainLines(t.name, c, counters, h);
  }
  yield "}";
}

const warning = (t: Table) => (hasXt(t) ? `# Warning: table ip ${t.name} is managed by iptables-nft, do not touch!\n` : "");

const FAMILIES = new Set(["ip", "ip6", "inet", "arp", "bridge", "netdev"]);
const ENOENT = "No such file or directory";

/**
 * `nft list ruleset|tables|table|chains|chain|sets|maps ...` over iptables-nft's tables
 * (`table ip filter`, `table ip nat`...), with nft's warnings on stderr where nft prints them
 * (ruleset, table, chain listings).
 */
export function iptablesNftList(rs: Ruleset, words: readonly string[], counters?: CounterSource, opts: { handles?: boolean } = {}): NftResult {
  const handles = (t: Table) => (opts.handles ? new RestoreHandles(rs.tables.indexOf(t) + 1, t) : undefined);
  let out = "";
  let err = "";
  const put = (lines: Iterable<string>) => {
    for (const l of lines) out += `${l}\n`;
  };
  if (words[0] !== "list" || words.length < 2) return nftError("syntax error, unexpected newline", words, words.length);
  const what = words[1]!;
  let i = 2;
  let family = "ip";
  if (i < words.length && FAMILIES.has(words[i]!)) family = words[i++]!;
  const tables = family === "ip" ? rs.tables : [];
  const done = (): NftResult => ({ stdout: out, stderr: err, exitCode: 0 });
  switch (what) {
    case "ruleset":
      for (const t of tables) {
        err += warning(t);
        put(tableLines(t, counters, handles(t)));
      }
      return done();
    case "tables":
      for (const t of tables) out += `table ip ${t.name}\n`;
      return done();
    case "chains":
    case "sets":
    case "maps":
      for (const t of tables) {
        out += `table ip ${t.name} {\n`;
        if (what === "chains") {
          for (const c of chainOrder(t)) {
            out += `\tchain ${c.name} {${handles(t)?.chain(c.name) ?? ""}\n`;
            const base = c.origin === "builtin" ? BASE[t.name]?.[c.name] : undefined;
            if (base) out += `\t\t${base} policy ${(c.policy ?? "ACCEPT").toLowerCase()};\n`;
            out += "\t}\n";
          }
        }
        out += "}\n";
      }
      return done();
    case "table":
    case "chain": {
      if (i >= words.length) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      const t = tables.find((x) => x.name === words[i]);
      if (!t) return nftError(ENOENT, words, i);
      if (what === "table") {
        err += warning(t);
        put(tableLines(t, counters, handles(t)));
        return done();
      }
      const name = words[i + 1];
      if (name === undefined) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      const c = t.chains.get(name);
      if (!c) return nftError(ENOENT, words, i + 1);
      err += warning(t);
      put([`table ip ${t.name} {`, ...chainLines(t.name, c, counters, handles(t)), "}"]);
      return done();
    }
    case "set":
    case "map": {
      if (i >= words.length) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      if (!tables.some((x) => x.name === words[i])) return nftError(ENOENT, words, i);
      if (words[i + 1] === undefined) return nftError("syntax error, unexpected newline, expecting string", words, words.length);
      return nftError(ENOENT, words, i + 1);
    }
    default:
      return nftError(`syntax error, unexpected ${what}`, words, 1);
  }
}
