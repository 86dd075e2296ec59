// core/v1 PersistentVolume and PersistentVolumeClaim in their v1 JSON shapes, every field of the
// Go types listed (strict decoding refuses others). Volume sources ServiceLab does not interpret
// are kept as opaque JSON; hostPath, nfs and local are typed.

import { z } from "zod";
import { LabelSelector, ObjectMeta, ObjectReference } from "./types.js";

const str = z.string();
const bool = z.boolean();
const opaque = z.unknown();
const typeMeta = { kind: str.optional(), apiVersion: str.optional() };
/** resource.Quantity: a string, or a JSON number (stored as its string). */
const quantity = z.union([str, z.number()]);
const resourceList = z.record(str, quantity);
const condition = z.looseObject({ type: str, status: str });

const NodeSelectorRequirement = z.strictObject({ key: str, operator: str, values: z.array(str).nullable().optional() });
const NodeSelectorTerm = z.strictObject({
  matchExpressions: z.array(NodeSelectorRequirement).nullable().optional(),
  matchFields: z.array(NodeSelectorRequirement).nullable().optional(),
});

export const PersistentVolumeSpec = z.strictObject({
  capacity: resourceList.nullable().optional(),
  gcePersistentDisk: opaque.optional(),
  awsElasticBlockStore: opaque.optional(),
  hostPath: z.strictObject({ path: str, type: str.nullable().optional() }).optional(),
  glusterfs: opaque.optional(),
  nfs: z.strictObject({ server: str, path: str, readOnly: bool.optional() }).optional(),
  rbd: opaque.optional(),
  iscsi: opaque.optional(),
  cinder: opaque.optional(),
  cephfs: opaque.optional(),
  fc: opaque.optional(),
  flocker: opaque.optional(),
  flexVolume: opaque.optional(),
  azureFile: opaque.optional(),
  vsphereVolume: opaque.optional(),
  quobyte: opaque.optional(),
  azureDisk: opaque.optional(),
  photonPersistentDisk: opaque.optional(),
  portworxVolume: opaque.optional(),
  scaleIO: opaque.optional(),
  local: z.strictObject({ path: str, fsType: str.nullable().optional() }).optional(),
  storageos: opaque.optional(),
  csi: opaque.optional(),
  accessModes: z.array(str).nullable().optional(),
  claimRef: ObjectReference.nullable().optional(),
  persistentVolumeReclaimPolicy: str.optional(),
  storageClassName: str.optional(),
  mountOptions: z.array(str).nullable().optional(),
  volumeMode: str.nullable().optional(),
  nodeAffinity: z.strictObject({ required: z.strictObject({ nodeSelectorTerms: z.array(NodeSelectorTerm) }).nullable().optional() }).nullable().optional(),
  volumeAttributesClassName: str.nullable().optional(),
});

export const PersistentVolume = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: PersistentVolumeSpec.optional(),
  status: z
    .looseObject({ phase: str.optional(), message: str.optional(), reason: str.optional(), lastPhaseTransitionTime: str.nullable().optional() })
    .optional(),
});
export type PersistentVolume = z.infer<typeof PersistentVolume>;

const TypedObjectReference = z.strictObject({ apiGroup: str.nullable().optional(), kind: str, name: str, namespace: str.nullable().optional() });

export const PersistentVolumeClaimSpec = z.strictObject({
  accessModes: z.array(str).nullable().optional(),
  selector: LabelSelector.nullable().optional(),
  resources: z.strictObject({ limits: resourceList.nullable().optional(), requests: resourceList.nullable().optional() }).optional(),
  volumeName: str.optional(),
  storageClassName: str.nullable().optional(),
  volumeMode: str.nullable().optional(),
  dataSource: TypedObjectReference.nullable().optional(),
  dataSourceRef: TypedObjectReference.nullable().optional(),
  volumeAttributesClassName: str.nullable().optional(),
});

export const PersistentVolumeClaim = z.strictObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: PersistentVolumeClaimSpec.optional(),
  status: z
    .looseObject({
      phase: str.optional(),
      accessModes: z.array(str).nullable().optional(),
      capacity: resourceList.nullable().optional(),
      conditions: z.array(condition).nullable().optional(),
      allocatedResources: resourceList.nullable().optional(),
      allocatedResourceStatuses: z.record(str, str).nullable().optional(),
      currentVolumeAttributesClassName: str.nullable().optional(),
      modifyVolumeStatus: opaque.optional(),
    })
    .optional(),
});
export type PersistentVolumeClaim = z.infer<typeof PersistentVolumeClaim>;
