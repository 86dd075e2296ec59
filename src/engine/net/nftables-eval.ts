// Evaluates kube-proxy's nftables table (proxy/nftables/model.ts) for one packet: the base
// chains registered on a hook in priority order, then jumps, gotos and verdict-map lookups. Each
// expression kind of the model is handled here; an unknown one throws UnknownRuleShape. Without
// a trace nothing is formatted; with one, every rule, lookup and draw is written into it.
import { ElementMap, type Chain, type Expr, type KeyPart, type NftTable, type Rule, type SetElement, type Verdict } from "../proxy/nftables/model.js";
import { ruleText } from "../proxy/nftables/render.js";
import { type EvalContext, type HookName, type HookOutcome, type Pkt, UnknownRuleShape, setDst } from "./context.js";

const MAX_DEPTH = 32;

type Outcome = { t: "continue" } | { t: "accept" } | { t: "drop"; reason: string } | { t: "reject"; reason: string };
const CONTINUE: Outcome = { t: "continue" };
const ACCEPT: Outcome = { t: "accept" };

export function nftablesHook(table: NftTable, hook: HookName, pkt: Pkt, ctx: EvalContext): HookOutcome {
  const chains = table.chains.baseChains();
  for (let i = 0; i < chains.length; i++) {
    const c = chains[i];
    const base = c.base!;
    if (base.hook !== hook) continue;
    // nat base chains see only a connection's first packet.
    if (base.type === "nat" && !pkt.ctNew) continue;
    const out = runChain(table, c, pkt, ctx, 0);
    if (out.t === "drop" || out.t === "reject") return out;
    if (out.t === "continue" && base.policy === "drop") return { t: "drop", reason: `policy drop of chain ${c.name}` };
  }
  return HOOK_ACCEPT;
}

/** Shared: callers only read a hook outcome. */
const HOOK_ACCEPT: HookOutcome = Object.freeze({ t: "accept" });

const T = "ip kube-proxy";

function runChain(table: NftTable, chain: Chain, pkt: Pkt, ctx: EvalContext, depth: number): Outcome {
  if (depth > MAX_DEPTH) throw new Error(`packet tracer: nft jump depth over ${MAX_DEPTH} at ${chain.name}`);
  const tracing = ctx.trace !== undefined;
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
      const src = e.field === "saddr";
      return ctx.specs.matches(e.value, src ? pkt.src : pkt.dst, src ? pkt.srcNum : pkt.dstNum) !== e.neg;
    }
    case "ip-anon": {
      const src = e.field === "saddr";
      let hit = false;
      for (const x of e.values) if (ctx.specs.matches(x, src ? pkt.src : pkt.dst, src ? pkt.srcNum : pkt.dstNum)) hit = true;
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
      const el = vmapLookup(map.elements, e.key, pkt);
      if (ctx.trace) {
        announce(ann);
        ctx.step({
          kind: "lookup",
          table: T,
          chain: chain.name,
          rule: n,
          text: `vmap @${e.map} lookup ${concatKey(e.key, pkt)}: ${el?.value ? verdictText(el.value) : "no element"}`,
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
      if (ctx.trace) ctx.step({ kind: "nat", table: T, chain: chain.name, rule: n, text: `dnat ${pkt.dst}:${pkt.dport} -> ${e.addr}:${e.port}` });
      setDst(pkt, e.addr, e.port);
      pkt.dnat = true;
      return ACCEPT;
    case "masquerade":
      announce(ann);
      pkt.masquerade = true;
      return ACCEPT;
    case "reject":
      announce(ann);
      if (ctx.trace) ctx.step({ kind: "verdict", table: T, chain: chain.name, rule: n, text: `reject by chain ${chain.name} rule ${n}` });
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
  return els instanceof ElementMap ? els.hasAddr(v) : els.has(v);
}

/**
 * The element of a verdict map for the packet's key. `ip daddr . meta l4proto . th dport` maps
 * (@service-ips: 10k+ elements) are looked up by number (ElementMap.findAddrProtoPort, exactly
 * the string key's element), others by the key text.
 */
function vmapLookup(els: Map<string, SetElement>, key: readonly KeyPart[], pkt: Pkt): SetElement | undefined {
  if (pkt.proto === "icmp" && key.includes("dport")) return undefined;
  if (els instanceof ElementMap && isAddrProtoPort(key)) return els.findAddrProtoPort(pkt.dst, pkt.proto, pkt.dport);
  return els.get(concatKey(key, pkt));
}

/** nft_ng_random: reciprocal_scale(get_random_u32(), mod). */
function numgenPick(ctx: EvalContext, mod: number): number {
  return Math.floor((ctx.rng.uint32() * mod) / 0x100000000);
}

function isAddrProtoPort(k: readonly KeyPart[]): boolean {
  return k.length === 3 && k[0] === "daddr" && k[1] === "l4proto" && k[2] === "dport";
}

/** The packet's concatenated lookup key (`ip daddr . meta l4proto . th dport`) as map elements are keyed. */
function concatKey(parts: readonly KeyPart[], pkt: Pkt): string {
  let key = "";
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const part = p === "daddr" ? pkt.dst : p === "l4proto" ? pkt.proto : String(pkt.dport);
    key = i === 0 ? part : `${key} . ${part}`;
  }
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
      if (ctx.trace) ctx.step({ kind: "verdict", table: T, chain: chain.name, rule: n, text: `drop by chain ${chain.name} rule ${n}` });
      return { t: "drop", reason: `drop in chain ${chain.name} rule ${n}` };
    case "return":
      return CONTINUE;
    case "jump":
    case "goto": {
      const next = table.chains.get(v.chain);
      if (!next) throw new Error(`packet tracer: ${v.kind} to missing chain ${v.chain}`);
      const out = runChain(table, next, pkt, ctx, depth + 1);
      if (v.kind === "jump") return out.t === "continue" ? true : out;
      // goto: the target's end returns to our caller.
      return out;
    }
  }
}
