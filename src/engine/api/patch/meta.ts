// Strategic merge patch metadata as data: the `patchStrategy` / `patchMergeKey` struct tags of the
// Go API types (k8s.io/api v0.33 core/v1, apps/v1, batch/v1, discovery/v1 and apimachinery's
// meta/v1 ObjectMeta), keyed by JSON path. A field that is not listed has no tag: its lists are
// replaced wholesale and its objects merged key by key, exactly as for an untagged Go field.
//
// Paths are dot-joined JSON field names; "[]" after a list field steps into its elements, e.g.
// "spec.template.spec.containers[].env" is the env list of every container of a pod template.

export type PatchStrategy = "merge" | "replace" | "retainKeys";

interface FieldPatchMeta {
  /** The comma-separated `patchStrategy` tag, split. Empty for an untagged field. */
  readonly strategies: readonly PatchStrategy[];
  /** `patchMergeKey`: the element field a merging list of objects is keyed by. */
  readonly mergeKey?: string;
}

export interface PatchMeta {
  /** The Go type of the object, for messages. */
  readonly kind: string;
  readonly fields: Readonly<Record<string, FieldPatchMeta>>;
}

type Fields = Record<string, FieldPatchMeta>;

const merge = (mergeKey?: string): FieldPatchMeta =>
  mergeKey === undefined ? { strategies: ["merge"] } : { strategies: ["merge"], mergeKey };
const mergeRetainKeys = (mergeKey: string): FieldPatchMeta => ({ strategies: ["merge", "retainKeys"], mergeKey });
/** Untagged list, listed only to document that it is replaced wholesale. */
const replaced: FieldPatchMeta = { strategies: [] };

const at = (prefix: string, fields: Fields): Fields =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [prefix ? `${prefix}.${k}` : k, v]));

/** metav1.ObjectMeta */
const objectMeta: Fields = {
  ownerReferences: merge("uid"),
  finalizers: merge(),
};

/** core/v1 Container (and EphemeralContainerCommon, which carries the same tags). */
const container: Fields = {
  ports: merge("containerPort"),
  env: merge("name"),
  volumeMounts: merge("mountPath"),
  volumeDevices: merge("devicePath"),
};

/** core/v1 PodSpec */
const podSpec: Fields = {
  volumes: mergeRetainKeys("name"),
  initContainers: merge("name"),
  ...at("initContainers[]", container),
  containers: merge("name"),
  ...at("containers[]", container),
  ephemeralContainers: merge("name"),
  ...at("ephemeralContainers[]", container),
  imagePullSecrets: merge("name"),
  hostAliases: merge("ip"),
  topologySpreadConstraints: merge("topologyKey"),
  schedulingGates: merge("name"),
  resourceClaims: mergeRetainKeys("name"),
  tolerations: replaced,
};

/** core/v1 PodStatus */
const podStatus: Fields = {
  conditions: merge("type"),
  hostIPs: merge("ip"),
  podIPs: merge("ip"),
  resourceClaimStatuses: mergeRetainKeys("name"),
};

/** core/v1 PodTemplateSpec */
const podTemplateSpec: Fields = {
  ...at("metadata", objectMeta),
  ...at("spec", podSpec),
};

const withMeta = (kind: string, fields: Fields): PatchMeta => ({
  kind,
  fields: { ...at("metadata", objectMeta), ...fields },
});

/** apps/v1 workloads: a pod template under spec.template and conditions in status. */
const workload = (kind: string, extra: Fields = {}): PatchMeta =>
  withMeta(kind, {
    ...at("spec.template", podTemplateSpec),
    "status.conditions": merge("type"),
    ...extra,
  });

/** Patch metadata by kind, for every built-in kind ServiceLab serves. */
export const PATCH_META: Readonly<Record<string, PatchMeta>> = {
  Pod: withMeta("Pod", { ...at("spec", podSpec), ...at("status", podStatus) }),
  Service: withMeta("Service", {
    "spec.ports": merge("port"),
    "spec.externalIPs": replaced,
    "status.conditions": merge("type"),
  }),
  Node: withMeta("Node", {
    "spec.podCIDRs": merge(),
    "spec.taints": replaced,
    "status.conditions": merge("type"),
    "status.addresses": merge("type"),
  }),
  Namespace: withMeta("Namespace", { "status.conditions": merge("type") }),
  ConfigMap: withMeta("ConfigMap", {}),
  Secret: withMeta("Secret", {}),
  ServiceAccount: withMeta("ServiceAccount", { secrets: merge("name") }),
  Endpoints: withMeta("Endpoints", { subsets: replaced }),
  EndpointSlice: withMeta("EndpointSlice", { endpoints: replaced, ports: replaced }),
  Deployment: workload("Deployment", { "spec.strategy": { strategies: ["retainKeys"] } }),
  ReplicaSet: workload("ReplicaSet"),
  ReplicationController: workload("ReplicationController"),
  PersistentVolume: withMeta("PersistentVolume", {}),
  PersistentVolumeClaim: withMeta("PersistentVolumeClaim", { "status.conditions": merge("type") }),
  Ingress: withMeta("Ingress", {}),
  IngressClass: withMeta("IngressClass", {}),
  DaemonSet: workload("DaemonSet"),
  StatefulSet: workload("StatefulSet"),
  Job: workload("Job"),
  CronJob: withMeta("CronJob", { ...at("spec.jobTemplate.metadata", objectMeta), ...at("spec.jobTemplate.spec.template", podTemplateSpec) }),
};

/** The metadata for a built-in kind, or undefined (custom resources have none). */
export function patchMetaFor(kind: string): PatchMeta | undefined {
  return Object.prototype.hasOwnProperty.call(PATCH_META, kind) ? PATCH_META[kind] : undefined;
}

/** The tags of the field at `path`; an untagged field has no strategies and no merge key. */
export function lookupField(meta: PatchMeta, path: string): FieldPatchMeta {
  return Object.prototype.hasOwnProperty.call(meta.fields, path) ? meta.fields[path] : replaced;
}
