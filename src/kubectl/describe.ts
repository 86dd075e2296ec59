// kubectl describe, following kubectl/pkg/describe/describe.go (v0.33): field order, LEVEL
// indentation (two spaces a level) and a tabwriter (minwidth 0, padding 2) over the whole text,
// flushed before an Events table as PrefixWriter.Flush does.

import { R, type ResourceInfo } from "../engine/api/resources.js";
import type { KObject } from "../engine/api/types.js";
import { addInto, formatQuantity, milliValue, podResources, type Quantity, type ResourceList, resourceList, value, ZERO } from "../engine/api/quantity.js";
import { rfc1123z, since } from "./duration.js";
import { byteOrder, fmtValue } from "./gotemplate.js";
import { DESCRIBE_TABWRITER, tabwrite } from "./tabwriter.js";
import { formatLabels, formatLabelSelector } from "./table.js";
import { describeCronJob, describeJob } from "./describe-batch.js";
import { KIND_DESCRIBERS } from "./describe-kinds.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

/** What a describer may read besides the object: the cluster as the apiserver lists it. */
export interface DescribeSource {
  now: number;
  list(info: ResourceInfo, namespace: string | undefined): readonly KObject[];
}

const FLUSH = "\u0000FLUSH\u0000";

export class PrefixWriter {
  parts: string[] = [];
  write(level: number, s: string): void {
    this.parts.push("  ".repeat(level) + s);
  }
  flush(): void {
    this.parts.push(FLUSH);
  }
  text(): string {
    return this.parts
      .join("")
      .split(FLUSH)
      .map((seg) => tabwrite(seg, DESCRIBE_TABWRITER))
      .join("");
  }
}

const MAX_ANNOTATION_LEN = 140;
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

export function labelsMultiline(w: PrefixWriter, title: string, labels: Record<string, string> | undefined, initialIndent = "", innerIndent = "\t"): void {
  w.write(0, `${initialIndent}${title}:${innerIndent}`);
  const keys = Object.keys(labels ?? {}).sort();
  if (!keys.length) {
    w.write(0, "<none>\n");
    return;
  }
  keys.forEach((k, i) => {
    if (i !== 0) w.write(0, initialIndent + innerIndent);
    w.write(0, `${k}=${labels![k]}\n`);
  });
}

export function annotationsMultiline(w: PrefixWriter, title: string, ann: Record<string, string> | undefined): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(ann ?? {}).filter((k) => k !== LAST_APPLIED).sort();
  if (!keys.length) {
    w.write(0, "<none>\n");
    return;
  }
  const indent = "\t";
  keys.forEach((k, i) => {
    if (i !== 0) w.write(0, indent);
    const value = ann![k].replace(/\n$/, "");
    if (value.length + k.length + 2 > MAX_ANNOTATION_LEN || value.includes("\n")) {
      w.write(0, `${k}:\n`);
      for (const s of value.split("\n")) w.write(0, `${indent}  ${s.length > MAX_ANNOTATION_LEN - 2 ? s.slice(0, MAX_ANNOTATION_LEN - 2) + "..." : s}\n`);
    } else {
      w.write(0, `${k}: ${value}\n`);
    }
  });
}

function tolerationsMultiline(w: PrefixWriter, title: string, tols: Obj[] | undefined, initialIndent = ""): void {
  w.write(0, `${initialIndent}${title}:\t`);
  if (!tols?.length) {
    w.write(0, "<none>\n");
    return;
  }
  const sorted = [...tols].sort((a, b) => ((a.key ?? "") < (b.key ?? "") ? -1 : (a.key ?? "") > (b.key ?? "") ? 1 : 0));
  sorted.forEach((t, i) => {
    if (i !== 0) w.write(0, initialIndent + "\t");
    let s = t.key ?? "";
    if (t.value) s += `=${t.value}`;
    if (t.effect) s += `:${t.effect}`;
    if (t.operator === "Exists" && !t.value) s += t.key || t.effect ? " op=Exists" : "op=Exists";
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) s += ` for ${t.tolerationSeconds}s`;
    w.write(0, s + "\n");
  });
}

export function controllerOf(o: Obj): string {
  const ref = (o.metadata.ownerReferences ?? []).find((r: Obj) => r.controller);
  return ref ? `${ref.kind}/${ref.name}` : "";
}

export function eventsFor(src: DescribeSource, o: Obj, kind: string): Obj[] {
  const evs = src.list(R.events, o.metadata.namespace || "default").filter((e: Obj) => {
    const io = e.involvedObject ?? {};
    return io.name === o.metadata.name && io.kind === kind && (!io.uid || io.uid === o.metadata.uid);
  });
  const t = (e: Obj) => Date.parse(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? 0) || 0;
  return [...evs].sort((a, b) => t(a) - t(b));
}

export function describeEvents(w: PrefixWriter, events: Obj[], now: number): void {
  if (!events.length) {
    w.write(0, "Events:\t<none>\n");
    return;
  }
  w.flush();
  w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
  w.write(1, "----\t------\t----\t----\t-------\n");
  for (const e of events) {
    const first = e.eventTime ? since(e.eventTime, now) : since(e.firstTimestamp, now);
    let interval = first;
    if (e.series) interval = `${since(e.series.lastObservedTime, now)} (x${e.series.count} over ${first})`;
    else if ((e.count ?? 0) > 1) interval = `${since(e.lastTimestamp, now)} (x${e.count} over ${first})`;
    const source = e.source?.component || e.reportingController || "";
    w.write(1, `${e.type}\t${e.reason}\t${interval}\t${source}\t${String(e.message ?? "").trim()}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Containers and pod templates

function intOrString(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

function describeProbe(p: Obj): string {
  const attrs = `delay=${p.initialDelaySeconds ?? 0}s timeout=${p.timeoutSeconds ?? 1}s period=${p.periodSeconds ?? 10}s #success=${p.successThreshold ?? 1} #failure=${p.failureThreshold ?? 3}`;
  if (p.exec) return `exec [${(p.exec.command ?? []).join(" ")}] ${attrs}`;
  if (p.httpGet) {
    const scheme = String(p.httpGet.scheme ?? "HTTP").toLowerCase();
    const port = intOrString(p.httpGet.port);
    return `http-get ${scheme}://${p.httpGet.host ?? ""}:${port}${p.httpGet.path ?? ""} ${attrs}`;
  }
  if (p.tcpSocket) return `tcp-socket ${p.tcpSocket.host ?? ""}:${intOrString(p.tcpSocket.port)} ${attrs}`;
  return `unknown ${attrs}`;
}

function describeState(w: PrefixWriter, name: string, st: Obj): void {
  if (st?.running) {
    w.write(2, `${name}:\tRunning\n`);
    w.write(3, `Started:\t${rfc1123z(st.running.startedAt)}\n`);
  } else if (st?.waiting) {
    w.write(2, `${name}:\tWaiting\n`);
    if (st.waiting.reason) w.write(3, `Reason:\t${st.waiting.reason}\n`);
  } else if (st?.terminated) {
    const t = st.terminated;
    w.write(2, `${name}:\tTerminated\n`);
    if (t.reason) w.write(3, `Reason:\t${t.reason}\n`);
    if (t.message) w.write(3, `Message:\t${t.message}\n`);
    w.write(3, `Exit Code:\t${t.exitCode}\n`);
    if (t.signal) w.write(3, `Signal:\t${t.signal}\n`);
    w.write(3, `Started:\t${rfc1123z(t.startedAt)}\n`);
    w.write(3, `Finished:\t${rfc1123z(t.finishedAt)}\n`);
  } else {
    w.write(2, `${name}:\tWaiting\n`);
  }
}

function describeContainers(w: PrefixWriter, label: string, containers: Obj[], statuses: Obj[] | undefined, space: string): void {
  const byName = new Map<string, Obj>((statuses ?? []).map((s) => [s.name, s]));
  w.write(0, `${space}${label}:${containers.length ? "" : " <none>"}\n`);
  for (const c of containers) {
    const st = statuses ? byName.get(c.name) : undefined;
    w.write(1, `${space ? " " : ""}${c.name}:\n`);
    if (st) w.write(2, `Container ID:\t${st.containerID ?? ""}\n`);
    w.write(2, `Image:\t${c.image}\n`);
    if (st) w.write(2, `Image ID:\t${st.imageID ?? ""}\n`);
    const ports = (c.ports ?? []).map((p: Obj) => `${p.containerPort}/${p.protocol ?? "TCP"}`).join(", ");
    w.write(2, ports.includes(",") ? `Ports:\t${ports}\n` : `Port:\t${ports || "<none>"}\n`);
    const hostPorts = (c.ports ?? []).map((p: Obj) => `${p.hostPort ?? 0}/${p.protocol ?? "TCP"}`).join(", ");
    w.write(2, hostPorts.includes(",") ? `Host Ports:\t${hostPorts}\n` : `Host Port:\t${hostPorts || "<none>"}\n`);
    if (c.command?.length) {
      w.write(2, "Command:\n");
      for (const x of c.command) for (const s of String(x).split("\n")) w.write(3, `${s}\n`);
    }
    if (c.args?.length) {
      w.write(2, "Args:\n");
      for (const x of c.args) for (const s of String(x).split("\n")) w.write(3, `${s}\n`);
    }
    if (st) {
      describeState(w, "State", st.state);
      if (st.lastState?.terminated) describeState(w, "Last State", st.lastState);
      w.write(2, `Ready:\t${st.ready ? "True" : "False"}\n`);
      w.write(2, `Restart Count:\t${st.restartCount ?? 0}\n`);
    }
    const res = c.resources ?? {};
    for (const [title, m] of [["Limits", res.limits], ["Requests", res.requests]] as const) {
      const keys = Object.keys(m ?? {}).sort();
      if (keys.length) w.write(2, `${title}:\n`);
      for (const k of keys) w.write(3, `${k}:\t${(m as Obj)[k]}\n`);
    }
    if (c.livenessProbe) w.write(2, `Liveness:\t${describeProbe(c.livenessProbe)}\n`);
    if (c.readinessProbe) w.write(2, `Readiness:\t${describeProbe(c.readinessProbe)}\n`);
    if (c.startupProbe) w.write(2, `Startup:\t${describeProbe(c.startupProbe)}\n`);
    if (c.envFrom?.length) {
      w.write(2, "Environment Variables from:\n");
      for (const ef of c.envFrom) {
        if (ef.configMapRef) w.write(3, `${ef.configMapRef.name}\tConfigMap\tOptional: ${!!ef.configMapRef.optional}\n`);
        if (ef.secretRef) w.write(3, `${ef.secretRef.name}\tSecret\tOptional: ${!!ef.secretRef.optional}\n`);
      }
    }
    const env: Obj[] = c.env ?? [];
    w.write(2, `Environment:${env.length ? "" : "\t<none>"}\n`);
    for (const e of env) {
      if (!e.valueFrom) {
        String(e.value ?? "")
          .split("\n")
          .forEach((s, i) => w.write(3, i === 0 ? `${e.name}:\t${s}\n` : `\t${s}\n`));
      } else if (e.valueFrom.fieldRef) {
        w.write(3, `${e.name}:\t (${e.valueFrom.fieldRef.apiVersion ?? "v1"}:${e.valueFrom.fieldRef.fieldPath})\n`);
      } else if (e.valueFrom.configMapKeyRef) {
        const r = e.valueFrom.configMapKeyRef;
        w.write(3, `${e.name}:\t<set to the key '${r.key}' of config map '${r.name}'>\tOptional: ${!!r.optional}\n`);
      } else if (e.valueFrom.secretKeyRef) {
        const r = e.valueFrom.secretKeyRef;
        w.write(3, `${e.name}:\t<set to the key '${r.key}' in secret '${r.name}'>\tOptional: ${!!r.optional}\n`);
      }
    }
    const mounts: Obj[] = [...(c.volumeMounts ?? [])].sort((a, b) => (a.mountPath < b.mountPath ? -1 : 1));
    w.write(2, `Mounts:${mounts.length ? "" : "\t<none>"}\n`);
    for (const m of mounts) {
      const flags = [m.readOnly ? "ro" : "rw"];
      if (m.subPath) flags.push(`path=${JSON.stringify(m.subPath)}`);
      w.write(3, `${m.mountPath} from ${m.name} (${flags.join(",")})\n`);
    }
  }
}

function describeVolumes(w: PrefixWriter, volumes: Obj[] | undefined, space: string): void {
  if (!volumes?.length) {
    w.write(0, `${space}Volumes:\t<none>\n`);
    return;
  }
  w.write(0, `${space}Volumes:\n`);
  for (const v of volumes) {
    w.write(1, `${space ? " " : ""}${v.name}:\n`);
    if (v.configMap) {
      w.write(2, `Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t${v.configMap.name}\n    Optional:\t${!!v.configMap.optional}\n`);
    } else if (v.hostPath) {
      w.write(2, `Type:\tHostPath (bare host directory volume)\n    Path:\t${v.hostPath.path}\n    HostPathType:\t${v.hostPath.type ?? ""}\n`);
    } else if (v.emptyDir) {
      w.write(2, `Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t${v.emptyDir.medium ?? ""}\n    SizeLimit:\t${v.emptyDir.sizeLimit ?? "<unset>"}\n`);
    } else if (v.secret) {
      w.write(2, `Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t${v.secret.secretName}\n    Optional:\t${!!v.secret.optional}\n`);
    } else if (v.projected) {
      w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
      for (const s of v.projected.sources ?? []) {
        if (s.serviceAccountToken) w.write(2, `TokenExpirationSeconds:\t${s.serviceAccountToken.expirationSeconds ?? 3607}\n`);
        if (s.configMap) w.write(2, `ConfigMapName:\t${s.configMap.name}\n    Optional:\t${!!s.configMap.optional}\n`);
        if (s.downwardAPI) w.write(2, "DownwardAPI:\ttrue\n");
      }
    } else {
      w.write(2, "Type:\t<unknown>\n");
    }
  }
}

export function describePodTemplate(w: PrefixWriter, t: Obj): void {
  w.write(0, "Pod Template:\n");
  labelsMultiline(w, "  Labels", t?.metadata?.labels);
  if (Object.keys(t?.metadata?.annotations ?? {}).length) annotationsMultiline(w, "  Annotations", t.metadata.annotations);
  const spec = t?.spec ?? {};
  if (spec.serviceAccountName) w.write(1, `Service Account:\t${spec.serviceAccountName}\n`);
  if (spec.initContainers?.length) describeContainers(w, "Init Containers", spec.initContainers, undefined, "  ");
  describeContainers(w, "Containers", spec.containers ?? [], undefined, "  ");
  describeVolumes(w, spec.volumes, "  ");
  if (spec.priorityClassName) w.write(1, `Priority Class Name:\t${spec.priorityClassName}\n`);
  labelsMultiline(w, "  Node-Selectors", spec.nodeSelector);
  tolerationsMultiline(w, "  Tolerations", spec.tolerations);
}

function podPhaseCounts(src: DescribeSource, owner: Obj): [number, number, number, number] {
  let running = 0, waiting = 0, succeeded = 0, failed = 0;
  for (const p of src.list(R.pods, owner.metadata.namespace) as Obj[]) {
    const ref = (p.metadata.ownerReferences ?? []).find((r: Obj) => r.controller);
    if (!ref || ref.uid !== owner.metadata.uid) continue;
    const ph = p.status?.phase;
    if (ph === "Running") running++;
    else if (ph === "Pending") waiting++;
    else if (ph === "Succeeded") succeeded++;
    else if (ph === "Failed") failed++;
  }
  return [running, waiting, succeeded, failed];
}

// ---------------------------------------------------------------------------------------------
// Describers

function describePod(w: PrefixWriter, pod: Obj, src: DescribeSource): void {
  const st = pod.status ?? {};
  w.write(0, `Name:\t${pod.metadata.name}\n`);
  w.write(0, `Namespace:\t${pod.metadata.namespace}\n`);
  if (pod.spec.priority !== undefined) w.write(0, `Priority:\t${pod.spec.priority}\n`);
  if (pod.spec.priorityClassName) w.write(0, `Priority Class Name:\t${pod.spec.priorityClassName}\n`);
  if (pod.spec.serviceAccountName) w.write(0, `Service Account:\t${pod.spec.serviceAccountName}\n`);
  w.write(0, pod.spec.nodeName ? `Node:\t${pod.spec.nodeName}/${st.hostIP ?? ""}\n` : "Node:\t<none>\n");
  if (st.startTime) w.write(0, `Start Time:\t${rfc1123z(st.startTime)}\n`);
  labelsMultiline(w, "Labels", pod.metadata.labels);
  annotationsMultiline(w, "Annotations", pod.metadata.annotations);
  if (pod.metadata.deletionTimestamp && st.phase !== "Failed" && st.phase !== "Succeeded") {
    w.write(0, `Status:\tTerminating (lasts ${since(pod.metadata.deletionTimestamp, src.now)})\n`);
    w.write(0, `Termination Grace Period:\t${pod.metadata.deletionGracePeriodSeconds ?? 30}s\n`);
  } else {
    w.write(0, `Status:\t${st.phase ?? ""}\n`);
  }
  if (st.reason) w.write(0, `Reason:\t${st.reason}\n`);
  if (st.message) w.write(0, `Message:\t${st.message}\n`);
  w.write(0, `IP:\t${st.podIP ?? ""}\n`);
  if (!st.podIPs?.length) w.write(0, "IPs:\t<none>\n");
  else {
    w.write(0, "IPs:\n");
    for (const ip of st.podIPs) w.write(1, `IP:\t${ip.ip}\n`);
  }
  const ctrl = controllerOf(pod);
  if (ctrl) w.write(0, `Controlled By:\t${ctrl}\n`);
  if (st.nominatedNodeName) w.write(0, `NominatedNodeName:\t${st.nominatedNodeName}\n`);
  if (pod.spec.initContainers?.length) describeContainers(w, "Init Containers", pod.spec.initContainers, st.initContainerStatuses ?? [], "");
  describeContainers(w, "Containers", pod.spec.containers ?? [], st.containerStatuses ?? [], "");
  if (st.conditions?.length) {
    w.write(0, "Conditions:\n  Type\tStatus\n");
    for (const c of st.conditions) w.write(1, `${c.type} \t${c.status} \n`);
  }
  describeVolumes(w, pod.spec.volumes, "");
  w.write(0, `QoS Class:\t${st.qosClass ?? "BestEffort"}\n`);
  labelsMultiline(w, "Node-Selectors", pod.spec.nodeSelector);
  tolerationsMultiline(w, "Tolerations", pod.spec.tolerations);
  describeEvents(w, eventsFor(src, pod, "Pod"), src.now);
}

/**
 * formatEndpointSlices: "<none>" only without slices; slices without ready endpoints give "". As
 * in kubectl, the list is cut at three and "more" is decided before an endpoint's readiness is
 * looked at, so three ready endpoints followed by an unready one print "+ 0 more...".
 */
export function formatSliceEndpoints(slices: Obj[], portName: string | undefined): string {
  if (!slices.length) return "<none>";
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  const ready = (e: Obj) => e.conditions?.ready === undefined || e.conditions.ready === null || e.conditions.ready === true;
  for (const s of slices) {
    const ports: Obj[] = s.ports ?? [];
    if (!ports.length) {
      // A headless Service may have no ports.
      for (const e of s.endpoints ?? []) {
        if (list.length === max) more = true;
        if (!ready(e)) continue;
        if (!more) list.push(e.addresses[0]);
        count++;
      }
      continue;
    }
    for (const p of ports) {
      if (portName !== undefined && (p.name ?? "") !== portName) continue;
      for (const e of s.endpoints ?? []) {
        if (list.length === max) more = true;
        if (!ready(e)) continue;
        const addr: string = e.addresses[0];
        if (!more) list.push(`${addr.includes(":") ? `[${addr}]` : addr}:${p.port}`);
        count++;
      }
    }
  }
  const s = list.join(",");
  return more ? `${s} + ${count - max} more...` : s;
}

function describeService(w: PrefixWriter, svc: Obj, src: DescribeSource): void {
  const spec = svc.spec ?? {};
  w.write(0, `Name:\t${svc.metadata.name}\n`);
  w.write(0, `Namespace:\t${svc.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", svc.metadata.labels);
  annotationsMultiline(w, "Annotations", svc.metadata.annotations);
  w.write(0, `Selector:\t${formatLabels(spec.selector)}\n`);
  w.write(0, `Type:\t${spec.type ?? ""}\n`);
  if (spec.ipFamilyPolicy) w.write(0, `IP Family Policy:\t${spec.ipFamilyPolicy}\n`);
  w.write(0, `IP Families:\t${spec.ipFamilies?.length ? spec.ipFamilies.join(",") : "<none>"}\n`);
  w.write(0, `IP:\t${spec.clusterIP ?? ""}\n`);
  w.write(0, `IPs:\t${spec.clusterIPs?.length ? spec.clusterIPs.join(",") : "<none>"}\n`);
  if (spec.externalIPs?.length) w.write(0, `External IPs:\t${spec.externalIPs.join(",")}\n`);
  if (spec.loadBalancerIP) w.write(0, `Desired LoadBalancer IP:\t${spec.loadBalancerIP}\n`);
  if (spec.externalName) w.write(0, `External Name:\t${spec.externalName}\n`);
  const ingress: Obj[] = svc.status?.loadBalancer?.ingress ?? [];
  if (ingress.length) {
    const list = ingress.map((i) => {
      let s = i.ip || i.hostname || "";
      if (i.ip && i.ipMode) s += ` (${i.ipMode})`;
      return s;
    });
    w.write(0, `LoadBalancer Ingress:\t${list.join(", ")}\n`);
  }
  const slices = src
    .list(R.endpointslices, svc.metadata.namespace)
    .filter((s: Obj) => s.metadata.labels?.["kubernetes.io/service-name"] === svc.metadata.name);
  for (const p of spec.ports ?? []) {
    const name = p.name || "<unset>";
    w.write(0, `Port:\t${name}\t${p.port}/${p.protocol}\n`);
    w.write(0, `TargetPort:\t${p.targetPort}/${p.protocol}\n`);
    if (p.nodePort) w.write(0, `NodePort:\t${name}\t${p.nodePort}/${p.protocol}\n`);
    w.write(0, `Endpoints:\t${formatSliceEndpoints(slices, p.name ?? "")}\n`);
  }
  w.write(0, `Session Affinity:\t${spec.sessionAffinity ?? ""}\n`);
  if (spec.externalTrafficPolicy) w.write(0, `External Traffic Policy:\t${spec.externalTrafficPolicy}\n`);
  if (spec.internalTrafficPolicy) w.write(0, `Internal Traffic Policy:\t${spec.internalTrafficPolicy}\n`);
  if (spec.healthCheckNodePort) w.write(0, `HealthCheck NodePort:\t${spec.healthCheckNodePort}\n`);
  if (spec.loadBalancerSourceRanges?.length) w.write(0, `LoadBalancer Source Ranges:\t${spec.loadBalancerSourceRanges.join(",")}\n`);
  describeEvents(w, eventsFor(src, svc, "Service"), src.now);
}

function describeDeployment(w: PrefixWriter, d: Obj, src: DescribeSource): void {
  const st = d.status ?? {};
  w.write(0, `Name:\t${d.metadata.name}\n`);
  w.write(0, `Namespace:\t${d.metadata.namespace}\n`);
  w.write(0, `CreationTimestamp:\t${rfc1123z(d.metadata.creationTimestamp)}\n`);
  labelsMultiline(w, "Labels", d.metadata.labels);
  annotationsMultiline(w, "Annotations", d.metadata.annotations);
  w.write(0, `Selector:\t${formatLabelSelector(d.spec.selector)}\n`);
  w.write(0, `Replicas:\t${d.spec.replicas ?? 1} desired | ${st.updatedReplicas ?? 0} updated | ${st.replicas ?? 0} total | ${st.availableReplicas ?? 0} available | ${st.unavailableReplicas ?? 0} unavailable\n`);
  w.write(0, `StrategyType:\t${d.spec.strategy?.type ?? ""}\n`);
  w.write(0, `MinReadySeconds:\t${d.spec.minReadySeconds ?? 0}\n`);
  const ru = d.spec.strategy?.rollingUpdate;
  if (ru) w.write(0, `RollingUpdateStrategy:\t${intOrString(ru.maxUnavailable)} max unavailable, ${intOrString(ru.maxSurge)} max surge\n`);
  describePodTemplate(w, d.spec.template);
  if (st.conditions?.length) {
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
    w.write(1, "----\t------\t------\n");
    for (const c of st.conditions) w.write(1, `${c.type} \t${c.status}\t${c.reason ?? ""}\n`);
  }
  const rss = (src.list(R.replicasets, d.metadata.namespace) as Obj[]).filter((r) =>
    (r.metadata.ownerReferences ?? []).some((o: Obj) => o.controller && o.uid === d.metadata.uid),
  );
  if (rss.length) {
    const rev = (r: Obj) => Number(r.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0);
    const newest = rss.reduce((a, b) => (rev(b) > rev(a) ? b : a));
    const fmt = (list: Obj[]) => (list.length ? list.map((r) => `${r.metadata.name} (${r.status?.replicas ?? 0}/${r.spec.replicas ?? 0} replicas created)`).join(", ") : "<none>");
    // GetAllReplicaSetsInChunks' second list: every old ReplicaSet, scaled to zero or not.
    const old = rss.filter((r) => r !== newest);
    w.write(0, `OldReplicaSets:\t${fmt(old)}\n`);
    w.write(0, `NewReplicaSet:\t${fmt([newest])}\n`);
  }
  describeEvents(w, eventsFor(src, d, "Deployment"), src.now);
}

function describeReplicaSet(w: PrefixWriter, rs: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${rs.metadata.name}\n`);
  w.write(0, `Namespace:\t${rs.metadata.namespace}\n`);
  w.write(0, `Selector:\t${formatLabelSelector(rs.spec.selector)}\n`);
  labelsMultiline(w, "Labels", rs.metadata.labels);
  annotationsMultiline(w, "Annotations", rs.metadata.annotations);
  const ctrl = controllerOf(rs);
  if (ctrl) w.write(0, `Controlled By:\t${ctrl}\n`);
  w.write(0, `Replicas:\t${rs.status?.replicas ?? 0} current / ${rs.spec.replicas ?? 0} desired\n`);
  const [r, wt, s, f] = podPhaseCounts(src, rs);
  w.write(0, `Pods Status:\t${r} Running / ${wt} Waiting / ${s} Succeeded / ${f} Failed\n`);
  describePodTemplate(w, rs.spec.template);
  if (rs.status?.conditions?.length) {
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
    w.write(1, "----\t------\t------\n");
    for (const c of rs.status.conditions) w.write(1, `${c.type} \t${c.status}\t${c.reason ?? ""}\n`);
  }
  describeEvents(w, eventsFor(src, rs, "ReplicaSet"), src.now);
}

function describeReplicationController(w: PrefixWriter, rc: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${rc.metadata.name}\n`);
  w.write(0, `Namespace:\t${rc.metadata.namespace}\n`);
  w.write(0, `Selector:\t${formatLabels(rc.spec?.selector)}\n`);
  labelsMultiline(w, "Labels", rc.metadata.labels);
  annotationsMultiline(w, "Annotations", rc.metadata.annotations);
  w.write(0, `Replicas:\t${rc.status?.replicas ?? 0} current / ${rc.spec?.replicas ?? 0} desired\n`);
  const [r, wt, s, f] = podPhaseCounts(src, rc);
  w.write(0, `Pods Status:\t${r} Running / ${wt} Waiting / ${s} Succeeded / ${f} Failed\n`);
  describePodTemplate(w, rc.spec?.template);
  if (rc.status?.conditions?.length) {
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
    w.write(1, "----\t------\t------\n");
    for (const c of rc.status.conditions) w.write(1, `${c.type} \t${c.status}\t${c.reason ?? ""}\n`);
  }
  describeEvents(w, eventsFor(src, rc, "ReplicationController"), src.now);
}

function describeDaemonSet(w: PrefixWriter, ds: Obj, src: DescribeSource): void {
  const st = ds.status ?? {};
  w.write(0, `Name:\t${ds.metadata.name}\n`);
  w.write(0, `Namespace:\t${ds.metadata.namespace}\n`);
  w.write(0, `Selector:\t${formatLabelSelector(ds.spec.selector)}\n`);
  w.write(0, `Node-Selector:\t${formatLabels(ds.spec.template?.spec?.nodeSelector)}\n`);
  labelsMultiline(w, "Labels", ds.metadata.labels);
  annotationsMultiline(w, "Annotations", ds.metadata.annotations);
  w.write(0, `Desired Number of Nodes Scheduled: ${st.desiredNumberScheduled ?? 0}\n`);
  w.write(0, `Current Number of Nodes Scheduled: ${st.currentNumberScheduled ?? 0}\n`);
  w.write(0, `Number of Nodes Scheduled with Up-to-date Pods: ${st.updatedNumberScheduled ?? 0}\n`);
  w.write(0, `Number of Nodes Scheduled with Available Pods: ${st.numberAvailable ?? 0}\n`);
  w.write(0, `Number of Nodes Misscheduled: ${st.numberMisscheduled ?? 0}\n`);
  const [r, wt, s, f] = podPhaseCounts(src, ds);
  w.write(0, `Pods Status:\t${r} Running / ${wt} Waiting / ${s} Succeeded / ${f} Failed\n`);
  describePodTemplate(w, ds.spec.template);
  describeEvents(w, eventsFor(src, ds, "DaemonSet"), src.now);
}

function describeEndpoints(w: PrefixWriter, ep: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${ep.metadata.name}\n`);
  w.write(0, `Namespace:\t${ep.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", ep.metadata.labels);
  annotationsMultiline(w, "Annotations", ep.metadata.annotations);
  w.write(0, "Subsets:\n");
  for (const ss of ep.subsets ?? []) {
    w.write(1, `Addresses:\t${(ss.addresses ?? []).map((a: Obj) => a.ip).join(",") || "<none>"}\n`);
    w.write(1, `NotReadyAddresses:\t${(ss.notReadyAddresses ?? []).map((a: Obj) => a.ip).join(",") || "<none>"}\n`);
    if (ss.ports?.length) {
      w.write(1, "Ports:\n");
      w.write(2, "Name\tPort\tProtocol\n");
      w.write(2, "----\t----\t--------\n");
      for (const p of ss.ports) w.write(2, `${p.name || "<unset>"}\t${p.port}\t${p.protocol}\n`);
    }
    w.write(0, "\n");
  }
  describeEvents(w, eventsFor(src, ep, "Endpoints"), src.now);
}

function describeEndpointSlice(w: PrefixWriter, es: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${es.metadata.name}\n`);
  w.write(0, `Namespace:\t${es.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", es.metadata.labels);
  annotationsMultiline(w, "Annotations", es.metadata.annotations);
  w.write(0, `AddressType:\t${es.addressType}\n`);
  if (!es.ports?.length) w.write(0, "Ports: <unset>\n");
  else {
    w.write(0, "Ports:\n");
    w.write(1, "Name\tPort\tProtocol\n");
    w.write(1, "----\t----\t--------\n");
    for (const p of es.ports) w.write(1, `${p.name ? p.name : "<unset>"}\t${p.port ?? "<unset>"}\t${p.protocol}\n`);
  }
  if (!es.endpoints?.length) w.write(0, "Endpoints: <none>\n");
  else {
    w.write(0, "Endpoints:\n");
    for (const e of es.endpoints) {
      w.write(1, `- Addresses:\t${(e.addresses ?? []).join(", ") || "<none>"}\n`);
      w.write(2, "Conditions:\n");
      w.write(3, `Ready:\t${e.conditions?.ready === undefined ? "<unset>" : String(e.conditions.ready)}\n`);
      w.write(2, `Hostname:\t${e.hostname ?? "<unset>"}\n`);
      if (e.targetRef) w.write(2, `TargetRef:\t${e.targetRef.kind}/${e.targetRef.name}\n`);
      w.write(2, `NodeName:\t${e.nodeName ?? "<unset>"}\n`);
      w.write(2, `Zone:\t${e.zone ?? "<unset>"}\n`);
    }
  }
  describeEvents(w, eventsFor(src, es, "EndpointSlice"), src.now);
}

function describeConfigMap(w: PrefixWriter, cm: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${cm.metadata.name}\n`);
  w.write(0, `Namespace:\t${cm.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", cm.metadata.labels);
  annotationsMultiline(w, "Annotations", cm.metadata.annotations);
  w.write(0, "\nData\n====\n");
  for (const k of Object.keys(cm.data ?? {}).sort()) {
    w.write(0, `${k}:\n----\n`);
    w.write(0, `${cm.data[k]}\n`);
    w.write(0, "\n");
  }
  w.write(0, "\nBinaryData\n====\n");
  for (const k of Object.keys(cm.binaryData ?? {}).sort()) w.write(0, `${k}: ${Math.floor((cm.binaryData[k].length * 3) / 4)} bytes\n`);
  w.write(0, "\n");
  describeEvents(w, eventsFor(src, cm, "ConfigMap"), src.now);
}

function describeServiceAccount(w: PrefixWriter, sa: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${sa.metadata.name}\n`);
  w.write(0, `Namespace:\t${sa.metadata.namespace}\n`);
  labelsMultiline(w, "Labels", sa.metadata.labels);
  annotationsMultiline(w, "Annotations", sa.metadata.annotations);
  // The headers are padded to one width and listed in sorted order, as describe.go does.
  const lists: [string, string[]][] = [
    ["Image pull secrets:", (sa.imagePullSecrets ?? []).map((s: Obj) => s.name)],
    ["Mountable secrets: ", (sa.secrets ?? []).map((s: Obj) => s.name)],
    ["Tokens:            ", []],
  ];
  for (const [header, names] of lists) {
    if (!names.length) w.write(0, `${header}\t<none>\n`);
    names.forEach((n, i) => w.write(0, `${i ? "                   " : header}\t${n}\n`));
  }
  describeEvents(w, eventsFor(src, sa, "ServiceAccount"), src.now);
}

function describeNamespace(w: PrefixWriter, ns: Obj): void {
  w.write(0, `Name:\t${ns.metadata.name}\n`);
  labelsMultiline(w, "Labels", ns.metadata.labels);
  annotationsMultiline(w, "Annotations", ns.metadata.annotations);
  w.write(0, `Status:\t${ns.status?.phase ?? ""}\n`);
  w.write(0, "\n");
  w.write(0, "No resource quota.\n");
  w.write(0, "\n");
  w.write(0, "No LimitRange resource.\n");
}

function describeNode(w: PrefixWriter, node: Obj, src: DescribeSource): void {
  const st = node.status ?? {};
  w.write(0, `Name:\t${node.metadata.name}\n`);
  const roles = Object.keys(node.metadata.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length))
    .sort();
  w.write(0, `Roles:\t${roles.length ? roles.join(",") : "<none>"}\n`);
  labelsMultiline(w, "Labels", node.metadata.labels);
  annotationsMultiline(w, "Annotations", node.metadata.annotations);
  w.write(0, `CreationTimestamp:\t${rfc1123z(node.metadata.creationTimestamp)}\n`);
  const taints: Obj[] = node.spec?.taints ?? [];
  w.write(0, "Taints:\t");
  if (!taints.length) w.write(0, "<none>\n");
  taints.forEach((t, i) => {
    if (i !== 0) w.write(0, "\t");
    w.write(0, `${t.key}${t.value ? "=" + t.value : ""}:${t.effect}\n`);
  });
  w.write(0, `Unschedulable:\t${!!node.spec?.unschedulable}\n`);
  const lease = src.list(R.leases, "kube-node-lease").find((l) => l.metadata.name === node.metadata.name) as Obj | undefined;
  if (lease) {
    const spec = lease.spec ?? {};
    w.write(0, "Lease:\n");
    w.write(1, `HolderIdentity:\t${spec.holderIdentity ?? "<unset>"}\n`);
    w.write(1, `AcquireTime:\t${spec.acquireTime ? rfc1123z(spec.acquireTime) : "<unset>"}\n`);
    w.write(1, `RenewTime:\t${spec.renewTime ? rfc1123z(spec.renewTime) : "<unset>"}\n`);
  } else {
    w.write(0, `Lease:\tFailed to get lease: leases.coordination.k8s.io "${node.metadata.name}" not found\n`);
  }
  if (st.conditions?.length) {
    w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
    w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
    for (const c of st.conditions) {
      w.write(1, `${c.type} \t${c.status} \t${rfc1123z(c.lastHeartbeatTime ?? c.lastTransitionTime)} \t${rfc1123z(c.lastTransitionTime)} \t${c.reason ?? ""} \t${c.message ?? ""}\n`);
    }
  }
  w.write(0, "Addresses:\n");
  for (const a of st.addresses ?? []) w.write(1, `${a.type}:\t${a.address}\n`);
  for (const [title, m] of [["Capacity", st.capacity], ["Allocatable", st.allocatable]] as const) {
    const keys = Object.keys(m ?? {}).sort();
    if (!keys.length) continue;
    w.write(0, `${title}:\n`);
    for (const k of keys) w.write(0, `  ${k}:\t${(m as Obj)[k]}\n`);
  }
  const info = st.nodeInfo ?? {};
  w.write(0, "System Info:\n");
  w.write(0, `  Machine ID:\t${info.machineID ?? ""}\n`);
  w.write(0, `  System UUID:\t${info.systemUUID ?? ""}\n`);
  w.write(0, `  Boot ID:\t${info.bootID ?? ""}\n`);
  w.write(0, `  Kernel Version:\t${info.kernelVersion ?? ""}\n`);
  w.write(0, `  OS Image:\t${info.osImage ?? ""}\n`);
  w.write(0, `  Operating System:\t${info.operatingSystem ?? ""}\n`);
  w.write(0, `  Architecture:\t${info.architecture ?? ""}\n`);
  w.write(0, `  Container Runtime Version:\t${info.containerRuntimeVersion ?? ""}\n`);
  w.write(0, `  Kubelet Version:\t${info.kubeletVersion ?? ""}\n`);
  w.write(0, `  Kube-Proxy Version:\t${info.kubeProxyVersion ?? ""}\n`);
  if (node.spec?.podCIDR) w.write(0, `PodCIDR:\t${node.spec.podCIDR}\n`);
  if (node.spec?.podCIDRs?.length) w.write(0, `PodCIDRs:\t${node.spec.podCIDRs.join(",")}\n`);
  const pods = (src.list(R.pods, undefined) as Obj[]).filter(
    (p) => p.spec?.nodeName === node.metadata.name && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
  );
  describeNodeResource(w, node, pods, src.now);
  describeEvents(w, eventsFor(src, node, "Node"), src.now);
}

/** describeNodeResource: each pod's CPU and memory requests and limits, then the node's totals. */
function describeNodeResource(w: PrefixWriter, node: Obj, pods: Obj[], now: number): void {
  w.write(0, `Non-terminated Pods:\t(${pods.length} in total)\n`);
  w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
  w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
  const st = node.status ?? {};
  const allocatable = resourceList(Object.keys(st.allocatable ?? {}).length ? st.allocatable : st.capacity);
  const alloc = (k: string) => allocatable.get(k) ?? ZERO;
  // int64(float64(x) / float64(allocatable) * 100), as Go computes it (NaN and Inf print as Go's int64 of them).
  const pct = (x: number, of: number) => goInt64((x / of) * 100);
  const cell = (q: Quantity | undefined, k: string, milli: boolean) => {
    const v = q ?? ZERO;
    return `${formatQuantity(v)} (${pct(milli ? milliValue(v) : value(v), milli ? milliValue(alloc(k)) : value(alloc(k)))}%)`;
  };
  const reqs: ResourceList = new Map();
  const limits: ResourceList = new Map();
  for (const p of pods) {
    const req = podResources(p, "requests");
    const lim = podResources(p, "limits");
    addInto(reqs, req);
    addInto(limits, lim);
    w.write(1, `${p.metadata.namespace}\t${p.metadata.name}\t\t${cell(req.get("cpu"), "cpu", true)}\t${cell(lim.get("cpu"), "cpu", true)}\t${cell(req.get("memory"), "memory", false)}\t${cell(lim.get("memory"), "memory", false)}\t${since(p.metadata.creationTimestamp, now)}\n`);
  }
  w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
  w.write(1, "Resource\tRequests\tLimits\n");
  w.write(1, "--------\t--------\t------\n");
  // The totals print 0% when the node has none of the resource (no division by zero here).
  const total = (k: string, milli: boolean) => {
    const a = milli ? milliValue(alloc(k)) : value(alloc(k));
    const r = reqs.get(k) ?? ZERO;
    const l = limits.get(k) ?? ZERO;
    const f = (q: Quantity) => (a === 0 ? "0" : pct(milli ? milliValue(q) : value(q), a));
    w.write(1, `${k}\t${formatQuantity(r)} (${f(r)}%)\t${formatQuantity(l)} (${f(l)}%)\n`);
  };
  total("cpu", true);
  total("memory", false);
  total("ephemeral-storage", false);
  const names = [...allocatable.keys()].sort();
  for (const k of names) if (k.startsWith("hugepages-")) total(k, false);
  // Extended resources (a GPU, say): requests and limits without percentages.
  for (const k of names) {
    if (k.startsWith("hugepages-") || ["cpu", "memory", "ephemeral-storage", "pods"].includes(k)) continue;
    w.write(1, `${k}\t${formatQuantity(reqs.get(k) ?? ZERO)}\t${formatQuantity(limits.get(k) ?? ZERO)}\n`);
  }
}

/** Go's int64(float64) conversion of a finite percentage (truncation toward zero). */
function goInt64(x: number): string {
  if (Number.isNaN(x) || !Number.isFinite(x)) return "-9223372036854775808";
  return String(Math.trunc(x));
}

/** genericDescriber: the object's fields, walked in sorted order with smart labels. */
function describeGeneric(w: PrefixWriter, o: Obj, info: ResourceInfo, src: DescribeSource): void {
  w.write(0, `Name:\t${o.metadata.name}\n`);
  w.write(0, `Namespace:\t${o.metadata.namespace ?? ""}\n`);
  labelsMultiline(w, "Labels", o.metadata.labels);
  annotationsMultiline(w, "Annotations", o.metadata.annotations);
  const skip = new Set([".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations"]);
  printUnstructuredContent(w, 0, { apiVersion: `${info.group ? info.group + "/" : ""}${info.version}`, kind: info.kind, ...o }, "", skip);
  describeEvents(w, eventsFor(src, o, info.kind), src.now);
}

function printUnstructuredContent(w: PrefixWriter, level: number, content: Obj, prefix: string, skip: Set<string>): void {
  for (const field of Object.keys(content).sort(byteOrder)) {
    const v = content[field];
    const path = `${prefix}.${field}`;
    if (skip.has(path) || v === undefined) continue;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      w.write(level, `${smartLabelFor(field)}:\n`);
      printUnstructuredContent(w, level + 1, v, path, skip);
    } else if (Array.isArray(v)) {
      w.write(level, `${smartLabelFor(field)}:\n`);
      for (const child of v) {
        if (child && typeof child === "object" && !Array.isArray(child)) printUnstructuredContent(w, level + 1, child, path, skip);
        else w.write(level + 1, `${fmtValue(child, "v")}\n`);
      }
    } else {
      w.write(level, `${smartLabelFor(field)}:\t${fmtValue(v, "v")}\n`);
    }
  }
}

/** smartLabelFor: "leaseDurationSeconds" -> "Lease Duration Seconds", "uid" -> "UID", "podCIDRs" -> "Pod CIDRs". */
export function smartLabelFor(field: string): string {
  if (/[^\p{L}-]/u.test(field)) return field;
  const parts = camelSplit(field);
  const merged: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const next = parts[i + 1];
    if (next !== undefined && part.length >= 2 && part === part.toUpperCase() && /^\p{Lu}/u.test(next)) {
      merged.push(part + next);
      i++;
      continue;
    }
    merged.push(part);
  }
  return merged
    .filter((p) => p !== "_")
    .map((p) => (["API", "URL", "UID", "GUID"].includes(p.toUpperCase()) ? p.toUpperCase() : p === p.toLowerCase() ? p.charAt(0).toUpperCase() + p.slice(1) : p))
    .join(" ");
}

/** fatih/camelcase.Split: runs of one character class, an upper run's last letter moved onto a following lower run. */
function camelSplit(s: string): string[] {
  const cls = (ch: string) => (/\p{Ll}/u.test(ch) ? 1 : /\p{Lu}/u.test(ch) ? 2 : /\p{N}/u.test(ch) ? 3 : 4);
  const runs: string[][] = [];
  let last = 0;
  for (const ch of s) {
    const c = cls(ch);
    if (c === last) runs[runs.length - 1].push(ch);
    else runs.push([ch]);
    last = c;
  }
  for (let i = 0; i < runs.length - 1; i++) {
    if (cls(runs[i][0]) === 2 && cls(runs[i + 1][0]) === 1) {
      runs[i + 1].unshift(runs[i].pop()!);
    }
  }
  return runs.filter((r) => r.length).map((r) => r.join(""));
}

const DESCRIBERS: Record<string, (w: PrefixWriter, o: Obj, src: DescribeSource) => void> = {
  Pod: describePod,
  Service: describeService,
  Deployment: describeDeployment,
  ReplicaSet: describeReplicaSet,
  ReplicationController: describeReplicationController,
  DaemonSet: describeDaemonSet,
  Job: describeJob,
  CronJob: describeCronJob,
  Endpoints: describeEndpoints,
  EndpointSlice: describeEndpointSlice,
  ConfigMap: describeConfigMap,
  ServiceAccount: describeServiceAccount,
  Namespace: (w, o) => describeNamespace(w, o),
  Node: describeNode,
};

/**
 * DescribePodTemplate into a bare PrefixWriter, as the rollout history viewers print a revision
 * (printTemplate): no tabwriter, so the tabs stay as they are.
 */
export function podTemplateText(template: KObject): string {
  const w = new PrefixWriter();
  describePodTemplate(w, template as Obj);
  return w.parts.filter((x) => x !== FLUSH).join("");
}

/** `kubectl describe` text for one object. */
export function describe(info: ResourceInfo, obj: KObject, src: DescribeSource): string {
  const w = new PrefixWriter();
  const fn = DESCRIBERS[info.kind] ?? KIND_DESCRIBERS[info.kind];
  if (fn) fn(w, obj, src);
  else describeGeneric(w, obj, info, src);
  return w.text();
}
