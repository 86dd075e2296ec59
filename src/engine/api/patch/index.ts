// The single door for PATCH bodies: decode the body as the apiserver decodes it, refuse what it
// refuses with the same Status, apply the patch. Everything here is pure.
//
// Order of checks follows PatchResource (handlers/patch.go, v1.33): the Content-Type check comes
// first (so a custom resource refuses a strategic merge patch before its body is read), then the
// body is decoded, then applied.

import { badRequest, invalid, field, requestEntityTooLarge, unsupportedMediaType, type StatusError } from "../status.js";
import { PATCH_CONTENT_TYPES, strategicNotSupportedForCustomResource } from "./errors.js";
import { jsonPatch } from "./jsonpatch.js";
import { cloneJson, goJsonSyntaxError, hasKey, isObject, jsonValueWord, type JsonValue } from "./json.js";
import { mergePatch } from "./merge.js";
import { patchMetaFor } from "./meta.js";
import { strategicMergePatch } from "./strategic.js";

export { PATCH_META, type PatchMeta } from "./meta.js";

type PatchType = "json" | "merge" | "strategic";

/** metav1.PatchOptions.fieldValidation; the server treats an absent value as "Warn". */
type FieldValidation = "Ignore" | "Warn" | "Strict";

interface ApplyPatchOptions {
  fieldValidation?: FieldValidation;
}

/** apiserver handlers/patch.go maxJSONPatchOperations */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * Applies a PATCH body of `patchType` to `original` (an object of `kind`) and returns the patched
 * object. `patchBody` is the raw request body (a string) or an already decoded JSON value. The
 * original is never modified. Failures are StatusErrors worded as kube-apiserver v1.33 words them.
 */
export function applyPatch(
  kind: string,
  original: unknown,
  patchType: PatchType,
  patchBody: string | unknown,
  options: ApplyPatchOptions = {},
): JsonValue {
  const validation = options.fieldValidation ?? "Warn";
  const strict = validation !== "Ignore";
  switch (patchType) {
    case "json": {
      const body = decode(patchBody, (msg) => badRequest(strict ? `error decoding patch: ${msg}` : msg));
      if (strict) {
        const err = jsonPatchOpsTypeError(body);
        if (err) throw badRequest(`error decoding patch: ${err}`);
      }
      const err = typeError(body, "array", "jsonpatch.Patch", "jsonpatch.Operation");
      if (err) throw badRequest(err);
      const ops = (body ?? []) as JsonValue[];
      if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
        throw requestEntityTooLarge(
          `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
        );
      }
      return asObject(jsonPatch(original, ops));
    }
    case "merge": {
      // jsonpatch.MergePatch answers a body that is not a JSON object with ErrBadJSONPatch.
      const bad = () => badRequest("Invalid JSON Patch");
      const body = decode(patchBody, (msg) => (strict ? badRequest(`error decoding patch: ${msg}`) : bad()));
      if (strict) {
        const err = typeError(body, "object", "map[string]interface {}");
        if (err) throw badRequest(`error decoding patch: ${err}`);
      }
      if (body === null || (!isObject(body) && !Array.isArray(body))) throw bad();
      return asObject(mergePatch(original, body));
    }
    case "strategic": {
      const meta = patchMetaFor(kind);
      if (!meta) throw strategicNotSupportedForCustomResource();
      const body = decode(patchBody, (msg) => badRequest(msg));
      const err = typeError(body, "object", "map[string]interface {}");
      if (err) throw badRequest(err);
      return strategicMergePatch(original, body, meta);
    }
    default:
      throw unsupportedMediaType(`${String(patchType)}: unimplemented patch type`);
  }
}

/**
 * The patch type for a request's Content-Type, or the 415 the apiserver sends for any other
 * (negotiation.NewUnsupportedMediaTypeError with the handler's list). Built-in resources accept
 * json-patch, merge-patch, strategic-merge-patch and apply-patch; custom resources lack
 * strategic-merge-patch. Server-side apply ("apply") is not one of the three handled here.
 */
export function patchTypeForContentType(contentType: string, kind: string): PatchType | "apply" {
  const semi = contentType.indexOf(";");
  const ct = (semi > 0 ? contentType.slice(0, semi) : contentType).trim();
  const builtin = patchMetaFor(kind) !== undefined;
  const accepted = builtin
    ? [PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge, PATCH_CONTENT_TYPES.strategic, PATCH_CONTENT_TYPES.apply]
    : [PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge, PATCH_CONTENT_TYPES.apply];
  const found = (Object.keys(PATCH_CONTENT_TYPES) as (keyof typeof PATCH_CONTENT_TYPES)[]).find(
    (k) => PATCH_CONTENT_TYPES[k] === ct && (accepted as string[]).includes(ct),
  );
  if (!found) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    );
  }
  return found;
}

/** json.Unmarshal of the body into interface{}: syntax errors are reported through `err`. */
function decode(body: unknown, err: (msg: string) => StatusError): JsonValue {
  if (typeof body !== "string") return cloneJson(body);
  const syntax = goJsonSyntaxError(body);
  if (syntax !== null) throw err(syntax);
  return cloneJson(JSON.parse(body));
}

/** encoding/json's UnmarshalTypeError for a top-level value (and its elements, for a slice). */
function typeError(v: JsonValue, want: "array" | "object", goType: string, elemGoType?: string): string | null {
  if (v === null) return null; // null decodes into any map or slice
  const word = jsonValueWord(v);
  if (word !== want) return `json: cannot unmarshal ${word} into Go value of type ${goType}`;
  if (want === "array" && elemGoType) {
    for (const e of v as JsonValue[]) {
      if (e !== null && !isObject(e)) return `json: cannot unmarshal ${jsonValueWord(e)} into Go value of type ${elemGoType}`;
    }
  }
  return null;
}

/** The strict decode into []handlers.jsonPatchOp{op, path, from string; value interface{}}. */
function jsonPatchOpsTypeError(v: JsonValue): string | null {
  if (v === null) return null;
  if (!Array.isArray(v)) return `json: cannot unmarshal ${jsonValueWord(v)} into Go value of type []handlers.jsonPatchOp`;
  for (const e of v) {
    if (e === null) continue;
    if (!isObject(e)) return `json: cannot unmarshal ${jsonValueWord(e)} into Go value of type handlers.jsonPatchOp`;
    // Field order of the document decides which error Go saves first.
    for (const k of Object.keys(e)) {
      if ((k === "op" || k === "path" || k === "from") && hasKey(e, k)) {
        const x = e[k];
        if (x !== null && typeof x !== "string") {
          return `json: cannot unmarshal ${jsonValueWord(x)} into Go struct field jsonPatchOp.${k} of type string`;
        }
      }
    }
  }
  return null;
}

/**
 * A json or merge patch whose result is not a JSON object cannot be decoded back into the kind:
 * the apiserver answers with errors.NewInvalid(GroupKind{}, "", patch: Invalid value: <json>).
 * The wording of the decoder's own error is approximated.
 */
function asObject(result: JsonValue): JsonValue {
  if (isObject(result)) return result;
  const json = JSON.stringify(result);
  const findKind =
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  throw invalid("", "", "", [
    field.invalid(
      "patch",
      json,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonValueWord(result)} into Go value of type ${findKind}`,
    ),
  ]);
}
