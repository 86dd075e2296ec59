// The rules view: what the node's own commands print for its proxy mode, from the same
// renderers as iptables-save, ipvsadm -Ln and nft list (one printer layer), so every line the
// view highlights is a line the student can print in the terminal.
import type { Cluster } from "../engine/cluster.js";
import { iptablesSave } from "../engine/proxy/iptables/render.js";
import { ipvsadmList } from "../engine/proxy/ipvs/render.js";
import { nftList } from "../engine/proxy/nftables/render.js";
import { ctime } from "../shell/net/commands.js";

interface RulesSection {
  /** The command that prints this text on the node. */
  command: string;
  lines: string[];
}

export interface RulesView {
  node: string;
  mode: string;
  sections: RulesSection[];
}

const split = (s: string) => s.replace(/\n$/, "").split("\n");

export function nodeRules(cluster: Cluster, node: string): RulesView | undefined {
  if (!cluster.proxies.nodeNames().includes(node)) return undefined;
  const p = cluster.proxies.node(node);
  const mode = p.mode ?? "iptables";
  const sections: RulesSection[] = [];
  if (mode === "nftables") {
    const nft = nftList(p.nftables()?.table, ["list", "table", "ip", "kube-proxy"]);
    sections.push({ command: "nft list table ip kube-proxy", lines: split(nft.stdout || nft.stderr) });
  }
  if (mode === "ipvs") {
    const ipvs = p.ipvs();
    sections.push({ command: "ipvsadm -Ln", lines: split(ipvs ? (ipvsadmList(ipvs, { format: "list" }) ?? "") : "") });
  }
  if (mode !== "nftables") {
    const rs = p.iptables();
    // Every table: a packet's path crosses filter (KUBE-FIREWALL, KUBE-FORWARD) as well as nat.
    const all = rs ? iptablesSave(rs, { date: ctime(cluster.now()) }).lines : [];
    sections.push({ command: "iptables-save", lines: [...all] });
  }
  return { node, mode, sections };
}
