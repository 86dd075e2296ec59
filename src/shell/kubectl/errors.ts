// kubectl's errors: the error a command fails with, and a server's Status worded as kubectl's
// CheckErr words it.

import { isStatusError, StatusError } from "../../engine/api/status.js";

export class KubectlError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** Printed as is, without kubectl's "error: " prefix (a klog line, a message kubectl writes itself). */
    readonly opts: { raw?: boolean } = {},
  ) {
    super(message);
  }
}

export function serverError(e: unknown): string {
  if (isStatusError(e)) {
    const s = e.status;
    if (s.reason === "Invalid") return invalidMessage(s);
    return `Error from server (${s.reason}): ${s.message}`;
  }
  throw e;
}

/**
 * A 422 as kubectl's CheckErr words it: "The <Kind> "<name>" is invalid" (the details' kind, not
 * the message's Kind.group), then the causes as "field: message", one inline or several as a
 * "* " list; without details, the request is invalid with the server's message.
 */
function invalidMessage(s: StatusError["status"]): string {
  const d = s.details;
  let head = "The request is invalid";
  if (!d) return s.message ? `${head}: ${s.message}` : head;
  if (d.kind || d.name) head = `The ${d.kind ?? ""} ${JSON.stringify(d.name ?? "")} is invalid`;
  else if (s.message && !d.causes?.length) head += `: ${s.message}`;
  const causes = [...new Set((d.causes ?? []).map((c) => `${c.field ?? ""}: ${c.message ?? ""}`))];
  if (!causes.length) return head;
  if (causes.length === 1) return `${head}: ${causes[0]}`;
  return `${head}: \n${causes.map((c) => `* ${c}`).join("\n")}`;
}

/**
 * A command's errors as kubectl's CheckErr prints them: one as itself ("error: " added where
 * kubectl adds it); several as a utilerrors.Aggregate, one a line, none with "error: ".
 */
export function aggregate(errors: string[]): KubectlError {
  if (errors.length === 1) return new KubectlError(errors[0]);
  return new KubectlError(errors.map((e) => e.replace(/^error: /, "")).join("\n"), 1, { raw: true });
}

/** A command kubectl has and ServiceLab's does not run: said plainly, not as kubectl's unknown command. */
export function notInServiceLab(command: string): KubectlError {
  return new KubectlError(`"${command}" is not available in ServiceLab's kubectl`);
}
