// The live channel's side of a cluster: the messages its WebSocket clients are sent (store
// changes, finished command lines), held until the write they belong to was persisted, and
// what brings a reconnecting client up to date.
import type { KObject } from "../engine/api/types.js";
import type { Store, StoreEvent } from "../engine/store/store.js";
import type { StepResult } from "../labs/checks.js";
import type { JournalEntry } from "./journal.js";

/** A message of the live channel (JSON over a WebSocket). */
export type LiveMessage =
  | { type: "hello"; cluster: string; rv: number }
  | { type: "change"; rv: number; verb: StoreEvent["type"]; resource: string; object: KObject }
  | { type: "reset"; rv: number; objects: Record<string, KObject[]> }
  | { type: "exec"; command: string; exitCode: number; stdout: string; stderr: string; entry?: JournalEntry; steps?: StepResult[] }
  | { type: "gone"; reason: string };

export class LiveChannel {
  private readonly pending: LiveMessage[] = [];

  constructor(
    private readonly id: string,
    private readonly store: Store,
  ) {}

  /** A change in the store. */
  changed(ev: StoreEvent): void {
    this.pending.push({ type: "change", rv: ev.rv, verb: ev.type, resource: ev.resource, object: ev.object });
  }

  /** A command line that ended (with its journal line and the lab's steps). */
  ran(msg: Extract<LiveMessage, { type: "exec" }>): void {
    this.pending.push(msg);
  }

  /** Messages since the last call (only after the delta they belong to was persisted). */
  take(): LiveMessage[] {
    return this.pending.splice(0);
  }

  /** Messages that bring a client at revision `since` up to date (or a reset). */
  resume(since: number | undefined): LiveMessage[] {
    const rv = this.store.revision();
    const hello: LiveMessage = { type: "hello", cluster: this.id, rv };
    if (since !== undefined && Number.isFinite(since) && since <= rv) {
      const evs = this.store.changesSince(since);
      if (evs) return [hello, ...evs.map((ev): LiveMessage => ({ type: "change", rv: ev.rv, verb: ev.type, resource: ev.resource, object: ev.object }))];
    }
    return [hello, { type: "reset", rv, objects: this.store.dump() }];
  }
}
