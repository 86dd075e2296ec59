// Time travel: the cluster as it was right after any command of its journal, rebuilt by replaying
// the journal's command lines, at their times and with the hosted editor's answers, from the
// state the cluster started in. The engine is deterministic (a seeded Rng, a clock moved only to
// the times given), so the replay is the cluster as it was, down to pod names and random draws:
// the replay test checks that replaying every line gives back the live cluster.
import { conflictMsg } from "../http/errors.js";
import { ClusterCore, type ClusterState } from "./core.js";
import type { Limits } from "./limits.js";
import type { ShellFactory } from "./shell.js";

/** The cluster `core` as it was right after journal line `seq` (0: as it started). */
export async function replayTo(core: ClusterCore, seq: number, shellFactory: ShellFactory, limits: Limits): Promise<ClusterCore> {
  const why = core.journal.unreplayable(seq);
  if (why) throw conflictMsg(why);
  const origin = core.journal.origin!;
  const past = ClusterCore.restore(core.id, JSON.parse(origin) as ClusterState, shellFactory);
  past.journal.setOrigin(origin);
  for (const e of core.journal.all) {
    if (e.seq > seq) break;
    await past.exec(e.command, e.ts, limits, { ...(e.edits ? { replayEdits: e.edits } : {}), replay: { waits: e.waits, stopped: e.stopped } });
  }
  return past;
}
