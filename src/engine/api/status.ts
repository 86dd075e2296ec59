// v1 Status errors, shaped and worded as k8s.io/apimachinery/pkg/api/errors and
// k8s.io/apimachinery/pkg/util/validation/field produce them. Every failure that leaves the
// apiserver is one of these; the HTTP layer maps it once (code -> HTTP status).

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message);
    this.name = "StatusError";
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string {
    return this.status.reason;
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}

function status(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details) s.details = details;
  return new StatusError(s);
}

/** "services" or "deployments.apps": how apimachinery names a GroupResource. */
function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export function notFound(resource: string, group: string, name: string): StatusError {
  return status(404, "NotFound", `${qualifiedResource(resource, group)} "${name}" not found`, {
    name,
    ...(group ? { group } : {}),
    kind: resource,
  });
}

export function alreadyExists(resource: string, group: string, name: string): StatusError {
  return status(409, "AlreadyExists", `${qualifiedResource(resource, group)} "${name}" already exists`, {
    name,
    ...(group ? { group } : {}),
    kind: resource,
  });
}

export function conflict(resource: string, group: string, name: string, detail: string): StatusError {
  return status(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${detail}`,
    { name, ...(group ? { group } : {}), kind: resource },
  );
}

export const OPTIMISTIC_LOCK_MESSAGE =
  "the object has been modified; please apply your changes to the latest version and try again";

/** errors.NewApplyConflict: a server-side apply that would take fields other managers own. */
export function applyConflict(message: string, causes: StatusCause[]): StatusError {
  return status(409, "Conflict", message, { causes });
}

export function badRequest(message: string): StatusError {
  return status(400, "BadRequest", message);
}

export function forbidden(resource: string, group: string, name: string, detail: string): StatusError {
  const what = name ? `${qualifiedResource(resource, group)} "${name}"` : qualifiedResource(resource, group);
  return status(403, "Forbidden", `${what} is forbidden: ${detail}`, {
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    kind: resource,
  });
}

export function internalError(detail: string): StatusError {
  return status(500, "InternalError", `Internal error occurred: ${detail}`, { causes: [{ message: detail }] });
}

/** A resource the server does not serve (e.g. a CRD's kind before the CRD exists). */
export function notServed(): StatusError {
  return status(404, "NotFound", "the server could not find the requested resource", {});
}

export function methodNotAllowed(message: string): StatusError {
  return status(405, "MethodNotAllowed", message);
}

export function unsupportedMediaType(message: string): StatusError {
  return status(415, "UnsupportedMediaType", message);
}

export function requestEntityTooLarge(message: string): StatusError {
  return status(413, "RequestEntityTooLarge", message);
}

// ---------------------------------------------------------------------------------------------
// field.Error (k8s.io/apimachinery/pkg/util/validation/field/errors.go)

type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

const TYPE_STRINGS: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

/** A Go value as field.Error prints it: %q for strings, %#v-like for slices, plain numbers. */
export class GoValue {
  constructor(readonly text: string) {}
}

export function goSlice(values: readonly string[]): GoValue {
  return new GoValue(`[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`);
}

function formatGoValue(v: unknown): string {
  if (v instanceof GoValue) return v.text;
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return goSlice(v as string[]).text;
  return JSON.stringify(v);
}

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** Omitted for Required and Forbidden, which print no value. */
  value?: unknown;
  hasValue: boolean;
  detail: string;
}

function fieldErrorMessage(e: FieldError): string {
  // ErrorBody(): "<type>: <value>: <detail>" with the value omitted where the type prints none.
  let s = TYPE_STRINGS[e.type];
  if (e.hasValue && e.type !== "FieldValueRequired" && e.type !== "FieldValueForbidden" && e.type !== "InternalError") {
    s += `: ${formatGoValue(e.value)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorMessage(e)}`;
}

export const field = {
  invalid(path: string, value: unknown, detail: string): FieldError {
    return { type: "FieldValueInvalid", field: path, value, hasValue: true, detail };
  },
  required(path: string, detail = ""): FieldError {
    return { type: "FieldValueRequired", field: path, hasValue: false, detail };
  },
  duplicate(path: string, value: unknown): FieldError {
    return { type: "FieldValueDuplicate", field: path, value, hasValue: true, detail: "" };
  },
  notSupported(path: string, value: unknown, supported: readonly string[]): FieldError {
    const detail = supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` : "";
    return { type: "FieldValueNotSupported", field: path, value, hasValue: true, detail };
  },
  forbidden(path: string, detail: string): FieldError {
    return { type: "FieldValueForbidden", field: path, hasValue: false, detail };
  },
  tooLong(path: string, value: unknown, max: number): FieldError {
    return { type: "FieldValueTooLong", field: path, value, hasValue: true, detail: `must have at most ${max} bytes` };
  },
  tooMany(path: string, actual: number, max: number): FieldError {
    return { type: "FieldValueTooMany", field: path, value: actual, hasValue: true, detail: `must have at most ${max} items` };
  },
};

/**
 * errors.NewInvalid: `<Kind>[.<group>] "<name>" is invalid: <aggregate>`, HTTP 422
 * (e.g. `Deployment.apps "web" is invalid: ...`).
 */
export function invalid(kind: string, group: string, name: string, errs: readonly FieldError[]): StatusError {
  const strs = errs.map(fieldErrorString);
  const agg = strs.length === 1 ? strs[0] : `[${strs.join(", ")}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return status(422, "Invalid", `${qualifiedKind} "${name}" is invalid: ${agg}`, {
    name,
    ...(group ? { group } : {}),
    kind,
    causes: errs.map((e) => ({ reason: e.type, message: fieldErrorMessage(e), field: e.field })),
  });
}

/**
 * The ResourceQuota admission plugin's refusal: `pods "web-7d9f8-x2x9q" is forbidden: exceeded
 * quota: <quota>, requested: pods=1, used: pods=300, limited: pods=300` (a 403, as
 * plugin/pkg/admission/resourcequota words it). Controllers recognize it (isQuotaExceeded) to
 * back off and report FailedCreate as the real ones do.
 */
class QuotaExceeded extends StatusError {}

export function quotaExceeded(resource: string, group: string, name: string, quota: string, key: string, used: number, limited: number): StatusError {
  const s = forbidden(resource, group, name, `exceeded quota: ${quota}, requested: ${key}=1, used: ${key}=${used}, limited: ${key}=${limited}`).status;
  return new QuotaExceeded(s);
}

export function isQuotaExceeded(e: unknown): e is QuotaExceeded {
  return e instanceof QuotaExceeded;
}
