// A cluster's rows read back: the engine's snapshot, the terminal's state, and what the pod and
// log rows held (so the first write after a restore rewrites only what changed). Rows of older
// layouts (pods and logs inside #kubelet, kube-proxy's state in the meta row) are read too.
import { decodeObjectRow } from "./object-rows.js";
import type { ClusterSnapshot } from "../engine/cluster.js";
import type { KObject } from "../engine/api/types.js";
import type { KubeletState, LogLine } from "../engine/kubelet/kubelet.js";
import { type ClusterState, type Meta, SEP } from "./cluster-rows.js";
import { LOG_PREFIX, type ReadLogRows } from "./log-rows.js";
import { POD_PREFIX, type PodRow, type ReadPodRow } from "./pod-rows.js";

export function decodeState(state: ClusterState): {
  snapshot: ClusterSnapshot;
  shell: unknown;
  meta: Meta;
  logRows: Map<string, ReadLogRows>;
  podRows: Map<string, ReadPodRow>;
} {
  const meta = JSON.parse(state.meta) as Meta;
  const objects: Record<string, KObject[]> = {};
  const logChunks = new Map<string, LogLine[][]>();
  const pods: Array<{ key: string; row: PodRow; body: string }> = [];
  for (const [k, body] of state.objects) {
    if (k.startsWith(POD_PREFIX)) {
      pods.push({ key: k.slice(POD_PREFIX.length), row: JSON.parse(body) as PodRow, body });
      continue;
    }
    if (k.startsWith(LOG_PREFIX)) {
      const bar = k.lastIndexOf("|");
      const stream = k.slice(LOG_PREFIX.length, bar);
      let chunks = logChunks.get(stream);
      if (!chunks) logChunks.set(stream, (chunks = []));
      chunks[Number(k.slice(bar + 1))] = JSON.parse(body) as LogLine[];
      continue;
    }
    if (k.startsWith("#")) {
      const v = JSON.parse(body) as unknown;
      if (k === "#config") meta.config = v as Meta["config"];
      else if (k === "#kubelet") meta.kubelet = v;
      else if (k === "#shell") meta.shell = v;
      // (A meta row written before #proxies existed holds them itself.)
      else if (k === "#proxies") meta.proxies = v as Meta["proxies"];
      continue;
    }
    const r = k.slice(0, k.indexOf(SEP));
    (objects[r] ??= []).push(decodeObjectRow(body));
  }
  // The pods, in the kubelet's order, from their rows (a #kubelet row written before pods had
  // rows of their own still holds them: the first write then moves them to rows).
  const podRows = new Map<string, ReadPodRow>();
  const kubeletState = meta.kubelet as KubeletState | undefined;
  if (kubeletState && !kubeletState.pods) {
    pods.sort((a, b) => a.row.seq - b.row.seq);
    kubeletState.pods = pods.map(({ key, row }) => [key, row.pod]);
    for (const { key, row, body } of pods) podRows.set(key, { seq: row.seq, uid: row.pod.uid, body });
  } else {
    // Pod rows beside an old #kubelet: its order wins, so they are rewritten in it (no uid
    // matches "") or deleted.
    for (const { key, row, body } of pods) podRows.set(key, { seq: row.seq, uid: "", body });
  }
  // Containers saved without their logs get them back from the log rows (a #kubelet row written
  // before logs had rows of their own still holds them).
  const logRows = new Map<string, ReadLogRows>();
  for (const [podKey, p] of (meta.kubelet as KubeletState | undefined)?.pods ?? []) {
    for (const c of p.containers) {
      if (c.logs !== undefined) continue;
      const stream = `${podKey}|${c.name}`;
      const chunks = logChunks.get(stream) ?? [];
      c.logs = chunks.flat();
      logRows.set(stream, { count: c.logs.length, chunks: chunks.length });
    }
  }
  // Rows of a log no container has (its pod went while a delete was not written): tracked, so the
  // next write deletes them.
  for (const [stream, chunks] of logChunks) if (!logRows.has(stream)) logRows.set(stream, { count: 0, chunks: chunks.length });
  const { shell, lab: _l, tenantId: _t, createdAt: _c, lastActive: _a, ...rest } = meta;
  return { snapshot: { ...rest, objects }, shell, meta, logRows, podRows };
}
