// Evaluates a node's iptables ruleset (proxy/iptables/model.ts) for one packet, rule by rule, in
// the kernel's order. The tracer knows exactly the matches and targets the proxier emits (the
// shapes listed at the top of model.ts); anything else throws UnknownRuleShape, so a new rule
// shape can never route silently wrong.
import type { Chain, Match, Rule, Ruleset, Table, Target } from "../proxy/iptables/model.js";
import { saveRule, kernelProbability } from "../proxy/iptables/render.js";
import { IpsetEntries } from "../proxy/ipvs/index.js";
import { type EvalContext, type HookName, type HookOutcome, type Pkt, UnknownRuleShape, setDst } from "./context.js";

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

/** A hook's built-in chain of one table: its drop or reject, or undefined (on to the next table). */
function runHookChain(table: Table, chain: Chain, pkt: Pkt, ctx: EvalContext): HookOutcome | undefined {
  // nat chains only see a connection's first packet.
  if (table.name === "nat" && !pkt.ctNew) return undefined;
  if (chain.rules.length === 0 && ctx.trace === undefined) {
    if (ctx.counting) ctx.kernel.counters.policy(table.name, chain.name, ctx.pktBytes);
    return undefined;
  }
  const out = runChain(table, chain, pkt, ctx, 0);
  if (out.t === "drop" || out.t === "reject") return out;
  if (out.t === "continue" && ctx.counting) ctx.kernel.counters.policy(table.name, chain.name, ctx.pktBytes);
  if (out.t === "continue" && chain.policy === "DROP") {
    if (ctx.trace) ctx.step({ kind: "verdict", table: table.name, chain: chain.name, text: `policy DROP of ${table.name}/${chain.name}` });
    return { t: "drop", reason: `policy DROP in ${table.name} ${chain.name}` };
  }
  return undefined;
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

function tooDeep(table: Table, chain: Chain): Error {
  return new Error(`packet tracer: jump depth over ${MAX_DEPTH} at ${table.name}/${chain.name}`);
}

function runChain(table: Table, chain: Chain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  if (depth > MAX_DEPTH) throw tooDeep(table, chain);
  const tracing = ctx.trace !== undefined;
  const rules = chain.rules;
  if (tracing) ctx.step({ kind: "chain", table: table.name, chain: chain.name, text: `-> ${table.name} ${chain.name} (${rules.length} rules)` });
  let skippedFrom = 0;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    ctx.rules++;
    if (!ruleMatches(r, pkt, ctx, chain.name, i + 1, tracing)) continue;
    if (ctx.counting) ctx.kernel.counters.add(table.name, chain.name, i, r, ctx.pktBytes);
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
      if (ctx.trace) ctx.step({ kind: "verdict", table: table.name, chain: chain.name, rule: n, text: `DROP by ${table.name} ${chain.name} rule ${n}` });
      return { t: "drop", reason: `DROP in ${table.name} ${chain.name} rule ${n}${commentOf(chain.rules[n - 1])}` };
    case "REJECT":
      if (ctx.trace) ctx.step({ kind: "verdict", table: table.name, chain: chain.name, rule: n, text: `REJECT (icmp-port-unreachable) by ${table.name} ${chain.name} rule ${n}` });
      return { t: "reject", reason: `REJECT in ${table.name} ${chain.name} rule ${n}${commentOf(chain.rules[n - 1])}` };
    case "DNAT": {
      const to = t.to;
      const c = to.lastIndexOf(":");
      const ip = c < 0 ? to : to.slice(0, c);
      const port = c < 0 ? pkt.dport : Number(to.slice(c + 1));
      if (ctx.trace) ctx.step({ kind: "nat", table: table.name, chain: chain.name, rule: n, text: `DNAT ${pkt.dst}:${pkt.dport} -> ${ip}:${port}` });
      setDst(pkt, ip, port);
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
  if (r.dst !== undefined && ctx.specs.matches(r.dst, pkt.dst, pkt.dstNum) === r.dstNeg) return false;
  if (r.src !== undefined && ctx.specs.matches(r.src, pkt.src, pkt.srcNum) === r.srcNeg) return false;
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
      const hit = ipsetHas(set, m.flags, pkt, ctx);
      if (tracing) ctx.step({ kind: "lookup", table: "ipset", chain, rule: n, text: `ipset ${m.name} (${set.type}) ${m.flags}: ${hit ? "member" : "not a member"}` });
      return hit;
    }
    default:
      throw new UnknownRuleShape(`iptables match ${JSON.stringify(m)}`);
  }
}

/** Does the i-th of --match-set's flags ("dst,dst,src") name the source? */
function isSrc(flags: string, i: number): boolean {
  let at = 0;
  for (let k = 0; k < i; k++) {
    at = flags.indexOf(",", at) + 1;
    if (at === 0) return false;
  }
  return flags.startsWith("src", at) && (at + 3 === flags.length || flags.charCodeAt(at + 3) === 44);
}

function addr(pkt: Pkt, flags: string, i: number): string {
  return isSrc(flags, i) ? pkt.src : pkt.dst;
}
function port(pkt: Pkt, flags: string, i: number): number {
  return isSrc(flags, i) ? pkt.sport : pkt.dport;
}

/**
 * `-m set --match-set NAME flags`: the packet's fields named by flags, as ipset writes entries
 * ("10.96.0.1,tcp:443"); the proxier's sets (IpsetEntries) answer by number, exactly as by text.
 */
function ipsetHas(set: { type: string; entries: ReadonlyMap<string, unknown> }, f: string, pkt: Pkt, ctx: EvalContext): boolean {
  switch (set.type) {
    case "bitmap:port":
      return pkt.proto !== "icmp" && set.entries.has(String(port(pkt, f, 0)));
    case "hash:ip":
      return set.entries.has(addr(pkt, f, 0));
    case "hash:ip,port": {
      if (pkt.proto === "icmp") return false;
      const e = set.entries;
      if (e instanceof IpsetEntries) return e.hasIpPort(addr(pkt, f, 0), pkt.proto, port(pkt, f, 1), undefined);
      return e.has(`${addr(pkt, f, 0)},${pkt.proto}:${port(pkt, f, 1)}`);
    }
    case "hash:ip,port,ip": {
      if (pkt.proto === "icmp") return false;
      const e = set.entries;
      if (e instanceof IpsetEntries) return e.hasIpPort(addr(pkt, f, 0), pkt.proto, port(pkt, f, 1), addr(pkt, f, 2));
      return e.has(`${addr(pkt, f, 0)},${pkt.proto}:${port(pkt, f, 1)},${addr(pkt, f, 2)}`);
    }
    case "hash:ip,port,net": {
      if (pkt.proto === "icmp") return false;
      const prefix = `${addr(pkt, f, 0)},${pkt.proto}:${port(pkt, f, 1)},`;
      const src = isSrc(f, 2);
      const third = src ? pkt.src : pkt.dst;
      const num = src ? pkt.srcNum : pkt.dstNum;
      for (const k of set.entries.keys()) if (k.startsWith(prefix) && ctx.specs.matches(k.slice(prefix.length), third, num)) return true;
      return false;
    }
    default:
      throw new UnknownRuleShape(`ipset type ${set.type}`);
  }
}
