// The resources the apiserver serves: one entry per kind, with the names discovery reports
// (kubectl api-resources), its schema and how its writes are treated.

import type { z } from "zod";
import * as T from "./types.js";
import * as B from "./types-batch.js";
import * as V from "./types-storage.js";
import * as N from "./types-networking.js";

export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  /** The plural resource name, e.g. "services". */
  resource: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  categories: string[];
  schema: z.ZodType;
  /** Has a /status subresource: main-resource writes keep the old status, status writes keep the old spec. */
  hasStatus: boolean;
  /** Spec changes bump metadata.generation (kinds with a spec and a status subresource). */
  tracksGeneration: boolean;
  /** A review kind: answered at create and never stored (rbac/reviews.ts). */
  review?: boolean;
  /** Served only once this CustomResourceDefinition exists (MetalLB's types). */
  crd?: string;
  verbs: string[];
}

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function r(partial: Omit<ResourceInfo, "verbs" | "categories" | "shortNames" | "hasStatus" | "tracksGeneration"> & Partial<ResourceInfo>): ResourceInfo {
  return {
    shortNames: [],
    categories: [],
    hasStatus: false,
    tracksGeneration: false,
    verbs: ALL_VERBS,
    ...partial,
  };
}

export const RESOURCES: readonly ResourceInfo[] = [
  r({ group: "", version: "v1", kind: "ConfigMap", resource: "configmaps", singular: "configmap", shortNames: ["cm"], namespaced: true, schema: T.ConfigMap }),
  r({ group: "", version: "v1", kind: "Endpoints", resource: "endpoints", singular: "endpoints", shortNames: ["ep"], namespaced: true, schema: T.Endpoints }),
  r({ group: "", version: "v1", kind: "Event", resource: "events", singular: "event", shortNames: ["ev"], namespaced: true, schema: T.Event }),
  r({ group: "", version: "v1", kind: "Namespace", resource: "namespaces", singular: "namespace", shortNames: ["ns"], namespaced: false, schema: T.Namespace, hasStatus: true, verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] }),
  r({ group: "", version: "v1", kind: "Node", resource: "nodes", singular: "node", shortNames: ["no"], namespaced: false, schema: T.Node, hasStatus: true }),
  r({ group: "", version: "v1", kind: "PersistentVolumeClaim", resource: "persistentvolumeclaims", singular: "persistentvolumeclaim", shortNames: ["pvc"], namespaced: true, schema: V.PersistentVolumeClaim, hasStatus: true }),
  r({ group: "", version: "v1", kind: "PersistentVolume", resource: "persistentvolumes", singular: "persistentvolume", shortNames: ["pv"], namespaced: false, schema: V.PersistentVolume, hasStatus: true }),
  r({ group: "", version: "v1", kind: "Pod", resource: "pods", singular: "pod", shortNames: ["po"], namespaced: true, schema: T.Pod, categories: ["all"], hasStatus: true }),
  r({ group: "", version: "v1", kind: "ReplicationController", resource: "replicationcontrollers", singular: "replicationcontroller", shortNames: ["rc"], namespaced: true, schema: T.ReplicationController, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "", version: "v1", kind: "Service", resource: "services", singular: "service", shortNames: ["svc"], namespaced: true, schema: T.Service, categories: ["all"], hasStatus: true, verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] }),
  r({ group: "apps", version: "v1", kind: "ControllerRevision", resource: "controllerrevisions", singular: "controllerrevision", namespaced: true, schema: T.ControllerRevision }),
  r({ group: "apps", version: "v1", kind: "DaemonSet", resource: "daemonsets", singular: "daemonset", shortNames: ["ds"], namespaced: true, schema: T.DaemonSet, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "apps", version: "v1", kind: "Deployment", resource: "deployments", singular: "deployment", shortNames: ["deploy"], namespaced: true, schema: T.Deployment, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "apps", version: "v1", kind: "ReplicaSet", resource: "replicasets", singular: "replicaset", shortNames: ["rs"], namespaced: true, schema: T.ReplicaSet, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "apps", version: "v1", kind: "StatefulSet", resource: "statefulsets", singular: "statefulset", shortNames: ["sts"], namespaced: true, schema: T.StatefulSet, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "batch", version: "v1", kind: "CronJob", resource: "cronjobs", singular: "cronjob", shortNames: ["cj"], namespaced: true, schema: B.CronJob, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "batch", version: "v1", kind: "Job", resource: "jobs", singular: "job", namespaced: true, schema: B.Job, categories: ["all"], hasStatus: true, tracksGeneration: true }),
  r({ group: "networking.k8s.io", version: "v1", kind: "IngressClass", resource: "ingressclasses", singular: "ingressclass", namespaced: false, schema: N.IngressClass }),
  r({ group: "networking.k8s.io", version: "v1", kind: "Ingress", resource: "ingresses", singular: "ingress", shortNames: ["ing"], namespaced: true, schema: N.Ingress, hasStatus: true }),
  r({ group: "coordination.k8s.io", version: "v1", kind: "Lease", resource: "leases", singular: "lease", namespaced: true, schema: T.Opaque }),
  r({ group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", resource: "endpointslices", singular: "endpointslice", namespaced: true, schema: T.EndpointSlice }),
  r({ group: "", version: "v1", kind: "Secret", resource: "secrets", singular: "secret", namespaced: true, schema: T.Opaque }),
  r({ group: "", version: "v1", kind: "ServiceAccount", resource: "serviceaccounts", singular: "serviceaccount", shortNames: ["sa"], namespaced: true, schema: T.Opaque }),
  r({ group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", resource: "validatingwebhookconfigurations", singular: "validatingwebhookconfiguration", namespaced: false, schema: T.Opaque }),
  r({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", resource: "customresourcedefinitions", singular: "customresourcedefinition", shortNames: ["crd", "crds"], namespaced: false, schema: T.CustomResourceDefinition, hasStatus: true, categories: ["api-extensions"] }),
  r({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", resource: "clusterroles", singular: "clusterrole", namespaced: false, schema: T.Opaque }),
  r({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", resource: "clusterrolebindings", singular: "clusterrolebinding", namespaced: false, schema: T.Opaque }),
  r({ group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", resource: "roles", singular: "role", namespaced: true, schema: T.Opaque }),
  r({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", resource: "rolebindings", singular: "rolebinding", namespaced: true, schema: T.Opaque }),
  r({ group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview", resource: "selfsubjectreviews", singular: "selfsubjectreview", namespaced: false, schema: T.Opaque, review: true, verbs: ["create"] }),
  r({ group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview", resource: "localsubjectaccessreviews", singular: "localsubjectaccessreview", namespaced: true, schema: T.Opaque, review: true, verbs: ["create"] }),
  r({ group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview", resource: "selfsubjectaccessreviews", singular: "selfsubjectaccessreview", namespaced: false, schema: T.Opaque, review: true, verbs: ["create"] }),
  r({ group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview", resource: "selfsubjectrulesreviews", singular: "selfsubjectrulesreview", namespaced: false, schema: T.Opaque, review: true, verbs: ["create"] }),
  r({ group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", resource: "subjectaccessreviews", singular: "subjectaccessreview", namespaced: false, schema: T.Opaque, review: true, verbs: ["create"] }),
  r({ group: "metallb.io", version: "v1beta1", kind: "BFDProfile", resource: "bfdprofiles", singular: "bfdprofile", namespaced: true, schema: T.Opaque, hasStatus: true, crd: "bfdprofiles.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta1", kind: "BGPAdvertisement", resource: "bgpadvertisements", singular: "bgpadvertisement", namespaced: true, schema: T.Opaque, hasStatus: true, crd: "bgpadvertisements.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta2", kind: "BGPPeer", resource: "bgppeers", singular: "bgppeer", namespaced: true, schema: T.Opaque, hasStatus: true, crd: "bgppeers.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta1", kind: "Community", resource: "communities", singular: "community", namespaced: true, schema: T.Opaque, hasStatus: true, crd: "communities.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta1", kind: "ServiceL2Status", resource: "servicel2statuses", singular: "servicel2status", namespaced: true, schema: T.Opaque, hasStatus: true, crd: "servicel2statuses.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta1", kind: "IPAddressPool", resource: "ipaddresspools", singular: "ipaddresspool", namespaced: true, schema: T.IPAddressPool, hasStatus: true, crd: "ipaddresspools.metallb.io" }),
  r({ group: "metallb.io", version: "v1beta1", kind: "L2Advertisement", resource: "l2advertisements", singular: "l2advertisement", namespaced: true, schema: T.L2Advertisement, hasStatus: true, crd: "l2advertisements.metallb.io" }),
];

const byKey = new Map<string, ResourceInfo>();
const byKind = new Map<string, ResourceInfo>();
for (const info of RESOURCES) {
  byKey.set(resourceKey(info.group, info.resource), info);
  byKind.set(kindKey(info.group, info.kind), info);
}

export function resourceKey(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

function kindKey(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

/** "<group>/<version>" by resource, made once (every served object and event carries one). */
const apiVersions = new WeakMap<ResourceInfo, string>();

export function apiVersionOf(info: ResourceInfo): string {
  if (!info.group) return info.version;
  let v = apiVersions.get(info);
  if (v === undefined) apiVersions.set(info, (v = `${info.group}/${info.version}`));
  return v;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** The resource for a (group, plural) pair, as REST paths name it. */
export function lookupResource(group: string, resource: string): ResourceInfo | undefined {
  return byKey.get(resourceKey(group, resource));
}

/** The resource for an apiVersion + kind, as manifests name it. */
export function lookupKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  const info = byKind.get(kindKey(group, kind));
  return info && info.version === version ? info : undefined;
}

/** Core kinds by name, for code that knows what it stores. */
export const R = {
  configmaps: lookupResource("", "configmaps")!,
  endpoints: lookupResource("", "endpoints")!,
  events: lookupResource("", "events")!,
  namespaces: lookupResource("", "namespaces")!,
  nodes: lookupResource("", "nodes")!,
  pods: lookupResource("", "pods")!,
  services: lookupResource("", "services")!,
  replicationcontrollers: lookupResource("", "replicationcontrollers")!,
  persistentvolumes: lookupResource("", "persistentvolumes")!,
  persistentvolumeclaims: lookupResource("", "persistentvolumeclaims")!,
  ingresses: lookupResource("networking.k8s.io", "ingresses")!,
  ingressclasses: lookupResource("networking.k8s.io", "ingressclasses")!,
  controllerrevisions: lookupResource("apps", "controllerrevisions")!,
  daemonsets: lookupResource("apps", "daemonsets")!,
  deployments: lookupResource("apps", "deployments")!,
  replicasets: lookupResource("apps", "replicasets")!,
  statefulsets: lookupResource("apps", "statefulsets")!,
  jobs: lookupResource("batch", "jobs")!,
  cronjobs: lookupResource("batch", "cronjobs")!,
  endpointslices: lookupResource("discovery.k8s.io", "endpointslices")!,
  ipaddresspools: lookupResource("metallb.io", "ipaddresspools")!,
  customresourcedefinitions: lookupResource("apiextensions.k8s.io", "customresourcedefinitions")!,
  serviceaccounts: lookupResource("", "serviceaccounts")!,
  secrets: lookupResource("", "secrets")!,
  l2advertisements: lookupResource("metallb.io", "l2advertisements")!,
  leases: lookupResource("coordination.k8s.io", "leases")!,
} as const;
