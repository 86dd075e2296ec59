// Loads what we render into a real kernel (a throw-away network namespace) and checks that
// `nft list` prints exactly what we print. Needs root, unshare and nft (Debian: nftables).
// In CI (CI=true) a missing prerequisite fails the test; elsewhere the test is skipped.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { servicePortKey } from "../types.js";
import { TEST_CONFIG, TEST_NODE, TEST_SERVICE_CIDRS, makeState, overallState, prng, randomServicePort } from "./fixtures.test-helpers.js";
import { NftablesProxier } from "./proxier.js";
import { joinLines, listTableLines, nftList, transactionLines } from "./render.js";

function which(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const missing: string[] = [];
if (process.getuid?.() !== 0) missing.push("root");
if (!which("unshare")) missing.push("unshare (util-linux)");
if (!which("nft")) missing.push("nft (apt-get install nftables)");
const reason = missing.length ? `real-kernel nft test needs ${missing.join(", ")}` : "";
const inCI = process.env.CI === "true";

const dir = missing.length ? "" : mkdtempSync(join(tmpdir(), "servicelab-nft-"));
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** nft -f <text> in a fresh network namespace, then `nft list table ip kube-proxy`. */
function loadAndList(name: string, text: string, list = "nft list table ip kube-proxy"): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return execFileSync("unshare", ["-n", "sh", "-c", `nft -f '${file}' && ${list}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * The transaction form as one nft batch: nft resolves chain references while parsing, so
 * every table/set/map/chain is declared before the rules and elements that name them (each
 * kind keeps its order, so the kernel's creation order is unchanged).
 */
function loadableTransaction(p: NftablesProxier): string {
  const decl: string[] = [];
  const rest: string[] = [];
  for (const line of transactionLines(p)) {
    if (line === "" || line.startsWith("#")) continue;
    (/^add (table|set|map|chain) /.test(line) ? decl : rest).push(line);
  }
  return `${[...decl, ...rest].join("\n")}\n`;
}

/** The listing's set and chain blocks, sorted. */
function blocks(listing: string): string[] {
  const lines = listing.trimEnd().split("\n");
  return lines.slice(2, -1).join("\n").split("\n\n").sort();
}

function bigRandom(): NftablesProxier {
  const rand = prng(42);
  const entries = [];
  for (let i = 0; i < 150; i++) entries.push(randomServicePort(rand, i));
  const p = new NftablesProxier(TEST_NODE, { ...TEST_CONFIG, nodePortAddresses: [] }, { serviceCIDRs: ["10.96.0.0/12", "172.30.0.0/16"] });
  p.sync(makeState(entries));
  // Then some incremental churn so that creation order and rewritten chains are exercised.
  const state = makeState(entries);
  const services = new Map(state.services);
  const endpoints = new Map(state.endpoints);
  const changed = new Set<string>();
  for (let i = 150; i < 170; i++) {
    const [svc, eps] = randomServicePort(rand, i);
    const k = servicePortKey(svc.name);
    services.set(k, svc);
    endpoints.set(k, eps);
    changed.add(k);
  }
  for (const k of [...services.keys()].slice(0, 10)) {
    services.delete(k);
    changed.add(k);
  }
  p.sync({ services, endpoints }, changed);
  // Left with the flushed (stale) chains of removed services, as the kernel holds them.
  expect(p.staleChainNames().length).toBeGreaterThan(0);
  return p;
}

const cases: [string, () => NftablesProxier][] = [
  [
    "TestOverallNFTablesRules",
    () => {
      const p = new NftablesProxier(TEST_NODE, TEST_CONFIG, { serviceCIDRs: TEST_SERVICE_CIDRS });
      p.sync(overallState());
      return p;
    },
  ],
  ["150 random service ports after incremental churn", bigRandom],
  [
    "nodePortAddresses matching all addresses",
    () => {
      const p = new NftablesProxier(TEST_NODE, { ...TEST_CONFIG, nodePortAddresses: ["0.0.0.0/0"], masqueradeAll: true }, {});
      p.sync(overallState());
      return p;
    },
  ],
];

describe("real kernel (nft 1.0.6 in a network namespace)", () => {
  if (missing.length && !inCI) {
    it.skip(`skipped: ${reason}`, () => {});
    return;
  }
  if (missing.length) {
    it("has the prerequisites (CI=true)", () => {
      expect.fail(reason);
    });
    return;
  }
  it("list chains / sets / maps / tables / chain / map print what nft prints", () => {
    const p = cases[0]![1]();
    const cmds = [
      ["list", "chains"],
      ["list", "sets"],
      ["list", "maps"],
      ["list", "tables"],
      ["list", "chain", "ip", "kube-proxy", "external-42NFTM6N-ns2/svc2/tcp/p80"],
      ["list", "map", "kube-proxy", "no-endpoint-services"],
      ["list", "set", "ip", "kube-proxy", "affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80"],
    ];
    const sep = "=====";
    const script = `{ ${cmds.map((c) => `nft ${c.join(" ")}; echo ${sep};`).join(" ")} }`;
    const kernel = loadAndList("cmds.nft", joinLines(listTableLines(p.table)), script).split(`${sep}\n`);
    cmds.forEach((c, i) => expect(nftList(p.table, c).stdout, c.join(" ")).toBe(kernel[i]));
  });

  for (const [name, make] of cases) {
    it(`${name}: the transaction loads and the kernel lists exactly what we list`, () => {
      const p = make();
      const ours = joinLines(listTableLines(p.table));
      const kernel = loadAndList("tx.nft", loadableTransaction(p));
      // After incremental syncs our chains sit in creation order, while the transaction text
      // is in service order; then compare the listed objects regardless of order.
      if (name.includes("incremental")) expect(blocks(kernel)).toEqual(blocks(ours));
      else expect(kernel).toBe(ours);
    });
    if (!name.includes("incremental")) {
      it(`${name}: nft -a numbers our objects as the kernel does after loading our listing`, () => {
        const t = make().table;
        const kernel = loadAndList("handles.nft", joinLines(listTableLines(t)), "nft -a list ruleset");
        expect(joinLines(listTableLines(t, t.handles))).toBe(kernel);
      });
    }
    it(`${name}: our nft list output loads and lists back identically`, () => {
      const ours = joinLines(listTableLines(make().table));
      // nft itself is not a fixed point on merged anonymous sets: a listed "{ 10.0.0.0/8 }"
      // (two merged source ranges) reads back as one element and lists as "10.0.0.0/8".
      const unbrace = (s: string) => s.replace(/ \{ ([^,{}]+) \} drop/g, " $1 drop");
      expect(unbrace(loadAndList("list.nft", ours))).toBe(unbrace(ours));
    });
  }
});
