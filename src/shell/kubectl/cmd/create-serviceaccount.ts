// kubectl create serviceaccount (pkg/cmd/create/create_serviceaccount.go).

import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { finishCreate } from "../generated.js";

export const createServiceAccountCommand: KubectlCommand<{ name: string; p: Parsed }> = {
  name: "create serviceaccount",
  flags: [...OUTPUT_FLAGS, f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create serviceaccount -h' for help and examples`);
    // Complete reads --dry-run after NAME (finishCreate acts on it).
    dryRun(p);
    return { name: p.args[0], p };
  },
  validate: noValidation,
  run(o, ctx, out) {
    const obj = { apiVersion: "v1", kind: "ServiceAccount", metadata: { creationTimestamp: null, name: o.name } };
    finishCreate(R.serviceaccounts, obj, o.p, ctx, out, "created", undefined, "failed to create serviceaccount");
  },
};
