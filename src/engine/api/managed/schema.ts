// What server-side apply needs to know of each kind's shape, as the OpenAPI extensions say it
// for k8s.io/api: which lists are keyed (x-kubernetes-list-type: map, and their keys), which are
// sets, which maps and structs are atomic, and which structs a Go zero object already holds
// (non-pointer fields: their path is never "added", so it carries no "." of its own).
// Anything not described is deduced as structured-merge-diff deduces it: objects are granular
// maps, arrays atomic.

export type Shape =
  | { t: "struct"; fields: Record<string, Shape>; zero?: boolean }
  | { t: "map"; zero?: boolean }
  | { t: "list"; keys: string[]; defaults?: Record<string, unknown>; elem: Shape; zero?: boolean }
  | { t: "set" }
  | { t: "atomic" }
  | { t: "deduced" };

const deduced: Shape = { t: "deduced" };
const atomic: Shape = { t: "atomic" };
const map: Shape = { t: "map" };
const set: Shape = { t: "set" };

function struct(fields: Record<string, Shape>, zero = false): Shape {
  return { t: "struct", fields, zero };
}
function keyed(keys: string[], elem: Shape = deduced, defaults?: Record<string, unknown>): Shape {
  return { t: "list", keys, elem, ...(defaults ? { defaults } : {}) };
}

const conditions = keyed(["type"]);

const meta = struct(
  {
    labels: map,
    annotations: map,
    ownerReferences: keyed(["uid"]),
    finalizers: set,
    managedFields: atomic,
  },
  true,
);

const resources = struct({ limits: map, requests: map, claims: keyed(["name"]) });

const container = struct({
  ports: keyed(["containerPort", "protocol"], deduced, { protocol: "TCP" }),
  env: keyed(["name"]),
  volumeMounts: keyed(["mountPath"]),
  volumeDevices: keyed(["devicePath"]),
  resizePolicy: keyed(["resourceName"]),
  resources,
});

const podSpec = (zero: boolean): Shape =>
  struct(
    {
      // Serialised as null by a zero PodSpec (no omitempty): present, so never "added" itself.
      containers: { ...keyed(["name"], container), zero: true } as Shape,
      initContainers: keyed(["name"], container),
      ephemeralContainers: keyed(["name"], container),
      volumes: keyed(["name"]),
      imagePullSecrets: keyed(["name"]),
      hostAliases: keyed(["ip"]),
      nodeSelector: { t: "map" },
      topologySpreadConstraints: keyed(["topologyKey", "whenUnsatisfiable"]),
      resourceClaims: keyed(["name"]),
      schedulingGates: keyed(["name"]),
      overhead: map,
    },
    zero,
  );

const podStatus = struct({ conditions, podIPs: keyed(["ip"]), hostIPs: keyed(["ip"]) }, true);

const template = struct({ metadata: meta, spec: podSpec(true) }, true);

const workloadStatus = struct({ conditions }, true);

const SHAPES: Record<string, Shape> = {
  Pod: struct({ metadata: meta, spec: podSpec(true), status: podStatus }),
  Service: struct({
    metadata: meta,
    spec: struct(
      {
        ports: keyed(["port", "protocol"], deduced, { protocol: "TCP" }),
        selector: { t: "atomic" },
      },
      true,
    ),
    status: struct({ loadBalancer: struct({}, true), conditions }, true),
  }),
  Deployment: struct({
    metadata: meta,
    spec: struct({ selector: atomic, template, strategy: struct({}, true) }, true),
    status: workloadStatus,
  }),
  ReplicaSet: struct({ metadata: meta, spec: struct({ selector: atomic, template }, true), status: workloadStatus }),
  // ReplicationControllerSpec.selector is a +mapType=atomic label map.
  ReplicationController: struct({ metadata: meta, spec: struct({ selector: atomic, template }, true), status: workloadStatus }),
  DaemonSet: struct({ metadata: meta, spec: struct({ selector: atomic, template, updateStrategy: struct({}, true) }, true), status: workloadStatus }),
  StatefulSet: struct({ metadata: meta, spec: struct({ selector: atomic, template, updateStrategy: struct({}, true) }, true), status: workloadStatus }),
  Job: struct({ metadata: meta, spec: struct({ selector: atomic, template }, true), status: workloadStatus }),
  CronJob: struct({ metadata: meta, spec: struct({ jobTemplate: struct({ metadata: meta, spec: struct({ selector: atomic, template }, true) }, true) }, true), status: struct({}, true) }),
  ConfigMap: struct({ metadata: meta, data: map, binaryData: map }),
  Secret: struct({ metadata: meta, data: map, stringData: map }),
  Namespace: struct({ metadata: meta, spec: struct({}, true), status: struct({ conditions }, true) }),
  Node: struct({
    metadata: meta,
    spec: struct({ podCIDRs: set }, true),
    status: struct({ addresses: keyed(["type"]), conditions, daemonEndpoints: struct({}, true), nodeInfo: struct({}, true) }, true),
  }),
};

/** The shape of a kind's objects (a deduced one with typed metadata when not described). */
export function shapeOf(kind: string): Shape {
  return SHAPES[kind] ?? struct({ metadata: meta });
}

/** The shape of a field of `s` (deduced when not described). */
export function fieldShape(s: Shape, name: string): Shape {
  return s.t === "struct" ? (s.fields[name] ?? deduced) : deduced;
}

/**
 * The object a Go zero value of the kind serialises to, as far as server-side apply can tell:
 * the non-pointer structs on the way from the root. A create is compared against it.
 */
export function zeroObject(s: Shape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.t !== "struct") return out;
  for (const [k, f] of Object.entries(s.fields)) {
    if ((f.t === "struct" || f.t === "map") && f.zero) out[k] = zeroObject(f);
    if (f.t === "list" && f.zero) out[k] = [];
  }
  return out;
}
