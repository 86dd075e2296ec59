// Which lines of a node's printed rules a traced request went through, and at which steps of
// its trace. Each printer's lines are matched the way that printer lays them out:
// iptables-save by table (a chain name like OUTPUT is in several), nft by chain and by map or
// set element, ipvsadm by virtual server and, under it, the real server the scheduler chose.
import type { TraceStep } from "../../../src/engine/net/packet";

const stripNumber = (s: string) => s.replace(/^\d+: /, "").trim();

/** Line index -> the trace's step numbers (1-based) that met that line. */
export function ruleHits(command: string, lines: readonly string[], steps: readonly TraceStep[], node: string): Map<number, number[]> {
  const hits = new Map<number, number[]>();
  const add = (i: number, n: number) => hits.set(i, [...(hits.get(i) ?? []), n]);
  const mine = steps.map((s, i) => ({ s, n: i + 1 })).filter(({ s }) => s.node === node);
  if (command.startsWith("iptables-save")) {
    const at = new Map<string, number>();
    let table = "";
    lines.forEach((l, i) => {
      if (l.startsWith("*")) table = l.slice(1);
      else if (!at.has(`${table}|${l}`)) at.set(`${table}|${l}`, i);
    });
    for (const { s, n } of mine) {
      if (s.kind !== "rule") continue;
      const i = at.get(`${s.table ?? ""}|${stripNumber(s.text)}`);
      if (i !== undefined) add(i, n);
    }
  } else if (command.startsWith("nft")) {
    // Lines by the chain or the map/set they are in.
    const rule = new Map<string, number>();
    const blockOf: string[] = [];
    let block = "";
    lines.forEach((l, i) => {
      const m = /^\s*(chain|map|set) (\S+) \{/.exec(l);
      if (m) block = m[2];
      blockOf[i] = block;
      if (!rule.has(`${block}|${l.trim()}`)) rule.set(`${block}|${l.trim()}`, i);
    });
    for (const { s, n } of mine) {
      if (s.kind === "rule") {
        const i = rule.get(`${s.chain ?? ""}|${stripNumber(s.text)}`);
        if (i !== undefined) add(i, n);
      } else if (s.kind === "lookup") {
        // "vmap @service-ips lookup 10.96.0.10 . udp . 53: goto ..." -> that map's element line.
        const m = /@(\S+) lookup (.+?): /.exec(s.text);
        if (!m) continue;
        const i = lines.findIndex((l, j) => blockOf[j] === m[1] && (l.includes(`${m[2]} :`) || l.includes(`${m[2]},`) || l.trim().endsWith(m[2])));
        if (i >= 0) add(i, n);
      }
    }
  } else if (command.startsWith("ipvsadm")) {
    // The trace names the real server (scheduler) next to the virtual server (lookup), in either order.
    let vs = -1;
    const chosen: Array<{ to: string; n: number }> = [];
    for (const { s, n } of mine) {
      if (s.kind === "lookup" && s.text.startsWith("IPVS virtual server")) {
        const line = s.text.slice(s.text.indexOf(": ") + 2).trim();
        vs = lines.findIndex((l) => l.trim() === line);
        if (vs >= 0) add(vs, n);
      } else if (s.kind === "scheduler") {
        const to = /-> (\S+)/.exec(s.text)?.[1];
        if (to) chosen.push({ to, n });
      }
    }
    for (const { to, n } of vs >= 0 ? chosen : []) {
      for (let i = vs + 1; i < lines.length && lines[i].trimStart().startsWith("->"); i++) {
        if (lines[i].trim().startsWith(`-> ${to} `)) {
          add(i, n);
          break;
        }
      }
    }
  }
  return hits;
}
