// A cluster's persisted form and what changed since it was last persisted. Persistence is per
// object: the store's changes mark rows dirty, and a write (`takeDelta`) upserts only those plus
// one small meta row (clock, rng, revision). The engine's other state has rows of its own,
// written only as it changes: side rows (src/runtime/side-rows.ts), a row per pod's runtime
// (pod-rows.ts), containers' logs in chunks (log-rows.ts), the journal's lines (journal.ts).
import { encodeObjectRow } from "./object-rows.js";
import type { Cluster, ClusterSnapshot } from "../engine/cluster.js";
import type { KObject } from "../engine/api/types.js";
import { objectKey, type StoreEvent } from "../engine/store/store.js";
import type { Journal } from "./journal.js";
import { LogRows, type ReadLogRows } from "./log-rows.js";
import { PodRows, type ReadPodRow } from "./pod-rows.js";
import type { ShellRunner } from "./shell.js";
import { SideRows, type SnapshotMeta } from "./side-rows.js";

/** Everything of a ClusterSnapshot but its objects, plus what the host keeps. */
export interface Meta extends Omit<ClusterSnapshot, "objects"> {
  shell: unknown;
  lab: string;
  tenantId: string | null;
  createdAt: number;
  lastActive: number;
}

/** The host's own fields of the meta row. */
export type HostFields = Pick<Meta, "lab" | "tenantId" | "createdAt" | "lastActive">;

/** A cluster's persisted form: the meta row and one row per object. */
export interface ClusterState {
  meta: string;
  objects: Array<[key: string, body: string]>;
}

/** What one acknowledged operation changed: rows to write in one transaction. */
export interface Delta {
  meta: string;
  upserts: Array<[key: string, body: string]>;
  deletes: string[];
  /** Replace every object row (new cluster, fork, restore drift). */
  full: boolean;
}

/** Rows that replace a cluster's whole state. */
export function fullDelta(state: ClusterState): Delta {
  return { meta: state.meta, upserts: state.objects, deletes: [], full: true };
}

export const SEP = "|";
function rowKey(resource: string, obj: KObject): string {
  return resource + SEP + objectKey(obj.metadata.namespace, obj.metadata.name!);
}

export class ClusterRows {
  private readonly dirty = new Set<string>();
  private persistedActive = 0;
  private persistedMetaKey = "";
  private readonly side: SideRows;
  private readonly pods: PodRows;
  private readonly logs: LogRows;

  constructor(
    private readonly cluster: Cluster,
    shell: ShellRunner,
    private readonly journal: Journal,
    private readonly host: HostFields,
    /** Every row is written next (a new cluster, a fork, a restore that drifted). */
    private full: boolean,
  ) {
    this.side = new SideRows(cluster, shell);
    this.pods = new PodRows(cluster);
    this.logs = new LogRows(cluster);
  }

  /** The rows as read back by a restore (the side, pod and log rows' texts need not be written again). */
  restored(state: ClusterState, read: { lastActive: number; logRows: ReadonlyMap<string, ReadLogRows>; podRows: ReadonlyMap<string, ReadPodRow> }): void {
    this.side.restored(state.objects);
    this.persistedActive = read.lastActive;
    this.logs.restored(read.logRows);
    this.pods.restored(read.podRows);
  }

  /** A change in the store: its object's row is written next. */
  changed(ev: StoreEvent): void {
    this.dirty.add(rowKey(ev.resource, ev.object));
  }

  /**
   * Serializes now what restoring made stale (it reconciles every pod, moving the kubelet's
   * revision) and the first write would serialize again to compare. Changes nothing persisted.
   */
  prepare(): void {
    this.side.rows(this.cluster.snapshotMeta());
    this.pods.prepare();
  }

  hasChanges(): boolean {
    return this.full || this.dirty.size > 0 || this.journal.dirty();
  }

  /**
   * The rows to persist now, or null when nothing needs writing: a read-only command (kubectl
   * get) moves only the clock, and the clock need not be stored (timers fire at their own times
   * whenever the cluster is next advanced, so the state at any wall time is the same). Anything
   * else that moved is written: objects, the kubelet's state (container logs and files), the
   * terminal's, random streams and conntrack (meta). The meta row is also refreshed once a
   * minute so idle expiry sees activity.
   */
  takeDeltaIfChanged(): Delta | null {
    if (this.full || this.dirty.size > 0 || this.journal.dirty() || this.host.lastActive - this.persistedActive >= 60_000) return this.takeDelta();
    if (!this.pods.isAt(this.cluster.kubelet.revision)) return this.takeDelta();
    if (!this.side.shellUpToDate()) return this.takeDelta();
    const snap = this.cluster.snapshotMeta();
    const key = ClusterRows.metaKey(snap);
    if (key !== this.persistedMetaKey || !this.side.proxiesUpToDate()) return this.takeDelta(snap, key);
    return null;
  }

  /**
   * The rows to persist now; clears the dirty set. `snap` and `key` when the caller has them
   * (the engine's meta is built and serialized once per write).
   */
  takeDelta(snap: SnapshotMeta = this.cluster.snapshotMeta(), key = ClusterRows.metaKey(snap)): Delta {
    this.persistedActive = this.host.lastActive;
    this.persistedMetaKey = key;
    const upserts: Array<[string, string]> = [];
    const deletes: string[] = [];
    if (this.full) {
      upserts.push(...this.objectRows());
    } else {
      for (const k of this.dirty) {
        const i = k.indexOf(SEP);
        const resource = k.slice(0, i);
        const rest = k.slice(i + 1);
        const j = rest.indexOf("/");
        const obj = j < 0 ? this.cluster.store.get(resource, undefined, rest) : this.cluster.store.get(resource, rest.slice(0, j), rest.slice(j + 1));
        if (obj) upserts.push([k, encodeObjectRow(obj)]);
        else deletes.push(k);
      }
    }
    this.side.delta(this.full, snap, upserts);
    const kubeletRev = this.cluster.kubelet.revision;
    this.pods.delta(kubeletRev, this.full, upserts, deletes);
    this.logs.delta(kubeletRev, this.full, upserts, deletes);
    this.journal.delta(this.full, upserts, deletes);
    const d: Delta = { meta: this.metaJSON(snap, key), upserts, deletes, full: this.full };
    this.full = false;
    this.dirty.clear();
    return d;
  }

  /** The whole cluster in its persisted form (forks, snapshots in history). */
  state(): ClusterState {
    const snap = this.cluster.snapshotMeta();
    return { meta: this.metaJSON(snap), objects: [...this.objectRows(), ...this.side.rows(snap), ...this.pods.all(), ...this.logs.all(), ...this.journal.rows()] };
  }

  /** The meta row as JSON (small: written on every acknowledged write). */
  metaJSON(snap: SnapshotMeta = this.cluster.snapshotMeta(), key = ClusterRows.metaKey(snap)): string {
    // Everything the engine's snapshot holds but objects, config and kubelet (their own rows):
    // its clock, the rest as serialized once for the change check (metaKey), and the host's
    // fields. Parsed back, it is { ...snap, ...host }.
    return `{"clock":${JSON.stringify(snap.clock)},${key.slice(1, -1)},${JSON.stringify(this.host).slice(1)}`;
  }

  /** A row for every object in the store. */
  private objectRows(): Array<[string, string]> {
    const rows: Array<[string, string]> = [];
    const store = this.cluster.store;
    for (const r of store.resources()) for (const o of store.iterate(r)) rows.push([rowKey(r, o), encodeObjectRow(o)]);
    return rows;
  }

  /**
   * The meta row's content but the clock, which need not be stored (see takeDeltaIfChanged), and
   * kube-proxy's per-node state, which has a side row of its own (#proxies): it is most of the
   * engine's meta (each node's configuration and instance) and moves only when a kube-proxy pod
   * starts, while the meta row is written with every write.
   */
  private static metaKey(snap: SnapshotMeta): string {
    const { clock: _clock, proxies: _proxies, ...rest } = snap;
    return JSON.stringify(rest);
  }
}
