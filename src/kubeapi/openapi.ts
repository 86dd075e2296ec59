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
    schemas[ref] = { ...kindSchema(i), "x-kubernetes-group-version-kind": [{ group: i.group, version: i.version, kind: i.kind }] };
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

function kindSchema(i: ResourceInfo): Record<string, unknown> {
  let s: unknown;
  try {
    s = z.toJSONSchema(i.schema, { unrepresentable: "any", io: "input" });
  } catch {
    s = { type: "object" };
  }
  const out = simplify(s) as Record<string, unknown>;
  out.description = `${i.kind} (${apiVersionOf(i)}), as ServiceLab's apiserver validates it.`;
  const props = out.properties as Record<string, Record<string, unknown>> | undefined;
  if (props) for (const [k, d] of Object.entries(DESCRIPTIONS)) if (props[k]) props[k].description ??= d;
  return out;
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
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
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
