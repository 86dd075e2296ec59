// kubectl get --raw PATH.

import { type Status, StatusError } from "../../../engine/api/status.js";
import { serveKube } from "../../../kubeapi/serve.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import type { Out } from "../out.js";

/** get.go's Validate of --raw: no filters, no output format, a path url.ParseRequestURI takes. */
export function validateRaw(path: string, filtered: boolean, output: string | undefined): void {
  if (filtered) throw new KubectlError("--raw may not be specified with other flags that filter the server request or alter the output");
  if (output) throw new KubectlError("--raw and --output are mutually exclusive");
  // url.ParseRequestURI: an absolute path (or an absolute URL) and nothing else.
  if (!path.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(path)) throw new KubectlError(`--raw must be a valid URL path: parse ${JSON.stringify(path)}: invalid URI for request`);
}

/**
 * kubectl get --raw PATH (rawhttp.RawGet): the response body as the apiserver sends it, or the
 * Status it answered with, printed as kubectl prints a server error. The path is the API's own
 * ("/api/v1/..."), served here by the same code as /k8s/{id}.
 */
export function getRaw(path: string, ctx: KubectlContext, out: Out): void {
  const u = new URL(path, "https://apiserver");
  const res = serveKube(ctx.cluster, { method: "GET", path: u.pathname, query: Object.fromEntries(u.searchParams), accept: "application/json, */*", prefix: "" });
  if (res.status < 300) {
    out.out(res.body);
    return;
  }
  // serveKube answers every failure with a Status: printed as any server error (serverError).
  throw new StatusError(JSON.parse(res.body) as Status);
}
