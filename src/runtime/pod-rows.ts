// Pod rows: "#kpod|<namespace>/<pod>" holds the kubelet's runtime of that pod (containers, their
// files, transitions) with `seq`, its place in the kubelet's order (pods are restored in it). In
// the #kubelet row, every write that touched one pod of a 1000-pod deployment rewrote all of
// them (~0.5 MB).
import type { Cluster } from "../engine/cluster.js";
import type { KubeletPodState } from "../engine/kubelet/kubelet.js";
import { type Revision, RevisionMemo } from "./revision-memo.js";

export const POD_PREFIX = "#kpod|";

export interface PodRow {
  seq: number;
  pod: KubeletPodState;
}

/** A pod's row as read back: its place, the pod it was (uid; "" matches none) and its text. */
export interface ReadPodRow {
  seq: number;
  uid: string;
  body: string;
}

/** A pod's row as persisted: its place, the pod it was, its text at a kubelet revision. */
interface PersistedPod {
  seq: number;
  uid: string;
  text: RevisionMemo;
}

export class PodRows {
  private readonly rows = new Map<string, PersistedPod>();
  private nextSeq = 0;
  /** The kubelet's revision when the rows were last brought up to date. */
  private readonly synced = new RevisionMemo<null>();

  constructor(private readonly cluster: Cluster) {}

  /**
   * The rows read back: the first write compares each pod's runtime with its row (restoring
   * reconciled every pod), rewriting only those that changed; new pods come after them.
   */
  restored(rows: ReadonlyMap<string, ReadPodRow>): void {
    for (const [key, { seq, uid, body }] of rows) {
      const text = new RevisionMemo();
      text.adopt(undefined, body);
      this.rows.set(key, { seq, uid, text });
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
    }
  }

  /** Whether the rows are at the kubelet's revision `rev`. */
  isAt(rev: Revision): boolean {
    return this.synced.isAt(rev);
  }

  /** Pods whose runtime still serializes to the row read are up to date; the others are written by the next delta. */
  prepare(): void {
    for (const { key, uid, revision } of this.cluster.kubelet.podStates()) {
      const was = this.rows.get(key);
      if (!was || was.uid !== uid || was.text.isAt(revision)) continue;
      if (this.text(key, was.seq) === was.text.value) was.text.adopt(revision, was.text.value);
    }
  }

  /**
   * The rows to write since they were last persisted, at the kubelet's revision `rev` (all of
   * them when `all`): a pod whose runtime's revision moved is serialized again and written if its
   * text changed; a new pod (or a new one under an old name) takes the next place; rows of pods
   * the kubelet no longer runs are deleted.
   */
  delta(rev: Revision, all: boolean, upserts: Array<[string, string]>, deletes: string[]): void {
    if (!all && this.synced.isAt(rev)) return;
    this.synced.adopt(rev, null);
    const seen = new Set<string>();
    for (const { key, uid, revision } of this.cluster.kubelet.podStates()) {
      seen.add(key);
      let was = this.rows.get(key);
      // Another pod under that name: the kubelet put it after every pod it runs.
      if (was && was.uid !== uid) was = undefined;
      if (!all && was?.text.isAt(revision)) continue;
      const seq = was ? was.seq : this.nextSeq++;
      const body = this.text(key, seq);
      if (all || was?.text.value !== body) upserts.push([POD_PREFIX + key, body]);
      const text = was?.text ?? new RevisionMemo();
      text.adopt(revision, body);
      this.rows.set(key, { seq, uid, text });
    }
    for (const key of this.rows.keys()) {
      if (seen.has(key)) continue;
      if (!all) deletes.push(POD_PREFIX + key);
      this.rows.delete(key);
    }
  }

  /** Every pod row (a whole state, numbered in the kubelet's order). */
  all(): Array<[string, string]> {
    return this.cluster.kubelet.podStates().map(({ key }, seq): [string, string] => [POD_PREFIX + key, this.text(key, seq)]);
  }

  /** The row text of pod `key` at place `seq` (its runtime without logs: those have rows of their own). */
  private text(key: string, seq: number): string {
    return JSON.stringify({ seq, pod: this.cluster.kubelet.savePod(key, { logs: false })! } satisfies PodRow);
  }
}
