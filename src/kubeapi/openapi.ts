// /openapi/v3: the index and one document per group-version, generated from the zod schemas the
// apiserver validates with. What kubectl reads from it:
//  - `kubectl apply|create -f` (--validate=strict) asks whether the PATCH operation of the kind
//    declares the `fieldValidation` query parameter (cli-runtime queryParamVerifierV3). It does,
//    so validation is left to the server (fieldValidation=Strict), as with a real apiserver.
//  - `kubectl apply` builds its strategic merge patch from the document only when the PATCH
//    operation lists application/strategic-merge-patch+json. It is left out on purpose: kubectl
//    then uses its compiled-in Go types, whose patch strategies (merge keys of containers, ports,
//    ...) are exact, where a schema without x-kubernetes-patch-* extensions would make lists atomic.
//  - `kubectl explain` walks components.schemas (x-kubernetes-group-version-kind).
// /openapi/v2 is not served (404): kubectl falls back from it without error.

import { z } from "zod";
import { apiVersionOf, type ResourceInfo } from "../engine/api/resources.js";
import * as T from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { groups, served } from "./discovery.js";

/** "api/v1" or "apis/<group>/<version>" for each served group-version. */
export function groupVersionPaths(cluster: Cluster): string[] {
  const out = ["api/v1"];
  for (const [g, vs] of groups(cluster)) for (const v of vs) out.push(`apis/${g}/${v}`);
  return out;
}

export function openapiIndex(cluster: Cluster, prefix: string): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const p of groupVersionPaths(cluster)) {
    // client-go replaces the whole path with serverRelativeURL: it must carry our /k8s/<id> prefix.
    paths[p] = { serverRelativeURL: `${prefix}/openapi/v3/${p}?hash=${hashOf(JSON.stringify(gvDocument(cluster, p)))}` };
  }
  return { paths };
}

const cache = new Map<string, Record<string, unknown>>();

/** The document of "api/v1" or "apis/<group>/<version>"; undefined if not served. */
export function gvDocument(cluster: Cluster, gvPath: string): Record<string, unknown> | undefined {
  const m = /^(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(gvPath);
  if (!m) return undefined;
  const group = m[1] ? "" : m[2];
  const version = m[1] ?? m[3];
  const infos = served(cluster).filter((i) => i.group === group && i.version === version);
  if (!infos.length) return undefined;
  const key = `${gvPath}|${infos.map((i) => i.resource).join(",")}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const i of infos) {
    const ref = schemaName(i);
    const { schema, defs } = kindSchema(i, ref);
    Object.assign(schemas, defs);
    schemas[ref] = { ...schema, "x-kubernetes-group-version-kind": [{ group: i.group, version: i.version, kind: i.kind }] };
    const base = `/${i.group ? `apis/${i.group}` : "api"}/${i.version}${i.namespaced ? "/namespaces/{namespace}" : ""}/${i.resource}`;
    const gvk = { group: i.group, version: i.version, kind: i.kind };
    const body = { $ref: `#/components/schemas/${ref}` };
    const json = { "application/json": { schema: body } };
    const op = (action: string, extra: Record<string, unknown> = {}) => ({
      operationId: `${action}${i.kind}`,
      responses: { "200": { description: "OK", content: json } },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
      ...extra,
    });
    const writeParams = [param("dryRun"), param("fieldManager"), param("fieldValidation")];
    paths[base] = {
      get: op("list"),
      post: op("post", { parameters: writeParams, requestBody: { content: json, required: true } }),
      ...(i.verbs.includes("deletecollection") ? { delete: op("deletecollection") } : {}),
      parameters: [...(i.namespaced ? [pathParam("namespace")] : []), param("pretty")],
    };
    paths[`${base}/{name}`] = {
      get: op("get"),
      put: op("put", { parameters: writeParams, requestBody: { content: json, required: true } }),
      patch: op("patch", {
        parameters: [...writeParams, param("force", "boolean")],
        requestBody: {
          content: {
            "application/json-patch+json": { schema: { type: "object" } },
            "application/merge-patch+json": { schema: { type: "object" } },
            "application/apply-patch+yaml": { schema: { type: "object" } },
          },
          required: true,
        },
      }),
      delete: op("delete", { parameters: [param("dryRun"), param("gracePeriodSeconds", "integer"), param("propagationPolicy")] }),
      parameters: [pathParam("name"), ...(i.namespaced ? [pathParam("namespace")] : []), param("pretty")],
    };
  }
  const doc = {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "v1.33.5" },
    paths,
    components: { schemas },
  };
  cache.set(key, doc);
  return doc;
}

function param(name: string, type = "string") {
  return { name, in: "query", description: name, schema: { type, uniqueItems: true } };
}
function pathParam(name: string) {
  return { name, in: "path", description: `name of the ${name === "namespace" ? "Namespace" : "object"}`, required: true, schema: { type: "string", uniqueItems: true } };
}

/** io.k8s.api.core.v1.Service, io.k8s.api.apps.v1.Deployment, io.metallb.v1beta1.IPAddressPool ... */
function schemaName(i: ResourceInfo): string {
  if (!i.group) return `io.k8s.api.core.${i.version}.${i.kind}`;
  if (i.group.endsWith(".k8s.io")) return `io.k8s.api.${i.group.slice(0, -".k8s.io".length)}.${i.version}.${i.kind}`;
  if (!i.group.includes(".")) return `io.k8s.api.${i.group}.${i.version}.${i.kind}`;
  return `${i.group.split(".").reverse().join(".")}.${i.version}.${i.kind}`;
}

const DESCRIPTIONS: Record<string, string> = {
  apiVersion: "APIVersion defines the versioned schema of this representation of an object.",
  kind: "Kind is a string value representing the REST resource this object represents.",
  metadata: "Standard object's metadata.",
  spec: "Spec defines the desired behavior of the object.",
  status: "Most recently observed status of the object. Read-only.",
};

/** What each kind is, as the first lines of `kubectl explain <kind>`. */
const KIND_DESCRIPTIONS: Record<string, string> = {
  Pod: "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.",
  Service: "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
  Deployment: "Deployment enables declarative updates for Pods and ReplicaSets.",
  ReplicaSet: "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
  ReplicationController: "ReplicationController represents the configuration of a replication controller.",
  PersistentVolume: "PersistentVolume (PV) is a storage resource provisioned by an administrator. It is analogous to a node. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes",
  PersistentVolumeClaim: "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
  Ingress: "Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend. An Ingress can be configured to give services externally-reachable urls, load balance traffic, terminate SSL, offer name based virtual hosting etc.",
  IngressClass: "IngressClass represents the class of the Ingress, referenced by the Ingress Spec. The `ingressclass.kubernetes.io/is-default-class` annotation can be used to indicate that an IngressClass should be considered default. When a single IngressClass resource has this annotation set to true, new Ingress resources without a class specified will be assigned this default class.",
  DaemonSet: "DaemonSet represents the configuration of a daemon set.",
  StatefulSet: "StatefulSet represents a set of pods with consistent identities.",
  Job: "Job represents the configuration of a single job.",
  CronJob: "CronJob represents the configuration of a single cron job.",
  ConfigMap: "ConfigMap holds configuration data for pods to consume.",
  Endpoints: "Endpoints is a collection of endpoints that implement the actual service.",
  EndpointSlice: "EndpointSlice represents a set of service endpoints, most of them created by the EndpointSlice controller for the Pods a Service selects.",
  Namespace: "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
  Node: "Node is a worker node in Kubernetes.",
  Event: "Event is a report of an event somewhere in the cluster.",
};

/** The types that have a name of their own in the document (kubectl explain prints <ServiceSpec>, <[]Container>...). */
const NAMED_TYPES: [z.ZodType, string][] = [
  ...(["ObjectMeta", "OwnerReference", "LabelSelector", "LabelSelectorRequirement"] as const).map((n): [z.ZodType, string] => [T[n], `io.k8s.apimachinery.pkg.apis.meta.v1.${n}`]),
  [T.IntOrString, "io.k8s.apimachinery.pkg.util.intstr.IntOrString"],
  [T.Endpoint, "io.k8s.api.discovery.v1.Endpoint"],
  [T.EndpointSlicePort, "io.k8s.api.discovery.v1.EndpointPort"],
  ...(
    [
      "Container", "ContainerPort", "ContainerState", "ContainerStatus", "EndpointAddress", "EndpointPort", "EndpointSubset", "EnvFromSource", "EnvVar", "KeyToPath",
      "LoadBalancerIngress", "NodeAddress", "ObjectReference", "PodDNSConfig", "PodSpec", "PodStatus", "PodTemplateSpec", "Probe", "ServicePort", "ServiceSpec", "Taint",
      "Toleration", "Volume", "VolumeMount",
    ] as const
  ).map((n): [z.ZodType, string] => [T[n], `io.k8s.api.core.v1.${n}`]),
];
const namedTypes = z.registry<{ id: string }>();
for (const [schema, id] of NAMED_TYPES) namedTypes.add(schema, { id });

/**
 * A kind's schema and the named types it refers to (components/schemas entries). An inline spec
 * or status gets the kind's name (DeploymentSpec, ServiceStatus), as the Go types are named.
 */
function kindSchema(i: ResourceInfo, name: string): { schema: Record<string, unknown>; defs: Record<string, unknown> } {
  let s: Record<string, unknown>;
  try {
    s = z.toJSONSchema(i.schema, { metadata: namedTypes, unrepresentable: "any", io: "input" }) as Record<string, unknown>;
  } catch {
    s = { type: "object" };
  }
  const defs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((s.$defs ?? {}) as Record<string, unknown>)) defs[k] = simplify(v);
  delete s.$defs;
  const out = simplify(s) as Record<string, unknown>;
  out.description = KIND_DESCRIPTIONS[i.kind] ?? `${i.kind} (${apiVersionOf(i)}), as ServiceLab's apiserver validates it.`;
  const props = out.properties as Record<string, Record<string, unknown>> | undefined;
  for (const part of ["spec", "status"] as const) {
    const p = props?.[part];
    if (p && !p.$ref && p.type === "object" && p.properties) {
      const id = `${name}${part === "spec" ? "Spec" : "Status"}`;
      defs[id] = p;
      props![part] = { $ref: `#/components/schemas/${id}` };
    }
  }
  if (props) {
    for (const [k, d] of Object.entries(DESCRIPTIONS)) {
      const p = props[k];
      // A described reference is an allOf around it, as in kube-openapi's documents: kubectl
      // explain prints the field's description, then the type's.
      if (p) props[k] = p.$ref ? { allOf: [{ $ref: p.$ref }], description: d } : { ...p, description: p.description ?? d };
    }
  }
  return { schema: out, defs };
}

/** JSON Schema (draft 2020-12, from zod) to the OpenAPI 3.0 subset kube-openapi reads. */
function simplify(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(simplify);
  if (!s || typeof s !== "object") return s;
  const o = s as Record<string, unknown>;
  if (Array.isArray(o.anyOf)) {
    const branches = (o.anyOf as Record<string, unknown>[]).filter((b) => b.type !== "null");
    if (branches.length === 1) return simplify({ ...o, anyOf: undefined, ...branches[0] });
  }
  // z.unknown(): anything goes (kubectl explain needs a type to print: Object).
  if (Object.keys(o).length === 0) return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "$ref" && typeof v === "string") {
      out.$ref = v.replace("#/$defs/", "#/components/schemas/");
      continue;
    }
    if (k === "default" || k === "enum" || k === "required") {
      out[k] = v; // values, not schemas
      continue;
    }
    if (k === "properties" && v && typeof v === "object") {
      // A map of field names to schemas, not a schema itself.
      out.properties = Object.fromEntries(Object.entries(v).map(([name, fs]) => [name, simplify(fs)]));
      continue;
    }
    if (v === undefined || k === "$schema" || k === "propertyNames" || k === "minimum" || k === "maximum" || k === "exclusiveMinimum" || k === "exclusiveMaximum") continue;
    if (k === "additionalProperties" && typeof v === "boolean") continue;
    if (k === "type" && Array.isArray(v)) {
      out.type = v.find((t) => t !== "null") ?? "string";
      continue;
    }
    if (k === "const") {
      out.enum = [v];
      continue;
    }
    out[k] = simplify(v);
  }
  return out;
}

function hashOf(s: string): string {
  // FNV-1a, 64-bit, as hex: a cache key for kubectl's disk cache, not a security measure.
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).toUpperCase().padStart(16, "0");
}
