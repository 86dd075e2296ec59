// Request bodies in application/vnd.kubernetes.protobuf, as kubectl 1.32+ sends them for
// `kubectl create deployment|service|configmap|namespace|job|secret|...`: the 4 magic bytes
// "k8s\0", then a runtime.Unknown {typeMeta, raw}, raw being the kind's generated.proto message.
// Decoded into the object's JSON shape, as the apiserver's JSON encoding of the same Go struct
// would read (so the rest of the apiserver sees one shape, whatever the wire).
//
// gogo-protobuf writes every non-pointer scalar, zero or not, while encoding/json's omitempty
// drops them: zero scalars are dropped here too, except for the pointer fields in KEEP_ZERO where
// 0 or false is a value (replicas: 0).

import { badRequest } from "../../engine/api/status.js";
import { MESSAGES, type FieldDef } from "./messages.js";
import { Reader, toSigned64, WIRE, WireError, type WireField } from "./wire.js";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Pointer fields of the kinds we decode whose zero value is meaningful. */
const KEEP_ZERO = new Set([
  "replicas", "revisionHistoryLimit", "progressDeadlineSeconds", "terminationGracePeriodSeconds", "activeDeadlineSeconds",
  "parallelism", "completions", "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes", "ttlSecondsAfterFinished",
  "suspend", "automountServiceAccountToken", "enableServiceLinks", "allocateLoadBalancerNodePorts", "immutable",
  "startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit", "runAsUser", "runAsGroup",
  "runAsNonRoot", "privileged", "readOnlyRootFilesystem", "allowPrivilegeEscalation", "defaultMode", "optional",
  "hostUsers", "shareProcessNamespace", "setHostnameAsFQDN", "priority", "timeoutSeconds", "port", "containerPort",
  "manualSelector", "podReplacementPolicy", "ready", "serving", "terminating",
]);

/** The generated.proto package of each group-version we carry tables for. */
const PACKAGES: Record<string, string> = { "authentication.k8s.io/v1": "authentication", "authorization.k8s.io/v1": "authorization", v1: "core", "apps/v1": "apps", "batch/v1": "batch", "rbac.authorization.k8s.io/v1": "rbac", "discovery.k8s.io/v1": "discovery", "networking.k8s.io/v1": "networking" };

/** Which message a TypeMeta names (only the kinds and groups we carry field tables for). */
function rootMessage(apiVersion: string, kind: string): string | undefined {
  const pkg = PACKAGES[apiVersion];
  if (!pkg) return undefined;
  const name = `${pkg}.${kind}`;
  return MESSAGES[name] ? name : undefined;
}

const byNumber = new Map<string, Map<number, FieldDef>>();
function fieldsOf(message: string): Map<number, FieldDef> | undefined {
  let m = byNumber.get(message);
  if (!m) {
    const defs = MESSAGES[message];
    if (!defs) return undefined;
    m = new Map(defs.map((d) => [d[0], d]));
    byNumber.set(message, m);
  }
  return m;
}

export function isProtobuf(contentType: string | undefined): boolean {
  return !!contentType && contentType.split(";")[0].trim().toLowerCase() === PROTOBUF;
}

interface DecodedProtobuf {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/** Decodes a protobuf request body; a body we cannot read is the apiserver's 400 (or 415 for a kind without tables). */
export function decodeProtobuf(body: Uint8Array): DecodedProtobuf {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b)) {
    throw badRequest("the object provided is unrecognized: provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  try {
    let typeMeta: Uint8Array | undefined;
    let raw: Uint8Array | undefined;
    for (const f of Reader.fields(body.subarray(4))) {
      if (f.num === 1 && f.bytes) typeMeta = f.bytes;
      else if (f.num === 2 && f.bytes) raw = f.bytes;
    }
    let apiVersion = "";
    let kind = "";
    for (const f of Reader.fields(typeMeta ?? new Uint8Array())) {
      if (f.num === 1 && f.bytes) apiVersion = utf8(f.bytes);
      else if (f.num === 2 && f.bytes) kind = utf8(f.bytes);
    }
    const root = rootMessage(apiVersion, kind);
    if (!root) {
      throw badRequest(`the object provided is unrecognized: no protobuf field table for ${apiVersion || "<no apiVersion>"}, Kind=${kind || "<no kind>"} in this server; send it as application/json`);
    }
    const object = { apiVersion, kind, ...message(root, raw ?? new Uint8Array()) };
    return { apiVersion, kind, object };
  } catch (e) {
    if (e instanceof WireError) throw badRequest(`the object provided is unrecognized: unable to decode protobuf: ${e.message}`);
    throw e;
  }
}

const dec = new TextDecoder();
function utf8(b: Uint8Array): string {
  return dec.decode(b);
}

function isZero(v: unknown): boolean {
  return v === "" || v === 0 || v === false || v === null;
}

/** One message as JSON: fields in the struct's order, zero scalars dropped (see KEEP_ZERO). */
function message(name: string, buf: Uint8Array): Record<string, unknown> {
  const defs = fieldsOf(name)!;
  const values = new Map<number, unknown>();
  for (const f of Reader.fields(buf)) {
    const d = defs.get(f.num);
    if (!d) continue; // a field newer than our tables: dropped, as Go drops unknown proto fields
    const [, , type, flag] = d;
    if (flag === "m") {
      const entry = mapEntry(type, f);
      const m = (values.get(f.num) as Record<string, unknown> | undefined) ?? {};
      m[entry[0]] = entry[1];
      values.set(f.num, m);
    } else if (flag === "r") {
      const list = (values.get(f.num) as unknown[] | undefined) ?? [];
      if (f.wire === WIRE.bytes && isPackable(type)) list.push(...unpack(type, f.bytes!));
      else list.push(value(type, f));
      values.set(f.num, list);
    } else {
      values.set(f.num, value(type, f));
    }
  }
  const out: Record<string, unknown> = {};
  for (const [num, fname, type, flag] of MESSAGES[name]) {
    if (!values.has(num)) continue;
    const v = values.get(num);
    if (v === undefined) continue;
    if (!flag && isZero(v) && !(KEEP_ZERO.has(fname) && v !== null) && type !== "meta.Time") continue;
    if (!flag && v === null && fname !== "creationTimestamp") continue;
    if (flag === "i") {
      // An embedded struct (IngressRule's IngressRuleValue): its fields are the parent's in JSON.
      if (v && typeof v === "object") Object.assign(out, v);
      continue;
    }
    out[fname] = v;
  }
  return out;
}

function mapEntry(valueType: string, f: WireField): [string, unknown] {
  let key = "";
  let val: unknown = zeroOf(valueType);
  for (const e of Reader.fields(f.bytes ?? new Uint8Array())) {
    if (e.num === 1 && e.bytes) key = utf8(e.bytes);
    else if (e.num === 2) val = value(valueType, e);
  }
  return [key, val];
}

function zeroOf(type: string): unknown {
  switch (type) {
    case "string":
    case "resource.Quantity":
      return "";
    case "bytes":
      return "";
    case "bool":
      return false;
    default:
      return isPackable(type) ? 0 : {};
  }
}

const NUMERIC = new Set(["int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool", "double", "float", "fixed32", "fixed64"]);
function isPackable(type: string): boolean {
  return NUMERIC.has(type);
}

function unpack(type: string, buf: Uint8Array): unknown[] {
  const r = new Reader(buf);
  const out: unknown[] = [];
  while (!r.done()) {
    if (type === "double" || type === "fixed64") out.push(value(type, { num: 0, wire: WIRE.fixed64, int: r.fixed(8) }));
    else if (type === "float" || type === "fixed32") out.push(value(type, { num: 0, wire: WIRE.fixed32, int: r.fixed(4) }));
    else out.push(value(type, { num: 0, wire: WIRE.varint, int: r.varint() }));
  }
  return out;
}

function value(type: string, f: WireField): unknown {
  switch (type) {
    case "string":
      return utf8(f.bytes ?? new Uint8Array());
    case "bytes":
      return base64(f.bytes ?? new Uint8Array());
    case "bool":
      return (f.int ?? 0n) !== 0n;
    case "int32":
      return Number(BigInt.asIntN(32, f.int ?? 0n));
    case "int64":
    case "sint64":
      return Number(toSigned64(f.int ?? 0n));
    case "uint32":
    case "uint64":
    case "fixed32":
    case "fixed64":
      return Number(f.int ?? 0n);
    case "double": {
      const dv = new DataView(new ArrayBuffer(8));
      dv.setBigUint64(0, f.int ?? 0n, true);
      return dv.getFloat64(0, true);
    }
    case "float": {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setUint32(0, Number(f.int ?? 0n), true);
      return dv.getFloat32(0, true);
    }
  }
  const body = f.bytes ?? new Uint8Array();
  switch (type) {
    case "meta.Time":
    case "meta.MicroTime":
      return time(body, type === "meta.MicroTime");
    case "intstr.IntOrString": {
      const m = message(type, body) as { type?: number; intVal?: number; strVal?: string };
      return m.type === 1 ? (m.strVal ?? "") : (m.intVal ?? 0);
    }
    case "resource.Quantity":
      return (message(type, body) as { string?: string }).string ?? "";
    case "runtime.RawExtension":
    case "meta.FieldsV1": {
      const raw = Reader.fields(body).find((x) => x.num === 1)?.bytes;
      if (!raw?.length) return {};
      try {
        return JSON.parse(utf8(raw)) as unknown;
      } catch {
        return {};
      }
    }
    case "meta.Duration": {
      const ns = Number(toSigned64(Reader.fields(body).find((x) => x.num === 1)?.int ?? 0n));
      return `${ns / 1e9}s`;
    }
  }
  if (!MESSAGES[type]) return undefined;
  return message(type, body);
}

/** Go's zero time (0001-01-01) is how a non-pointer Time field travels when unset: JSON null. */
const GO_ZERO_SECONDS = -62135596800;
function time(body: Uint8Array, micro: boolean): string | null {
  if (!body.length) return null;
  let seconds = 0;
  let nanos = 0;
  for (const f of Reader.fields(body)) {
    if (f.num === 1) seconds = Number(toSigned64(f.int ?? 0n));
    else if (f.num === 2) nanos = Number(BigInt.asIntN(32, f.int ?? 0n));
  }
  if (seconds === GO_ZERO_SECONDS && nanos === 0) return null;
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z` : `${iso}Z`;
}

function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
  return btoa(s);
}
