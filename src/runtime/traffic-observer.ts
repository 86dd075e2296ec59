// What the student's commands send through the data plane: connections per answering pod of
// each command line (traffic runs, for the history and the journal), and one traced sample
// connection per pod and outcome of the last command that sent any (the workspace draws them).
import type { Cluster } from "../engine/cluster.js";
import { dataplaneOf } from "../engine/net/cluster-env.js";
import type { ConnectResult } from "../engine/net/packet.js";

/** What one command sent through the data plane: connections per answering pod, and the rest. */
export interface TrafficRun {
  ts: number;
  command: string;
  connections: number;
  /** Connections a pod accepted, by pod ("namespace/name"), protocol and port (after DNAT). */
  pods: Array<{ pod: string; proto: string; port: number; connections: number }>;
  /** The others: refused, timeout, unreachable, or answered by a node ("node/<name>"). */
  other: Record<string, number>;
}

/** Connections traced per command line, for the workspace's samples (a 100-curl loop to 10 pods needs ~10). */
const TRACED_PER_COMMAND = 64;

/** One command line's connections as it runs: a count per tally key, the first traced one of each. */
interface LineTraffic {
  tally: Map<string, number>;
  traces: Map<string, ConnectResult>;
}

export class TrafficObserver {
  private observing = false;
  /** The command line running now, while one runs. */
  private line?: LineTraffic;
  private readonly runs: TrafficRun[] = [];
  private samples: { seq: number; traces: ReadonlyMap<string, ConnectResult> } = { seq: 0, traces: new Map() };

  constructor(private readonly cluster: Cluster) {}

  /** Counts the requests each pod answers; builds the cluster's data plane. */
  observe(): void {
    if (this.observing) return;
    dataplaneOf(this.cluster).observe((c) => this.count(c));
    this.observing = true;
  }

  /** Starts counting a command line's connections, tracing up to TRACED_PER_COMMAND of them. */
  begin(): LineTraffic {
    const line: LineTraffic = (this.line = { tally: new Map(), traces: new Map() });
    dataplaneOf(this.cluster).traceBudget = TRACED_PER_COMMAND;
    return line;
  }

  /** Stops counting (the line ended, or failed). */
  end(): void {
    this.line = undefined;
    dataplaneOf(this.cluster).traceBudget = 0;
  }

  /** The traffic run of a line that ended, kept for the history; undefined when it sent nothing. */
  run(line: LineTraffic, ts: number, command: string): TrafficRun | undefined {
    if (!line.tally.size) return undefined;
    const run = trafficRun(ts, command, line.tally);
    this.runs.push(run);
    return run;
  }

  /** Keeps the line's traced connections as the samples of journal line `seq`. */
  keepSamples(seq: number, line: LineTraffic): void {
    this.samples = { seq, traces: line.traces };
  }

  /** The traced sample connections of the last command that sent traffic. */
  sampled(): { seq: number; traces: ReadonlyMap<string, ConnectResult> } {
    return this.samples;
  }

  /** Traffic runs since the last call (for history, after their command was persisted). */
  takeRuns(): TrafficRun[] {
    return this.runs.splice(0);
  }

  private count(c: ConnectResult): void {
    // explain's connection is ServiceLab's diagnostic, not traffic the student sent.
    const line = this.line;
    if (!line || c.probe) return;
    const key =
      c.pod && c.verdict === "established" ? `${c.pod}|${c.tuple.proto}|${c.dst?.port ?? c.tuple.dport}` : c.host && c.verdict === "established" ? `|node/${c.host}` : `|${c.verdict}`;
    line.tally.set(key, (line.tally.get(key) ?? 0) + 1);
    if (c.trace && !line.traces.has(key)) line.traces.set(key, c);
  }
}

function trafficRun(ts: number, command: string, tally: Map<string, number>): TrafficRun {
  const run: TrafficRun = { ts, command: command.slice(0, 4096), connections: 0, pods: [], other: {} };
  for (const [key, n] of tally) {
    run.connections += n;
    const [pod, proto, port] = key.split("|");
    if (pod) run.pods.push({ pod, proto, port: Number(port), connections: n });
    else run.other[proto] = n;
  }
  run.pods.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : a.port - b.port));
  return run;
}
