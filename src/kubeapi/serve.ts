// One Kubernetes REST request against one cluster: runtime-neutral and synchronous. A host runs
// serveKube inside its per-cluster serialisation (as it runs a terminal command) and persists
// what changed before it answers. Watches are planned here (watchPlan) and streamed by the host.
//
// Every refusal is a v1 Status with the apiserver's code and words: the engine's own for
// objects, the ones below for the REST layer (unknown paths, verbs, media types).

import { SelectorError } from "../engine/api/labels.js";
import { FieldSelectorError } from "../engine/api/fields.js";
import { applyPatch, patchTypeForContentType } from "../engine/api/patch/index.js";
import { apiVersionOf, lookupResource, R, type ResourceInfo } from "../engine/api/resources.js";
import { isInt32, scaleOf, scaleReplicasInvalid } from "../engine/api/scale.js";
import {
  badRequest,
  conflict,
  field,
  type FieldError,
  invalid,
  isStatusError,
  methodNotAllowed,
  notServed,
  OPTIMISTIC_LOCK_MESSAGE,
  type Status,
  unsupportedMediaType,
} from "../engine/api/status.js";
import type { DeleteOptions, PatchType, PropagationPolicy, WriteOptions } from "../engine/apiserver/apiserver.js";
import type { KObject } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { aggregated, AGGREGATED_V2, apiGroupList, apiResourceList, apiVersions, SCALABLE, versionInfo, wantsAggregated } from "./discovery.js";
import { gvDocument, openapiIndex } from "./openapi.js";
import { OPENAPI_V2_PROTOBUF, openapiV2, openapiV2Protobuf, wantsV2Protobuf } from "./openapi-v2.js";
import { decodeProtobuf, isProtobuf } from "./protobuf/decode.js";
import { podLog } from "./logs.js";
import { authorizePath, authorizeResource, type Impersonation, requester, verbOf } from "./impersonation.js";
import { includeObjectOf, TABLE_CONTENT_TYPE, toTable, wantsTable } from "./table.js";

export interface KubeRequest {
  method: string;
  /** The path below the cluster's prefix: "/api/v1/namespaces/default/pods". */
  path: string;
  query: Record<string, string>;
  accept?: string;
  contentType?: string;
  body?: Uint8Array;
  /** Where the cluster's API is mounted as the client sees it ("/k8s/<id>"). */
  prefix: string;
  /** exec's `command` parameters, all of them (query keeps the first of each name). */
  command?: string[];
  /** The User-Agent header: its first word is the field manager of writes that name none. */
  userAgent?: string;
  /** Who the client acts as (Impersonate-* headers); kubeadm's admin when absent. */
  impersonate?: Impersonation;
}

export interface KubeResponse {
  status: number;
  contentType: string;
  body: string;
  /** A binary body (protobuf documents), sent instead of `body`. */
  bytes?: Uint8Array;
  /** Warning header values (RFC 7234 form: `299 - "text"`). */
  warnings?: string[];
}

const JSON_TYPE = "application/json";
const ENDPOINTS_DEPRECATION = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice";

/** What a REST path names. */
interface Target {
  info: ResourceInfo;
  namespace?: string;
  name?: string;
  sub?: string;
}

/**
 * An object as the apiserver's JSON serializer writes it: compact, and a newline after (Go's
 * json.Encoder), which `kubectl get --raw` and curl show.
 */
export function json(status: number, body: unknown, contentType = JSON_TYPE, warnings?: string[]): KubeResponse {
  return { status, contentType, body: `${JSON.stringify(body)}\n`, ...(warnings?.length ? { warnings } : {}) };
}

export function statusResponse(s: Status): KubeResponse {
  return json(s.code, s);
}

/** Any error as the Status the apiserver would send. */
export function errorResponse(e: unknown): KubeResponse {
  if (isStatusError(e)) return statusResponse(e.status);
  if (e instanceof SelectorError || e instanceof FieldSelectorError) return statusResponse(badRequest(e.message).status);
  const msg = e instanceof Error ? e.message : String(e);
  return json(500, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: `Internal error occurred: ${msg}`, reason: "InternalError", details: { causes: [{ message: msg }] }, code: 500 });
}

const text = new TextDecoder();

/** Resolves `/api/v1/...` or `/apis/<g>/<v>/...`; undefined for a discovery document or unknown path. */
export function parseTarget(segs: string[], cluster: Cluster): Target | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 2) {
    group = "";
    version = segs[1];
    rest = segs.slice(2);
  } else if (segs[0] === "apis" && segs.length >= 3) {
    group = segs[1];
    version = segs[2];
    rest = segs.slice(3);
  } else return undefined;
  if (!rest.length) return undefined;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const inner = lookupResource(group, rest[2]);
    if (inner && inner.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const info = lookupResource(group, rest[0]);
  if (!info || info.version !== version || !cluster.api.isServed(info)) throw notServed();
  if (rest.length > 3) throw notServed();
  return { info, namespace, name: rest[1], sub: rest[2] };
}

/** Does the path name resources (/api/v1/<resource>..., /apis/<g>/<v>/<resource>...), not discovery? */
function isResourcePath(segs: string[]): boolean {
  return (segs[0] === "api" && segs.length >= 3) || (segs[0] === "apis" && segs.length >= 4);
}

function segments(path: string): string[] {
  return path.split("/").filter((s) => s !== "").map((s) => decodeURIComponent(s));
}

/** Answers one request (everything but watches, see watchPlan). */
export function serveKube(cluster: Cluster, req: KubeRequest): KubeResponse {
  try {
    return route(cluster, req);
  } catch (e) {
    return errorResponse(e);
  }
}

function route(cluster: Cluster, req: KubeRequest): KubeResponse {
  const segs = segments(req.path);
  const p = segs.join("/");
  const method = req.method.toUpperCase();
  if ((method === "GET" || method === "HEAD") && !isResourcePath(segs)) authorizePath(cluster, req.impersonate, `/${p}`, "get");
  if (method === "GET" || method === "HEAD") {
    // The version handler's WriteRawJSON: indented, no newline after.
    if (p === "version") return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(versionInfo(cluster.config.kubernetesVersion), null, 2) };
    if (p === "healthz" || p === "livez" || p === "readyz") return { status: 200, contentType: "text/plain; charset=utf-8", body: "ok" };
    if (p === "api") return wantsAggregated(req.accept) ? json(200, aggregated(cluster, true), AGGREGATED_V2) : json(200, apiVersions());
    if (p === "apis") return wantsAggregated(req.accept) ? json(200, aggregated(cluster, false), AGGREGATED_V2) : json(200, apiGroupList(cluster));
    if (p === "api/v1") return json(200, apiResourceList(cluster, "", "v1"));
    if (segs[0] === "apis" && segs.length === 2) {
      const g = apiGroupList(cluster).groups as Array<{ name: string }>;
      const hit = g.find((x) => x.name === segs[1]);
      if (!hit) throw notServed();
      return json(200, { kind: "APIGroup", apiVersion: "v1", ...hit });
    }
    if (segs[0] === "apis" && segs.length === 3) {
      const list = apiResourceList(cluster, segs[1], segs[2]);
      if (!list) throw notServed();
      return json(200, list);
    }
    if (p === "openapi/v2") {
      if (wantsV2Protobuf(req.accept)) return { status: 200, contentType: OPENAPI_V2_PROTOBUF, body: "", bytes: openapiV2Protobuf(cluster) };
      return json(200, openapiV2(cluster));
    }
    if (p === "openapi/v3") return json(200, openapiIndex(cluster, req.prefix));
    if (segs[0] === "openapi" && segs[1] === "v3") {
      const doc = gvDocument(cluster, segs.slice(2).join("/"));
      if (!doc) throw notServed();
      return json(200, doc);
    }
  }
  const t = parseTarget(segs, cluster);
  if (!t) throw notServed();
  authorizeResource(cluster, req.impersonate, {
    verb: verbOf(method, t.name !== undefined, false),
    group: t.info.group,
    resource: t.info.resource,
    subresource: t.sub,
    namespace: t.info.namespaced ? t.namespace : undefined,
    name: t.name,
  });
  const warnings: string[] = [];
  if (t.info === R.endpoints) warnings.push(ENDPOINTS_DEPRECATION);
  const res = resource(cluster, req, t, method, warnings);
  if (warnings.length) res.warnings = [...(res.warnings ?? []), ...warnings];
  return res;
}

function requireVerb(t: Target, verb: string, method: string): void {
  if (!t.info.verbs.includes(verb)) {
    throw methodNotAllowed(`${method} is not supported on resources of kind "${t.info.resource}"`);
  }
}

function nsFor(t: Target): string | undefined {
  return t.info.namespaced ? t.namespace : undefined;
}

function resource(cluster: Cluster, req: KubeRequest, t: Target, method: string, warnings: string[]): KubeResponse {
  const api = cluster.api;
  const client = cluster.client;
  const q = req.query;
  const ns = nsFor(t);
  if (t.info.namespaced && t.name !== undefined && !t.namespace) throw notServed();

  if (t.sub !== undefined) return subresource(cluster, req, t, method, warnings);

  if (t.name === undefined) {
    switch (method) {
      case "GET":
      case "HEAD":
        requireVerb(t, "list", method);
        return list(cluster, req, t);
      case "POST": {
        requireVerb(t, "create", method);
        const opts = writeOptions(req, warnings);
        const body = readBody(req, t.info);
        const obj = client.create(t.info, ns, body, opts);
        return json(201, obj);
      }
      case "DELETE": {
        requireVerb(t, "deletecollection", method);
        const opts = deleteOptions(req);
        const items = api.list(t.info, ns, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector }).items;
        const out: KObject[] = [];
        for (const o of items) out.push(client.delete(t.info, o.metadata.namespace, o.metadata.name!, opts));
        return json(200, { kind: `${t.info.kind}List`, apiVersion: apiVersionOf(t.info), metadata: { resourceVersion: String(cluster.store.revision()) }, items: out });
      }
      default:
        throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    }
  }

  const name = t.name;
  switch (method) {
    case "GET":
    case "HEAD": {
      requireVerb(t, "get", method);
      const obj = client.get(t.info, ns, name);
      if (wantsTable(req.accept)) return json(200, toTable(t.info, [obj], cluster.now(), { resourceVersion: obj.metadata.resourceVersion }, includeObjectOf(q.includeObject)), TABLE_CONTENT_TYPE);
      return json(200, obj);
    }
    case "PUT": {
      requireVerb(t, "update", method);
      const opts = writeOptions(req, warnings);
      const obj = client.update(t.info, ns, name, readBody(req, t.info), opts);
      return json(200, obj);
    }
    case "PATCH": {
      requireVerb(t, "patch", method);
      const type = patchType(req, t.info);
      const opts: WriteOptions = { ...writeOptions(req, warnings), force: req.query.force === "true" };
      const existed = type === "apply" && !!cluster.api.peek(t.info, ns, name);
      const obj = client.patch(t.info, ns, name, type, text.decode(req.body ?? new Uint8Array()), opts);
      // An apply that creates the object is a create (201), as the patch handler answers it.
      return json(type === "apply" && !existed ? 201 : 200, obj);
    }
    case "DELETE": {
      requireVerb(t, "delete", method);
      const opts = deleteOptions(req);
      const obj = client.delete(t.info, ns, name, opts);
      const still = api.peek(t.info, ns, name);
      if (still && !opts.dryRun) return json(202, obj);
      if (t.info === R.pods || opts.dryRun) return json(200, obj);
      // genericregistry.Store without ReturnDeletedObject answers an immediate delete with a Status.
      return json(200, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name, ...(t.info.group ? { group: t.info.group } : {}), kind: t.info.resource, uid: obj.metadata.uid },
      });
    }
    default:
      throw methodNotAllowed("the server does not allow this method on the requested resource");
  }
}

// ---------------------------------------------------------------------------------------------
// list

interface ContinueToken {
  rv: string;
  start: number;
}

function list(cluster: Cluster, req: KubeRequest, t: Target): KubeResponse {
  const q = req.query;
  const res = cluster.api.list(t.info, nsFor(t), { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
  let items = res.items;
  let resourceVersion = res.resourceVersion;
  let start = 0;
  if (q.continue) {
    let tok: ContinueToken;
    try {
      tok = JSON.parse(atob(q.continue)) as ContinueToken;
    } catch {
      throw badRequest("continue key is not valid: illegal base64 data at input byte 0");
    }
    start = Math.max(0, Number(tok.start) || 0);
    resourceVersion = tok.rv;
  }
  const limit = Number(q.limit ?? 0);
  let cont: string | undefined;
  let remaining: number | undefined;
  if (limit > 0 && items.length - start > limit) {
    cont = btoa(JSON.stringify({ rv: resourceVersion, start: start + limit } satisfies ContinueToken));
    remaining = items.length - start - limit;
    items = items.slice(start, start + limit);
  } else if (start) items = items.slice(start);
  if (wantsTable(req.accept)) {
    return json(200, toTable(t.info, items, cluster.now(), { resourceVersion, continue: cont, remainingItemCount: remaining }, includeObjectOf(q.includeObject)), TABLE_CONTENT_TYPE);
  }
  const metadata: Record<string, unknown> = { resourceVersion };
  if (cont) {
    metadata.continue = cont;
    metadata.remainingItemCount = remaining;
  }
  return json(200, { kind: `${t.info.kind}List`, apiVersion: apiVersionOf(t.info), metadata, items });
}

// ---------------------------------------------------------------------------------------------
// subresources: status, scale, log, exec/attach

function subresource(cluster: Cluster, req: KubeRequest, t: Target, method: string, warnings: string[]): KubeResponse {
  const ns = nsFor(t);
  const name = t.name!;
  const client = cluster.client;
  const key = t.info.group ? `${t.info.resource}.${t.info.group}` : t.info.resource;
  switch (t.sub) {
    case "status": {
      if (!t.info.hasStatus) throw notServed();
      if (method === "GET") return json(200, client.get(t.info, ns, name));
      const opts: WriteOptions = { ...writeOptions(req, warnings), subresource: "status" };
      if (method === "PUT") return json(200, client.update(t.info, ns, name, readBody(req, t.info), opts));
      if (method === "PATCH") return json(200, client.patch(t.info, ns, name, patchType(req, t.info), text.decode(req.body ?? new Uint8Array()), opts));
      throw methodNotAllowed("the server does not allow this method on the requested resource");
    }
    case "scale": {
      if (!SCALABLE.has(key)) throw notServed();
      return scale(cluster, req, t, method, warnings);
    }
    case "log": {
      if (t.info !== R.pods || method !== "GET") throw notServed();
      return { status: 200, contentType: "text/plain", body: podLog(cluster, req, ns!, name) };
    }
    case "exec":
    case "attach":
    case "portforward": {
      if (t.info !== R.pods) throw notServed();
      client.get(R.pods, ns, name);
      // Streams are upgrades (WebSocket, see app.ts); a plain request gets the proxy's refusal.
      throw badRequest("Upgrade request required");
    }
    default:
      throw notServed();
  }
}

function scale(cluster: Cluster, req: KubeRequest, t: Target, method: string, warnings: string[]): KubeResponse {
  const ns = nsFor(t);
  const name = t.name!;
  const client = cluster.client;
  const current = client.get(t.info, ns, name);
  if (method === "GET") return json(200, scaleOf(t.info, current));
  let next: Record<string, unknown>;
  if (method === "PUT") {
    next = readJson(req) as Record<string, unknown>;
  } else if (method === "PATCH") {
    const type = patchType(req, { ...t.info, kind: "Scale" } as ResourceInfo);
    if (type === "apply") throw unsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json");
    // The Scale object is patched as the apiserver patches it, then written back to the owner.
    next = applyScalePatch(scaleOf(t.info, current), type, text.decode(req.body ?? new Uint8Array()));
  } else throw methodNotAllowed("the server does not allow this method on the requested resource");
  const meta = (next.metadata ?? {}) as { resourceVersion?: string; name?: string };
  if (meta.resourceVersion && meta.resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(t.info.resource, t.info.group, name, OPTIMISTIC_LOCK_MESSAGE);
  }
  const replicas = (next.spec as { replicas?: unknown } | undefined)?.replicas;
  // A patched Scale that no int32 holds is the json patcher's 422; a PUT body's, the decoder's 400.
  if (method === "PATCH" && typeof replicas === "number" && !isInt32(replicas)) throw scaleReplicasInvalid(next);
  if (typeof replicas !== "number" || !isInt32(replicas)) {
    const what = typeof replicas === "number" ? `number ${String(replicas)}` : typeof replicas;
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${what} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  const opts: WriteOptions = { ...writeOptions(req, warnings), subresource: "scale" };
  const updated = client.patch(t.info, ns, name, "merge", { spec: { replicas } }, opts);
  return json(200, scaleOf(t.info, updated));
}

function applyScalePatch(scaleObj: Record<string, unknown>, type: Exclude<PatchType, "apply">, body: string): Record<string, unknown> {
  // Scale has no strategic patch metadata of its own: its fields are scalars, so a strategic
  // patch merges as a merge patch does.
  return applyPatch("Scale", scaleObj, type === "strategic" ? "merge" : type, body) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// bodies and options

function readJson(req: KubeRequest): unknown {
  const s = text.decode(req.body ?? new Uint8Array());
  if (!s.trim()) throw badRequest("the body of the request was empty");
  try {
    return JSON.parse(s) as unknown;
  } catch (e) {
    throw badRequest(`the object provided is unrecognized: couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/** A create or update body: JSON, or kubectl 1.32+'s protobuf. */
function readBody(req: KubeRequest, info: ResourceInfo): unknown {
  if (isProtobuf(req.contentType)) {
    const d = decodeProtobuf(req.body ?? new Uint8Array());
    if (d.kind !== info.kind) {
      throw badRequest(`the object provided is unrecognized (must be of type ${info.kind}): couldn't get version/kind; kind ${d.kind} does not match ${info.kind}`);
    }
    return d.object;
  }
  const ct = (req.contentType ?? JSON_TYPE).split(";")[0].trim().toLowerCase();
  if (ct !== JSON_TYPE && ct !== "*/*" && ct !== "") {
    throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
  }
  return readJson(req);
}

function patchType(req: KubeRequest, info: ResourceInfo): PatchType {
  const pt = patchTypeForContentType(req.contentType ?? "", info.kind);
  // ValidatePatchOptions, before the object is looked up.
  if (pt === "apply" && !req.query.fieldManager) throw invalidOptions(field.required("fieldManager", "is required for apply patch"));
  if (pt !== "apply" && req.query.force !== undefined) throw invalidOptions(field.forbidden("force", "may not be specified for non-apply patch"));
  return pt;
}

function dryRun(v: string | undefined): boolean {
  if (v === undefined || v === "") return false;
  if (v === "All") return true;
  throw badRequest(`Invalid dryRun value: ${v}: supported values: "All"`);
}

function writeOptions(req: KubeRequest, warnings: string[]): WriteOptions {
  const q = req.query;
  const fv = q.fieldValidation;
  if (fv !== undefined && fv !== "" && fv !== "Strict" && fv !== "Warn" && fv !== "Ignore") {
    throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
  }
  return { dryRun: dryRun(q.dryRun), fieldValidation: (fv || "Warn") as WriteOptions["fieldValidation"], warnings, fieldManager: fieldManagerOf(req), ...(req.impersonate ? { requester: requester(req.impersonate) } : {}) };
}

/** The fieldManager parameter, else the user agent's first word (prefixFromUserAgent). */
function fieldManagerOf(req: KubeRequest): string {
  const m = req.query.fieldManager;
  if (m) {
    if (m.length > 128) throw invalidOptions({ type: "FieldValueTooLong", field: "fieldManager", value: m, hasValue: true, detail: "may not be longer than 128" });
    if (/[^\x20-\x7e]/.test(m)) throw invalidOptions(field.invalid("fieldManager", m, "must only contain printable characters"));
    return m;
  }
  const ua = req.userAgent ?? "";
  return ua.split("/")[0].slice(0, 128);
}

/** A refused PatchOptions/CreateOptions field: `PatchOptions.meta.k8s.io "" is invalid: ...`. */
function invalidOptions(e: FieldError, kind = "PatchOptions"): Error {
  return invalid(kind, "meta.k8s.io", "", [e]);
}

function deleteOptions(req: KubeRequest): DeleteOptions & { dryRun?: boolean } {
  const q = req.query;
  let body: Record<string, unknown> = {};
  const raw = text.decode(req.body ?? new Uint8Array());
  if (raw.trim()) {
    if (isProtobuf(req.contentType)) throw unsupportedMediaType("DeleteOptions in protobuf are not supported: send application/json");
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      throw badRequest(`the object provided is unrecognized: couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
  }
  const policy = (q.propagationPolicy ?? body.propagationPolicy) as PropagationPolicy | undefined;
  if (policy !== undefined && !["Foreground", "Background", "Orphan"].includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const graceRaw = q.gracePeriodSeconds ?? body.gracePeriodSeconds;
  const grace = graceRaw === undefined || graceRaw === null ? undefined : Number(graceRaw);
  const orphan: unknown = q.orphanDependents ?? body.orphanDependents;
  const dr = q.dryRun ?? (Array.isArray(body.dryRun) ? (body.dryRun as string[]).join(",") : undefined);
  return {
    propagationPolicy: policy ?? (orphan === true || orphan === "true" ? "Orphan" : undefined),
    gracePeriodSeconds: grace !== undefined && Number.isFinite(grace) ? grace : undefined,
    dryRun: dryRun(dr),
    preconditions: (body.preconditions as DeleteOptions["preconditions"]) ?? undefined,
  };
}

