// The apiserver's defaulting, applied to a fresh copy of a decoded v1 object before validation.
// Sources (Kubernetes v1.33): pkg/apis/core/v1/defaults.go (+ the `+default` markers of
// defaults_generated), pkg/apis/apps/v1/defaults.go, pkg/apis/discovery/v1/defaults.go, the
// registries' PrepareForCreate and service allocation (pkg/registry/core/service/storage:
// normalizeClusterIPs, initIPFamilyFields on a single-stack IPv4 cluster, as kubeadm sets it up),
// and the admission plugins a kubeadm apiserver runs on pods (ServiceAccount,
// DefaultTolerationSeconds, Priority). Pure: mutates `obj` in place, returns nothing.

import { defaultPersistentVolume, defaultPersistentVolumeClaim } from "./defaults-storage.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const ensure = (o: Obj, k: string): Obj => (isObj(o[k]) ? o[k] : (o[k] = {}));
const setIfUnset = (o: Obj, k: string, v: unknown) => {
  if (o[k] === undefined || o[k] === null || o[k] === "") o[k] = v;
};

/**
 * The tag parsers.ParseImageName resolves: "latest" when neither tag nor digest is given,
 * "" when only a digest is given. Only the last path component may carry ":tag" (a registry
 * "host:port/" prefix is not a tag).
 */
export function imageTag(image: string): string {
  let ref = image;
  const at = ref.indexOf("@");
  const hasDigest = at >= 0;
  if (hasDigest) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon > slash) return ref.slice(colon + 1);
  return hasDigest ? "" : "latest";
}

function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  for (const [k, v] of [["timeoutSeconds", 1], ["periodSeconds", 10], ["successThreshold", 1], ["failureThreshold", 3]] as const) {
    if (!p[k]) p[k] = v;
  }
  if (isObj(p.httpGet)) {
    setIfUnset(p.httpGet, "path", "/");
    setIfUnset(p.httpGet, "scheme", "HTTP");
  }
}

function defaultLifecycleHandler(h: unknown): void {
  if (isObj(h) && isObj(h.httpGet)) {
    setIfUnset(h.httpGet, "path", "/");
    setIfUnset(h.httpGet, "scheme", "HTTP");
  }
}

function defaultContainer(c: unknown, hostNetwork: boolean, isPod: boolean): void {
  if (!isObj(c)) return;
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(String(c.image ?? "")) === "latest" ? "Always" : "IfNotPresent";
  setIfUnset(c, "terminationMessagePath", "/dev/termination-log");
  setIfUnset(c, "terminationMessagePolicy", "File");
  if (c.resources === undefined || c.resources === null) c.resources = {};
  // SetDefaults_Pod only: a container with limits but no request for a resource requests its limit.
  if (isPod && isObj(c.resources) && isObj(c.resources.limits)) {
    const limits = c.resources.limits;
    const requests = isObj(c.resources.requests) ? c.resources.requests : {};
    for (const k of Object.keys(limits)) if (!(k in requests)) requests[k] = limits[k];
    if (Object.keys(requests).length) c.resources.requests = requests;
  }
  if (Array.isArray(c.ports)) {
    for (const p of c.ports) {
      if (!isObj(p)) continue;
      setIfUnset(p, "protocol", "TCP");
      // SetDefaults_Pod only (not templates): host networking defaults hostPort to containerPort.
      if (isPod && hostNetwork && !p.hostPort) p.hostPort = p.containerPort;
    }
  }
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isObj(e) && isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) setIfUnset(e.valueFrom.fieldRef, "apiVersion", "v1");
    }
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    defaultLifecycleHandler(c.lifecycle.postStart);
    defaultLifecycleHandler(c.lifecycle.preStop);
  }
}

function defaultVolume(v: unknown): void {
  if (!isObj(v)) return;
  const sources = Object.keys(v).filter((k) => k !== "name" && v[k] !== undefined && v[k] !== null);
  if (sources.length === 0) v.emptyDir = {};
  if (isObj(v.configMap) && v.configMap.defaultMode === undefined) v.configMap.defaultMode = 420;
  if (isObj(v.secret) && v.secret.defaultMode === undefined) v.secret.defaultMode = 420;
  if (isObj(v.downwardAPI) && v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = 420;
  if (isObj(v.projected) && v.projected.defaultMode === undefined) v.projected.defaultMode = 420;
  if (isObj(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = "";
}

/** SetDefaults_PodSpec and everything reachable from a PodSpec (pods and pod templates). */
function defaultPodSpec(spec: unknown, isPod = false): void {
  if (!isObj(spec)) return;
  setIfUnset(spec, "dnsPolicy", "ClusterFirst");
  setIfUnset(spec, "restartPolicy", "Always");
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    spec.terminationGracePeriodSeconds = 30;
  }
  setIfUnset(spec, "schedulerName", "default-scheduler");
  const hostNetwork = spec.hostNetwork === true;
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) defaultContainer(c, hostNetwork, isPod);
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) defaultContainer(c, hostNetwork, isPod);
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) defaultVolume(v);
}

function defaultTemplate(spec: Obj): void {
  if (isObj(spec.template)) defaultPodSpec(spec.template.spec, false);
}

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";

/** plugin/pkg/admission/defaulttolerationseconds, on pod create. */
function addDefaultTolerations(spec: Obj): void {
  const tolerations: Obj[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  let notReady = false;
  let unreachable = false;
  for (const t of tolerations) {
    if (!isObj(t)) continue;
    const key = t.key ?? "";
    const effectOk = t.effect === "NoExecute" || !t.effect;
    if ((key === NOT_READY || key === "") && effectOk) notReady = true;
    if ((key === UNREACHABLE || key === "") && effectOk) unreachable = true;
  }
  if (notReady && unreachable) return;
  const out = [...tolerations];
  if (!notReady) out.push({ key: NOT_READY, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  if (!unreachable) out.push({ key: UNREACHABLE, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  spec.tolerations = out;
}

function defaultPod(pod: Obj): void {
  const spec = ensure(pod, "spec");
  defaultPodSpec(spec, true);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  // ServiceAccount admission: serviceAccountName "default"; v1 conversion mirrors it into the
  // deprecated serviceAccount field. (The projected kube-api-access-<rand> volume it also adds
  // needs a random suffix and is left to the apiserver, which owns the Rng.)
  setIfUnset(spec, "serviceAccountName", spec.serviceAccount || "default");
  spec.serviceAccount = spec.serviceAccountName;
  addDefaultTolerations(spec);
  // Priority admission with no PriorityClass: priority 0, preemptionPolicy PreemptLowerPriority.
  if (spec.priority === undefined || spec.priority === null) spec.priority = 0;
  setIfUnset(spec, "preemptionPolicy", "PreemptLowerPriority");
}

function externallyAccessible(spec: Obj): boolean {
  return (
    spec.type === "LoadBalancer" ||
    spec.type === "NodePort" ||
    (spec.type === "ClusterIP" && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0)
  );
}

/**
 * SetDefaults_Service, normalizeClusterIPs (create) and initIPFamilyFields for this cluster's
 * single IPv4 service range. `old` is the stored object on update (its policy is adopted when the
 * new object has none, as initIPFamilyFields does).
 */
function defaultService(svc: Obj, old?: Obj): void {
  const spec = ensure(svc, "spec");
  setIfUnset(spec, "sessionAffinity", "None");
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const t = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    if (t === undefined || t === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setIfUnset(spec, "type", "ClusterIP");
  for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
    if (!isObj(p)) continue;
    setIfUnset(p, "protocol", "TCP");
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
  }
  if (externallyAccessible(spec)) setIfUnset(spec, "externalTrafficPolicy", "Cluster");
  if (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) {
    if (spec.type === "NodePort" || spec.type === "LoadBalancer" || spec.type === "ClusterIP") spec.internalTrafficPolicy = "Cluster";
  }
  if (spec.type === "LoadBalancer") {
    if (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null) {
      spec.allocateLoadBalancerNodePorts = true;
    }
    for (const ing of Array.isArray(svc.status?.loadBalancer?.ingress) ? svc.status.loadBalancer.ingress : []) {
      if (isObj(ing) && ing.ip && !ing.ipMode) ing.ipMode = "VIP";
    }
  }

  // normalizeClusterIPs (create): a singular clusterIP initialises the plural field.
  if (!old && spec.clusterIP && !(Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0)) {
    spec.clusterIPs = [spec.clusterIP];
  }
  if (old?.spec) {
    // patchAllocatedValues + normalizeClusterIPs (update): keep what was allocated.
    const o = old.spec;
    if (spec.type !== "ExternalName" && o.type !== "ExternalName") {
      if (!spec.clusterIP) spec.clusterIP = o.clusterIP;
      if (!(Array.isArray(spec.clusterIPs) && spec.clusterIPs.length) && Array.isArray(o.clusterIPs) && o.clusterIPs.length) {
        spec.clusterIPs = [...o.clusterIPs];
      }
    }
  }

  // initIPFamilyFields; ExternalName services get no family fields.
  if (spec.type === "ExternalName") return;
  const headlessSelectorless =
    spec.clusterIP === "None" && !(isObj(spec.selector) && Object.keys(spec.selector).length > 0);
  if (!spec.ipFamilyPolicy) {
    if (old?.spec?.ipFamilyPolicy) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headlessSelectorless ? "RequireDualStack" : "SingleStack";
  }
  const families: string[] = Array.isArray(spec.ipFamilies) ? [...spec.ipFamilies] : [];
  if (Array.isArray(spec.clusterIPs)) {
    spec.clusterIPs.forEach((ip: string, i: number) => {
      if (ip === "None" || i < families.length) return;
      families.push(String(ip).includes(":") ? "IPv6" : "IPv4");
    });
  }
  if (families.length === 0) families.push("IPv4");
  if (headlessSelectorless && families.length < 2 && spec.ipFamilyPolicy !== "SingleStack") {
    families.push(families[0] === "IPv4" ? "IPv6" : "IPv4");
  }
  spec.ipFamilies = families;
}

function defaultNamespace(ns: Obj): void {
  const meta = ensure(ns, "metadata");
  if (meta.name) {
    if (!isObj(meta.labels)) meta.labels = {};
    meta.labels["kubernetes.io/metadata.name"] = meta.name;
  }
  // namespace strategy PrepareForCreate: the kubernetes finalizer is always present.
  const spec = ensure(ns, "spec");
  const fins: string[] = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  if (!fins.includes("kubernetes")) spec.finalizers = [...fins, "kubernetes"];
  setIfUnset(ensure(ns, "status"), "phase", "Active");
}

function defaultDeployment(d: Obj): void {
  const spec = ensure(d, "spec");
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = ensure(spec, "strategy");
  setIfUnset(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = ensure(strategy, "rollingUpdate");
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = "25%";
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = "25%";
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  defaultTemplate(spec);
}

function defaultDaemonSet(ds: Obj): void {
  const spec = ensure(ds, "spec");
  const us = ensure(spec, "updateStrategy");
  setIfUnset(us, "type", "RollingUpdate");
  if (us.type === "RollingUpdate") {
    const ru = ensure(us, "rollingUpdate");
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
}

function defaultStatefulSet(ss: Obj): void {
  const spec = ensure(ss, "spec");
  setIfUnset(spec, "podManagementPolicy", "OrderedReady");
  const us = ensure(spec, "updateStrategy");
  if (!us.type) {
    us.type = "RollingUpdate";
    if (!isObj(us.rollingUpdate)) us.rollingUpdate = {};
  }
  // MaxUnavailableStatefulSet is alpha (off) in 1.33: only the partition is defaulted.
  if (us.type === "RollingUpdate" && isObj(us.rollingUpdate)) {
    if (us.rollingUpdate.partition === undefined || us.rollingUpdate.partition === null) us.rollingUpdate.partition = 0;
  }
  // StatefulSetAutoDeletePVC is GA in 1.32.
  const pvc = ensure(spec, "persistentVolumeClaimRetentionPolicy");
  setIfUnset(pvc, "whenDeleted", "Retain");
  setIfUnset(pvc, "whenScaled", "Retain");
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
}

function defaultReplicaSet(rs: Obj): void {
  const spec = ensure(rs, "spec");
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  defaultTemplate(spec);
}

/**
 * SetDefaults_ReplicationController: with template labels, an empty selector and empty object
 * labels take them; replicas 1.
 */
function defaultReplicationController(rc: Obj): void {
  const spec = ensure(rc, "spec");
  const labels = isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  if (isObj(labels)) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = ensure(rc, "metadata");
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  defaultTemplate(spec);
}

// batch/v1 SetDefaults_Job (JobPodReplacementPolicy on in 1.33), and the job registry's
// generateSelector, which PrepareForCreate runs once the uid is set.
function defaultJob(job: Obj): void {
  const spec = ensure(job, "spec");
  const unset = (k: string) => spec[k] === undefined || spec[k] === null;
  if (unset("completions") && unset("parallelism")) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset("parallelism")) spec.parallelism = 1;
  if (unset("backoffLimit")) spec.backoffLimit = unset("backoffLimitPerIndex") ? 6 : 2147483647;
  const labels = isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  if (isObj(labels) && !Object.keys(job.metadata?.labels ?? {}).length) ensure(job, "metadata").labels = { ...labels };
  if (unset("completionMode")) spec.completionMode = "NonIndexed";
  if (unset("suspend")) spec.suspend = false;
  if (unset("podReplacementPolicy")) spec.podReplacementPolicy = unset("podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
  if (unset("manualSelector")) spec.manualSelector = false;
  defaultTemplate(spec);
}

/** The labels generateSelector puts on a Job's pod template (batch.LegacyJobNameLabel...). */
export const JOB_LABELS = { controllerUid: "batch.kubernetes.io/controller-uid", jobName: "batch.kubernetes.io/job-name", legacyControllerUid: "controller-uid", legacyJobName: "job-name" } as const;

/**
 * pkg/registry/batch/job's generateSelector, unless manualSelector: the job-name and
 * controller-uid labels (both spellings) on the template, and a selector on the uid. A Job
 * whose labels were empty shows the template's, as the read after storage defaults them again.
 */
export function generateJobSelector(job: Obj): void {
  const spec = ensure(job, "spec");
  if (spec.manualSelector === true) return;
  const tmeta = ensure(ensure(spec, "template"), "metadata");
  const labels: Record<string, string> = isObj(tmeta.labels) ? tmeta.labels : (tmeta.labels = {});
  const name = String(job.metadata?.name ?? "");
  const uid = String(job.metadata?.uid ?? "");
  for (const k of [JOB_LABELS.legacyJobName, JOB_LABELS.jobName]) if (!(k in labels)) labels[k] = name;
  for (const k of [JOB_LABELS.legacyControllerUid, JOB_LABELS.controllerUid]) if (!(k in labels)) labels[k] = uid;
  tmeta.labels = Object.fromEntries(Object.keys(labels).sort().map((k) => [k, labels[k]]));
  const sel = isObj(spec.selector) ? spec.selector : (spec.selector = {});
  const ml = isObj(sel.matchLabels) ? sel.matchLabels : (sel.matchLabels = {});
  if (!(JOB_LABELS.controllerUid in ml)) ml[JOB_LABELS.controllerUid] = uid;
  if (!Object.keys(job.metadata?.labels ?? {}).length) job.metadata.labels = { ...tmeta.labels };
}

// batch/v1 SetDefaults_CronJob; the job template's pod spec is defaulted as any template.
function defaultCronJob(cj: Obj): void {
  const spec = ensure(cj, "spec");
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = "Allow";
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  if (spec.successfulJobsHistoryLimit === undefined || spec.successfulJobsHistoryLimit === null) spec.successfulJobsHistoryLimit = 3;
  if (spec.failedJobsHistoryLimit === undefined || spec.failedJobsHistoryLimit === null) spec.failedJobsHistoryLimit = 1;
  if (isObj(spec.jobTemplate) && isObj(spec.jobTemplate.spec)) defaultTemplate(spec.jobTemplate.spec);
}

function defaultEndpoints(ep: Obj): void {
  for (const ss of Array.isArray(ep.subsets) ? ep.subsets : []) {
    for (const p of Array.isArray(ss?.ports) ? ss.ports : []) if (isObj(p)) setIfUnset(p, "protocol", "TCP");
  }
}

function defaultEndpointSlice(es: Obj): void {
  // discovery/v1 SetDefaults_EndpointPort: name "" and protocol TCP.
  for (const p of Array.isArray(es.ports) ? es.ports : []) {
    if (!isObj(p)) continue;
    if (p.name === undefined || p.name === null) p.name = "";
    if (p.protocol === undefined || p.protocol === null) p.protocol = "TCP";
  }
}

function defaultIPAddressPool(p: Obj): void {
  // The CRD's OpenAPI defaults (+kubebuilder:default).
  const spec = ensure(p, "spec");
  if (spec.autoAssign === undefined || spec.autoAssign === null) spec.autoAssign = true;
  if (spec.avoidBuggyIPs === undefined || spec.avoidBuggyIPs === null) spec.avoidBuggyIPs = false;
}

/**
 * v1 Secret: stringData is write-only, merged into data (its values win) by the conversion to
 * the internal type, so it is never stored or served; type defaults to Opaque.
 */
function defaultSecret(obj: any): void {
  const sd = obj.stringData;
  if (isObj(sd)) {
    const data: Record<string, string> = isObj(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(sd)) data[k] = base64Utf8(String(v));
    obj.data = Object.fromEntries(Object.keys(data).sort().map((k) => [k, data[k]]));
  }
  delete obj.stringData;
  if (obj.type === undefined || obj.type === null || obj.type === "") obj.type = "Opaque";
}

function base64Utf8(s: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Mutates a fresh copy of a decoded object with the apiserver's defaulting for `kind`.
 * `old` (optional) is the stored object on update; only Service uses it.
 */
export function applyDefaults(kind: string, obj: any, old?: any): void {
  if (!isObj(obj)) return;
  switch (kind) {
    case "Pod":
      return defaultPod(obj);
    case "Service":
      return defaultService(obj, isObj(old) ? old : undefined);
    case "Namespace":
      return defaultNamespace(obj);
    case "Deployment":
      return defaultDeployment(obj);
    case "ReplicaSet":
      return defaultReplicaSet(obj);
    case "ReplicationController":
      return defaultReplicationController(obj);
    case "DaemonSet":
      return defaultDaemonSet(obj);
    case "StatefulSet":
      return defaultStatefulSet(obj);
    case "Job":
      return defaultJob(obj);
    case "CronJob":
      return defaultCronJob(obj);
    case "Endpoints":
      return defaultEndpoints(obj);
    case "EndpointSlice":
      return defaultEndpointSlice(obj);
    case "IPAddressPool":
      return defaultIPAddressPool(obj);
    case "Secret":
      return defaultSecret(obj);
    case "PersistentVolume":
      return defaultPersistentVolume(obj, isObj(old) ? old : undefined);
    case "PersistentVolumeClaim":
      return defaultPersistentVolumeClaim(obj, isObj(old) ? old : undefined);
    default:
      return;
  }
}
