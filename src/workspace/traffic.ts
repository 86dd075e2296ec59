// The traffic view: for a command that sent traffic, the connections each pod answered next to
// the share the rules predict for the Service they went to. iptables: each KUBE-SEP's chance is
// its rule's --probability times the chance that no earlier rule matched (1/n, 1/(n-1), ...);
// IPVS: the real servers' weights under the scheduler; nftables: numgen random mod n, 1/n each.
// Session affinity sends a client's connections to one endpoint: no split is predicted then.
import type { Graph, GraphService } from "./graph.js";
import type { Rule, Ruleset } from "../engine/proxy/iptables/model.js";
import type { JournalEntry } from "../runtime/journal.js";

interface TrafficBar {
  pod: string;
  connections: number;
  /** Observed share of the answered connections. */
  share: number;
  /** The share the rules give this pod's endpoint, when known. */
  predicted?: number;
}

export interface TrafficView {
  seq: number;
  command: string;
  connections: number;
  answered: number;
  bars: TrafficBar[];
  /** The same, summed per owner (Deployment, StatefulSet...): 8:2 pods become 80/20 here. */
  groups: Array<{ owner: string; pods: number; connections: number; share: number; predicted?: number }>;
  /** Connections no pod answered (refused, timeout, unreachable, a node's own listener). */
  other: Record<string, number>;
  service?: { namespace: string; name: string; mode: string; how: string };
}

/**
 * Each endpoint's ("ip:port") chance under a Service port's KUBE-SVC chain, read from the node's
 * ruleset (the structures iptables-save prints): the KUBE-SERVICES rule commented
 * "<ns/name[:port]> cluster IP" jumps to it, and each of its KUBE-SEP jumps DNATs to an endpoint.
 */
function iptablesShares(rs: Ruleset, servicePort: string): Map<string, number> | undefined {
  const nat = rs.tables.find((t) => t.name === "nat")?.chains;
  if (!nat) return undefined;
  const jumpOf = (r: Rule) => (r.target?.t === "jump" ? r.target.chain : undefined);
  const entry = nat.get("KUBE-SERVICES")?.rules.find((r) => r.matches.some((m) => m.m === "comment" && m.text === `${servicePort} cluster IP`) && jumpOf(r)?.startsWith("KUBE-SVC-"));
  const svc = entry && nat.get(jumpOf(entry)!);
  if (!svc) return undefined;
  const shares = new Map<string, number>();
  let remaining = 1;
  for (const r of svc.rules) {
    const sep = jumpOf(r);
    if (!sep?.startsWith("KUBE-SEP-")) continue;
    const stat = r.matches.find((m) => m.m === "statistic");
    const p = stat?.m === "statistic" ? stat.probability : 1;
    const dnat = nat.get(sep)?.rules.find((x) => x.target?.t === "DNAT")?.target;
    if (dnat?.t === "DNAT") shares.set(dnat.to, (shares.get(dnat.to) ?? 0) + remaining * p);
    remaining *= 1 - p;
  }
  return shares;
}

function serviceOf(graph: Graph, pods: ReadonlySet<string>): GraphService | undefined {
  let best: GraphService | undefined;
  let bestHits = 0;
  for (const s of graph.services) {
    const hits = s.endpoints.filter((e) => e.pod && pods.has(`${s.namespace}/${e.pod}`)).length;
    if (hits > bestHits || (hits === bestHits && best && s.endpoints.length < best.endpoints.length)) {
      best = s;
      bestHits = hits;
    }
  }
  return bestHits > 0 ? best : undefined;
}

/** The proxy a node routes with: its mode, and its iptables ruleset (iptables and IPVS modes). */
interface NodeProxyView {
  mode: string;
  iptables?: Ruleset;
}

export function trafficView(entry: JournalEntry, graph: Graph, rules: NodeProxyView | undefined): TrafficView | undefined {
  const t = entry.traffic;
  if (!t) return undefined;
  const byPod = new Map<string, number>();
  for (const p of t.pods) byPod.set(p.pod, (byPod.get(p.pod) ?? 0) + p.connections);
  const answered = [...byPod.values()].reduce((a, b) => a + b, 0);
  const svc = serviceOf(graph, new Set(byPod.keys()));
  const predicted = new Map<string, number>();
  let how = "";
  if (svc && rules) {
    const ready = svc.endpoints.filter((e) => e.ready && e.pod);
    const port = svc.ports[0];
    if (svc.sessionAffinity === "ClientIP") how = "sessionAffinity ClientIP: one client, one endpoint";
    else if (rules.mode === "iptables" && port && rules.iptables) {
      const shares = iptablesShares(rules.iptables, `${svc.namespace}/${svc.name}${port.name ? `:${port.name}` : ""}`);
      if (shares) {
        for (const e of ready) for (const [dst, share] of shares) if (dst.startsWith(`${e.ip}:`)) predicted.set(`${svc.namespace}/${e.pod}`, share);
        how = "iptables: statistic --mode random --probability, rule by rule";
      }
    } else if (ready.length) {
      for (const e of ready) predicted.set(`${svc.namespace}/${e.pod}`, 1 / ready.length);
      how = rules.mode === "ipvs" ? "IPVS: real servers of equal weight (1) under the scheduler" : `nftables: numgen random mod ${ready.length}`;
    }
  }
  const pods = new Set([...byPod.keys(), ...predicted.keys()]);
  const bars = [...pods].sort().map((pod): TrafficBar => {
    const connections = byPod.get(pod) ?? 0;
    return { pod, connections, share: answered ? connections / answered : 0, ...(predicted.has(pod) ? { predicted: predicted.get(pod)! } : {}) };
  });
  const ownerOf = new Map(graph.pods.map((p) => [`${p.namespace}/${p.name}`, `${p.namespace}/${p.owner}`]));
  const groups = new Map<string, { owner: string; pods: number; connections: number; share: number; predicted?: number }>();
  for (const b of bars) {
    const owner = ownerOf.get(b.pod) ?? b.pod;
    const g = groups.get(owner) ?? { owner, pods: 0, connections: 0, share: 0 };
    g.pods++;
    g.connections += b.connections;
    g.share += b.share;
    if (b.predicted !== undefined) g.predicted = (g.predicted ?? 0) + b.predicted;
    groups.set(owner, g);
  }
  return {
    seq: entry.seq,
    groups: [...groups.values()].sort((a, b) => (a.owner < b.owner ? -1 : 1)),
    command: entry.command,
    connections: t.connections,
    answered,
    bars,
    other: t.other,
    ...(svc && rules ? { service: { namespace: svc.namespace, name: svc.name, mode: rules.mode, how } } : {}),
  };
}
