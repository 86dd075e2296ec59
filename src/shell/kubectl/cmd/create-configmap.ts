// kubectl create configmap (pkg/cmd/create/create_configmap.go).

import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import type { Parsed } from "../flags.js";
import { finishCreate } from "../generated.js";
import { readDataSources } from "./data-sources.js";

interface ConfigMapOptions {
  name: string;
  /** The data sources, the namespace and the printing flags. */
  p: Parsed;
}

export const createConfigMapCommand: KubectlCommand<ConfigMapOptions> = {
  name: "create configmap",
  flags: [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string")],
  complete(p) {
    const name = p.args[0];
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create configmap -h' for help and examples`);
    // Complete reads --dry-run after NAME (finishCreate acts on it).
    dryRun(p);
    return { name, p };
  },
  validate: noValidation,
  async run(o, ctx, out) {
    const data: Record<string, string> = {};
    // A key given twice keeps its last value here (kubectl refuses it; see create-secret.ts).
    await readDataSources(o.p, ctx, (key, value) => {
      data[key] = value;
    });
    const obj = { apiVersion: "v1", data, kind: "ConfigMap", metadata: { creationTimestamp: null, name: o.name } };
    finishCreate(R.configmaps, obj, o.p, ctx, out, "created", undefined, "failed to create configmap");
  },
};
