// Evaluates a node's iptables ruleset (proxy/iptables/model.ts) for one packet, rule by rule, in
// the kernel's order. The tracer knows exactly the matches and targets the proxier emits (the
// shapes listed at the top of model.ts); anything else throws UnknownRuleShape, so a new rule
// shape can never route silently wrong.
import { type Chain, type Match, type Rule, type Ruleset, type Table, type Target, chainsVersion } from "../proxy/iptables/model.js";
import { saveRule, kernelProbability } from "../proxy/iptables/render.js";
import { IpsetEntries } from "../proxy/ipvs/index.js";
import { DnatRule, EndpointChain, EndpointJumpRule, PolicyChain, statisticMatch } from "../proxy/iptables/compact.js";
import { type CompiledRules, HiddenSlot, addrMatcher, compiledRules } from "./compiled.js";
import { type EvalContext, HOOK_NAMES, type HookName, type HookOutcome, type Pkt, UnknownRuleShape, addrMatches, hookNum } from "./context.js";

// The classes the packet path tests with instanceof, as module-local constants: under tsx (npm
// start, npm run bench) an imported class is a binding V8 does not fold, and instanceof against
// it is the generic operation each time (~17 ns against ~3 ns, measured; IPVS mode makes one per
// ipset match, iptables mode two per KUBE-SVC and KUBE-SEP rule).
const PolicyChainC = PolicyChain;
const EndpointChainC = EndpointChain;
const EndpointJumpRuleC = EndpointJumpRule;
const DnatRuleC = DnatRule;
const IpsetEntriesC = IpsetEntries;

/** Tables registered on each hook, in priority order (mangle -150, nat -100 / +100, filter 0). */
const HOOK_TABLES: Record<HookName, ReadonlyArray<readonly [string, string]>> = {
  prerouting: [
    ["mangle", "PREROUTING"],
    ["nat", "PREROUTING"],
  ],
  input: [
    ["mangle", "INPUT"],
    ["filter", "INPUT"],
    ["nat", "INPUT"],
  ],
  forward: [
    ["mangle", "FORWARD"],
    ["filter", "FORWARD"],
  ],
  output: [
    ["mangle", "OUTPUT"],
    ["nat", "OUTPUT"],
    ["filter", "OUTPUT"],
  ],
  postrouting: [
    ["mangle", "POSTROUTING"],
    ["nat", "POSTROUTING"],
  ],
};

const MAX_DEPTH = 32;

type Outcome =
  | { t: "continue" } // fell off a user chain or RETURN: back to the caller
  | { t: "accept" }
  | { t: "drop"; reason: string }
  | { t: "reject"; reason: string };

const CONTINUE: Outcome = { t: "continue" };
const ACCEPT: Outcome = { t: "accept" };

/** Runs every table's built-in chain on `hook`. nat chains only see a connection's first packet. */
export function iptablesHook(rs: Ruleset, hook: HookName, pkt: Pkt, ctx: EvalContext): HookOutcome {
  const idx = hookIndex(rs);
  if (idx !== undefined) {
    const on = idx.byHook[hookNum(hook)];
    for (let i = 0; i < on.length; i++) {
      const e = on[i];
      const out = runHookChain(e.table, e.chain, pkt, ctx, e);
      if (out !== undefined) return out;
    }
    return HOOK_ACCEPT;
  }
  const tables = HOOK_TABLES[hook];
  for (let i = 0; i < tables.length; i++) {
    const table = findTable(rs, tables[i][0]);
    const chain = table?.chains.get(tables[i][1]);
    if (!table || !chain) continue;
    const out = runHookChain(table, chain, pkt, ctx);
    if (out !== undefined) return out;
  }
  return HOOK_ACCEPT;
}

/**
 * A hook's built-in chain of one table: its drop or reject, or undefined (on to the next table).
 * `entry`: the chain's hook index entry, which keeps its compiled rules for the compiled path.
 */
function runHookChain(table: Table, chain: Chain, pkt: Pkt, ctx: EvalContext, entry?: HookEntry): HookOutcome | undefined {
  // nat chains only see a connection's first packet.
  if (table.name === "nat" && !pkt.ctNew) return undefined;
  if (chain.rules.length === 0 && ctx.trace === undefined) return undefined;
  let out: Outcome;
  if (entry !== undefined && compiledPath(ctx)) out = runCompiled(table, (entry.compiled = compiledFrom(entry.compiled, chain)), pkt, ctx, 0);
  else out = runChain(table, chain, pkt, ctx, 0);
  if (out.t === "drop" || out.t === "reject") return out;
  if (out.t === "continue" && chain.policy === "DROP") {
    ctx.step({ kind: "verdict", table: table.name, chain: chain.name, text: `policy DROP of ${table.name}/${chain.name}` });
    return { t: "drop", reason: `policy DROP in ${table.name} ${chain.name}` };
  }
  return undefined;
}

/**
 * A ruleset's built-in chains per hook (HOOK_TABLES' order, the tables and chains present),
 * kept on the ruleset while its tables array is the same and each table's chains keep their
 * version. Only for rulesets whose tables are all VersionedChains (a merged ruleset after a
 * mode switch is made anew on each read: it looks its chains up by name).
 */
interface HookIndex {
  readonly tables: readonly Table[];
  readonly versions: readonly number[];
  readonly byHook: readonly (readonly HookEntry[])[];
}
/** A built-in chain on a hook; `compiled`: its rules as last compiled (see compiledFrom). */
interface HookEntry {
  readonly table: Table;
  readonly chain: Chain;
  compiled: Compiled | undefined;
}
const HOOK_INDEX = new HiddenSlot<Ruleset, HookIndex>("hook chains");

function hookIndex(rs: Ruleset): HookIndex | undefined {
  const tables = rs.tables;
  const idx = HOOK_INDEX.get(rs);
  if (idx !== undefined && idx.tables === tables) {
    let current = true;
    for (let i = 0; i < tables.length; i++) if (chainsVersion(tables[i].chains) !== idx.versions[i]) current = false;
    if (current) return idx;
  }
  return buildHookIndex(rs, tables);
}

/** hookIndex's building, apart: its closure would allocate a context on every hookIndex call (see compiled.ts). */
function buildHookIndex(rs: Ruleset, tables: readonly Table[]): HookIndex | undefined {
  const versions: number[] = [];
  for (const t of tables) {
    const v = chainsVersion(t.chains);
    if (v === undefined) return undefined;
    versions.push(v);
  }
  const byHook = HOOK_NAMES.map((hook) => {
    const on: HookEntry[] = [];
    for (const [tname, cname] of HOOK_TABLES[hook]) {
      const table = findTable(rs, tname);
      const chain = table?.chains.get(cname);
      if (table && chain) on.push({ table, chain, compiled: undefined });
    }
    return on;
  });
  const fresh: HookIndex = { tables, versions, byHook };
  HOOK_INDEX.set(rs, fresh);
  return fresh;
}

/** Shared: callers only read a hook outcome. */
const HOOK_ACCEPT: HookOutcome = Object.freeze({ t: "accept" });

function findTable(rs: Ruleset, name: string): Table | undefined {
  const ts = rs.tables;
  for (let i = 0; i < ts.length; i++) if (ts[i].name === name) return ts[i];
  return undefined;
}

/** Tracing: one `skip` step for the rules skippedFrom+1..upTo that did not match. */
function flushSkips(table: Table, chain: Chain, ctx: EvalContext, skippedFrom: number, upTo: number): void {
  if (upTo > skippedFrom) {
    const a = skippedFrom + 1;
    const n = upTo - skippedFrom;
    ctx.step({
      kind: "skip",
      table: table.name,
      chain: chain.name,
      rule: a,
      count: n,
      text: n === 1 ? `rule ${a} did not match` : `rules ${a}-${upTo} did not match`,
    });
  }
}

/** Chains run compiled without a trace in IPVS mode (its fixed chains); iptables mode reads its rules. */
function compiledPath(ctx: EvalContext): boolean {
  return ctx.trace === undefined && ctx.ipvs !== undefined;
}

function tooDeep(table: Table, chain: Chain): Error {
  return new Error(`packet tracer: jump depth over ${MAX_DEPTH} at ${table.name}/${chain.name}`);
}

function runChain(table: Table, chain: Chain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  if (depth > MAX_DEPTH) throw tooDeep(table, chain);
  if (compiledPath(ctx)) return runCompiled(table, compiled(chain), pkt, ctx, depth);
  const tracing = ctx.trace !== undefined;
  const rules = chain.rules;
  if (tracing) ctx.step({ kind: "chain", table: table.name, chain: chain.name, text: `-> ${table.name} ${chain.name} (${rules.length} rules)` });
  let skippedFrom = 0;
  // Compact endpoint rules are only in KUBE-SVC/SVL and KUBE-SEP chains (compact.ts): the check
  // is made once per chain, not per rule of KUBE-SERVICES' thousands (and under tsx an imported
  // class read per rule was a generic instanceof each: iptables at 1k Services ran at a third).
  const compact = !tracing && (chain instanceof PolicyChainC || chain instanceof EndpointChainC);
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    ctx.rules++;
    if (compact && (r instanceof EndpointJumpRuleC || r instanceof DnatRuleC) && r.ep.svc.sticky === 0) {
      const out = r instanceof EndpointJumpRuleC ? endpointJump(table, chain, r, pkt, ctx, depth, i + 1) : endpointDnat(table, chain, r, pkt, ctx, depth, i + 1);
      if (out === undefined || out.t === "continue") continue;
      return out;
    }
    if (!ruleMatches(r, pkt, ctx, chain.name, i + 1, tracing)) continue;
    if (tracing) {
      flushSkips(table, chain, ctx, skippedFrom, i);
      skippedFrom = i + 1;
      ctx.step({ kind: "rule", table: table.name, chain: chain.name, rule: i + 1, text: `${i + 1}: ${saveRule(chain.name, r)}` });
    }
    const t = r.target;
    if (t === null) continue; // no -j: the rule only counts
    const out = applyTarget(table, chain, t, pkt, ctx, depth, i + 1);
    if (out === undefined) continue; // non-terminating (MARK)
    if (out.t === "continue") {
      if (t.t === "RETURN") {
        return CONTINUE;
      }
      continue; // came back from a user chain
    }
    return out;
  }
  if (tracing) flushSkips(table, chain, ctx, skippedFrom, rules.length);
  if (tracing && chain.origin !== "builtin") ctx.step({ kind: "chain", table: table.name, chain: chain.name, text: `<- end of ${chain.name}, return` });
  return CONTINUE;
}

// ---- Compact endpoint rules without ClientIP affinity (no trace) ------------------------------
//
// A KUBE-SVC chain's jumps to its endpoints and a KUBE-SEP chain's DNAT rule are compact rules
// (proxy/iptables/compact.ts) that make their matches and targets on each read (a comment
// string, match and target objects: most of what an iptables-mode connection allocated). These
// run them from their fields: the same matches in the same order, the same draws and effects.

/**
 * [-m comment --comment "<spn> -> IP:port"] [-m statistic --mode random --probability 1/remaining] -j KUBE-SEP-...
 * undefined: no match.
 */
function endpointJump(table: Table, chain: Chain, r: EndpointJumpRule, pkt: Pkt, ctx: EvalContext, depth: number, n: number): Outcome | undefined {
  if (r.remaining > 1 && !matchOne(statisticMatch(r.remaining), pkt, ctx, chain.name, n, false)) return undefined;
  return jump(table, chain, r.ep.name, pkt, ctx, depth, n);
}

/** [-m comment --comment <spn>] -m P -p P -j DNAT --to-destination IP:port. undefined: no match. */
function endpointDnat(table: Table, chain: Chain, r: DnatRule, pkt: Pkt, ctx: EvalContext, depth: number, n: number): Outcome | undefined {
  if (pkt.proto !== r.ep.svc.proto) return undefined;
  const info = r.ep.info;
  if (info.ip.includes(":")) return applyTarget(table, chain, r.target, pkt, ctx, depth, n);
  // IPv4: the target's IP:port (endpointString) read back as DNAT reads it is the address and port.
  pkt.dst = info.ip;
  pkt.dport = info.port;
  pkt.dnat = true;
  return ACCEPT;
}

/** `-j name` from rule n of `chain`: the chain of that name in the table (never a missing one) runs. */
function jump(table: Table, chain: Chain, name: string, pkt: Pkt, ctx: EvalContext, depth: number, n: number): Outcome {
  const next = table.chains.get(name);
  if (!next) throw new Error(`packet tracer: ${table.name}/${chain.name} rule ${n} jumps to missing chain ${name}`);
  return runChain(table, next, pkt, ctx, depth + 1);
}

/** undefined: keep going with the next rule. */
function applyTarget(table: Table, chain: Chain, t: Target, pkt: Pkt, ctx: EvalContext, depth: number, n: number): Outcome | undefined {
  switch (t.t) {
    case "jump":
      return jump(table, chain, t.chain, pkt, ctx, depth, n);
    case "ACCEPT":
      return ACCEPT;
    case "RETURN":
      return CONTINUE;
    case "DROP":
      ctx.step({ kind: "verdict", table: table.name, chain: chain.name, rule: n, text: `DROP by ${table.name} ${chain.name} rule ${n}` });
      return { t: "drop", reason: `DROP in ${table.name} ${chain.name} rule ${n}${commentOf(chain.rules[n - 1])}` };
    case "REJECT":
      ctx.step({ kind: "verdict", table: table.name, chain: chain.name, rule: n, text: `REJECT (icmp-port-unreachable) by ${table.name} ${chain.name} rule ${n}` });
      return { t: "reject", reason: `REJECT in ${table.name} ${chain.name} rule ${n}${commentOf(chain.rules[n - 1])}` };
    case "DNAT": {
      const to = t.to;
      const c = to.lastIndexOf(":");
      const ip = c < 0 ? to : to.slice(0, c);
      const port = c < 0 ? pkt.dport : Number(to.slice(c + 1));
      ctx.step({ kind: "nat", table: table.name, chain: chain.name, rule: n, text: `DNAT ${pkt.dst}:${pkt.dport} -> ${ip}:${port}` });
      pkt.dst = ip;
      pkt.dport = port;
      pkt.dnat = true;
      return ACCEPT;
    }
    case "MARK":
      pkt.mark = t.op === "or" ? (pkt.mark | t.value) >>> 0 : (pkt.mark ^ t.value) >>> 0;
      if (ctx.trace) ctx.step({ kind: "rule", table: table.name, chain: chain.name, rule: n, text: `mark ${t.op} 0x${t.value.toString(16)} -> mark 0x${pkt.mark.toString(16)}` });
      return undefined;
    case "MASQUERADE":
      pkt.masquerade = true;
      return ACCEPT;
    default:
      throw new UnknownRuleShape(`iptables target ${JSON.stringify(t)}`);
  }
}

function commentOf(r: Rule | undefined): string {
  if (!r) return "";
  for (const m of r.matches) if (m.m === "comment") return ` ("${m.text}")`;
  return "";
}

function ruleMatches(r: Rule, pkt: Pkt, ctx: EvalContext, chain: string, n: number, tracing: boolean): boolean {
  // The IP header fields first, as ip_packet_match does.
  if (r.dst !== undefined && addrMatches(r.dst, pkt.dst) === r.dstNeg) return false;
  if (r.src !== undefined && addrMatches(r.src, pkt.src) === r.srcNeg) return false;
  if (r.proto !== undefined && r.proto !== pkt.proto) return false;
  const ms = r.matches;
  for (let i = 0; i < ms.length; i++) {
    if (!matchOne(ms[i], pkt, ctx, chain, n, tracing)) return false;
  }
  return true;
}

function matchOne(m: Match, pkt: Pkt, ctx: EvalContext, chain: string, n: number, tracing: boolean): boolean {
  switch (m.m) {
    case "comment":
    case "nfacct":
      return true;
    case "tcp":
    case "udp":
    case "sctp":
      return pkt.proto === m.m && (m.dport === undefined || m.dport === pkt.dport);
    case "addrtype":
      if (m.srcType === "LOCAL" && !ctx.isLocal(pkt.src)) return false;
      if (m.dstType === "LOCAL" && !ctx.isLocal(pkt.dst)) return false;
      return true;
    case "statistic": {
      // xt_statistic: (prandom_u32() & 0x7FFFFFFF) < probability, stored as lround(p * 2^31).
      const threshold = Math.round(m.probability * 0x80000000);
      const draw = ctx.rng.uint32() & 0x7fffffff;
      const hit = draw < threshold;
      if (tracing) {
        ctx.step({
          kind: "random",
          table: "nat",
          chain,
          rule: n,
          text: `statistic random: draw ${(draw / 0x80000000).toFixed(6)} ${hit ? "<" : ">="} probability ${kernelProbability(m.probability)}: ${hit ? "taken" : "not taken"}`,
        });
      }
      return hit;
    }
    case "recent": {
      let table = ctx.kernel.recent.get(m.name);
      if (m.op === "set") {
        if (!table) ctx.kernel.recent.set(m.name, (table = new Map()));
        table.set(pkt.src, ctx.now);
        if (tracing) ctx.step({ kind: "lookup", table: "nat", chain, rule: n, text: `recent --set: ${pkt.src} recorded in ${m.name}` });
        return true;
      }
      const last = table?.get(pkt.src);
      const fresh = last !== undefined && (m.seconds === undefined || ctx.now - last <= m.seconds * 1000);
      if (m.reap && table) {
        // --reap: forget entries older than --seconds.
        const limit = (m.seconds ?? 0) * 1000;
        for (const [ip, t] of table) if (ctx.now - t > limit) table.delete(ip);
      }
      if (tracing) {
        ctx.step({
          kind: "lookup",
          table: "nat",
          chain,
          rule: n,
          text: `recent --rcheck ${m.name} for ${pkt.src}: ${fresh ? `seen ${Math.round((ctx.now - last!) / 1000)}s ago (affinity)` : last === undefined ? "not seen" : "expired"}`,
        });
      }
      return fresh;
    }
    case "conntrack": {
      let any = false;
      for (const s of m.ctstate) {
        if ((s === "NEW" && pkt.ctNew) || (s === "ESTABLISHED" && !pkt.ctNew) || (s === "DNAT" && pkt.dnat)) any = true;
      }
      return any !== m.invert;
    }
    case "mark":
      return ((pkt.mark & m.mask) >>> 0 === m.value) !== m.invert;
    case "set": {
      const set = ctx.ipvs?.ipset(m.name);
      if (!set) throw new Error(`packet tracer: ipset ${m.name} does not exist`);
      const hit = ipsetHas(set, m.flags, pkt);
      if (tracing) ctx.step({ kind: "lookup", table: "ipset", chain, rule: n, text: `ipset ${m.name} (${set.type}) ${m.flags}: ${hit ? "member" : "not a member"}` });
      return hit;
    }
    default:
      throw new UnknownRuleShape(`iptables match ${JSON.stringify(m)}`);
  }
}

/** Split --match-set flags ("dst,dst"), by flags string. */
const flagCache = new Map<string, string[]>();

function addr(pkt: Pkt, x: string | undefined): string {
  return x === "src" ? pkt.src : pkt.dst;
}
function port(pkt: Pkt, x: string | undefined): number {
  return x === "src" ? pkt.sport : pkt.dport;
}

/**
 * A hash:ip,port (ip2 "") or hash:ip,port,ip entry as ipset lists it ("10.96.0.1,tcp:443",
 * "10.244.1.5,tcp:80,10.244.1.5"). IPVS mode's rules look the same packet up in several such
 * sets; a new string each time also cost its flattening and hashing in every lookup. The last
 * key built is kept (with its hash, once looked up).
 */
const lastEntry = { ip: "", proto: "", port: -1, ip2: "", key: "" };
function ipPortKey(ip: string, proto: string, port: number, ip2 = ""): string {
  const k = lastEntry;
  if (k.ip !== ip || k.proto !== proto || k.port !== port || k.ip2 !== ip2) {
    k.ip = ip;
    k.proto = proto;
    k.port = port;
    k.ip2 = ip2;
    k.key = ip2 === "" ? `${ip},${proto}:${port}` : `${ip},${proto}:${port},${ip2}`;
  }
  return k.key;
}

/** `-m set --match-set NAME flags`: the packet's fields named by flags, as ipset writes entries. */
function ipsetHas(set: { type: string; entries: ReadonlyMap<string, unknown> }, flags: string, pkt: Pkt): boolean {
  let f = flagCache.get(flags);
  if (f === undefined) flagCache.set(flags, (f = flags.split(",")));
  return ipsetHasFields(set, f, pkt);
}

/** ipsetHas with the flags split. */
function ipsetHasFields(set: { type: string; entries: ReadonlyMap<string, unknown> }, f: readonly string[], pkt: Pkt): boolean {
  switch (set.type) {
    case "bitmap:port":
      return pkt.proto !== "icmp" && set.entries.has(String(port(pkt, f[0])));
    case "hash:ip":
      return set.entries.has(addr(pkt, f[0]));
    case "hash:ip,port": {
      if (pkt.proto === "icmp") return false;
      const e = set.entries;
      if (e instanceof IpsetEntriesC) return e.hasIpPort(addr(pkt, f[0]), pkt.proto, port(pkt, f[1]), undefined);
      return e.has(ipPortKey(addr(pkt, f[0]), pkt.proto, port(pkt, f[1])));
    }
    case "hash:ip,port,ip": {
      if (pkt.proto === "icmp") return false;
      const e = set.entries;
      if (e instanceof IpsetEntriesC) return e.hasIpPort(addr(pkt, f[0]), pkt.proto, port(pkt, f[1]), addr(pkt, f[2]));
      return e.has(ipPortKey(addr(pkt, f[0]), pkt.proto, port(pkt, f[1]), addr(pkt, f[2])));
    }
    case "hash:ip,port,net": {
      if (pkt.proto === "icmp") return false;
      const prefix = `${addr(pkt, f[0])},${pkt.proto}:${port(pkt, f[1])},`;
      const third = addr(pkt, f[2]);
      for (const k of set.entries.keys()) if (k.startsWith(prefix) && addrMatches(k.slice(prefix.length), third)) return true;
      return false;
    }
    default:
      throw new UnknownRuleShape(`ipset type ${set.type}`);
  }
}

// ---- IPVS mode: rules compiled once per chain (no trace) --------------------------------------
//
// IPVS mode's iptables rules are a fixed set of small chains (the services are in ipsets), run
// for every connection on every node it crosses. Without a trace they run as closures made once
// per chain from its rule objects (what ruleMatches, matchOne and applyTarget do, with each
// rule's fields read once), kept on the chain in a hidden slot and checked against its rules
// array and rule objects on each use (the proxier replaces and refills the arrays). Closures,
// not generated source: Workers forbid `new Function`. The other modes' rulesets (a chain per
// service and endpoint) keep the generic path: compiling them would cost memory per service.

/** One rule: undefined to go on with the next rule, else the chain's outcome (CONTINUE: RETURN). */
type RuleFn = (table: Table, pkt: Pkt, ctx: EvalContext, depth: number) => Outcome | undefined;
type MatchFn = (pkt: Pkt, ctx: EvalContext) => boolean;

type Compiled = CompiledRules<Rule, RuleFn>;
const COMPILED = new HiddenSlot<Chain, Compiled>("compiled rules");
function compiled(chain: Chain): Compiled {
  return compiledRules(COMPILED, chain, compileRule);
}

/**
 * The chain's compiled rules: `c`, kept by a caller that runs the chain again and again (a
 * compiled jump, a hook index entry), while it stands for them (the chain holds the frozen array
 * it was compiled from, the check compiledRules makes for one), else compiled(chain). Spares the
 * hidden-slot read (a megamorphic keyed load) of each chain run.
 */
function compiledFrom(c: Compiled | undefined, chain: Chain): Compiled {
  return c !== undefined && c.src === chain.rules && c.frozen ? c : compiled(chain);
}

/** runChain's loop over a compiled chain (same count, same outcomes). */
function runCompiled(table: Table, c: Compiled, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  const fns = c.fns;
  for (let i = 0; i < fns.length; i++) {
    ctx.rules++;
    const out = fns[i](table, pkt, ctx, depth);
    if (out !== undefined) return out;
  }
  return CONTINUE;
}

function compileRule(chain: Chain, r: Rule, n: number): RuleFn {
  // The IP header fields first, as ip_packet_match does, then the matches in order.
  const ms: MatchFn[] = [];
  if (r.dst !== undefined) {
    const m = addrMatcher(r.dst);
    const neg = r.dstNeg;
    ms.push((pkt) => m(pkt.dst) !== neg);
  }
  if (r.src !== undefined) {
    const m = addrMatcher(r.src);
    const neg = r.srcNeg;
    ms.push((pkt) => m(pkt.src) !== neg);
  }
  if (r.proto !== undefined) {
    const proto = r.proto;
    ms.push((pkt) => pkt.proto === proto);
  }
  for (const m of r.matches) {
    const f = compileMatch(m, chain.name, n);
    if (f !== undefined) ms.push(f);
  }
  const act = compileTarget(chain, r, n);
  if (ms.length === 0) return act;
  if (ms.length === 1) {
    const m0 = ms[0];
    return (table, pkt, ctx, depth) => (m0(pkt, ctx) ? act(table, pkt, ctx, depth) : undefined);
  }
  return (table, pkt, ctx, depth) => {
    for (let i = 0; i < ms.length; i++) if (!ms[i](pkt, ctx)) return undefined;
    return act(table, pkt, ctx, depth);
  };
}

/** undefined: the match always holds (comment, nfacct). */
function compileMatch(m: Match, chain: string, n: number): MatchFn | undefined {
  switch (m.m) {
    case "comment":
    case "nfacct":
      return undefined;
    case "tcp":
    case "udp":
    case "sctp": {
      const proto = m.m;
      const dport = m.dport;
      return dport === undefined ? (pkt) => pkt.proto === proto : (pkt) => pkt.proto === proto && pkt.dport === dport;
    }
    case "addrtype": {
      const src = m.srcType === "LOCAL";
      const dst = m.dstType === "LOCAL";
      return (pkt, ctx) => (!src || ctx.isLocal(pkt.src)) && (!dst || ctx.isLocal(pkt.dst));
    }
    case "conntrack": {
      const onNew = m.ctstate.includes("NEW");
      const onEstablished = m.ctstate.includes("ESTABLISHED");
      const onDnat = m.ctstate.includes("DNAT");
      const invert = m.invert;
      return (pkt) => ((pkt.ctNew ? onNew : onEstablished) || (onDnat && pkt.dnat)) !== invert;
    }
    case "mark": {
      const { mask, value, invert } = m;
      return (pkt) => ((pkt.mark & mask) >>> 0 === value) !== invert;
    }
    case "set": {
      const name = m.name;
      const f = m.flags.split(",");
      // A handle's set of a name is the same object for the handle's life (IpvsHandle.ipset).
      let handle: EvalContext["ipvs"] = undefined;
      let known: ReturnType<NonNullable<EvalContext["ipvs"]>["ipset"]> = undefined;
      return (pkt, ctx) => {
        const h = ctx.ipvs;
        let set = known;
        if (h !== handle || set === undefined) {
          set = known = h?.ipset(name);
          handle = h;
        }
        if (!set) throw new Error(`packet tracer: ipset ${name} does not exist`);
        return ipsetHasFields(set, f, pkt);
      };
    }
    default:
      // statistic, recent (their draws and tables, in order) and anything unknown (which throws).
      return (pkt, ctx) => matchOne(m, pkt, ctx, chain, n, false);
  }
}

function compileTarget(chain: Chain, r: Rule, n: number): RuleFn {
  const t = r.target;
  if (t === null) return () => undefined; // no -j: the rule only counts
  switch (t.t) {
    case "jump": {
      const name = t.chain;
      // The target as last resolved, while the table's chains keep their version (VersionedChains:
      // versions are unique across maps). Other maps are asked every time.
      let seen = -1;
      let target: Chain | undefined;
      // Compiled rules run only on the compiled path (compiledPath), so the target's rules do too,
      // kept here (compiledFrom) rather than read from the chain by runChain.
      let rules: Compiled | undefined;
      return (table, pkt, ctx, depth) => {
        const chains = table.chains;
        const v = chainsVersion(chains);
        let next: Chain | undefined;
        if (v !== undefined && v === seen) next = target;
        else {
          next = chains.get(name);
          seen = v ?? -1;
          target = v === undefined ? undefined : next;
        }
        if (!next) throw new Error(`packet tracer: ${table.name}/${chain.name} rule ${n} jumps to missing chain ${name}`);
        if (depth + 1 > MAX_DEPTH) throw tooDeep(table, next);
        const out = runCompiled(table, (rules = compiledFrom(rules, next)), pkt, ctx, depth + 1);
        return out.t === "continue" ? undefined : out; // came back from a user chain
      };
    }
    case "ACCEPT":
      return () => ACCEPT;
    case "RETURN":
      return () => CONTINUE;
    case "MARK": {
      const value = t.value;
      return t.op === "or"
        ? (_t, pkt) => ((pkt.mark = (pkt.mark | value) >>> 0), undefined)
        : (_t, pkt) => ((pkt.mark = (pkt.mark ^ value) >>> 0), undefined);
    }
    case "MASQUERADE":
      return (_t, pkt) => {
        pkt.masquerade = true;
        return ACCEPT;
      };
    default:
      // DROP, REJECT, DNAT (rare in IPVS mode) and anything unknown (which throws), as written.
      return (table, pkt, ctx, depth) => applyTarget(table, chain, t, pkt, ctx, depth, n);
  }
}
