// The workspace's read-only questions about a cluster, answered from its engine and journal:
// the views beside the terminal. Nothing here writes to the cluster, moves its clock or draws
// from its random streams (the step checks record only when a step passed, in the journal).
import { z } from "zod";
import type { ConnectResult } from "../engine/net/packet.js";
import { notFound } from "../engine/api/status.js";
import { notFoundMsg } from "../http/errors.js";
import type { ClusterCore } from "../runtime/core.js";
import type { JournalEntry } from "../runtime/journal.js";
import type { StepResult } from "../labs/checks.js";
import { clusterGraph, type Graph } from "./graph.js";
import { nodeRules } from "./rules.js";
import { trafficView, type TrafficView } from "./traffic.js";

export const InspectQuery = z.discriminatedUnion("view", [
  /** Everything the workspace shows at once: the graph, the steps, the last traffic, the prompt. */
  z.object({ view: z.literal("workspace") }).strict(),
  /** The journal's entries after `since` (a reloaded terminal, a share link's replay). */
  z.object({ view: z.literal("journal"), since: z.number().int().nonnegative().default(0) }).strict(),
  z.object({ view: z.literal("rules"), node: z.string().min(1).max(253) }).strict(),
  /** The traced sample connection of the last traffic run that reached `pod` (or ended as `outcome`). */
  z.object({ view: z.literal("trace"), key: z.string().min(1).max(600) }).strict(),
  /** A student's progress for a classroom dashboard: the steps passed, the last command, the failed ones. */
  z.object({ view: z.literal("progress") }).strict(),
  /** The cluster and a node's rules as they were right after journal line `seq` (time travel). */
  z.object({ view: z.literal("past"), seq: z.number().int().nonnegative(), node: z.string().min(1).max(253).default("master") }).strict(),
]);
export type InspectQuery = z.input<typeof InspectQuery>;

export interface WorkspaceView {
  id: string;
  lab: string;
  prompt: string;
  revision: number;
  clock: string;
  graph: Graph;
  steps?: StepResult[];
  progress: Record<string, { seq: number; ts: number }>;
  /** The newest journal entry's seq: a client that has it is up to date. */
  seq: number;
  traffic?: TrafficView;
  /** The tally keys of the traced samples of that traffic (pod "ns/name" or an outcome). */
  samples: string[];
}

/** At most this much journal output in one answer; the client asks again from where it stopped. */
const JOURNAL_PAGE_BYTES = 1024 * 1024;

/** Rebuilds the cluster as it was after a journal line (src/runtime/time-travel.ts, bound to the host's shell and limits). */
type Replay = (core: ClusterCore, seq: number) => Promise<ClusterCore>;

export async function inspect(core: ClusterCore, q: z.output<typeof InspectQuery>, now: number, replay: Replay): Promise<unknown> {
  switch (q.view) {
    case "progress": {
      const steps = core.evaluateSteps(now) ?? [];
      const all = core.journal.all;
      const last = all.at(-1);
      const failed = new Map<string, number>();
      for (const e of all) if (e.exitCode !== 0) failed.set(e.command.trim().slice(0, 300), (failed.get(e.command.trim().slice(0, 300)) ?? 0) + 1);
      return {
        progress: core.journal.progress,
        steps: steps.map((s) => ({ id: s.id, passed: s.passed })),
        commands: all.length,
        last: last && { command: last.command.slice(0, 300), ts: last.ts, exitCode: last.exitCode },
        failed: [...failed].map(([command, n]) => ({ command, n })),
      };
    }
    case "past": {
      const past = await replay(core, q.seq);
      const rules = nodeRules(past.cluster, q.node);
      if (!rules) throw notFound("nodes", "", q.node);
      const entry = past.journal.all.at(-1);
      return { seq: q.seq, entry: entry && { seq: q.seq, command: entry.command, exitCode: entry.exitCode }, clock: new Date(past.cluster.now()).toISOString(), graph: clusterGraph(past.cluster), rules };
    }
    case "workspace":
      return workspace(core, now);
    case "journal": {
      const out: JournalEntry[] = [];
      let bytes = 0;
      for (const e of core.journal.list) {
        if (e.seq <= q.since) continue;
        bytes += e.stdout.length + e.stderr.length + e.command.length;
        if (out.length && bytes > JOURNAL_PAGE_BYTES) break;
        out.push(e);
      }
      const last = core.journal.list.at(-1)?.seq ?? 0;
      return { entries: out, more: (out.at(-1)?.seq ?? q.since) < last };
    }
    case "rules": {
      const r = nodeRules(core.cluster, q.node);
      if (!r) throw notFound("nodes", "", q.node);
      return r;
    }
    case "trace": {
      const s = core.trafficSamples();
      const key = [...s.traces.keys()].find((k) => k === q.key || k.startsWith(`${q.key}|`));
      const r: ConnectResult | undefined = key ? s.traces.get(key) : undefined;
      if (!r) throw notFoundMsg(`no traced request for "${q.key}": the workspace keeps one request per pod of the last command that sent traffic`);
      return { seq: s.seq, key, result: r };
    }
  }
}

function workspace(core: ClusterCore, now: number): WorkspaceView {
  const graph = clusterGraph(core.cluster);
  const steps = core.evaluateSteps(now);
  const lastTraffic = [...core.journal.list].reverse().find((e) => e.traffic);
  const node = /@([^\s:\]]+)/.exec(lastTraffic?.prompt ?? "")?.[1] ?? "master";
  let traffic: TrafficView | undefined;
  if (lastTraffic) {
    const proxies = core.cluster.proxies;
    const p = proxies.node(proxies.nodeNames().includes(node) ? node : "master");
    traffic = trafficView(lastTraffic, graph, { mode: p.mode ?? "iptables", iptables: p.iptables() });
  }
  const s = core.trafficSamples();
  return {
    id: core.id,
    lab: core.lab,
    prompt: core.prompt(),
    revision: core.revision(),
    clock: new Date(core.cluster.now()).toISOString(),
    graph,
    ...(steps ? { steps } : {}),
    progress: core.journal.progress,
    seq: core.journal.list.at(-1)?.seq ?? 0,
    ...(traffic ? { traffic } : {}),
    samples: lastTraffic && s.seq === lastTraffic.seq ? [...s.traces.keys()] : [],
  };
}
