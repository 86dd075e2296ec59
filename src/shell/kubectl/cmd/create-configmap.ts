// kubectl create configmap (pkg/cmd/create/create_configmap.go).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags } from "../flags.js";
import { finishCreate } from "../generated.js";
import { readDataSources } from "./data-sources.js";
import { Out } from "../out.js";

export async function createConfigMap(rest: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string")], "kubectl create configmap");
  const name = p.args[0];
  if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create configmap -h' for help and examples");
  const data: Record<string, string> = {};
  // A key given twice keeps its last value here (kubectl refuses it; see create-secret.ts).
  await readDataSources(p, ctx, (key, value) => {
    data[key] = value;
  });
  const obj = { apiVersion: "v1", data, kind: "ConfigMap", metadata: { creationTimestamp: null, name } };
  finishCreate(R.configmaps, obj, p, ctx, o, "created", undefined, "failed to create configmap");
}
