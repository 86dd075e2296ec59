// Evaluating a lab's checks. Pure reads: the cluster's objects (through a Reader), the commands
// the student ran with what they printed, and the traffic those commands sent. Nothing here
// writes to the cluster, moves its clock or draws from its random streams.
import { labelSelectorMatches, parseSelector, formatLabels } from "../engine/api/labels.js";
import type { KObject } from "../engine/api/types.js";
import { lookupResource } from "../engine/api/resources.js";
import type { Check, Condition, LabDefinition, Text } from "./types.js";

/** What checks may read of the cluster's objects (the Store satisfies it). */
interface Reader {
  list(resource: string, namespace?: string): readonly KObject[];
  get(resource: string, namespace: string | undefined, name: string): KObject | undefined;
}

/** One command line the student ran, as the host's journal keeps it. */
export interface CommandRecord {
  seq: number;
  command: string;
  exitCode: number;
  /** stdout then stderr, as the terminal showed them (cut at the journal's limit). */
  output: string;
  traffic?: { connections: number; pods: Array<{ pod: string; connections: number }>; other: Record<string, number> };
}

/** Why an endpoints check failed, drawn in the cluster view as a Service with no lines to pods. */
interface SelectorDiff {
  service: string;
  namespace: string;
  selector: Record<string, string> | null;
  matching: number;
  ready: number;
  /** Pods that share a label key with the selector but not its values. */
  near: Array<{ pod: string; labels: Record<string, string> }>;
}

export interface CheckResult {
  id: string;
  passed: boolean;
  /** What is still missing, in the student's words (absent when passed). */
  message?: Text;
  diff?: SelectorDiff;
}

export interface StepResult {
  id: string;
  passed: boolean;
  checks: CheckResult[];
}

const both = (en: string, zh: string): Text => ({ en, zh });

/** Reads a dotted path ("spec.ports.0.port"; a key with a dot escapes it: "data.index\\.html") of an object. */
function readPath(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const part of path.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, "."))) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function conditionHolds(obj: unknown, c: Condition): boolean {
  const v = readPath(obj, c.path);
  if (c.exists !== undefined) return (v !== undefined && v !== null) === c.exists;
  if (c.equals !== undefined) return v === c.equals || (typeof v === "number" && String(v) === c.equals) || (typeof c.equals === "number" && v === String(c.equals));
  if (c.atLeast !== undefined) return typeof v === "number" && v >= c.atLeast;
  if (c.matches !== undefined) return v !== undefined && v !== null && new RegExp(c.matches).test(typeof v === "string" ? v : JSON.stringify(v));
  return false;
}

function describeCondition(c: Condition): string {
  if (c.exists !== undefined) return c.exists ? `${c.path} set` : `${c.path} unset`;
  if (c.equals !== undefined) return `${c.path} = ${JSON.stringify(c.equals)}`;
  if (c.atLeast !== undefined) return `${c.path} >= ${c.atLeast}`;
  return `${c.path} matching /${c.matches}/`;
}

/** Whether `resource` ("namespaces", "deployments.apps") is cluster-scoped: then no namespace applies. */
function clusterScoped(resource: string): boolean {
  const dot = resource.indexOf(".");
  const info = dot < 0 ? lookupResource("", resource) : lookupResource(resource.slice(dot + 1), resource.slice(0, dot));
  return info !== undefined && !info.namespaced;
}

function objectsIn(r: Reader, resource: string, ns: string | undefined): readonly KObject[] {
  return ns === "*" || clusterScoped(resource) ? r.list(resource) : r.list(resource, ns ?? "default");
}

const nsText = (ns: string | undefined, resource = "") => (ns === "*" ? "any namespace" : clusterScoped(resource) ? "the cluster" : `namespace ${ns ?? "default"}`);
const nsTextZh = (ns: string | undefined, resource = "") => (ns === "*" ? "任何命名空间" : clusterScoped(resource) ? "集群" : `命名空间 ${ns ?? "default"}`);
const kindName = (resource: string) => resource.split(".")[0].replace(/ies$/, "y").replace(/s$/, "");

function evaluateCheck(check: Check, r: Reader, commands: readonly CommandRecord[]): CheckResult {
  const id = check.id;
  switch (check.kind) {
    case "object": {
      const objs = objectsIn(r, check.resource, check.namespace).filter((o) => o.metadata.name === check.name);
      if (objs.length === 0) return { id, passed: false, message: both(`There is no ${kindName(check.resource)} "${check.name}" in ${nsText(check.namespace, check.resource)} yet.`, `${nsTextZh(check.namespace, check.resource)} 中还没有 ${kindName(check.resource)} "${check.name}"。`) };
      const unmet = (check.where ?? []).filter((c) => !objs.some((o) => conditionHolds(o, c)));
      if (unmet.length) {
        const what = unmet.map(describeCondition).join(", ");
        return { id, passed: false, message: both(`${kindName(check.resource)} "${check.name}" exists, but it does not have ${what} yet.`, `${kindName(check.resource)} "${check.name}" 已存在，但还不满足：${what}。`) };
      }
      return { id, passed: true };
    }
    case "count": {
      let sel;
      try {
        sel = check.selector ? parseSelector(check.selector) : undefined;
      } catch {
        return { id, passed: false, message: both(`This check's selector "${check.selector}" is not valid (a lab bug).`, `检查的选择器 "${check.selector}" 无效（实验定义错误）。`) };
      }
      const objs = objectsIn(r, check.resource, check.namespace).filter((o) => (!sel || sel.matches(o.metadata.labels ?? {})) && (check.where ?? []).every((c) => conditionHolds(o, c)));
      const n = objs.length;
      const what = `${check.resource.split(".")[0]}${check.selector ? ` with labels ${check.selector}` : ""}${check.where?.length ? ` and ${check.where.map(describeCondition).join(", ")}` : ""}`;
      if (check.min !== undefined && n < check.min) return { id, passed: false, message: both(`${n} ${what} in ${nsText(check.namespace)}; at least ${check.min} are needed.`, `${nsTextZh(check.namespace)} 中有 ${n} 个 ${what}，至少需要 ${check.min} 个。`) };
      if (check.max !== undefined && n > check.max) return { id, passed: false, message: both(`${n} ${what} in ${nsText(check.namespace)}; at most ${check.max} are wanted.`, `${nsTextZh(check.namespace)} 中有 ${n} 个 ${what}，最多 ${check.max} 个。`) };
      return { id, passed: true };
    }
    case "endpoints":
      return endpointsCheck(id, r, check.namespace ?? "default", check.service, check.min);
    case "command": {
      const cmd = new RegExp(check.command);
      const out = check.output === undefined ? undefined : new RegExp(check.output, "m");
      const ran = commands.filter((c) => cmd.test(c.command));
      const ok = ran.some((c) => (check.exitCode === undefined || c.exitCode === check.exitCode) && (!out || out.test(c.output)));
      if (ok) return { id, passed: true };
      if (ran.length === 0) return { id, passed: false, message: both("You have not run this command yet.", "你还没有运行这条命令。") };
      return { id, passed: false, message: both("You ran the command, but its output is not what this step expects yet: look at what it printed.", "命令已运行，但输出还不是这一步期望的结果：看看它打印了什么。") };
    }
    case "traffic": {
      const cmd = check.command ? new RegExp(check.command) : undefined;
      const runs = commands.filter((c) => c.traffic && (!cmd || cmd.test(c.command)));
      if (runs.length === 0) return { id, passed: false, message: both("No command has sent traffic to the pods yet (a curl loop does).", "还没有命令向 Pod 发送流量（例如一个 curl 循环）。") };
      let best: Text | undefined;
      for (const run of runs.slice().reverse()) {
        const t = run.traffic!;
        const answered = t.pods.reduce((s, p) => s + p.connections, 0);
        if (answered < check.min) {
          best ??= both(`The last traffic reached pods ${answered} times; at least ${check.min} are needed.`, `最近一次流量只到达 Pod ${answered} 次，至少需要 ${check.min} 次。`);
          continue;
        }
        const distinct = new Set(t.pods.map((p) => p.pod)).size;
        if (check.pods !== undefined && distinct < check.pods) {
          best ??= both(`The traffic reached ${distinct} pod(s); at least ${check.pods} should answer.`, `流量只到达了 ${distinct} 个 Pod，至少应有 ${check.pods} 个。`);
          continue;
        }
        if (check.share) {
          const re = new RegExp(check.share.pod);
          const part = t.pods.filter((p) => re.test(p.pod)).reduce((s, p) => s + p.connections, 0) / answered;
          if (part < check.share.low || part > check.share.high) {
            const pct = Math.round(part * 100);
            best ??= both(
              `The pods matching ${check.share.pod} got ${pct}% of the requests; this step expects ${Math.round(check.share.low * 100)}-${Math.round(check.share.high * 100)}%.`,
              `匹配 ${check.share.pod} 的 Pod 收到了 ${pct}% 的请求；这一步期望 ${Math.round(check.share.low * 100)}-${Math.round(check.share.high * 100)}%。`,
            );
            continue;
          }
        }
        return { id, passed: true };
      }
      return { id, passed: false, message: best };
    }
  }
}

function endpointsCheck(id: string, r: Reader, ns: string, name: string, min: number): CheckResult {
  const svc = r.get("services", ns, name) as (KObject & { spec?: { selector?: Record<string, string> } }) | undefined;
  if (!svc) return { id, passed: false, message: both(`There is no Service "${name}" in namespace ${ns} yet.`, `命名空间 ${ns} 中还没有 Service "${name}"。`) };
  let ready = 0;
  for (const s of r.list("endpointslices.discovery.k8s.io", ns)) {
    if (s.metadata.labels?.["kubernetes.io/service-name"] !== name) continue;
    for (const e of (s as { endpoints?: Array<{ conditions?: { ready?: boolean } }> }).endpoints ?? []) if (e.conditions?.ready !== false) ready++;
  }
  if (ready >= min) return { id, passed: true };
  const selector = svc.spec?.selector ?? null;
  const pods = r.list("pods", ns);
  const matching = selector ? pods.filter((p) => labelSelectorMatches({ matchLabels: selector }, p.metadata.labels ?? {})) : [];
  const near = selector
    ? pods
        .filter((p) => !matching.includes(p) && Object.keys(selector).some((k) => p.metadata.labels?.[k] !== undefined))
        .slice(0, 5)
        .map((p) => ({ pod: p.metadata.name!, labels: { ...(p.metadata.labels ?? {}) } }))
    : [];
  const diff: SelectorDiff = { service: name, namespace: ns, selector, matching: matching.length, ready, near };
  const sel = formatLabels(selector ?? {});
  let message: Text;
  if (!selector) message = both(`The Service "${name}" has no selector, so no EndpointSlice lists pods for it.`, `Service "${name}" 没有选择器，所以没有 EndpointSlice 为它列出 Pod。`);
  else if (matching.length === 0) {
    const seen = near.length ? near.map((p) => formatLabels(p.labels)).filter((v, i, a) => a.indexOf(v) === i).slice(0, 2).join("; ") : "";
    message = both(
      `The Service selects ${sel}; no pod in namespace ${ns} has these labels${seen ? ` (the pods are labelled ${seen})` : ""}; so its EndpointSlice is empty.`,
      `Service 选择 ${sel}；命名空间 ${ns} 中没有 Pod 带这些标签${seen ? `（Pod 的标签是 ${seen}）` : ""}；所以它的 EndpointSlice 是空的。`,
    );
  } else
    message = both(
      `${matching.length} pod(s) match ${sel}, ${ready} ready; ${min} ready endpoint(s) are needed. Wait until the pods are Ready (kubectl get pods).`,
      `${matching.length} 个 Pod 匹配 ${sel}，其中 ${ready} 个就绪；需要 ${min} 个就绪端点。等 Pod 变为 Ready（kubectl get pods）。`,
    );
  return { id, passed: false, message, diff };
}

/** When each step passed: sticky, so a later change does not take a passed step back. */
export type Progress = Record<string, { seq: number; ts: number }>;

function runChecks(checks: readonly Check[], r: Reader, commands: readonly CommandRecord[]): CheckResult[] {
  return checks.map((c): CheckResult => {
    try {
      return evaluateCheck(c, r, commands);
    } catch (e) {
      return { id: c.id, passed: false, message: both(`This check could not run: ${(e as Error).message}`, `检查无法运行：${(e as Error).message}`) };
    }
  });
}

/**
 * Every step's checks against the cluster now, in order. A step passes once all its checks hold
 * and every step before it has passed; from then on it stays passed (recorded in `progress`,
 * which this returns updated, never changed in place). A step's command and traffic checks see
 * only the commands run since the step before it passed, so an earlier curl loop cannot pass a
 * later step. A check that throws fails with its error; it never breaks the caller.
 */
export function evaluateLab(lab: LabDefinition, r: Reader, commands: readonly CommandRecord[], progress: Progress = {}, ts = 0): { steps: StepResult[]; progress: Progress } {
  const next: Progress = { ...progress };
  const steps: StepResult[] = [];
  let since = 0;
  let open = true;
  const lastSeq = commands.length ? commands[commands.length - 1].seq : 0;
  for (const step of lab.steps) {
    const done = next[step.id];
    if (done && open) {
      steps.push({ id: step.id, passed: true, checks: step.checks.map((c) => ({ id: c.id, passed: true })) });
      since = done.seq;
      continue;
    }
    const checks = runChecks(step.checks, r, commands.filter((c) => c.seq > since));
    const passed = open && checks.every((c) => c.passed);
    if (passed) {
      next[step.id] = { seq: lastSeq, ts };
      since = lastSeq;
    } else open = false;
    steps.push({ id: step.id, passed, checks });
  }
  return { steps, progress: next };
}
