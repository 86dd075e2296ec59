// `explain`: one connection's trace as text, grouped by node, with the rule count that shows
// iptables' linear walk against nftables' and IPVS's lookups.
import type { ConnectResult } from "./packet.js";

export function explainText(r: ConnectResult): string {
  const t = r.tuple;
  const lines: string[] = [`connection ${t.proto} ${t.src}:${t.sport} -> ${t.dst}:${t.dport}`];
  let node = "";
  for (const s of r.trace ?? []) {
    if (s.node !== node) {
      node = s.node;
      lines.push(`[${node}]`);
    }
    const indent = s.kind === "hook" || s.kind === "hop" || s.kind === "route" ? "  " : "    ";
    lines.push(`${indent}${s.kind === "hook" ? "== " : ""}${s.text}`);
  }
  lines.push(`verdict: ${r.verdict}${r.reason ? ` (${r.reason})` : ""}`);
  if (r.dst) lines.push(`destination: ${r.dst.ip}:${r.dst.port}${r.pod ? ` (pod ${r.pod})` : r.host ? ` (host ${r.host})` : ""}`);
  if (r.seenSrc) lines.push(`source seen by the destination: ${r.seenSrc.ip}:${r.seenSrc.port}${r.masqueraded ? " (masqueraded)" : ""}`);
  lines.push(`path: ${r.path.join(" -> ")}; rules evaluated: ${r.rules}`);
  return lines.join("\n") + "\n";
}
