// kubectl create namespace (pkg/cmd/create/create_namespace.go).

import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { finishCreate } from "../generated.js";

export const createNamespaceCommand: KubectlCommand<{ name: string; p: Parsed }> = {
  name: "create namespace",
  flags: [...OUTPUT_FLAGS, f("save-config", "bool"), f("validate", "string")],
  complete(p) {
    const name = p.args[0];
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create namespace -h' for help and examples`);
    // Complete reads --dry-run after NAME (finishCreate acts on it).
    dryRun(p);
    return { name, p };
  },
  validate: noValidation,
  run(o, ctx, out) {
    finishCreate(R.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { creationTimestamp: null, name: o.name }, spec: {}, status: {} }, o.p, ctx, out);
  },
};
