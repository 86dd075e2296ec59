// What a generator built (create <subcommand>, run, expose): printed for a client dry run, else
// created, with the namespace kubectl enforces.

import type { ResourceInfo } from "../../engine/api/resources.js";
import { isStatusError } from "../../engine/api/status.js";
import type { KObject } from "../../engine/api/types.js";
import { dryRun, nsOf } from "./cmdutil.js";
import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { type Parsed, str } from "./flags.js";
import { Out } from "./out.js";
import { printResult } from "./print.js";

/**
 * What a generator built, with the namespace set when -n/--namespace was given (kubectl's
 * EnforceNamespace: the flag, not the context's namespace), as a client dry run prints it.
 */
export function enforceNamespace<T extends KObject>(info: ResourceInfo, obj: T, p: Parsed): T {
  const ns = str(p, "namespace");
  if (!info.namespaced || ns === undefined) return obj;
  return { ...obj, metadata: { ...obj.metadata, namespace: ns } };
}

/**
 * Sends what a `kubectl create <generator>` built. `failure`: the generator's wrapping of a
 * server error ("failed to create deployment: " + the Status message), if it has one.
 */
export function finishCreate(info: ResourceInfo, obj: KObject, p: Parsed, ctx: KubectlContext, o: Out, verb = "created", ns?: string, failure?: string): void {
  const mode = dryRun(p);
  if (mode === "client") {
    printResult(info, enforceNamespace(info, obj, p), p, o, verb);
    return;
  }
  const warnings: string[] = [];
  let created: KObject;
  try {
    created = ctx.cluster.client.create(info, info.namespaced ? ns ?? nsOf(p, ctx) : undefined, obj, { dryRun: mode === "server", warnings, fieldManager: verb === "exposed" ? "kubectl-expose" : "kubectl-create" });
  } catch (e) {
    if (failure && isStatusError(e)) throw new KubectlError(`${failure}: ${e.status.message}`);
    throw e;
  }
  for (const w of warnings) o.err(`Warning: ${w}\n`);
  printResult(info, created, p, o, verb);
}
