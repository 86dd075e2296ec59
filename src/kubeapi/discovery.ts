// Discovery as kube-apiserver v1.33 serves it: /version, the legacy documents (/api, /apis,
// /api/v1, /apis/<group>/<version>) and the aggregated form (apidiscovery.k8s.io/v2) that
// kubectl 1.33 asks for first. Only what the cluster serves is listed: a MetalLB kind appears
// once its CustomResourceDefinition exists, as a CRD's resources do.

import { RESOURCES, type ResourceInfo } from "../engine/api/resources.js";
import type { Cluster } from "../engine/cluster.js";

/** Kinds with a /scale subresource (autoscaling/v1 Scale). */
export const SCALABLE = new Set(["deployments.apps", "replicasets.apps", "statefulsets.apps", "replicationcontrollers"]);

/** Group order of /apis: kube-apiserver's group priorities, then CRD groups. */
const GROUP_ORDER = ["apps", "authentication.k8s.io", "authorization.k8s.io", "batch", "networking.k8s.io", "rbac.authorization.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "coordination.k8s.io", "discovery.k8s.io"];

export const AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

export function versionInfo(gitVersion: string): Record<string, string> {
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: m?.[1] ?? "1",
    minor: m?.[2] ?? "33",
    emulationMajor: m?.[1] ?? "1",
    emulationMinor: m?.[2] ?? "33",
    minCompatibilityMajor: m?.[1] ?? "1",
    minCompatibilityMinor: String(Math.max(0, Number(m?.[2] ?? 33) - 1)),
    gitVersion,
    gitCommit: "servicelab",
    gitTreeState: "clean",
    buildDate: "2025-09-09T00:00:00Z",
    goVersion: "go1.24.6",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function served(cluster: Cluster): ResourceInfo[] {
  return RESOURCES.filter((i) => cluster.api.isServed(i));
}

/** group -> versions (preferred first) of what is served. */
export function groups(cluster: Cluster): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of served(cluster)) {
    if (!i.group) continue;
    const vs = out.get(i.group) ?? [];
    if (!vs.includes(i.version)) vs.push(i.version);
    out.set(i.group, vs);
  }
  for (const vs of out.values()) vs.sort((a, b) => versionPriority(b) - versionPriority(a));
  const order = (g: string) => {
    const k = GROUP_ORDER.indexOf(g);
    return k < 0 ? GROUP_ORDER.length : k;
  };
  return new Map([...out].sort((a, b) => order(a[0]) - order(b[0]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** Kubernetes version priority: GA > beta > alpha, then the higher number. */
function versionPriority(v: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return 0;
  const major = Number(m[1]);
  const tier = m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1;
  return tier * 1_000_000 + major * 1000 + Number(m[3] ?? 0);
}

export function apiVersions(): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "10.1.8.30:6443" }] };
}

export function apiGroupList(cluster: Cluster): Record<string, unknown> {
  const list = [...groups(cluster)].map(([name, vs]) => {
    const versions = vs.map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions, preferredVersion: versions[0] };
  });
  return { kind: "APIGroupList", apiVersion: "v1", groups: list };
}

interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

function subresources(i: ResourceInfo): Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }> {
  const out: Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }> = [];
  const key = i.group ? `${i.resource}.${i.group}` : i.resource;
  if (SCALABLE.has(key)) out.push({ name: "scale", kind: "Scale", group: "autoscaling", version: "v1", verbs: ["get", "patch", "update"] });
  if (i.hasStatus) out.push({ name: "status", kind: i.kind, verbs: ["get", "patch", "update"] });
  if (key === "pods") {
    out.push({ name: "attach", kind: "PodAttachOptions", verbs: ["create", "get"] });
    out.push({ name: "exec", kind: "PodExecOptions", verbs: ["create", "get"] });
    out.push({ name: "log", kind: "Pod", verbs: ["get"] });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** /api/v1 or /apis/<group>/<version>; undefined when nothing of it is served. */
export function apiResourceList(cluster: Cluster, group: string, version: string): Record<string, unknown> | undefined {
  const infos = served(cluster).filter((i) => i.group === group && i.version === version);
  if (!infos.length) return undefined;
  const resources: ApiResource[] = [];
  for (const i of [...infos].sort((a, b) => (a.resource < b.resource ? -1 : 1))) {
    const r: ApiResource = { name: i.resource, singularName: i.singular, namespaced: i.namespaced, kind: i.kind, verbs: i.verbs };
    if (i.shortNames.length) r.shortNames = i.shortNames;
    if (i.categories.length) r.categories = i.categories;
    resources.push(r);
    for (const s of subresources(i)) {
      resources.push({ name: `${i.resource}/${s.name}`, singularName: "", namespaced: i.namespaced, ...(s.group !== undefined ? { group: s.group, version: s.version } : {}), kind: s.kind, verbs: s.verbs });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group ? `${group}/${version}` : version, resources };
}

function discoveryResource(i: ResourceInfo): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: i.resource,
    responseKind: { group: i.group, version: i.version, kind: i.kind },
    scope: i.namespaced ? "Namespaced" : "Cluster",
    singularResource: i.singular,
    verbs: i.verbs,
  };
  if (i.shortNames.length) r.shortNames = i.shortNames;
  if (i.categories.length) r.categories = i.categories;
  const subs = subresources(i);
  if (subs.length) {
    r.subresources = subs.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? i.group, version: s.version ?? i.version, kind: s.kind },
      verbs: s.verbs,
    }));
  }
  return r;
}

/** The aggregated document: /api (legacy=true, the core group) or /apis. */
export function aggregated(cluster: Cluster, legacy: boolean): Record<string, unknown> {
  const items: unknown[] = [];
  const entry = (group: string, versions: string[]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: versions.map((version) => ({
      version,
      resources: served(cluster)
        .filter((i) => i.group === group && i.version === version)
        .sort((a, b) => (a.resource < b.resource ? -1 : 1))
        .map(discoveryResource),
      freshness: "Current",
    })),
  });
  if (legacy) items.push(entry("", ["v1"]));
  else for (const [g, vs] of groups(cluster)) items.push(entry(g, vs));
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}

/** Does the Accept header ask for aggregated discovery v2 in JSON? */
export function wantsAggregated(accept: string | undefined): boolean {
  return mediaTypes(accept).some((m) => m.type === "application/json" && m.params.g === "apidiscovery.k8s.io" && m.params.v === "v2" && m.params.as === "APIGroupDiscoveryList");
}

/** Accept parsed into media types and their parameters, in order. */
export function mediaTypes(accept: string | undefined): Array<{ type: string; params: Record<string, string> }> {
  if (!accept) return [];
  return accept.split(",").map((part) => {
    const [type, ...rest] = part.split(";").map((x) => x.trim());
    const params: Record<string, string> = {};
    for (const r of rest) {
      const eq = r.indexOf("=");
      if (eq > 0) params[r.slice(0, eq).trim()] = r.slice(eq + 1).trim();
    }
    return { type: type.toLowerCase(), params };
  });
}
