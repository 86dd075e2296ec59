// The Status errors a PATCH can end in, built as the apiserver builds them
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, v1.33).

import { StatusError, unsupportedMediaType } from "../status.js";

/**
 * errors.NewGenericServerResponse(422, "", GroupResource{}, "", detail, 0, false): the apiserver's
 * answer when evanphx/json-patch fails to apply an operation, or when strategicpatch reports
 * ErrNoListOfLists / ErrPatchContentNotMatchRetainKeys. The library's own text does not reach the
 * client (isUnexpectedResponse=false leaves no cause), so kubectl prints only
 * "The request is invalid: the server rejected our request due to an error in our request".
 * `detail` keeps that text for logs and tests.
 */
export class PatchApplyError extends StatusError {
  readonly detail: string;
  constructor(detail: string) {
    super({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server rejected our request due to an error in our request",
      reason: "Invalid",
      details: {},
      code: 422,
    });
    this.detail = detail;
  }
}

/**
 * What responsewriters.ErrorToAPIStatus makes of an error that is not an APIStatus: code 500,
 * reason StatusReasonUnknown (the empty string, which Go's encoder omits), the bare message.
 * Strategic merge errors other than the few mapped in interpretStrategicMergePatchError end here.
 */
export function unknownServerError(message: string): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "",
    code: 500,
  });
}

export const PATCH_CONTENT_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
} as const;

/**
 * The 415 a custom resource answers to a strategic merge patch: its handler is installed with
 * only json-patch, merge-patch and apply-patch (customresource_handler.go) and
 * negotiation.NewUnsupportedMediaTypeError words the refusal. (mergepatch's
 * "strategic merge patch format is not supported" is a 400 that a CRD request never reaches.)
 */
export function strategicNotSupportedForCustomResource(): StatusError {
  const accepted = [PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge, PATCH_CONTENT_TYPES.apply];
  return unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}
