// The pod a command on POD or TYPE/NAME works on (logs, exec), chosen in podutils' orders.

import { R } from "../../engine/api/resources.js";
import type { KObject, LabelSelector, Pod, PodSpec, PodTemplateSpec } from "../../engine/api/types.js";
import type { ResourceInfo } from "../../engine/api/resources.js";
import { goSortArray } from "../../kubectl/gosort.js";
import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { get, typeOrThrow } from "./targets.js";

/**
 * The pod a command on POD or TYPE/NAME works on, and how many the object's selector matched:
 * polymorphichelpers' GetFirstPod, the first pod of the list in Go's sort.Sort by podutils'
 * ByLogging (logs) or by ActivePods reversed (exec, attach).
 */
export function podFor(target: string, ns: string, ctx: KubectlContext, order: "logging" | "attach"): { pod: Pod; count: number } {
  if (!target.includes("/")) return { pod: get(ctx, R.pods, ns, target) as Pod, count: 1 };
  const [t, n] = target.split("/");
  const info = typeOrThrow(t, ctx);
  if (info === R.pods) return { pod: get(ctx, R.pods, ns, n) as Pod, count: 1 };
  // A workload's LabelSelector, or a Service's map of labels.
  const owner = get<KObject & { spec?: { selector?: LabelSelector & Record<string, unknown> } }>(ctx, info, ns, n);
  const sel = (owner.spec?.selector?.matchLabels ?? owner.spec?.selector) as Record<string, string> | undefined;
  const selStr = Object.entries(sel ?? {}).map(([k, v]) => `${k}=${v}`).join(",");
  const pods = ctx.cluster.client.list(R.pods, ns, { labelSelector: selStr }).items as Pod[];
  if (!pods.length) throw new KubectlError(`cannot attach to ${info.kind} ${n}: no pods found`);
  const sorted = goSortArray([...pods], order === "logging" ? byLogging : (a, b) => activePodsLess(b, a));
  return { pod: sorted[0], count: pods.length };
}

// podutils (k8s.io/kubectl/pkg/util/podutils) orders.
const podReady = (p: Pod) => (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** The Ready condition's transition time in ms, 0 for none (Go's zero time). */
const readyTime = (p: Pod) => Date.parse((p.status?.conditions ?? []).find((c) => c.type === "Ready" && c.status === "True")?.lastTransitionTime ?? "") || 0;

const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;

const deleting = (p: Pod) => p.metadata.deletionTimestamp != null;

const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));

/** afterOrZero: a zero time first, else the later one. */
const afterOrZero = (t1: number, t2: number) => (t1 === 0 || t2 === 0 ? t1 === 0 : t1 > t2);

const scheduled = (p: Pod) => (p.spec?.nodeName ?? "") !== "";

function byLogging(a: Pod, b: Pod): boolean {
  if ((a.spec?.nodeName ?? "") !== (b.spec?.nodeName ?? "") && (!scheduled(a) || !scheduled(b))) return scheduled(a);
  const rank: Record<string, number> = { Running: 0, Unknown: 1, Pending: 2 };
  const ra = rank[a.status?.phase ?? ""] ?? 0;
  const rb = rank[b.status?.phase ?? ""] ?? 0;
  if (ra !== rb) return ra < rb;
  if (podReady(a) !== podReady(b)) return podReady(a);
  if (podReady(a) && podReady(b) && readyTime(a) !== readyTime(b)) return afterOrZero(readyTime(b), readyTime(a));
  if (restarts(a) !== restarts(b)) return restarts(a) > restarts(b);
  if (created(a) !== created(b)) return afterOrZero(created(b), created(a));
  return false;
}

function activePodsLess(a: Pod, b: Pod): boolean {
  if ((a.spec?.nodeName ?? "") !== (b.spec?.nodeName ?? "") && (!scheduled(a) || !scheduled(b))) return !scheduled(a);
  const rank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  const ra = rank[a.status?.phase ?? ""] ?? 0;
  const rb = rank[b.status?.phase ?? ""] ?? 0;
  if (ra !== rb) return ra < rb;
  if (podReady(a) !== podReady(b)) return !podReady(a);
  if (deleting(a) !== deleting(b)) return deleting(a);
  const da = Date.parse(a.metadata.deletionTimestamp ?? "") || 0;
  const db = Date.parse(b.metadata.deletionTimestamp ?? "") || 0;
  if (deleting(a) && deleting(b) && da !== db) return da < db;
  if (podReady(a) && podReady(b) && readyTime(a) !== readyTime(b)) return afterOrZero(readyTime(a), readyTime(b));
  if (restarts(a) !== restarts(b)) return restarts(a) > restarts(b);
  if (created(a) !== created(b)) return afterOrZero(created(a), created(b));
  return false;
}

/** The pod spec of a pod, or of a workload's pod template (set env, set image). */
export function podSpecOf(info: ResourceInfo, obj: KObject): PodSpec | undefined {
  if (info === R.pods) return (obj as Pod).spec;
  return (obj as KObject & { spec?: { template?: PodTemplateSpec } }).spec?.template?.spec;
}
