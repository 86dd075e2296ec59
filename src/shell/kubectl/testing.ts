// For kubectl's tests: a terminal on a fresh cluster, a command line in, what it printed out.
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";

/** Runs command lines in one terminal on a new cluster (seeded); each returns stdout then stderr. */
export function terminal(seed: number): (line: string) => Promise<string> {
  const s = new Session(Cluster.create({ seed }));
  return async (line) => {
    const r = await s.run(line);
    return `${r.stdout}${r.stderr}`;
  };
}
