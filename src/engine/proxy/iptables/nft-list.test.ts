// nft's view of iptables-nft's tables, against what the real nft 1.0.6 printed after
// `iptables-restore` of our iptables-save of the kind-like ruleset (kernel.test.ts repeats it live).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { iptablesNftList } from "./nft-list.js";
import { IptablesProxier } from "./proxier.js";
import * as T from "./testing.js";

const testdata = (f: string) => readFileSync(join(__dirname, "testdata", f), "utf8");

function kindProxier() {
  const p = new IptablesProxier(T.TEST_NODE, T.testConfig({ clusterCIDR: "10.244.0.0/16" }), { canaryChains: false });
  p.sync(T.kindLikeState());
  return p;
}

describe("nft list in iptables mode", () => {
  it("lists the kind-like ruleset as nft did after loading its iptables-save", () => {
    const p = kindProxier();
    const r = iptablesNftList(p.ruleset, ["list", "ruleset"]);
    expect(r.stdout).toBe(testdata("iptables-kind-like.kernel-nft-list.txt"));
    expect(r.stderr).toBe("# Warning: table ip filter is managed by iptables-nft, do not touch!\n# Warning: table ip nat is managed by iptables-nft, do not touch!\n");
  });

  it("prints counters it is given", () => {
    const p = kindProxier();
    const r = iptablesNftList(p.ruleset, ["list", "chain", "ip", "nat", "KUBE-MARK-MASQ"], { rule: (t, c, i) => (t === "nat" && c === "KUBE-MARK-MASQ" && i === 0 ? { packets: 3, bytes: 180 } : undefined), policy: () => undefined });
    expect(r.stdout).toBe("table ip nat {\n\tchain KUBE-MARK-MASQ {\n\t\tcounter packets 3 bytes 180 meta mark set mark or 0x4000\n\t}\n}\n");
  });

  it("lists tables, chains and reports missing ones as nft does", () => {
    const p = kindProxier();
    expect(iptablesNftList(p.ruleset, ["list", "tables"]).stdout).toBe("table ip filter\ntable ip nat\n");
    expect(iptablesNftList(p.ruleset, ["list", "tables", "ip6"]).stdout).toBe("");
    expect(iptablesNftList(p.ruleset, ["list", "sets"]).stdout).toBe("table ip filter {\n}\ntable ip nat {\n}\n");
    expect(iptablesNftList(p.ruleset, ["list", "chains"]).stdout).toMatch(/^table ip filter \{\n\tchain INPUT \{\n\t\ttype filter hook input priority filter; policy accept;\n\t\}\n\tchain FORWARD \{\n/);
    expect(iptablesNftList(p.ruleset, ["list", "chain", "ip", "nat", "NOPE"])).toEqual({ stdout: "", stderr: "Error: No such file or directory\nlist chain ip nat NOPE\n                  ^^^^\n", exitCode: 1 });
    expect(iptablesNftList(p.ruleset, ["list", "table", "ip", "nope"]).stderr).toBe("Error: No such file or directory\nlist table ip nope\n              ^^^^\n");
  });
});
