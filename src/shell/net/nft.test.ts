// `nft` on a node: options before the command as nft's getopt takes them, `-a` handles.
import { describe, expect, it } from "vitest";
import { R } from "../../engine/api/resources.js";
import type { ConfigMap } from "../../engine/api/types.js";
import type { Cluster } from "../../engine/cluster.js";
import { testCluster } from "../../engine/testing.js";
import { Session } from "../session.js";
import "./index.js";

/** kubectl edit cm kube-proxy (mode: nftables), then restart the DaemonSet. */
function nftablesMode(c: Cluster): void {
  const cm = c.client.get(R.configmaps, "kube-system", "kube-proxy") as ConfigMap;
  const conf = cm.data!["config.conf"].replace(/^mode: ""$/m, "mode: nftables");
  c.client.patch(R.configmaps, "kube-system", "kube-proxy", "merge", { data: { "config.conf": conf } });
  c.client.patch(R.daemonsets, "kube-system", "kube-proxy", "strategic", {
    spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T01:00:00Z" } } } },
  });
  c.runUntilIdle(600_000);
}

describe("nft on a node", () => {
  it("prints handles with -a / --handle, and refuses options after the command as nft does", async () => {
    const c = testCluster();
    nftablesMode(c);
    const s = new Session(c);
    const plain = await s.run("nft list chain ip kube-proxy services");
    expect(plain.stdout).not.toContain("# handle");
    for (const line of ["nft -a list chain ip kube-proxy services", "nft --handle list chain ip kube-proxy services", "nft -an list chain ip kube-proxy services"]) {
      const r = await s.run(line);
      expect(r.exitCode, line).toBe(0);
      expect(r.stdout, line).toMatch(/^table ip kube-proxy \{\n\tchain services \{ # handle \d+\n\t\tip daddr \. meta l4proto \. th dport vmap @service-ips # handle \d+\n/);
    }
    const ruleset = (await s.run("nft -a list ruleset")).stdout;
    expect(ruleset).toMatch(/^table ip kube-proxy \{ # handle 1\n/);
    // Every rule line carries a handle, and no handle is used twice.
    const handles = [...ruleset.matchAll(/# handle (\d+)$/gm)].map((m) => Number(m[1]));
    expect(new Set(handles.slice(1)).size).toBe(handles.length - 1);

    expect(await s.run("nft list ruleset -a")).toMatchObject({
      exitCode: 1,
      stderr: "Error: syntax error, options must be specified before commands\nnft list ruleset -a \n   ^             ~~\n",
    });
    expect(await s.run("nft -z list ruleset")).toMatchObject({ exitCode: 1, stderr: "nft: invalid option -- 'z'\n" });
    expect(await s.run("nft --handles list ruleset")).toMatchObject({ exitCode: 1, stderr: "nft: unrecognized option '--handles'\n" });
  });

  it("in iptables mode lists iptables-nft's tables, with nft's warning on stderr", async () => {
    const c = testCluster();
    const s = new Session(c);
    const r = await s.run("nft list ruleset");
    expect(r.exitCode).toBe(0);
    // kube-proxy's canary chain makes the mangle table; tables list in iptables-save's order.
    expect(r.stdout).toMatch(/^table ip mangle \{\n\tchain PREROUTING \{\n\t\ttype filter hook prerouting priority mangle; policy accept;\n/);
    expect(r.stdout).toContain("\ntable ip filter {\n\tchain INPUT {\n\t\ttype filter hook input priority filter; policy accept;\n");
    expect(r.stdout).toContain("\ntable ip nat {\n\tchain PREROUTING {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n");
    expect(r.stdout).toMatch(/\t\tmeta l4proto tcp ip daddr 10\.96\.0\.1  tcp dport 443 counter packets \d+ bytes \d+ jump KUBE-SVC-NPX46M4PTMTKRN6Y\n/);
    expect(r.stderr).toContain("# Warning: table ip nat is managed by iptables-nft, do not touch!\n");
    expect((await s.run("nft list ruleset 2>/dev/null | grep -c '^table'")).stdout).toBe("3\n");
  });
});
