// kubectl create namespace (pkg/cmd/create/create_namespace.go).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

export function createNamespace(rest: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("save-config", "bool"), f("validate", "string")], "kubectl create namespace");
  const name = p.args[0];
  if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples");
  return finishCreate(R.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { creationTimestamp: null, name }, spec: {}, status: {} }, p, ctx, o);
}
