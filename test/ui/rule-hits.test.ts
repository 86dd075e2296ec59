// The rules view's highlighting (web/src/views/rule-hits.ts) against real traces and the same
// printers' output, in each proxy mode: the lines a request went through are found, in the
// table, chain or virtual server where they are.
import { describe, expect, it } from "vitest";
import { ClusterCore, instantiate, labTemplate } from "../../src/runtime/core.js";
import { DEFAULT_LIMITS } from "../../src/runtime/limits.js";
import { sessionShell } from "../../src/runtime/terminal.js";
import { nodeRules } from "../../src/workspace/rules.js";
import { ruleHits } from "../../web/src/views/rule-hits.js";

async function traced(mode: "iptables" | "ipvs" | "nftables") {
  let now = Date.now();
  const { state } = instantiate(labTemplate("empty", now, sessionShell), "c1", null, now);
  const core = ClusterCore.restore("c1", state, sessionShell);
  const run = async (l: string) => core.exec(l, (now += 1000), DEFAULT_LIMITS);
  if (mode !== "iptables") {
    await run(`kubectl get cm -n kube-system kube-proxy -o yaml | sed 's/mode: ""/mode: "${mode}"/' | kubectl apply -f -`);
    await run("kubectl rollout restart ds kube-proxy -n kube-system");
    await run("sleep 30");
  }
  await run("kubectl create deployment web --image=nginx --replicas=3");
  await run("kubectl expose deployment web --port=80");
  await run("sleep 30");
  await run("IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}'); for i in {1..10}; do curl -s $IP; done");
  const [sample] = core.trafficSamples().traces.values();
  const rules = nodeRules(core.cluster, "master")!;
  expect(rules.mode).toBe(mode);
  return { trace: sample.trace!, rules };
}

const hitLines = (r: Awaited<ReturnType<typeof traced>>, command: string) => {
  const sec = r.rules.sections.find((s) => s.command.startsWith(command))!;
  return [...ruleHits(sec.command, sec.lines, r.trace, "master").keys()].map((i) => sec.lines[i].trim());
};

describe("rules view highlighting", () => {
  it("iptables: the KUBE-SERVICES rule, the probability rule and the DNAT, each in its table", async () => {
    const lines = hitLines(await traced("iptables"), "iptables-save");
    expect(lines.some((l) => l.startsWith("-A KUBE-SERVICES ") && l.includes("default/web cluster IP"))).toBe(true);
    expect(lines.some((l) => l.startsWith("-A KUBE-SEP-") && l.includes("DNAT --to-destination"))).toBe(true);
    expect(lines).toContain("-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES");
  });

  it("nftables: the service map's element, the numgen rule and the endpoint's dnat", async () => {
    const lines = hitLines(await traced("nftables"), "nft");
    expect(lines.some((l) => l.startsWith("numgen random mod 3 vmap"))).toBe(true);
    expect(lines.some((l) => /^meta l4proto tcp dnat to 10\.244\.\d+\.\d+:80$/.test(l))).toBe(true);
    expect(lines.some((l) => / \. tcp \. 80 : goto service-[A-Z0-9]+-default\/web\/tcp\//.test(l))).toBe(true);
  });

  it("IPVS: the virtual server and the real server the scheduler chose", async () => {
    const lines = hitLines(await traced("ipvs"), "ipvsadm");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^TCP\s+10\.\d+\.\d+\.\d+:80 rr$/);
    expect(lines[1]).toMatch(/^-> 10\.244\.\d+\.\d+:80\s+Masq\s+1/);
  });
});
