// Where clusters live. The HTTP app makes one call per request into a ClusterHost; the Node
// host keeps clusters in process and writes rows to libSQL, the Workers host forwards each call
// to the cluster's Durable Object. Both persist a write before they acknowledge it.
import type { ClusterState, ClusterView } from "./core.js";
import type { Limits } from "./limits.js";
import type { ExecResult } from "./shell.js";
import type { InspectQuery } from "../workspace/inspect.js";

export interface CreateInit {
  tenantId: string | null;
  lab: string;
  /** Fork: start from this state instead of the lab. */
  from?: ClusterState;
  /** A classroom student's cluster: never expired for being idle (the teacher reviews it). */
  classroomId?: string;
}

export interface ExecOptions {
  /** kubectl edit may open the web UI's hosted editor (the answer then carries `edit`). */
  hostedEditor?: boolean;
  /** The line is stopped after this long (its result then says `stopped: "time-limit"`). */
  timeLimitMs?: number;
  /** Output of a line that is one streaming command (kubectl get -w, watch), as it is produced. */
  write?: (chunk: string, kept: boolean) => void;
  /** The terminal's width (watch's header). */
  columns?: number;
}

export interface ClusterHost {
  /** Creates and persists a cluster; throws StatusError 400 for an unknown lab. */
  create(id: string, init: CreateInit): Promise<ClusterView>;
  /** Runs one command line; 404 for an unknown cluster, 403 naming a limit it would break. */
  exec(id: string, command: string, limits: Limits, opts?: ExecOptions): Promise<ExecResult>;
  /** Ctrl-C in the terminal: stops the command line running now; false when none runs. */
  interrupt(id: string): Promise<boolean>;
  /**
   * The hosted editor's answer (text, or null to quit) to the file kubectl edit waits on; answers
   * with what the command does next. 409 when no such edit waits.
   */
  resumeEdit(id: string, editId: string, text: string | null): Promise<ExecResult>;
  view(id: string): Promise<ClusterView>;
  /** A read-only view for the workspace (src/workspace/inspect.ts); the query is already validated. */
  inspect(id: string, query: InspectQuery, limits: Limits): Promise<unknown>;
  /** The whole persisted state (forks and history snapshots). */
  state(id: string): Promise<ClusterState>;
  /** The state right after journal line `seq` (time travel's "fork from here"); 409 when it cannot be replayed. */
  pastState(id: string, seq: number, limits: Limits): Promise<ClusterState>;
  /** Removes every row of the cluster; idempotent. */
  delete(id: string, reason: "deleted" | "expired"): Promise<void>;
}
