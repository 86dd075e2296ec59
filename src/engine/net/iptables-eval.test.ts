// The iptables evaluator reads the ruleset as it is when each packet arrives: a chain replaced or
// refilled between two packets is the one the next packet runs.
import { describe, expect, it } from "vitest";
import { Rng } from "../rng.js";
import { type Chain, type ChainMap, type Rule, type Ruleset, rule } from "../proxy/iptables/model.js";
import { EvalContext, NodeKernelState, type Pkt, SpecCache } from "./context.js";
import { ipv4Num } from "../util/ip.js";
import { iptablesHook } from "./iptables-eval.js";

const MARK = (value: number): Rule => rule({ target: { t: "MARK", op: "or", value } });
const chain = (name: string, rules: Rule[], builtin = false): Chain => ({ name, origin: builtin ? "builtin" : "restore", policy: builtin ? "ACCEPT" : undefined, rules });

function ruleset(chains: ChainMap): Ruleset {
  chains.set("PREROUTING", chain("PREROUTING", [rule({ target: { t: "jump", chain: "KUBE-SERVICES" } })], true));
  chains.set("KUBE-SERVICES", chain("KUBE-SERVICES", [MARK(1)]));
  return { tables: [{ name: "nat", chains, chainSetVersion: 0 }] };
}

/** The mark a new connection's first packet leaves PREROUTING with (without a trace, in IPVS mode as it runs). */
function markAfter(rs: Ruleset): number {
  const ctx = new EvalContext("node1", () => false, 0, new Rng(1), new NodeKernelState(), new SpecCache(), undefined);
  ctx.ipvs = { ipset: () => undefined };
  const pkt: Pkt = { proto: "tcp", src: "10.244.1.2", sport: 40000, srcNum: ipv4Num("10.244.1.2"), dst: "10.96.0.1", dport: 80, dstNum: ipv4Num("10.96.0.1"), mark: 0, ctNew: true, dnat: false, masquerade: false };
  expect(iptablesHook(rs, "prerouting", pkt, ctx).t).toBe("accept");
  return pkt.mark;
}

describe.each([["a plain Map", () => new Map<string, Chain>()]])("iptables chains in %s", (_name, make) => {
  it("follow a jump target replaced between packets", () => {
    const rs = ruleset(make());
    expect(markAfter(rs)).toBe(1);
    rs.tables[0].chains.set("KUBE-SERVICES", chain("KUBE-SERVICES", [MARK(2)]));
    expect(markAfter(rs)).toBe(2);
  });

  it("follow a built-in chain replaced, and a chain's rules array replaced or refilled", () => {
    const rs = ruleset(make());
    expect(markAfter(rs)).toBe(1);
    rs.tables[0].chains.set("PREROUTING", chain("PREROUTING", [MARK(4)], true));
    expect(markAfter(rs)).toBe(4);
    const pre = rs.tables[0].chains.get("PREROUTING")!;
    pre.rules = [MARK(8)];
    expect(markAfter(rs)).toBe(8);
    pre.rules.push(MARK(16));
    expect(markAfter(rs)).toBe(24);
    pre.rules = Object.freeze([MARK(32)]) as Rule[];
    expect(markAfter(rs)).toBe(32);
    pre.rules = Object.freeze([MARK(64)]) as Rule[];
    expect(markAfter(rs)).toBe(64);
  });

  it("follow a jump target's rules array replaced (frozen or not) or refilled", () => {
    const rs = ruleset(make());
    const svcs = rs.tables[0].chains.get("KUBE-SERVICES")!;
    svcs.rules = Object.freeze([MARK(1)]) as Rule[];
    expect(markAfter(rs)).toBe(1);
    expect(markAfter(rs)).toBe(1);
    svcs.rules = Object.freeze([MARK(2)]) as Rule[];
    expect(markAfter(rs)).toBe(2);
    svcs.rules = [MARK(4)];
    expect(markAfter(rs)).toBe(4);
    svcs.rules.push(MARK(8));
    expect(markAfter(rs)).toBe(12);
  });

  it("stop a chain that jumps to itself at the depth limit", () => {
    const rs = ruleset(make());
    rs.tables[0].chains.set("KUBE-SERVICES", chain("KUBE-SERVICES", [rule({ target: { t: "jump", chain: "KUBE-SERVICES" } })]));
    expect(() => markAfter(rs)).toThrow("packet tracer: jump depth over 32 at nat/KUBE-SERVICES");
  });
});
