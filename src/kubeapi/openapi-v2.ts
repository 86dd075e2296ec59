// /openapi/v2: the Swagger 2.0 document kube-apiserver serves, derived from the same per-group
// documents as /openapi/v3 (openapi.ts), never written twice. What reads it:
//  - kubectl 1.27/1.28 `create|apply -f`: the query-param verifier looks for the kind's PATCH
//    operation (x-kubernetes-group-version-kind) and its `fieldValidation` parameter; found, it
//    leaves validation to the server. It asks for protobuf only (gnostic's openapi_v2.Document).
//  - kubectl 1.27/1.28 `apply`: the strategic merge patch is computed from the document when it
//    has the kind, so list fields carry x-kubernetes-patch-strategy/-merge-key from the apiserver's
//    own patch metadata (src/engine/api/patch/meta.ts), as k8s.io/api's tags put them there.
//  - `kubectl explain` of older kubectl (definitions, $ref, descriptions).

import { stringify as yamlStringify } from "yaml";
import { PATCH_META, type PatchMeta } from "../engine/api/patch/index.js";
import type { Cluster } from "../engine/cluster.js";
import { served } from "./discovery.js";
import { gvDocument, groupVersionPaths } from "./openapi.js";
import { Writer } from "./protobuf/writer.js";

/** The type kube-openapi answers with (the @ form kubectl asks for is no valid media type). */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

type Json = Record<string, unknown>;

/** By what is served (a few distinct sets: with and without MetalLB's CRDs). */
const cache = new Map<string, { key: string; doc: Json; proto?: Uint8Array }>();

/** The whole v2 document of what the cluster serves. */
export function openapiV2(cluster: Cluster): Json {
  return v2Entry(cluster).doc;
}

/** The same document as gnostic's openapi_v2.Document in protobuf. */
export function openapiV2Protobuf(cluster: Cluster): Uint8Array {
  const e = v2Entry(cluster);
  e.proto ??= encodeDocument(e.doc);
  return e.proto;
}

/** Whether a request for /openapi/v2 asks for protobuf (kubectl's Accept names only it). */
export function wantsV2Protobuf(accept: string | undefined): boolean {
  return !!accept && accept.includes("com.github.proto-openapi.spec.v2");
}

function v2Entry(cluster: Cluster): { key: string; doc: Json; proto?: Uint8Array } {
  const gvs = groupVersionPaths(cluster);
  const docs = gvs.map((p) => gvDocument(cluster, p)).filter((d): d is Json => !!d);
  const key = served(cluster)
    .map((i) => `${i.group}/${i.resource}`)
    .join(",");
  const hit = cache.get(key);
  if (hit) return hit;
  const paths: Json = {};
  const definitions: Json = {};
  for (const d of docs) {
    for (const [name, s] of Object.entries((d.components as { schemas: Json }).schemas)) definitions[name] = toV2Schema(s);
    for (const [p, item] of Object.entries(d.paths as Json)) paths[p] = toV2PathItem(item as Json);
  }
  for (const [name, s] of Object.entries(definitions)) {
    const gvk = ((s as Json)["x-kubernetes-group-version-kind"] as { kind: string }[] | undefined)?.[0];
    const meta = gvk && PATCH_META[gvk.kind];
    if (meta) annotate(s as Json, "", meta, definitions, new Set([name]));
  }
  const doc: Json = {
    swagger: "2.0",
    info: { title: "Kubernetes", version: "v1.33.5" },
    paths: sortKeys(paths),
    definitions: sortKeys(definitions),
    security: [{ BearerToken: [] }],
    securityDefinitions: { BearerToken: { description: "Bearer Token authentication", type: "apiKey", name: "authorization", in: "header" } },
  };
  const entry = { key, doc };
  if (cache.size > 16) cache.clear();
  cache.set(key, entry);
  return entry;
}

function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

/** OpenAPI 3.0 schema to Swagger 2.0: references into definitions, allOf around a ref unwrapped. */
function toV2Schema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV2Schema);
  if (!s || typeof s !== "object") return s;
  const o = s as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "$ref" && typeof v === "string") out.$ref = v.replace("#/components/schemas/", "#/definitions/");
    else if (k === "allOf" && Array.isArray(v) && v.length === 1 && (v[0] as Json).$ref) out.$ref = String((v[0] as Json).$ref).replace("#/components/schemas/", "#/definitions/");
    else if (k === "anyOf" || k === "oneOf" || k === "nullable") continue;
    else if (k === "properties" && v && typeof v === "object") out.properties = Object.fromEntries(Object.entries(v).map(([n, p]) => [n, toV2Schema(p)]));
    else if (k === "default" || k === "enum" || k === "required" || k.startsWith("x-")) out[k] = v;
    else out[k] = toV2Schema(v);
  }
  return out;
}

function toV2PathItem(item: Json): Json {
  const out: Json = {};
  for (const [verb, op] of Object.entries(item)) {
    if (verb === "parameters") out.parameters = (op as Json[]).map(toV2Parameter);
    else out[verb] = toV2Operation(op as Json);
  }
  return out;
}

function toV2Parameter(p: Json): Json {
  const { schema, ...rest } = p as Json & { schema?: Json };
  return { ...rest, ...(schema ?? {}) };
}

function toV2Operation(op: Json): Json {
  const out: Json = {};
  const params = ((op.parameters as Json[] | undefined) ?? []).map(toV2Parameter);
  const body = op.requestBody as { content: Record<string, { schema: Json }>; required?: boolean } | undefined;
  if (body) {
    const [first] = Object.values(body.content);
    params.unshift({ name: "body", in: "body", required: true, schema: toV2Schema(first.schema) });
    out.consumes = Object.keys(body.content);
  }
  out.produces = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
  out.schemes = ["https"];
  out.operationId = op.operationId;
  if (params.length) out.parameters = params;
  const responses: Json = {};
  for (const [code, r] of Object.entries((op.responses as Json) ?? {})) {
    const content = (r as { description: string; content?: Record<string, { schema: Json }> }).content;
    const schema = content ? Object.values(content)[0]?.schema : undefined;
    responses[code] = { description: (r as { description: string }).description, ...(schema ? { schema: toV2Schema(schema) } : {}) };
  }
  out.responses = responses;
  for (const [k, v] of Object.entries(op)) if (k.startsWith("x-")) out[k] = v;
  return out;
}

/** Adds the patch strategy extensions of `meta` below `s` (path: the JSON path of `s` in the kind). */
function annotate(s: Json, path: string, meta: PatchMeta, defs: Json, seen: Set<string>): void {
  const props = s.properties as Record<string, Json> | undefined;
  if (!props) return;
  for (const [name, p] of Object.entries(props)) {
    const fp = path ? `${path}.${name}` : name;
    const tags = meta.fields[fp];
    if (tags?.strategies.length) {
      p["x-kubernetes-patch-strategy"] = tags.strategies.join(",");
      if (tags.mergeKey) p["x-kubernetes-patch-merge-key"] = tags.mergeKey;
    }
    const step = (node: Json, at: string) => {
      const ref = typeof node.$ref === "string" ? node.$ref.replace("#/definitions/", "") : undefined;
      if (ref) {
        if (seen.has(ref) || !defs[ref]) return;
        seen.add(ref);
        annotate(defs[ref] as Json, at, meta, defs, seen);
      } else annotate(node, at, meta, defs, seen);
    };
    step(p, fp);
    if (p.items && typeof p.items === "object") step(p.items as Json, `${fp}[]`);
  }
}

// ---------------------------------------------------------------------------------------------
// gnostic openapi_v2 protobuf (field numbers from OpenAPIv2.proto)

function any(w: Writer, field: number, value: unknown): void {
  // Any { yaml = 2 }: the value as YAML text, as gnostic keeps what it does not model.
  w.message(field, (a) => a.string(2, yamlStringify(value)));
}

function vendorExtensions(w: Writer, field: number, o: Json): void {
  for (const [k, v] of Object.entries(o)) {
    if (!k.startsWith("x-")) continue;
    w.message(field, (n) => {
      n.string(1, k);
      any(n, 2, v);
    });
  }
}

function encodeDocument(doc: Json): Uint8Array {
  const w = new Writer();
  w.string(1, String(doc.swagger));
  const info = doc.info as { title: string; version: string };
  w.message(2, (i) => {
    i.string(1, info.title);
    i.string(2, info.version);
  });
  w.message(8, (ps) => {
    for (const [name, item] of Object.entries(doc.paths as Json)) {
      ps.message(2, (np) => {
        np.string(1, name);
        np.message(2, (pi) => pathItem(pi, item as Json));
      });
    }
  });
  w.message(9, (ds) => {
    for (const [name, s] of Object.entries(doc.definitions as Json)) {
      ds.message(1, (ns) => {
        ns.string(1, name);
        ns.message(2, (sw) => schema(sw, s as Json));
      });
    }
  });
  for (const req of doc.security as Record<string, string[]>[]) {
    w.message(12, (sr) => {
      for (const [name, scopes] of Object.entries(req)) {
        sr.message(1, (nsa) => {
          nsa.string(1, name);
          nsa.message(2, (sa) => scopes.forEach((x) => sa.string(1, x)));
        });
      }
    });
  }
  w.message(13, (sd) => {
    for (const [name, d] of Object.entries(doc.securityDefinitions as Record<string, Record<string, string>>)) {
      sd.message(1, (n) => {
        n.string(1, name);
        // SecurityDefinitionsItem { api_key_security = 2 { type 1, name 2, in 3, description 4 } }
        n.message(2, (item) =>
          item.message(2, (k) => {
            k.string(1, d.type);
            k.string(2, d.name);
            k.string(3, d.in);
            k.string(4, d.description);
          }),
        );
      });
    }
  });
  return w.finish();
}

const VERBS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(w: Writer, item: Json): void {
  for (const [verb, num] of Object.entries(VERBS)) {
    const op = item[verb] as Json | undefined;
    if (op) w.message(num, (o) => operation(o, op));
  }
  for (const p of (item.parameters as Json[] | undefined) ?? []) w.message(9, (pi) => parameter(pi, p));
}

function operation(w: Writer, op: Json): void {
  if (op.description) w.string(3, String(op.description));
  w.string(5, String(op.operationId ?? ""));
  for (const x of (op.produces as string[] | undefined) ?? []) w.string(6, x);
  for (const x of (op.consumes as string[] | undefined) ?? []) w.string(7, x);
  for (const p of (op.parameters as Json[] | undefined) ?? []) w.message(8, (pi) => parameter(pi, p));
  w.message(9, (rs) => {
    for (const [code, r] of Object.entries((op.responses as Json) ?? {})) {
      rs.message(1, (nr) => {
        nr.string(1, code);
        nr.message(2, (rv) =>
          rv.message(1, (resp) => {
            resp.string(1, String((r as Json).description ?? ""));
            const s = (r as Json).schema as Json | undefined;
            if (s) resp.message(2, (si) => si.message(1, (sw) => schema(sw, s)));
          }),
        );
      });
    }
  });
  for (const x of (op.schemes as string[] | undefined) ?? []) w.string(10, x);
  vendorExtensions(w, 13, op);
}

/** ParametersItem { parameter = 1 { body_parameter = 1 | non_body_parameter = 2 } }. */
function parameter(w: Writer, p: Json): void {
  w.message(1, (param) => {
    if (p.in === "body") {
      param.message(1, (b) => {
        if (p.description) b.string(1, String(p.description));
        b.string(2, String(p.name));
        b.string(3, "body");
        if (p.required) b.bool(4, true);
        b.message(5, (sw) => schema(sw, p.schema as Json));
      });
      return;
    }
    param.message(2, (nb) => {
      const query = p.in === "query";
      // query_parameter_sub_schema = 3, path_parameter_sub_schema = 4: same leading fields.
      nb.message(query ? 3 : 4, (q) => {
        if (p.required) q.bool(1, true);
        q.string(2, String(p.in));
        if (p.description) q.string(3, String(p.description));
        q.string(4, String(p.name));
        if (p.type) q.string(query ? 6 : 5, String(p.type));
        if (p.uniqueItems) q.bool(query ? 20 : 19, true);
      });
    });
  });
}

function schema(w: Writer, s: Json): void {
  if (typeof s.$ref === "string") w.string(1, s.$ref);
  if (s.format) w.string(2, String(s.format));
  if (s.description) w.string(4, String(s.description));
  if (s.default !== undefined) any(w, 5, s.default);
  for (const r of (s.required as string[] | undefined) ?? []) w.string(19, r);
  for (const e of (s.enum as unknown[] | undefined) ?? []) any(w, 20, e);
  const ap = s.additionalProperties;
  if (ap && typeof ap === "object") w.message(21, (a) => a.message(1, (sw) => schema(sw, ap as Json)));
  if (typeof s.type === "string") w.message(22, (t) => t.string(1, s.type as string));
  if (s.items && typeof s.items === "object") w.message(23, (it) => it.message(1, (sw) => schema(sw, s.items as Json)));
  for (const a of (s.allOf as Json[] | undefined) ?? []) w.message(24, (sw) => schema(sw, a));
  const props = s.properties as Record<string, Json> | undefined;
  if (props) {
    w.message(25, (ps) => {
      for (const [name, p] of Object.entries(props)) {
        ps.message(1, (ns) => {
          ns.string(1, name);
          ns.message(2, (sw) => schema(sw, p));
        });
      }
    });
  }
  vendorExtensions(w, 31, s);
}
