// Every error leaves as a v1 Status, mapped once (app.onError). Platform failures use the same
// constructors the apiserver uses, so a client reads one error shape everywhere.
import { type Status, StatusError } from "../engine/api/status.js";

function status(code: number, reason: string, message: string, details?: Status["details"]): StatusError {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details) s.details = details;
  return new StatusError(s);
}

export const unauthorized = (message: string) => status(401, "Unauthorized", message);
export const forbiddenMsg = (message: string) => status(403, "Forbidden", message);
export const rateLimited = (message: string, retryAfterSeconds: number) => status(429, "TooManyRequests", message, { retryAfterSeconds });
export const tooLarge = (message: string) => status(413, "RequestEntityTooLarge", message);
export const bad = (message: string) => status(400, "BadRequest", message);
export const notFoundMsg = (message: string) => status(404, "NotFound", message);
export const internal = (message: string) => status(500, "InternalError", `Internal error occurred: ${message}`);
export const conflictMsg = (message: string) => status(409, "Conflict", message);
