// Side rows: the engine state that is not an object ("#config", "#kubelet", "#shell",
// "#proxies"), kept apart from the meta row so each is written only when its text changed.
import type { Cluster } from "../engine/cluster.js";
import { RevisionMemo } from "./revision-memo.js";
import type { ShellRunner } from "./shell.js";

const SIDE = ["#config", "#kubelet", "#shell", "#proxies"] as const;
type SideKey = (typeof SIDE)[number];
/** The engine's snapshot without objects, config and kubelet state (the meta row's part). */
export type SnapshotMeta = ReturnType<Cluster["snapshotMeta"]>;

export class SideRows {
  /** Each side row as last written (or read back by restore). */
  private readonly written = new Map<string, string>();
  // The kubelet's shared revision, kube-proxy's start count, the terminal's revision.
  private readonly kubelet = new RevisionMemo();
  private readonly proxies = new RevisionMemo();
  private readonly shellText = new RevisionMemo();

  constructor(
    private readonly cluster: Cluster,
    private readonly shell: ShellRunner,
  ) {}

  /** The rows as read back: the terminal's is its state as restored, not serialized again to find that out. */
  restored(objects: ReadonlyArray<[string, string]>): void {
    for (const [k, body] of objects) if ((SIDE as readonly string[]).includes(k)) this.written.set(k, body);
    const shellRow = this.written.get("#shell");
    const shellRev = this.shell.revision?.();
    if (shellRow !== undefined && shellRev !== undefined) this.shellText.adopt(shellRev, shellRow);
  }

  /** Whether the terminal's row is at its revision (nothing to serialize). */
  shellUpToDate(): boolean {
    const shellRev = this.shell.revision?.();
    return shellRev !== undefined && this.shellText.isAt(shellRev);
  }

  /** Whether kube-proxy's row is at its start count. */
  proxiesUpToDate(): boolean {
    return this.proxies.isAt(this.cluster.proxies.starts);
  }

  /**
   * The side rows, each serialized again only when its owner's revision moved (serializing the
   * kubelet's or the terminal's state costs more than a read-only command: ~0.5 ms for 30 KB).
   */
  rows(snap: SnapshotMeta): Array<[SideKey, string]> {
    // A row never written is serialized again whatever its revision says.
    if (!this.written.has("#kubelet")) this.kubelet.forget();
    if (!this.written.has("#shell")) this.shellText.forget();
    const kubelet = this.kubelet.at(this.cluster.kubelet.sharedRevision, () => JSON.stringify(this.cluster.kubelet.saveShared()));
    // kube-proxy's state moves only when one starts (KubeProxies.starts counts them).
    const proxies = this.proxies.at(this.cluster.proxies.starts, () => JSON.stringify(snap.proxies));
    const shell = this.shellText.at(this.shell.revision?.(), () => JSON.stringify(this.shell.save() ?? null));
    return [
      ["#config", this.written.get("#config") ?? JSON.stringify(this.cluster.config)],
      ["#kubelet", kubelet],
      ["#shell", shell],
      ["#proxies", proxies],
    ];
  }

  /** Adds the rows whose text changed since last written (every row when `all`). */
  delta(all: boolean, snap: SnapshotMeta, upserts: Array<[string, string]>): void {
    for (const [k, body] of this.rows(snap)) {
      if (all || this.written.get(k) !== body) upserts.push([k, body]);
      this.written.set(k, body);
    }
  }
}
