// pods/log: what the container wrote (kubectl logs), and its follow form (kubectl logs -f, and
// the output side of attach): the lines so far, then each line as the container writes it,
// until the container stops or restarts (its log file ends) or the client goes.
// Runtime-neutral: the host reads a cursor's new lines after each acknowledged change.

import { R } from "../engine/api/resources.js";
import { badRequest, notServed } from "../engine/api/status.js";
import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { type KubeRequest, parseTarget } from "./serve.js";

/** Where a follower is in one container instance's log. Plain data (crosses RPC). */
export interface LogCursor {
  namespace: string;
  pod: string;
  uid: string;
  container: string;
  /** The container instance (containerd id): a restart is another log file. */
  instance: string;
  /** Lines of this instance already sent. */
  sent: number;
  timestamps: boolean;
}

/** The pod, the container and its lines as kubectl logs asks for them (tailLines, previous). */
function selected(cluster: Cluster, req: KubeRequest, ns: string, name: string): { pod: Pod; cname: string; lines: Array<{ t: number; line: string }>; all: number } {
  const pod = cluster.client.get(R.pods, ns, name) as Pod;
  const q = req.query;
  const containers = pod.spec.containers.map((c) => c.name);
  let cname = q.container;
  if (!cname) {
    if (containers.length !== 1) {
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`);
    }
    cname = containers[0];
  }
  if (!containers.includes(cname) && !(pod.spec.initContainers ?? []).some((c) => c.name === cname)) {
    throw badRequest(`container ${cname} is not valid for pod ${name}`);
  }
  const previous = q.previous === "true";
  const lines = cluster.kubelet.logs(pod, cname, previous);
  if (lines === undefined || (!previous && cluster.kubelet.containerState(pod, cname) === "waiting" && !lines.length)) {
    if (previous) throw badRequest(`previous terminated container "${cname}" in pod "${name}" not found`);
    const reason = (pod.status?.containerStatuses ?? []).find((c) => c.name === cname)?.state?.waiting?.reason ?? "ContainerCreating";
    throw badRequest(`container "${cname}" in pod "${name}" is waiting to start: ${reason === "ContainerCreating" ? "ContainerCreating" : "trying and failing to pull image"}`);
  }
  const all = lines.length;
  let out = lines;
  if (q.tailLines !== undefined) {
    const n = Math.max(0, Number(q.tailLines) || 0);
    out = out.slice(Math.max(0, out.length - n));
  }
  return { pod, cname, lines: out, all };
}

function render(lines: ReadonlyArray<{ t: number; line: string }>, timestamps: boolean): string {
  return lines.map((l) => (timestamps ? `${new Date(l.t).toISOString()} ${l.line}\n` : `${l.line}\n`)).join("");
}

/** GET pods/{name}/log. */
export function podLog(cluster: Cluster, req: KubeRequest, ns: string, name: string): string {
  const { lines } = selected(cluster, req, ns, name);
  let body = render(lines, req.query.timestamps === "true");
  if (req.query.limitBytes !== undefined) body = body.slice(0, Math.max(0, Number(req.query.limitBytes) || 0));
  return body;
}

function instanceOf(pod: Pod, container: string): string {
  return (pod.status?.containerStatuses ?? []).find((c) => c.name === container)?.containerID ?? "";
}

/** GET pods/{name}/log?follow=true: the lines so far, and where the follower stands. */
export function followStart(cluster: Cluster, req: KubeRequest): { text: string; cursor: LogCursor; ended: boolean } {
  const t = parseTarget(req.path.split("/").filter(Boolean).map(decodeURIComponent), cluster);
  if (!t || t.info !== R.pods || !t.name || t.sub !== "log") throw notServed();
  const ns = t.namespace ?? "default";
  const name = t.name;
  const { pod, cname, lines, all } = selected(cluster, req, ns, name);
  const timestamps = req.query.timestamps === "true";
  const cursor: LogCursor = { namespace: ns, pod: name, uid: pod.metadata.uid ?? "", container: cname, instance: instanceOf(pod, cname), sent: all, timestamps };
  const ended = req.query.previous === "true" || cluster.kubelet.containerState(pod, cname) !== "running";
  return { text: render(lines, timestamps), cursor, ended };
}

/** The lines written since `cursor`; ended when that container instance no longer runs. */
export function followNext(cluster: Cluster, cursor: LogCursor): { text: string; cursor: LogCursor; ended: boolean } {
  const pod = cluster.api.peek(R.pods, cursor.namespace, cursor.pod) as Pod | undefined;
  if (!pod || pod.metadata.uid !== cursor.uid || instanceOf(pod, cursor.container) !== cursor.instance) return { text: "", cursor, ended: true };
  const lines = cluster.kubelet.logs(pod, cursor.container) ?? [];
  // A rotated log file starts again: what it holds now is new.
  const from = lines.length < cursor.sent ? 0 : cursor.sent;
  const text = render(lines.slice(from), cursor.timestamps);
  const ended = cluster.kubelet.containerState(pod, cursor.container) !== "running";
  return { text, cursor: { ...cursor, sent: lines.length }, ended };
}
