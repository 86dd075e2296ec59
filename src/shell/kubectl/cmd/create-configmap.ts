// kubectl create configmap (pkg/cmd/create/create_configmap.go).

import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, parseFlags } from "../flags.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

export async function createConfigMap(rest: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string")], "kubectl create configmap");
  const name = p.args[0];
  if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create configmap -h' for help and examples");
  const data: Record<string, string> = {};
  for (const lit of arr(p, "from-literal")) {
    const i = lit.indexOf("=");
    if (i <= 0) throw new KubectlError(`invalid literal source ${lit}, expected key=value`);
    data[lit.slice(0, i)] = lit.slice(i + 1);
  }
  for (const spec of arr(p, "from-file")) {
    const eq = spec.indexOf("=");
    const key = eq > 0 ? spec.slice(0, eq) : undefined;
    const path = eq > 0 ? spec.slice(eq + 1) : spec;
    const files = await ctx.listDir(path);
    if (files) {
      if (key) throw new KubectlError(`cannot give a key name for a directory path`);
      for (const file of files) data[file] = await ctx.readFile(`${path.replace(/\/$/, "")}/${file}`);
    } else {
      let content: string;
      try {
        content = await ctx.readFile(path);
      } catch {
        throw new KubectlError(`error reading ${path}: no such file or directory`);
      }
      data[key ?? path.split("/").pop()!] = content;
    }
  }
  const obj = { apiVersion: "v1", data, kind: "ConfigMap", metadata: { creationTimestamp: null, name } };
  finishCreate(R.configmaps, obj, p, ctx, o, "created", undefined, "failed to create configmap");
}
