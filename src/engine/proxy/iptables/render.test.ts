import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IptablesProxier } from "./proxier.js";
import { iptablesList, iptablesRules, joinLines, kernelProbability, saveString, toOutput, type ListOptions } from "./render.js";
import * as T from "./testing.js";

const testdata = (f: string) => readFileSync(join(__dirname, "testdata", f), "utf8");

function kindProxier() {
  const p = new IptablesProxier(T.TEST_NODE, T.testConfig({ clusterCIDR: "10.244.0.0/16" }), { canaryChains: false });
  p.sync(T.kindLikeState());
  return p;
}

/** Parses "# iptables [-t T] -L|-S [CHAIN] [-n] [-v]" sections of a kernel listing. */
function sections(text: string): Array<{ argv: string[]; out: string }> {
  const out: Array<{ argv: string[]; out: string }> = [];
  for (const block of text.split(/^# /m).filter(Boolean)) {
    const nl = block.indexOf("\n");
    out.push({ argv: block.slice(0, nl).split(/\s+/).slice(1), out: block.slice(nl + 1) });
  }
  return out;
}

/** A tiny argv parser for the listing commands used in the dumps. */
function run(p: IptablesProxier, argv: string[]) {
  const o: ListOptions = {};
  let spec = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-t") o.table = argv[++i];
    else if (a === "-L") o.chain = argv[i + 1] && !argv[i + 1].startsWith("-") ? argv[++i] : undefined;
    else if (a === "-S") {
      spec = true;
      o.chain = argv[i + 1] && !argv[i + 1].startsWith("-") ? argv[++i] : undefined;
    } else if (a === "-n") o.numeric = true;
    else if (a === "-v") o.verbose = true;
  }
  return toOutput(spec ? iptablesRules(p.ruleset, o) : iptablesList(p.ruleset, o));
}

describe("iptables -L / -S of the kind-like node (iptables 1.8.9 output)", () => {
  const p = kindProxier();
  for (const { argv, out } of sections(testdata("iptables-kind-like.kernel-list.txt"))) {
    it(argv.join(" "), () => {
      const got = run(p, argv);
      expect(got.exitCode).toBe(0);
      if (argv.includes("KUBE-SERVICES") && argv.includes("nat")) {
        // Services are written in key order, the dump in creation order: compare the rule set.
        const split = (s: string) => {
          const l = s.trimEnd().split("\n");
          return [l.slice(0, 2), l.slice(2, -1).sort(), l.at(-1)];
        };
        expect(split(got.stdout)).toEqual(split(out));
      } else if (argv.includes("filter") && argv.includes("KUBE-SERVICES")) {
        // The dump's listing was captured before the FORWARD/OUTPUT jump rules were installed;
        // loading the dump's own iptables-save into a kernel prints "(2 references)", as we do.
        expect(got.stdout).toBe(out.replace("(0 references)", "(2 references)"));
      } else {
        expect(got.stdout).toBe(out);
      }
    });
  }
});

describe("iptables -L details", () => {
  const p = kindProxier();
  it("reports an unknown chain or table as iptables-nft 1.8.9 does", () => {
    expect(toOutput(iptablesList(p.ruleset, { table: "nat", chain: "KUBE-NOPE", numeric: true }))).toEqual({
      stdout: "",
      stderr: "iptables v1.8.9 (nf_tables): chain `KUBE-NOPE' in table `nat' is incompatible, use 'nft' tool.\n",
      exitCode: 1,
    });
    expect(iptablesRules(p.ruleset, { chain: "NOPE" }).exitCode).toBe(1);
    expect(toOutput(iptablesList(p.ruleset, { table: "foo" }))).toEqual({
      stdout: "",
      stderr: "iptables v1.8.9 (nf_tables): table 'foo' does not exist\nPerhaps iptables or your kernel needs to be upgraded.\n",
      exitCode: 3,
    });
  });

  it("lists whole tables with policies, references and blank lines between chains", () => {
    const out = joinLines(iptablesList(p.ruleset, { numeric: true }).lines);
    expect(out.startsWith("Chain INPUT (policy ACCEPT)\ntarget     prot opt source               destination         \n")).toBe(true);
    expect(out).toContain("\n\nChain KUBE-SERVICES (2 references)\n");
    expect(out.endsWith("\n\n")).toBe(false);
  });

  it("resolves names without -n: anywhere, protocol and service names", () => {
    const out = joinLines(iptablesList(p.ruleset, { table: "nat", chain: "KUBE-SERVICES" }).lines);
    expect(out).toContain("KUBE-SVC-NPX46M4PTMTKRN6Y  tcp  --  anywhere             10.96.0.1            /* default/kubernetes:https cluster IP */ tcp dpt:https\n");
    expect(out).toContain("KUBE-SVC-TCOU7JCQXEZGVUNU  udp  --  anywhere             10.96.0.10           /* kube-system/kube-dns:dns cluster IP */ udp dpt:domain\n");
    expect(out).toContain("KUBE-NODEPORTS  all  --  anywhere             anywhere ");
  });

  it("numbers lines and prints counters with -v --line-numbers", () => {
    const out = joinLines(iptablesList(p.ruleset, { table: "nat", chain: "KUBE-POSTROUTING", numeric: true, verbose: true, lineNumbers: true }).lines);
    expect(out.split("\n").slice(0, 3)).toEqual([
      "Chain KUBE-POSTROUTING (1 references)",
      "num   pkts bytes target     prot opt in     out     source               destination         ",
      "1        0     0 RETURN     0    --  *      *       0.0.0.0/0            0.0.0.0/0            mark match ! 0x4000/0x4000",
    ]);
  });
});

describe("formatting helpers", () => {
  it("prints probabilities as the kernel stores them (lround(p * 2^31), %.11f)", () => {
    const k = (n: number) => kernelProbability(Number((1 / n).toFixed(10)));
    expect([2, 3, 4, 5, 6, 7].map(k)).toEqual([
      "0.50000000000", "0.33333333349", "0.25000000000", "0.20000000019", "0.16666666651", "0.14285714272",
    ]);
    // An exact tie at the 12th decimal rounds half to even like glibc (checked on a kernel).
    expect(k(4096)).toBe("0.00024414062");
  });

  it("quotes like xtables_save_string", () => {
    expect(saveString("ns1/svc1")).toBe('"ns1/svc1"');
    expect(saveString("x_Y-9")).toBe("x_Y-9");
    expect(saveString("")).toBe('""');
    expect(saveString(`a"b'c\\d`)).toBe(`"a\\"b\\'c\\\\d"`);
  });
});
