// Evaluates kube-proxy's nftables table (proxy/nftables/model.ts) for one packet: the base
// chains registered on a hook in priority order, then jumps, gotos and verdict-map lookups. Each
// expression kind of the model is handled here; an unknown one throws UnknownRuleShape.
import { ChainMap, ElementMap, chainOf, gotoTarget, heldBy, type Chain, type Expr, type KeyPart, type NftTable, type Rule, type SetElement, type Verdict } from "../proxy/nftables/model.js";
import { MARK_MASQ_CHAIN } from "../proxy/nftables/names.js";
import { EndpointChain, ServiceChain } from "../proxy/nftables/proxier.js";
import { ruleText } from "../proxy/nftables/render.js";
import { addrNum, addrText, noteAddrNum, portNum, protoCode, protoPortTag } from "./addr-index.js";
import { type CompiledRules, HiddenSlot, addrMatcher, compiledRules } from "./compiled.js";
import { type EvalContext, type HookName, type HookOutcome, type Pkt, UnknownRuleShape, addrMatches, hookNum } from "./context.js";
import { ServiceRecords } from "./service-records.js";

// The classes the packet path tests with instanceof, as module-local constants: under tsx (npm
// start, npm run bench) an imported class is a binding V8 does not fold, and instanceof against
// it is the generic operation each time (~17 ns against ~3 ns, measured; an nftables connection
// makes ~20 such tests).
const ChainMapC = ChainMap;
const ElementMapC = ElementMap;
const EndpointChainC = EndpointChain;
const ServiceChainC = ServiceChain;

const MAX_DEPTH = 32;

type Outcome = { t: "continue" } | { t: "accept" } | { t: "drop"; reason: string } | { t: "reject"; reason: string };
const CONTINUE: Outcome = { t: "continue" };
const ACCEPT: Outcome = { t: "accept" };

/** The table's base chains by hook (hookNum), each hook's in priority order. */
interface HookIndex {
  readonly byHook: readonly (Chain[] | undefined)[];
  /** The table's chains when they are a ChainMap, and its version when the index was last valid. */
  readonly chainMap: ChainMap | undefined;
  version: number;
}
/**
 * Each table's HookIndex, in a hidden slot on the table: a WeakMap probe per hook, five hooks per
 * node a connection crosses, was a measurable share of a connection.
 */
const INDEX = new HiddenSlot<NftTable, HookIndex>("hook index");

/**
 * The base chains of `hook`, re-validated on each use: each must still be the table's chain of
 * its name (only this hook's chains are checked, not every base chain of the table; no check at
 * all while a ChainMap's version says nothing was set or deleted since). A hook without base
 * chains is looked for again (kube-proxy's table has some on every hook).
 */
function hookChains(table: NftTable, hook: HookName): Chain[] | undefined {
  const h = hookNum(hook);
  let idx = INDEX.get(table);
  const chains = idx?.byHook[h];
  if (chains !== undefined) {
    const cm = idx!.chainMap;
    if (cm !== undefined && cm === table.chains && idx!.version === cm.version) return chains;
    if (stillValid(table, chains)) {
      if (cm !== undefined) idx!.version = cm.version;
      return chains;
    }
  }
  idx = buildIndex(table);
  INDEX.set(table, idx);
  return idx.byHook[h];
}

function stillValid(table: NftTable, chains: readonly Chain[]): boolean {
  for (let i = 0; i < chains.length; i++) if (table.chains.get(chains[i].name) !== chains[i]) return false;
  return true;
}

function buildIndex(table: NftTable): HookIndex {
  const base: Chain[] = [];
  for (const c of table.chains.values()) if (c.base) base.push(c);
  base.sort((a, b) => a.base!.priority - b.base!.priority);
  const byHook: (Chain[] | undefined)[] = [undefined, undefined, undefined, undefined, undefined];
  for (const c of base) (byHook[hookNum(c.base!.hook as HookName)] ??= []).push(c);
  const cm = table.chains instanceof ChainMapC ? table.chains : undefined;
  return { byHook, chainMap: cm, version: cm === undefined ? 0 : cm.version };
}

export function nftablesHook(table: NftTable, hook: HookName, pkt: Pkt, ctx: EvalContext): HookOutcome {
  const chains = hookChains(table, hook);
  if (!chains) return HOOK_ACCEPT;
  for (const c of chains) {
    // nat base chains see only a connection's first packet.
    if (c.base!.type === "nat" && !pkt.ctNew) continue;
    const out = runChain(table, c, pkt, ctx, 0);
    if (out.t === "drop" || out.t === "reject") return out;
    if (out.t === "continue" && c.base!.policy === "drop") return { t: "drop", reason: `policy drop of chain ${c.name}` };
  }
  return HOOK_ACCEPT;
}

/** Shared: callers only read a hook outcome. */
const HOOK_ACCEPT: HookOutcome = Object.freeze({ t: "accept" });

const T = "ip kube-proxy";

function runChain(table: NftTable, chain: Chain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  if (depth > MAX_DEPTH) throw new Error(`packet tracer: nft jump depth over ${MAX_DEPTH} at ${chain.name}`);
  const tracing = ctx.trace !== undefined;
  if (!tracing) {
    if (chain instanceof EndpointChainC) return runEndpointChain(table, chain, pkt, ctx, depth);
    if (chain instanceof ServiceChainC) return runServiceChain(table, chain, pkt, ctx, depth);
    return runCompiled(table, compiled(chain), pkt, ctx, depth);
  }
  const rules = chain.rules;
  if (tracing) ctx.step({ kind: "chain", table: T, chain: chain.name, text: `-> chain ${chain.name} (${rules.length} rules)` });
  for (let i = 0; i < rules.length; i++) {
    ctx.rules++;
    const out = runRule(table, chain, rules[i], i + 1, pkt, ctx, depth);
    if (out !== undefined) {
      if (out.t === "continue") return CONTINUE; // return verdict
      return out;
    }
  }
  if (tracing && !chain.base) ctx.step({ kind: "chain", table: T, chain: chain.name, text: `<- end of ${chain.name}, return` });
  return CONTINUE;
}

/**
 * An endpoint chain evaluated from its fields (no trace), without building its rules (they are
 * built on each read: EndpointChain in proxy/nftables/proxier.ts). Same rules, same order, same
 * count, same effects:
 *
 *   ip saddr <ip> jump mark-for-masquerade
 *   update @<affinitySet> { ip saddr }          (ClientIP affinity only)
 *   meta l4proto <proto> dnat to <ip>:<port>
 */
// Frozen: shared by every table, it must not keep the chain it resolves to (see chainOf).
const JUMP_MARK_MASQ: Verdict = Object.freeze({ kind: "jump", chain: MARK_MASQ_CHAIN });
function runEndpointChain(table: NftTable, chain: EndpointChain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  ctx.rules++;
  if (pkt.src === chain.ip) {
    const out = verdict(table, chain, JUMP_MARK_MASQ, 1, pkt, ctx, depth);
    if (out !== true) return out === false || out.t === "continue" ? CONTINUE : out;
  }
  if (chain.affinitySet !== undefined) {
    ctx.rules++;
    const name = chain.affinitySet;
    const set = table.sets.get(name);
    const timeout = (set?.timeout ?? 0) * 1000;
    let m = ctx.kernel.nftDynamic.get(name);
    if (!m) ctx.kernel.nftDynamic.set(name, (m = new Map()));
    m.set(pkt.src, ctx.now + timeout);
  }
  ctx.rules++;
  if (pkt.proto === chain.proto) {
    pkt.dst = chain.ip;
    pkt.dport = chain.port;
    pkt.dnat = true;
    return ACCEPT;
  }
  return CONTINUE;
}

/**
 * A service chain evaluated from its fields (no trace), without reading its rule objects (see
 * ServiceChain in proxy/nftables/proxier.ts). Same rules, same order, same count, same effects
 * as runChain over them.
 */
function runServiceChain(table: NftTable, chain: ServiceChain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  let n = 0;
  if (chain.masqDaddr !== undefined) {
    n++;
    ctx.rules++;
    // For a canonical address `ip daddr <addr>` is a text comparison, equal when the numbers are.
    const a = chain.masqDaddrNum;
    const to = a >= 0 ? addrNum(pkt.dst) === a : addrMatches(chain.masqDaddr, pkt.dst);
    const from = chain.masqFrom;
    if (to && (from === undefined || addrMatches(from.value, from.field === "saddr" ? pkt.src : pkt.dst) !== from.neg)) {
      const out = verdict(table, chain, JUMP_MARK_MASQ, n, pkt, ctx, depth);
      if (out !== true) return out === false || out.t === "continue" ? CONTINUE : out;
    }
  }
  const targets = chain.targets;
  const sets = chain.affinitySets;
  if (sets !== undefined) {
    for (let i = 0; i < targets.length; i++) {
      n++;
      ctx.rules++;
      if (!lookupAddr(table, sets[i], pkt.src, ctx)) continue;
      const out = verdict(table, chain, targets[i], n, pkt, ctx, depth);
      if (out !== true) return out === false || out.t === "continue" ? CONTINUE : out;
    }
  }
  n++;
  ctx.rules++;
  // goto <endpoint chain>: the chain made with the verdict while the table holds it, else as
  // the verdict resolves (the same chain whenever the first is possible).
  const pick = numgenPick(ctx, chain.count);
  const ep = chain.endpoints[pick];
  const out = heldBy(table.chains, ep) ? runChain(table, ep, pkt, ctx, depth + 1) : verdict(table, chain, targets[pick], n, pkt, ctx, depth);
  if (out !== true) return out === false || out.t === "continue" ? CONTINUE : out;
  return CONTINUE;
}

// ---- Service ports as records (no trace) ------------------------------------------------------
//
// `ip daddr . meta l4proto . th dport vmap @service-ips` finds a service port's record
// (net/service-records.ts) and runs its service chain and the endpoint chain numgen picks from
// the record's numbers: the same rules, order, count, draws and effects as runServiceChain and
// runEndpointChain over the chain objects. The rules a record does not run (the masquerade jump
// when it is taken, a hairpinned endpoint's) run from the chains themselves, before anything
// they would count or draw.

/** Each service map's records, in a hidden slot on its elements. */
const RECORDS = new HiddenSlot<ElementMap, ServiceRecords>("service records");

/** The offset of the record for the packet's destination in `els`, made on first use; -1: none (run the chains). */
function serviceRecord(table: NftTable, els: ElementMap, pkt: Pkt, depth: number): number {
  // The record's chains run two levels down (as runChain's depth counts them), within MAX_DEPTH.
  if (depth + 2 > MAX_DEPTH) return -1;
  const a = addrNum(pkt.dst);
  const p = protoCode(pkt.proto);
  const port = portNum(pkt.dport);
  if (a < 0 || p === 0 || port < 0) return -1;
  let recs = RECORDS.get(els);
  if (recs === undefined) RECORDS.set(els, (recs = new ServiceRecords()));
  if (!recs.usable(table.chains, els)) return -1;
  const tag = protoPortTag(p, port);
  const o = recs.find(a, tag);
  if (o !== -1) return o;
  const el = els.findAddrProtoPort(pkt.dst, pkt.proto, pkt.dport);
  return el?.value === undefined ? -1 : recs.add(a, tag, el, table.chains);
}

/** A record's service chain (at `depth`) and the endpoint chain it picks: runServiceChain's outcome. */
function runRecord(table: NftTable, recs: ServiceRecords, o: number, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  // ip daddr <clusterIP> [ip saddr != <cluster CIDR>] jump mark-for-masquerade
  const masq = recs.masquerade(o, pkt.src, pkt.dst);
  if (masq === 1) return runChain(table, recs.chain(o), pkt, ctx, depth);
  if (masq === 0) ctx.rules++;
  // numgen random mod <count> vmap { ... : goto <endpoint chain> }
  ctx.rules++;
  const pick = numgenPick(ctx, recs.count(o));
  const ep = recs.endpointAddr(o, pick);
  // The endpoint chain: ip saddr <ip> jump mark-for-masquerade (hairpin); meta l4proto <proto> dnat to <ip>:<port>
  if (addrNum(pkt.src) === ep) {
    const out = runChain(table, recs.chain(o).endpoints[pick], pkt, ctx, depth + 1);
    return out.t === "continue" ? CONTINUE : out;
  }
  ctx.rules += 2;
  if (protoCode(pkt.proto) !== recs.endpointProto(o, pick)) return CONTINUE;
  const text = addrText(ep);
  noteAddrNum(text, ep);
  pkt.dst = text;
  pkt.dport = recs.endpointPort(o, pick);
  pkt.dnat = true;
  return ACCEPT;
}

// ---- Rules compiled once per chain (no trace) ------------------------------------------------
//
// Without a trace, a plain chain's rules run as closures made once per chain from its rule
// objects (what `expr` does for each expression, with the expression's fields read once): the
// generic path's switch over a dozen expression shapes, and its loads of their fields, were the
// largest part of a connection through the base chains. Closures, not generated source (no
// `new Function`: Workers forbid it). Each chain's compiled form is kept on the chain and
// checked against its rules array and rule objects on each use (the proxier refills base
// chains' arrays in place), so a changed chain is compiled again. Rules are immutable.

/** One expression: true (matched, or a statement done), false (no match), or the rule's verdict (as `expr`). */
type ExprFn = (table: NftTable, pkt: Pkt, ctx: EvalContext, depth: number) => boolean | Outcome;
/** One rule: undefined when it did not end the chain (as `runRule`). */
type RuleFn = (table: NftTable, pkt: Pkt, ctx: EvalContext, depth: number) => Outcome | undefined;

type Compiled = CompiledRules<Rule, RuleFn>;
const COMPILED = new HiddenSlot<Chain, Compiled>("compiled rules");
function compiled(chain: Chain): Compiled {
  return compiledRules(COMPILED, chain, compileRule);
}

/** runChain's loop over a compiled chain (same count, same outcomes). */
function runCompiled(table: NftTable, c: Compiled, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  const fns = c.fns;
  for (let i = 0; i < fns.length; i++) {
    ctx.rules++;
    const out = fns[i](table, pkt, ctx, depth);
    if (out !== undefined) return out.t === "continue" ? CONTINUE : out;
  }
  return CONTINUE;
}

function compileRule(chain: Chain, r: Rule, n: number): RuleFn {
  const fs = r.exprs.map((e) => compileExpr(chain, r, e, n));
  if (fs.length === 0) return () => undefined;
  if (fs.length === 1) {
    const f0 = fs[0];
    return (table, pkt, ctx, depth) => {
      const a = f0(table, pkt, ctx, depth);
      return a === true || a === false ? undefined : a;
    };
  }
  if (fs.length === 2) {
    const f0 = fs[0];
    const f1 = fs[1];
    return (table, pkt, ctx, depth) => {
      const a = f0(table, pkt, ctx, depth);
      if (a === false) return undefined;
      if (a !== true) return a;
      const b = f1(table, pkt, ctx, depth);
      return b === true || b === false ? undefined : b;
    };
  }
  return (table, pkt, ctx, depth) => {
    for (let i = 0; i < fs.length; i++) {
      const a = fs[i](table, pkt, ctx, depth);
      if (a === false) return undefined;
      if (a !== true) return a;
    }
    return undefined;
  };
}

function compileExpr(chain: Chain, rule: Rule, e: Expr, n: number): ExprFn {
  switch (e.t) {
    case "ct-state": {
      const onNew = e.states.includes("new");
      const onEstablished = e.states.includes("established");
      return (_t, pkt) => (pkt.ctNew ? onNew : onEstablished);
    }
    case "ip": {
      const m = addrMatcher(e.value);
      const neg = e.neg;
      return e.field === "saddr" ? (_t, pkt) => m(pkt.src) !== neg : (_t, pkt) => m(pkt.dst) !== neg;
    }
    case "ip-anon": {
      const ms = e.values.map(addrMatcher);
      const neg = e.neg;
      const saddr = e.field === "saddr";
      return (_t, pkt) => {
        const v = saddr ? pkt.src : pkt.dst;
        let hit = false;
        for (let i = 0; i < ms.length; i++) if (ms[i](v)) hit = true;
        return hit !== neg;
      };
    }
    case "ip-lookup": {
      const set = e.set;
      return e.field === "saddr" ? (table, pkt, ctx) => lookupAddr(table, set, pkt.src, ctx) : (table, pkt, ctx) => lookupAddr(table, set, pkt.dst, ctx);
    }
    case "fib-local":
      return e.field === "saddr" ? (_t, pkt, ctx) => ctx.isLocal(pkt.src) : (_t, pkt, ctx) => ctx.isLocal(pkt.dst);
    case "l4proto": {
      const proto = e.proto;
      return (_t, pkt) => pkt.proto === proto;
    }
    case "mark-zero": {
      const mask = e.mask;
      return (_t, pkt) => ((pkt.mark & mask) >>> 0) === 0;
    }
    case "vmap": {
      const name = e.map;
      const parts = e.key;
      const app = isAddrProtoPort(parts);
      const byPort = parts.includes("dport");
      return (table, pkt, ctx, depth) => {
        const map = table.sets.get(name);
        if (!map) throw new Error(`packet tracer: map @${name} missing`);
        const els = map.elements;
        let el: SetElement | undefined;
        if (app && els instanceof ElementMapC) {
          if (pkt.proto === "icmp") return false;
          const o = serviceRecord(table, els, pkt, depth);
          if (o >= 0) return runRecord(table, RECORDS.get(els)!, o, pkt, ctx, depth + 1);
          // The same element as elements.get("<daddr> . <proto> . <dport>") (see ElementMap).
          el = els.findAddrProtoPort(pkt.dst, pkt.proto, pkt.dport);
          if (!el?.value) return false;
          // A goto to the chain the element was bound to: that chain's outcome is ours (as verdict's).
          const target = gotoTarget(table.chains, el);
          if (target !== undefined) return runChain(table, target, pkt, ctx, depth + 1);
        } else {
          el = pkt.proto === "icmp" && byPort ? undefined : els.get(concatKey(parts, pkt));
          if (!el?.value) return false;
        }
        return verdict(table, chain, el.value, n, pkt, ctx, depth);
      };
    }
    case "numgen-vmap": {
      const mod = e.mod;
      const targets = e.targets;
      return (table, pkt, ctx, depth) => {
        const v = targets[numgenPick(ctx, mod)];
        if (!v) return false;
        return verdict(table, chain, v, n, pkt, ctx, depth);
      };
    }
    case "mark-set": {
      const value = e.value;
      return e.op === "or"
        ? (_t, pkt) => ((pkt.mark = (pkt.mark | value) >>> 0), true)
        : (_t, pkt) => ((pkt.mark = (pkt.mark ^ value) >>> 0), true);
    }
    case "update-set": {
      const name = e.set;
      const saddr = e.field === "saddr";
      return (table, pkt, ctx) => {
        const set = table.sets.get(name);
        const timeout = (set?.timeout ?? 0) * 1000;
        let m = ctx.kernel.nftDynamic.get(name);
        if (!m) ctx.kernel.nftDynamic.set(name, (m = new Map()));
        m.set(saddr ? pkt.src : pkt.dst, ctx.now + timeout);
        return true;
      };
    }
    case "dnat": {
      const addr = e.addr;
      const port = e.port;
      return (_t, pkt) => {
        pkt.dst = addr;
        pkt.dport = port;
        pkt.dnat = true;
        return ACCEPT;
      };
    }
    case "masquerade":
      return (_t, pkt) => {
        pkt.masquerade = true;
        return ACCEPT;
      };
    case "reject": {
      const reason = `reject in chain ${chain.name}${rule.comment ? ` ("${rule.comment}")` : ""}`;
      return () => ({ t: "reject", reason });
    }
    case "verdict": {
      const v = e.verdict;
      switch (v.kind) {
        case "accept":
          return () => ACCEPT;
        case "return":
          return () => CONTINUE;
        case "jump":
          return (table, pkt, ctx, depth) => {
            const next = chainOf(table.chains, v);
            if (!next) throw new Error(`packet tracer: jump to missing chain ${v.chain}`);
            const out = runChain(table, next, pkt, ctx, depth + 1);
            return out.t === "continue" ? true : out;
          };
        case "goto":
          return (table, pkt, ctx, depth) => {
            const next = chainOf(table.chains, v);
            if (!next) throw new Error(`packet tracer: goto to missing chain ${v.chain}`);
            return runChain(table, next, pkt, ctx, depth + 1);
          };
        default:
          return (table, pkt, ctx, depth) => verdict(table, chain, v, n, pkt, ctx, depth);
      }
    }
    default:
      // Evaluated (and refused) only if a packet reaches it, as `expr` does.
      return () => {
        throw new UnknownRuleShape(`nftables expression ${JSON.stringify(e)}`);
      };
  }
}

/** undefined: the rule did not end the chain (no match, or only non-terminal statements). */
function runRule(table: NftTable, chain: Chain, r: Rule, n: number, pkt: Pkt, ctx: EvalContext, depth: number): Outcome | undefined {
  const tracing = ctx.trace !== undefined;
  const ann: Announcer | undefined = tracing ? { done: false, chain, r, n, ctx } : undefined;
  const exprs = r.exprs;
  for (let i = 0; i < exprs.length; i++) {
    const res = expr(table, chain, exprs[i], n, pkt, ctx, depth, ann);
    if (res === false) {
      if (tracing) ctx.step({ kind: "skip", table: T, chain: chain.name, rule: n, count: 1, text: `rule ${n} did not match` });
      return undefined;
    }
    if (res !== true) return res;
  }
  if (ann) announce(ann);
  return undefined;
}

/** Writes the rule into the trace once, before its first effect (tracing only). */
interface Announcer {
  done: boolean;
  chain: Chain;
  r: Rule;
  n: number;
  ctx: EvalContext;
}
function announce(a: Announcer | undefined): void {
  if (a === undefined || a.done) return;
  a.done = true;
  a.ctx.step({ kind: "rule", table: T, chain: a.chain.name, rule: a.n, text: `${a.n}: ${ruleText(a.r, "list")}` });
}

/** true: matched / statement done, continue; false: rule does not match; Outcome: verdict. */
function expr(
  table: NftTable,
  chain: Chain,
  e: Expr,
  n: number,
  pkt: Pkt,
  ctx: EvalContext,
  depth: number,
  ann: Announcer | undefined,
): boolean | Outcome {
  switch (e.t) {
    case "ct-state": {
      const want = pkt.ctNew ? "new" : "established";
      const st = e.states;
      for (let i = 0; i < st.length; i++) if (st[i] === want) return true;
      return false;
    }
    case "ip": {
      const v = e.field === "saddr" ? pkt.src : pkt.dst;
      return addrMatches(e.value, v) !== e.neg;
    }
    case "ip-anon": {
      const v = e.field === "saddr" ? pkt.src : pkt.dst;
      let hit = false;
      for (const x of e.values) if (addrMatches(x, v)) hit = true;
      return hit !== e.neg;
    }
    case "ip-lookup": {
      const v = e.field === "saddr" ? pkt.src : pkt.dst;
      const hit = lookupAddr(table, e.set, v, ctx);
      if (ctx.trace && (hit || table.sets.get(e.set)!.flags.includes("dynamic"))) {
        announce(ann);
        ctx.step({ kind: "lookup", table: T, chain: chain.name, rule: n, text: `lookup ${v} in @${e.set}: ${hit ? "found" : "not found"}` });
      }
      return hit;
    }
    case "fib-local":
      return ctx.isLocal(e.field === "saddr" ? pkt.src : pkt.dst);
    case "l4proto":
      return pkt.proto === e.proto;
    case "mark-zero":
      return ((pkt.mark & e.mask) >>> 0) === 0;
    case "vmap": {
      const map = table.sets.get(e.map);
      if (!map) throw new Error(`packet tracer: map @${e.map} missing`);
      const els = map.elements;
      if (ctx.trace === undefined && els instanceof ElementMapC && isAddrProtoPort(e.key)) {
        // The same element as elements.get("<daddr> . <proto> . <dport>") (see ElementMap).
        const el: SetElement | undefined = pkt.proto === "icmp" ? undefined : els.findAddrProtoPort(pkt.dst, pkt.proto, pkt.dport);
        if (!el?.value) return false;
        // A goto to the chain the element was bound to: that chain's outcome is ours (as verdict's).
        const target = gotoTarget(table.chains, el);
        if (target !== undefined) return runChain(table, target, pkt, ctx, depth + 1);
        return verdict(table, chain, el.value, n, pkt, ctx, depth);
      }
      const key = concatKey(e.key, pkt);
      const el = pkt.proto === "icmp" && e.key.includes("dport") ? undefined : els.get(key);
      if (ctx.trace) {
        announce(ann);
        ctx.step({
          kind: "lookup",
          table: T,
          chain: chain.name,
          rule: n,
          text: `vmap @${e.map} lookup ${key}: ${el?.value ? verdictText(el.value) : "no element"}`,
        });
      }
      if (!el?.value) return false;
      return verdict(table, chain, el.value, n, pkt, ctx, depth);
    }
    case "numgen-vmap": {
      const pick = numgenPick(ctx, e.mod);
      const v = e.targets[pick];
      if (ctx.trace) {
        announce(ann);
        ctx.step({ kind: "random", table: T, chain: chain.name, rule: n, text: `numgen random mod ${e.mod} = ${pick}: ${v ? verdictText(v) : "no element"}` });
      }
      if (!v) return false;
      return verdict(table, chain, v, n, pkt, ctx, depth);
    }
    case "mark-set":
      pkt.mark = e.op === "or" ? (pkt.mark | e.value) >>> 0 : (pkt.mark ^ e.value) >>> 0;
      announce(ann);
      return true;
    case "update-set": {
      const set = table.sets.get(e.set);
      const timeout = (set?.timeout ?? 0) * 1000;
      let m = ctx.kernel.nftDynamic.get(e.set);
      if (!m) ctx.kernel.nftDynamic.set(e.set, (m = new Map()));
      const v = e.field === "saddr" ? pkt.src : pkt.dst;
      m.set(v, ctx.now + timeout);
      announce(ann);
      if (ctx.trace) ctx.step({ kind: "lookup", table: T, chain: chain.name, rule: n, text: `update @${e.set} { ${v} } (timeout ${set?.timeout ?? 0}s)` });
      return true;
    }
    case "dnat":
      announce(ann);
      ctx.step({ kind: "nat", table: T, chain: chain.name, rule: n, text: `dnat ${pkt.dst}:${pkt.dport} -> ${e.addr}:${e.port}` });
      pkt.dst = e.addr;
      pkt.dport = e.port;
      pkt.dnat = true;
      return ACCEPT;
    case "masquerade":
      announce(ann);
      pkt.masquerade = true;
      return ACCEPT;
    case "reject":
      announce(ann);
      ctx.step({ kind: "verdict", table: T, chain: chain.name, rule: n, text: `reject by chain ${chain.name} rule ${n}` });
      return { t: "reject", reason: `reject in chain ${chain.name}${r(chain, n)}` };
    case "verdict":
      announce(ann);
      return verdict(table, chain, e.verdict, n, pkt, ctx, depth);
    default:
      throw new UnknownRuleShape(`nftables expression ${JSON.stringify(e)}`);
  }
}

/** `ip saddr|daddr @set`: is address `v` in the set (a dynamic set: unexpired)? */
function lookupAddr(table: NftTable, name: string, v: string, ctx: EvalContext): boolean {
  const set = table.sets.get(name);
  if (!set) throw new Error(`packet tracer: set @${name} missing`);
  if (set.flags.includes("dynamic")) {
    const exp = ctx.kernel.nftDynamic.get(name)?.get(v);
    return exp !== undefined && exp > ctx.now;
  }
  const els = set.elements;
  return els instanceof ElementMapC ? els.hasAddr(v) : els.has(v);
}

/** nft_ng_random: reciprocal_scale(get_random_u32(), mod). */
function numgenPick(ctx: EvalContext, mod: number): number {
  return Math.floor((ctx.rng.uint32() * mod) / 0x100000000);
}

function isAddrProtoPort(k: readonly KeyPart[]): boolean {
  return k.length === 3 && k[0] === "daddr" && k[1] === "l4proto" && k[2] === "dport";
}

type JumpVerdict = Extract<Verdict, { kind: "jump" | "goto" }>;

/**
 * The packet's concatenated lookup key (`ip daddr . meta l4proto . th dport`) as map elements
 * are keyed. A packet looks the same key up in several maps on each node it crosses; building
 * it each time cost a concatenation, and the lookup a flattening and hashing of the new string.
 * The last key built is kept (with its hash, once looked up).
 */
const lastKey = { parts: undefined as readonly KeyPart[] | undefined, dst: "", proto: "", dport: -1, key: "" };
function concatKey(parts: readonly KeyPart[], pkt: Pkt): string {
  const k = lastKey;
  if (k.parts === parts && k.dst === pkt.dst && k.proto === pkt.proto && k.dport === pkt.dport) return k.key;
  let key = "";
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const part = p === "daddr" ? pkt.dst : p === "l4proto" ? pkt.proto : String(pkt.dport);
    key = i === 0 ? part : `${key} . ${part}`;
  }
  k.parts = parts;
  k.dst = pkt.dst;
  k.proto = pkt.proto;
  k.dport = pkt.dport;
  k.key = key;
  return key;
}

function r(chain: Chain, n: number): string {
  const c = chain.rules[n - 1]?.comment;
  return c ? ` ("${c}")` : "";
}

function verdictText(v: Verdict): string {
  return v.kind === "jump" || v.kind === "goto" ? `${v.kind} ${v.chain}` : v.kind;
}

function verdict(table: NftTable, chain: Chain, v: Verdict, n: number, pkt: Pkt, ctx: EvalContext, depth: number): boolean | Outcome {
  switch (v.kind) {
    case "accept":
      return ACCEPT;
    case "drop":
      ctx.step({ kind: "verdict", table: T, chain: chain.name, rule: n, text: `drop by chain ${chain.name} rule ${n}` });
      return { t: "drop", reason: `drop in chain ${chain.name} rule ${n}` };
    case "return":
      return CONTINUE;
    case "jump":
    case "goto": {
      const next = chainOf(table.chains, v as JumpVerdict);
      if (!next) throw new Error(`packet tracer: ${v.kind} to missing chain ${v.chain}`);
      const out = runChain(table, next, pkt, ctx, depth + 1);
      if (v.kind === "jump") return out.t === "continue" ? true : out;
      // goto: the target's end returns to our caller.
      return out;
    }
  }
}
