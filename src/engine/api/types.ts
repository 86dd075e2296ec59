// The object model, in the v1 JSON shapes of k8s.io/api (core/v1, apps/v1, discovery/v1) and
// MetalLB's metallb.io/v1beta1. Each schema lists every field of the Go type, so that an unknown
// field is refused as the apiserver's strict field validation refuses it; parts of the API that
// ServiceLab keeps but does not interpret (probes' handlers, resources, security contexts...)
// are accepted as opaque JSON.

import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Building blocks

const str = z.string();
const int = z.number().int();
/** An int32 field where a value out of its range matters (replicas): Go's decoder refuses one. */
const int32 = z.number().int().min(-2147483648).max(2147483647);
const bool = z.boolean();
const opaque = z.unknown();
const stringMap = z.record(z.string(), z.string());
/** intstr.IntOrString */
export const IntOrString = z.union([int, str]);
export type IntOrString = z.infer<typeof IntOrString>;

export const OwnerReference = z.strictObject({
  apiVersion: str,
  kind: str,
  name: str,
  uid: str,
  controller: bool.optional(),
  blockOwnerDeletion: bool.optional(),
});
export type OwnerReference = z.infer<typeof OwnerReference>;

export const ObjectMeta = z.strictObject({
  name: str.optional(),
  generateName: str.optional(),
  namespace: str.optional(),
  selfLink: str.optional(),
  uid: str.optional(),
  resourceVersion: str.optional(),
  generation: int.optional(),
  creationTimestamp: str.nullable().optional(),
  deletionTimestamp: str.nullable().optional(),
  deletionGracePeriodSeconds: int.nullable().optional(),
  labels: stringMap.nullable().optional(),
  annotations: stringMap.nullable().optional(),
  ownerReferences: z.array(OwnerReference).nullable().optional(),
  finalizers: z.array(str).nullable().optional(),
  managedFields: z.array(opaque).nullable().optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

export const LabelSelectorRequirement = z.strictObject({
  key: str,
  operator: str,
  values: z.array(str).nullable().optional(),
});
export const LabelSelector = z.strictObject({
  matchLabels: stringMap.nullable().optional(),
  matchExpressions: z.array(LabelSelectorRequirement).nullable().optional(),
});
export type LabelSelector = z.infer<typeof LabelSelector>;

const Condition = z.looseObject({
  type: str,
  status: str,
  lastProbeTime: str.nullable().optional(),
  lastHeartbeatTime: str.nullable().optional(),
  lastTransitionTime: str.nullable().optional(),
  lastUpdateTime: str.nullable().optional(),
  reason: str.optional(),
  message: str.optional(),
  observedGeneration: int.optional(),
});
export type Condition = z.infer<typeof Condition>;

// ---------------------------------------------------------------------------------------------
// core/v1 Pod

export const ContainerPort = z.strictObject({
  name: str.optional(),
  hostPort: int.optional(),
  containerPort: int,
  protocol: str.optional(),
  hostIP: str.optional(),
});
export type ContainerPort = z.infer<typeof ContainerPort>;

const KeySelector = z.looseObject({ key: str, name: str.optional(), optional: bool.optional() });
export const EnvVar = z.strictObject({
  name: str,
  value: str.optional(),
  valueFrom: z
    .strictObject({
      fieldRef: z.looseObject({ fieldPath: str, apiVersion: str.optional() }).optional(),
      resourceFieldRef: opaque.optional(),
      configMapKeyRef: KeySelector.optional(),
      secretKeyRef: KeySelector.optional(),
      fileKeyRef: opaque.optional(),
    })
    .optional(),
});
export type EnvVar = z.infer<typeof EnvVar>;

export const EnvFromSource = z.strictObject({
  prefix: str.optional(),
  configMapRef: z.looseObject({ name: str.optional(), optional: bool.optional() }).optional(),
  secretRef: z.looseObject({ name: str.optional(), optional: bool.optional() }).optional(),
});

export const VolumeMount = z.strictObject({
  name: str,
  readOnly: bool.optional(),
  recursiveReadOnly: str.optional(),
  mountPath: str,
  subPath: str.optional(),
  mountPropagation: str.optional(),
  subPathExpr: str.optional(),
});
export type VolumeMount = z.infer<typeof VolumeMount>;

/** A probe's handler is kept as data; readiness is simulated from its timing fields. */
export const Probe = z.looseObject({
  exec: opaque.optional(),
  httpGet: opaque.optional(),
  tcpSocket: opaque.optional(),
  grpc: opaque.optional(),
  initialDelaySeconds: int.optional(),
  timeoutSeconds: int.optional(),
  periodSeconds: int.optional(),
  successThreshold: int.optional(),
  failureThreshold: int.optional(),
  terminationGracePeriodSeconds: int.optional(),
});
export type Probe = z.infer<typeof Probe>;

export const Container = z.strictObject({
  name: str,
  image: str.optional(),
  command: z.array(str).nullable().optional(),
  args: z.array(str).nullable().optional(),
  workingDir: str.optional(),
  ports: z.array(ContainerPort).nullable().optional(),
  envFrom: z.array(EnvFromSource).nullable().optional(),
  env: z.array(EnvVar).nullable().optional(),
  resources: opaque.optional(),
  resizePolicy: opaque.optional(),
  restartPolicy: str.optional(),
  restartPolicyRules: opaque.optional(),
  volumeMounts: z.array(VolumeMount).nullable().optional(),
  volumeDevices: opaque.optional(),
  livenessProbe: Probe.optional(),
  readinessProbe: Probe.optional(),
  startupProbe: Probe.optional(),
  lifecycle: opaque.optional(),
  terminationMessagePath: str.optional(),
  terminationMessagePolicy: str.optional(),
  imagePullPolicy: str.optional(),
  securityContext: opaque.optional(),
  stdin: bool.optional(),
  stdinOnce: bool.optional(),
  tty: bool.optional(),
});
export type Container = z.infer<typeof Container>;

export const KeyToPath = z.strictObject({ key: str, path: str, mode: int.optional() });
export const Volume = z.looseObject({
  name: str,
  configMap: z
    .strictObject({
      name: str.optional(),
      items: z.array(KeyToPath).nullable().optional(),
      defaultMode: int.optional(),
      optional: bool.optional(),
    })
    .optional(),
  emptyDir: opaque.optional(),
  hostPath: opaque.optional(),
  secret: opaque.optional(),
  persistentVolumeClaim: opaque.optional(),
  projected: opaque.optional(),
  downwardAPI: opaque.optional(),
});
export type Volume = z.infer<typeof Volume>;

export const Toleration = z.strictObject({
  key: str.optional(),
  operator: str.optional(),
  value: str.optional(),
  effect: str.optional(),
  tolerationSeconds: int.nullable().optional(),
});
export type Toleration = z.infer<typeof Toleration>;

export const PodDNSConfig = z.strictObject({
  nameservers: z.array(str).nullable().optional(),
  searches: z.array(str).nullable().optional(),
  options: z.array(z.strictObject({ name: str.optional(), value: str.optional() })).nullable().optional(),
});

export const PodSpec = z.strictObject({
  volumes: z.array(Volume).nullable().optional(),
  initContainers: z.array(Container).nullable().optional(),
  containers: z.array(Container),
  ephemeralContainers: opaque.optional(),
  restartPolicy: str.optional(),
  terminationGracePeriodSeconds: int.nullable().optional(),
  activeDeadlineSeconds: int.nullable().optional(),
  dnsPolicy: str.optional(),
  nodeSelector: stringMap.nullable().optional(),
  serviceAccountName: str.optional(),
  serviceAccount: str.optional(),
  automountServiceAccountToken: bool.optional(),
  nodeName: str.optional(),
  hostNetwork: bool.optional(),
  hostPID: bool.optional(),
  hostIPC: bool.optional(),
  shareProcessNamespace: bool.optional(),
  securityContext: opaque.optional(),
  imagePullSecrets: z.array(z.looseObject({ name: str.optional() })).nullable().optional(),
  hostname: str.optional(),
  subdomain: str.optional(),
  affinity: opaque.optional(),
  schedulerName: str.optional(),
  tolerations: z.array(Toleration).nullable().optional(),
  hostAliases: opaque.optional(),
  priorityClassName: str.optional(),
  priority: int.nullable().optional(),
  dnsConfig: PodDNSConfig.optional(),
  readinessGates: opaque.optional(),
  runtimeClassName: str.nullable().optional(),
  enableServiceLinks: bool.optional(),
  preemptionPolicy: str.optional(),
  overhead: opaque.optional(),
  topologySpreadConstraints: opaque.optional(),
  setHostnameAsFQDN: bool.optional(),
  os: opaque.optional(),
  hostUsers: bool.optional(),
  schedulingGates: opaque.optional(),
  resourceClaims: opaque.optional(),
  resources: opaque.optional(),
  hostnameOverride: str.optional(),
});
export type PodSpec = z.infer<typeof PodSpec>;

export const ContainerState = z.strictObject({
  waiting: z.looseObject({ reason: str.optional(), message: str.optional() }).optional(),
  running: z.looseObject({ startedAt: str.nullable().optional() }).optional(),
  terminated: z
    .looseObject({
      exitCode: int,
      signal: int.optional(),
      reason: str.optional(),
      message: str.optional(),
      startedAt: str.nullable().optional(),
      finishedAt: str.nullable().optional(),
      containerID: str.optional(),
    })
    .optional(),
});
export type ContainerState = z.infer<typeof ContainerState>;

export const ContainerStatus = z.looseObject({
  name: str,
  state: ContainerState.optional(),
  lastState: ContainerState.optional(),
  ready: bool,
  restartCount: int,
  image: str,
  imageID: str,
  containerID: str.optional(),
  started: bool.optional(),
});
export type ContainerStatus = z.infer<typeof ContainerStatus>;

export const PodStatus = z.looseObject({
  phase: str.optional(),
  conditions: z.array(Condition).nullable().optional(),
  message: str.optional(),
  reason: str.optional(),
  nominatedNodeName: str.optional(),
  hostIP: str.optional(),
  hostIPs: z.array(z.strictObject({ ip: str })).nullable().optional(),
  podIP: str.optional(),
  podIPs: z.array(z.strictObject({ ip: str })).nullable().optional(),
  startTime: str.nullable().optional(),
  initContainerStatuses: z.array(ContainerStatus).nullable().optional(),
  containerStatuses: z.array(ContainerStatus).nullable().optional(),
  qosClass: str.optional(),
});
export type PodStatus = z.infer<typeof PodStatus>;

export const PodTemplateSpec = z.strictObject({
  metadata: ObjectMeta.optional(),
  spec: PodSpec,
});
export type PodTemplateSpec = z.infer<typeof PodTemplateSpec>;

// ---------------------------------------------------------------------------------------------
// Top-level objects. `kind` and `apiVersion` are checked by the registry, not here.

const typeMeta = { kind: str.optional(), apiVersion: str.optional() };

export const Namespace = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({ finalizers: z.array(str).nullable().optional() }).optional(),
  status: z.looseObject({ phase: str.optional(), conditions: z.array(Condition).nullable().optional() }).optional(),
});
export type Namespace = z.infer<typeof Namespace>;

export const Taint = z.strictObject({
  key: str,
  value: str.optional(),
  effect: str,
  timeAdded: str.nullable().optional(),
});
export type Taint = z.infer<typeof Taint>;

export const NodeAddress = z.strictObject({ type: str, address: str });
export const Node = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .strictObject({
      podCIDR: str.optional(),
      podCIDRs: z.array(str).nullable().optional(),
      providerID: str.optional(),
      unschedulable: bool.optional(),
      taints: z.array(Taint).nullable().optional(),
      configSource: opaque.optional(),
      externalID: str.optional(),
    })
    .optional(),
  status: z
    .looseObject({
      capacity: stringMap.optional(),
      allocatable: stringMap.optional(),
      phase: str.optional(),
      conditions: z.array(Condition).nullable().optional(),
      addresses: z.array(NodeAddress).nullable().optional(),
      daemonEndpoints: opaque.optional(),
      nodeInfo: z.looseObject({}).optional(),
      images: opaque.optional(),
    })
    .optional(),
});
export type Node = z.infer<typeof Node>;

export const Pod = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: PodSpec,
  status: PodStatus.optional(),
});
export type Pod = z.infer<typeof Pod>;

export const ConfigMap = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  data: stringMap.nullable().optional(),
  binaryData: stringMap.nullable().optional(),
  immutable: bool.optional(),
});
export type ConfigMap = z.infer<typeof ConfigMap>;

export const ServicePort = z.strictObject({
  name: str.optional(),
  protocol: str.optional(),
  appProtocol: str.optional(),
  port: int,
  targetPort: IntOrString.optional(),
  nodePort: int.optional(),
});
export type ServicePort = z.infer<typeof ServicePort>;

export const LoadBalancerIngress = z.strictObject({
  ip: str.optional(),
  hostname: str.optional(),
  ipMode: str.optional(),
  ports: opaque.optional(),
});
export type LoadBalancerIngress = z.infer<typeof LoadBalancerIngress>;

export const ServiceSpec = z.strictObject({
  ports: z.array(ServicePort).nullable().optional(),
  selector: stringMap.nullable().optional(),
  clusterIP: str.optional(),
  clusterIPs: z.array(str).nullable().optional(),
  type: str.optional(),
  externalIPs: z.array(str).nullable().optional(),
  sessionAffinity: str.optional(),
  loadBalancerIP: str.optional(),
  loadBalancerSourceRanges: z.array(str).nullable().optional(),
  externalName: str.optional(),
  externalTrafficPolicy: str.optional(),
  healthCheckNodePort: int.optional(),
  publishNotReadyAddresses: bool.optional(),
  sessionAffinityConfig: z
    .strictObject({ clientIP: z.strictObject({ timeoutSeconds: int.optional() }).optional() })
    .optional(),
  ipFamilies: z.array(str).nullable().optional(),
  ipFamilyPolicy: str.optional(),
  allocateLoadBalancerNodePorts: bool.optional(),
  loadBalancerClass: str.optional(),
  internalTrafficPolicy: str.optional(),
  trafficDistribution: str.optional(),
});
export type ServiceSpec = z.infer<typeof ServiceSpec>;

export const Service = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: ServiceSpec.optional(),
  status: z
    .looseObject({
      loadBalancer: z.strictObject({ ingress: z.array(LoadBalancerIngress).nullable().optional() }).optional(),
      conditions: z.array(Condition).nullable().optional(),
    })
    .optional(),
});
export type Service = z.infer<typeof Service>;

export const ObjectReference = z.strictObject({
  kind: str.optional(),
  namespace: str.optional(),
  name: str.optional(),
  uid: str.optional(),
  apiVersion: str.optional(),
  resourceVersion: str.optional(),
  fieldPath: str.optional(),
});
export type ObjectReference = z.infer<typeof ObjectReference>;

export const EndpointAddress = z.strictObject({
  ip: str,
  hostname: str.optional(),
  nodeName: str.optional(),
  targetRef: ObjectReference.optional(),
});
export type EndpointAddress = z.infer<typeof EndpointAddress>;

export const EndpointPort = z.strictObject({
  name: str.optional(),
  port: int.optional(),
  protocol: str.optional(),
  appProtocol: str.optional(),
});
export type EndpointPort = z.infer<typeof EndpointPort>;

export const EndpointSubset = z.strictObject({
  addresses: z.array(EndpointAddress).nullable().optional(),
  notReadyAddresses: z.array(EndpointAddress).nullable().optional(),
  ports: z.array(EndpointPort).nullable().optional(),
});
export type EndpointSubset = z.infer<typeof EndpointSubset>;

export const Endpoints = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  subsets: z.array(EndpointSubset).nullable().optional(),
});
export type Endpoints = z.infer<typeof Endpoints>;

export const Event = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  involvedObject: ObjectReference,
  reason: str.optional(),
  message: str.optional(),
  source: z.strictObject({ component: str.optional(), host: str.optional() }).optional(),
  firstTimestamp: str.nullable().optional(),
  lastTimestamp: str.nullable().optional(),
  count: int.optional(),
  type: str.optional(),
  eventTime: str.nullable().optional(),
  series: opaque.optional(),
  action: str.optional(),
  related: ObjectReference.optional(),
  reportingComponent: str.optional(),
  reportingInstance: str.optional(),
});
export type Event = z.infer<typeof Event>;

// ---------------------------------------------------------------------------------------------
// discovery.k8s.io/v1

export const Endpoint = z.strictObject({
  addresses: z.array(str),
  conditions: z
    .strictObject({ ready: bool.nullable().optional(), serving: bool.nullable().optional(), terminating: bool.nullable().optional() })
    .optional(),
  hostname: str.nullable().optional(),
  targetRef: ObjectReference.nullable().optional(),
  deprecatedTopology: stringMap.nullable().optional(),
  nodeName: str.nullable().optional(),
  zone: str.nullable().optional(),
  hints: z
    .strictObject({
      forZones: z.array(z.strictObject({ name: str })).nullable().optional(),
      forNodes: z.array(z.strictObject({ name: str })).nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type Endpoint = z.infer<typeof Endpoint>;

export const EndpointSlicePort = z.strictObject({
  name: str.nullable().optional(),
  protocol: str.nullable().optional(),
  port: int.nullable().optional(),
  appProtocol: str.nullable().optional(),
});
export type EndpointSlicePort = z.infer<typeof EndpointSlicePort>;

export const EndpointSlice = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  addressType: str,
  endpoints: z.array(Endpoint).nullable(),
  ports: z.array(EndpointSlicePort).nullable().optional(),
});
export type EndpointSlice = z.infer<typeof EndpointSlice>;

// ---------------------------------------------------------------------------------------------
// apps/v1

const RollingUpdate = z.strictObject({ maxUnavailable: IntOrString.optional(), maxSurge: IntOrString.optional() });

export const Deployment = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    replicas: int32.optional(),
    selector: LabelSelector.nullable().optional(),
    template: PodTemplateSpec,
    strategy: z.strictObject({ type: str.optional(), rollingUpdate: RollingUpdate.nullable().optional() }).optional(),
    minReadySeconds: int.optional(),
    revisionHistoryLimit: int.nullable().optional(),
    paused: bool.optional(),
    progressDeadlineSeconds: int.nullable().optional(),
  }),
  status: z
    .looseObject({
      observedGeneration: int.optional(),
      replicas: int.optional(),
      updatedReplicas: int.optional(),
      readyReplicas: int.optional(),
      availableReplicas: int.optional(),
      unavailableReplicas: int.optional(),
      terminatingReplicas: int.optional(),
      conditions: z.array(Condition).nullable().optional(),
      collisionCount: int.nullable().optional(),
    })
    .optional(),
});
export type Deployment = z.infer<typeof Deployment>;

export const ReplicaSet = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    replicas: int32.optional(),
    minReadySeconds: int.optional(),
    selector: LabelSelector.nullable().optional(),
    template: PodTemplateSpec.optional(),
  }),
  status: z
    .looseObject({
      replicas: int.optional(),
      fullyLabeledReplicas: int.optional(),
      readyReplicas: int.optional(),
      availableReplicas: int.optional(),
      terminatingReplicas: int.optional(),
      observedGeneration: int.optional(),
      conditions: z.array(Condition).nullable().optional(),
    })
    .optional(),
});
export type ReplicaSet = z.infer<typeof ReplicaSet>;

/** core/v1 ReplicationController: a ReplicaSet with an equality selector (a label map). */
export const ReplicationController = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .strictObject({
      replicas: int32.nullable().optional(),
      minReadySeconds: int.optional(),
      selector: stringMap.nullable().optional(),
      template: PodTemplateSpec.nullable().optional(),
    })
    .optional(),
  status: z
    .looseObject({
      replicas: int.optional(),
      fullyLabeledReplicas: int.optional(),
      readyReplicas: int.optional(),
      availableReplicas: int.optional(),
      observedGeneration: int.optional(),
      conditions: z.array(Condition).nullable().optional(),
    })
    .optional(),
});
export type ReplicationController = z.infer<typeof ReplicationController>;

export const DaemonSet = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    selector: LabelSelector.nullable().optional(),
    template: PodTemplateSpec,
    updateStrategy: z.strictObject({ type: str.optional(), rollingUpdate: RollingUpdate.nullable().optional() }).optional(),
    minReadySeconds: int.optional(),
    revisionHistoryLimit: int.nullable().optional(),
  }),
  status: z
    .looseObject({
      currentNumberScheduled: int.optional(),
      numberMisscheduled: int.optional(),
      desiredNumberScheduled: int.optional(),
      numberReady: int.optional(),
      observedGeneration: int.optional(),
      updatedNumberScheduled: int.optional(),
      numberAvailable: int.optional(),
      numberUnavailable: int.optional(),
      collisionCount: int.nullable().optional(),
      conditions: z.array(Condition).nullable().optional(),
    })
    .optional(),
});
export type DaemonSet = z.infer<typeof DaemonSet>;

export const StatefulSet = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    replicas: int32.optional(),
    selector: LabelSelector.nullable().optional(),
    template: PodTemplateSpec,
    volumeClaimTemplates: z.array(opaque).nullable().optional(),
    serviceName: str.optional(),
    podManagementPolicy: str.optional(),
    updateStrategy: z
      .strictObject({
        type: str.optional(),
        rollingUpdate: z.strictObject({ partition: int.optional(), maxUnavailable: IntOrString.optional() }).nullable().optional(),
      })
      .optional(),
    revisionHistoryLimit: int.nullable().optional(),
    minReadySeconds: int.optional(),
    persistentVolumeClaimRetentionPolicy: opaque.optional(),
    ordinals: z.strictObject({ start: int.optional() }).nullable().optional(),
  }),
  status: z
    .looseObject({
      observedGeneration: int.optional(),
      replicas: int.optional(),
      readyReplicas: int.optional(),
      currentReplicas: int.optional(),
      updatedReplicas: int.optional(),
      currentRevision: str.optional(),
      updateRevision: str.optional(),
      collisionCount: int.nullable().optional(),
      conditions: z.array(Condition).nullable().optional(),
      availableReplicas: int.optional(),
    })
    .optional(),
});
export type StatefulSet = z.infer<typeof StatefulSet>;

export const ControllerRevision = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  data: opaque.optional(),
  revision: int,
});
export type ControllerRevision = z.infer<typeof ControllerRevision>;

// ---------------------------------------------------------------------------------------------
// metallb.io/v1beta1

export const IPAddressPool = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.strictObject({
    addresses: z.array(str),
    autoAssign: bool.optional(),
    avoidBuggyIPs: bool.optional(),
    serviceAllocation: z
      .strictObject({
        priority: int.optional(),
        namespaces: z.array(str).nullable().optional(),
        namespaceSelectors: z.array(LabelSelector).nullable().optional(),
        serviceSelectors: z.array(LabelSelector).nullable().optional(),
      })
      .nullable()
      .optional(),
  }),
  status: z
    .looseObject({
      assignedIPv4: int.optional(),
      assignedIPv6: int.optional(),
      availableIPv4: int.optional(),
      availableIPv6: int.optional(),
    })
    .optional(),
});
export type IPAddressPool = z.infer<typeof IPAddressPool>;

export const L2Advertisement = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .strictObject({
      ipAddressPools: z.array(str).nullable().optional(),
      ipAddressPoolSelectors: z.array(LabelSelector).nullable().optional(),
      nodeSelectors: z.array(LabelSelector).nullable().optional(),
      interfaces: z.array(str).nullable().optional(),
      serviceSelectors: z.array(LabelSelector).nullable().optional(),
    })
    .optional(),
});
export type L2Advertisement = z.infer<typeof L2Advertisement>;

// ---------------------------------------------------------------------------------------------
// Kinds ServiceLab stores and serves but does not interpret (RBAC, ServiceAccounts, Secrets,
// webhooks, MetalLB's other CRDs): any fields are kept as they come.

export const Opaque = z.looseObject({ ...typeMeta, metadata: ObjectMeta });
export type Opaque = z.infer<typeof Opaque>;

export const CustomResourceDefinition = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.looseObject({
    group: str,
    names: z.looseObject({ plural: str, singular: str.optional(), kind: str, listKind: str.optional(), shortNames: z.array(str).nullable().optional() }),
    scope: str,
    versions: z.array(z.looseObject({ name: str, served: bool, storage: bool })),
  }),
  status: opaque.optional(),
});
export type CustomResourceDefinition = z.infer<typeof CustomResourceDefinition>;

/** Any stored object: the metadata every kind shares. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
