import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TEST_CONFIG, TEST_NODE, TEST_SERVICE_CIDRS, overallState } from "./fixtures.test-helpers.js";
import { validateTable } from "./model.js";
import { NftablesProxier } from "./proxier.js";
import { durationText, joinLines, listTableLines, nftList, priorityText, renderTransaction } from "./render.js";

const golden = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), "utf8");

function overall(): NftablesProxier {
  const p = new NftablesProxier(TEST_NODE, TEST_CONFIG, { serviceCIDRs: TEST_SERVICE_CIDRS });
  p.sync(overallState());
  return p;
}

describe("nftables golden (TestOverallNFTablesRules)", () => {
  it("renders the unit test's expected transaction byte for byte", () => {
    expect(renderTransaction(overall())).toBe(golden("nftables-overall.transaction.txt"));
  });

  it("lists the table byte for byte as nft 1.0.6 does after loading it", () => {
    expect(joinLines(listTableLines(overall().table))).toBe(golden("nftables-overall.kernel-list.txt"));
  });

  it("has every jump/goto target and @set", () => {
    expect(validateTable(overall().table)).toEqual([]);
  });

  it("nft list ruleset equals the table listing; list chain/set/map", () => {
    const t = overall().table;
    expect(nftList(t, ["list", "ruleset"]).stdout).toBe(golden("nftables-overall.kernel-list.txt"));
    expect(nftList(t, ["list", "chain", "ip", "kube-proxy", "services"]).stdout).toBe(
      "table ip kube-proxy {\n\tchain services {\n\t\tip daddr . meta l4proto . th dport vmap @service-ips\n" +
        "\t\tip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports\n\t}\n}\n",
    );
    expect(nftList(t, ["list", "map", "ip", "kube-proxy", "service-nodeports"]).stdout).toBe(
      "table ip kube-proxy {\n\tmap service-nodeports {\n\t\ttype inet_proto . inet_service : verdict\n\t\tcomment \"NodePort traffic\"\n" +
        "\t\telements = { tcp . 3001 : goto external-42NFTM6N-ns2/svc2/tcp/p80,\n" +
        "\t\t\t     tcp . 3002 : goto external-HVFWP5L3-ns5/svc5/tcp/p80,\n" +
        "\t\t\t     tcp . 3003 : goto external-4AT6LBPK-ns3/svc3/tcp/p80 }\n\t}\n}\n",
    );
    expect(nftList(t, ["list", "set", "kube-proxy", "cluster-ips"]).exitCode).toBe(0);
  });

  it("reports missing objects with nft's own error text", () => {
    const t = overall().table;
    expect(nftList(t, ["list", "chain", "ip", "kube-proxy", "nosuch"])).toEqual({
      stdout: "",
      stderr: "Error: No such file or directory\nlist chain ip kube-proxy nosuch\n                         ^^^^^^\n",
      exitCode: 1,
    });
    expect(nftList(t, ["list", "set", "ip", "kube-proxy", "service-ips"]).stderr).toBe(
      "Error: No such file or directory\nlist set ip kube-proxy service-ips\n                       ^^^^^^^^^^^\n",
    );
    expect(nftList(t, ["list", "table", "inet", "kube-proxy"]).stderr).toBe(
      "Error: No such file or directory\nlist table inet kube-proxy\n                ^^^^^^^^^^\n",
    );
    expect(nftList(t, ["list", "chain", "ip", "nosuch", "services"]).stderr).toBe(
      "Error: No such file or directory\nlist chain ip nosuch services\n              ^^^^^^\n",
    );
    expect(nftList(t, ["list", "chain", "kube-proxy", "nosuch"]).stderr).toBe(
      "Error: No such file or directory\nlist chain kube-proxy nosuch\n                      ^^^^^^\n",
    );
    expect(nftList(t, ["list", "chain", "ip", "kube-proxy"]).stderr).toBe(
      "Error: syntax error, unexpected newline, expecting string\nlist chain ip kube-proxy\n                        ^\n",
    );
    expect(nftList(undefined, ["list", "ruleset"])).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(nftList(undefined, ["list", "tables"]).stdout).toBe("");
    expect(nftList(t, ["list", "tables"]).stdout).toBe("table ip kube-proxy\n");
    expect(nftList(t, ["list", "ruleset", "ip6"]).stdout).toBe("");
  });
});

describe("nft -a: kernel handles", () => {
  it("a first sync numbers as the kernel does after nft -f of our listing (golden from nft 1.0.6)", () => {
    const t = overall().table;
    expect(nftList(t, ["list", "ruleset"], { handles: true }).stdout).toBe(golden("nftables-overall.kernel-list-handles.txt"));
    expect(nftList(t, ["list", "chains"], { handles: true }).stdout).toBe(golden("nftables-overall.kernel-chains-handles.txt"));
    expect(nftList(t, ["list", "chain", "ip", "kube-proxy", "services"], { handles: true }).stdout).toBe(
      "table ip kube-proxy {\n\tchain services { # handle 15\n\t\tip daddr . meta l4proto . th dport vmap @service-ips # handle 61\n" +
        "\t\tip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports # handle 62\n\t}\n}\n",
    );
    // `list tables` prints no handle, as nft's table listing without a body.
    expect(nftList(t, ["list", "tables"], { handles: true }).stdout).toBe("table ip kube-proxy\n");
  });

  it("an incremental sync keeps untouched chains' handles and numbers new rules above every old one", () => {
    const p = overall();
    const h = p.table.handles;
    const before = new Map([...p.table.chains.keys()].map((n) => [n, [h.chain(n), h.rule(n, 0)]]));
    const maxBefore = Math.max(...[...before.values()].flat().filter((x): x is number => x !== undefined), ...[...p.table.sets.keys()].map((n) => h.set(n)!));
    const state = overallState();
    const key = [...state.services.keys()].find((k) => k.startsWith("ns4/svc4"))!;
    expect(key).toBeDefined();
    // One more endpoint for svc4: its chains are flushed and refilled, a new endpoint chain appears.
    const eps = state.endpoints.get(key)!;
    const endpoints = new Map(state.endpoints);
    endpoints.set(key, [...eps, { ...eps[0]!, ip: "10.180.0.99" }]);
    p.sync({ ...state, endpoints }, new Set([key]));
    for (const [name, [chain, rule]] of before) {
      if (!p.table.chains.has(name)) continue;
      expect(h.chain(name), name).toBe(chain);
      if (name.includes("ns4/svc4")) expect(h.rule(name, 0)!, name).toBeGreaterThan(maxBefore);
      else expect(h.rule(name, 0), name).toBe(rule);
    }
    const added = [...p.table.chains.keys()].filter((n) => !before.has(n));
    expect(added.length).toBeGreaterThan(0);
    for (const n of added) expect(h.chain(n)!).toBeGreaterThan(maxBefore);
    // Listing order is creation order, so chain handles rise down the listing.
    const listed = [...p.table.chains.keys()].map((n) => h.chain(n)!);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
  });
});

describe("nft output details (checked against nft 1.0.6)", () => {
  it("names priorities like prio2str", () => {
    expect(priorityText(-110, "prerouting")).toBe("dstnat - 10");
    expect(priorityText(-110, "output")).toBe("-110");
    expect(priorityText(-100, "output")).toBe("-100");
    expect(priorityText(-100, "prerouting")).toBe("dstnat");
    expect(priorityText(110, "postrouting")).toBe("srcnat + 10");
    expect(priorityText(100, "input")).toBe("100");
    expect(priorityText(100, "postrouting")).toBe("srcnat");
    expect(priorityText(-160, "forward")).toBe("mangle - 10");
    expect(priorityText(0, "forward")).toBe("filter");
    expect(priorityText(-11, "output")).toBe("-11");
  });
  it("prints timeouts like time_print", () => {
    expect(durationText(10800)).toBe("3h");
    expect(durationText(90061)).toBe("1d1h1m1s");
    expect(durationText(60)).toBe("1m");
    expect(durationText(5)).toBe("5s");
  });
});
