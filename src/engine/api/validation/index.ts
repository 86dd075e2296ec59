// The apiserver's validation entry points: one function per kind, dispatched by kind name.
// validateObject runs on create (after defaulting); validateUpdate runs on update and includes
// the create checks plus the immutability rules.

import type { FieldError } from "../status";
import {
  validateDaemonSet,
  validateDaemonSetUpdate,
  validateDeployment,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetUpdate,
  validateStatefulSet,
  validateStatefulSetUpdate,
  validateControllerRevision,
  validateControllerRevisionUpdate,
} from "./apps";
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateEndpoints,
  validateEvent,
  validateNamespace,
  validateNode,
  validateNodeUpdate,
  validatePod,
  validatePodUpdate,
  validateService,
  validateServiceUpdate,
} from "./core";
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from "./batch";
import { validateEndpointSlice, validateEndpointSliceUpdate } from "./discovery";
import { validateObjectMetaUpdate } from "./meta";
import { validateIPAddressPool, validateL2Advertisement } from "./metallb";
import { validateReplicationController, validateReplicationControllerUpdate } from "./replication";
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateIngressUpdate } from "./networking";
import { validatePersistentVolume, validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate, validatePersistentVolumeUpdate } from "./storage";

export { metallbWebhookDenial } from "./metallb";

/* eslint-disable @typescript-eslint/no-explicit-any */

const CREATE: Record<string, (o: any) => FieldError[]> = {
  Pod: validatePod,
  Service: validateService,
  ConfigMap: validateConfigMap,
  Namespace: validateNamespace,
  Node: validateNode,
  Endpoints: validateEndpoints,
  Event: validateEvent,
  EndpointSlice: (o) => validateEndpointSlice(o),
  Deployment: validateDeployment,
  ReplicaSet: validateReplicaSet,
  ReplicationController: validateReplicationController,
  PersistentVolume: validatePersistentVolume,
  PersistentVolumeClaim: validatePersistentVolumeClaim,
  Ingress: validateIngress,
  IngressClass: validateIngressClass,
  DaemonSet: validateDaemonSet,
  StatefulSet: validateStatefulSet,
  ControllerRevision: validateControllerRevision,
  Job: validateJob,
  CronJob: validateCronJob,
  IPAddressPool: validateIPAddressPool,
  L2Advertisement: validateL2Advertisement,
};

const UPDATE: Record<string, (o: any, old: any) => FieldError[]> = {
  Pod: validatePodUpdate,
  Service: validateServiceUpdate,
  ConfigMap: validateConfigMapUpdate,
  Node: validateNodeUpdate,
  EndpointSlice: validateEndpointSliceUpdate,
  Deployment: validateDeploymentUpdate,
  ReplicaSet: validateReplicaSetUpdate,
  ReplicationController: validateReplicationControllerUpdate,
  PersistentVolume: validatePersistentVolumeUpdate,
  PersistentVolumeClaim: validatePersistentVolumeClaimUpdate,
  Ingress: validateIngressUpdate,
  IngressClass: validateIngressClassUpdate,
  DaemonSet: validateDaemonSetUpdate,
  StatefulSet: validateStatefulSetUpdate,
  ControllerRevision: validateControllerRevisionUpdate,
  Job: validateJobUpdate,
  CronJob: validateCronJobUpdate,
  // Namespaces validate only their metadata on update (ValidateNamespaceUpdate).
  Namespace: (o, old) => validateObjectMetaUpdate(o?.metadata, old?.metadata),
};

/** Field errors for a new object of `kind` (empty when valid). Unknown kinds pass. */
export function validateObject(kind: string, obj: any): FieldError[] {
  return CREATE[kind]?.(obj) ?? [];
}

/** Field errors for replacing `old` by `obj`. */
export function validateUpdate(kind: string, obj: any, old: any): FieldError[] {
  const u = UPDATE[kind];
  if (u) return u(obj, old);
  const c = CREATE[kind];
  if (!c) return [];
  return [...validateObjectMetaUpdate(obj?.metadata, old?.metadata), ...c(obj).filter((e) => !e.field.startsWith("metadata."))];
}
