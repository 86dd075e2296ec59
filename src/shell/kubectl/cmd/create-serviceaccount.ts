// kubectl create serviceaccount (pkg/cmd/create/create_serviceaccount.go).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

export function createServiceAccount(rest: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], "kubectl create serviceaccount");
  if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create serviceaccount -h' for help and examples`);
  const obj = { apiVersion: "v1", kind: "ServiceAccount", metadata: { creationTimestamp: null, name: p.args[0] } };
  finishCreate(R.serviceaccounts, obj, p, ctx, o, "created", undefined, "failed to create serviceaccount");
}
