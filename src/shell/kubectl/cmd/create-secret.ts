// kubectl create secret (pkg/cmd/create/create_secret.go): generic; tls and docker-registry are
// kubectl's but not ServiceLab's.

import { R } from "../../../engine/api/resources.js";
import { subcommandFirst } from "../cmdline.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, notInServiceLab } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { helpFor } from "../help-texts.js";
import { Out } from "../out.js";
import { readDataSources } from "./data-sources.js";

export async function createSecret(rest: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const args = subcommandFirst(rest);
  const sub = args[0]?.startsWith("-") ? undefined : args[0];
  if (sub === undefined) {
    // cmdutil.DefaultSubCommandRun: the command's help on stderr, exit 1.
    o.err(helpFor(["create", "secret"]));
    throw new KubectlError("", 1);
  }
  if (sub === "tls" || sub === "docker-registry") throw notInServiceLab(`kubectl create secret ${sub}`);
  if (sub !== "generic") {
    const words = args.filter((a) => !a.startsWith("-"));
    throw new KubectlError(`unknown command ${JSON.stringify(words.join(" "))}\nSee 'kubectl create secret -h' for help and examples`);
  }
  const p = parseFlags(args.slice(1), [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("type", "string"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], "kubectl create secret generic");
  if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create secret generic -h' for help and examples`);
  const name = p.args[0];
  const data: Record<string, string> = {};
  const add = (key: string, value: string) => {
    if (key in data) throw new KubectlError(`cannot add key ${key}, another key by that name already exists`);
    data[key] = Buffer.from(value, "utf8").toString("base64");
  };
  await readDataSources(p, ctx, add);
  const type = str(p, "type");
  const obj = { apiVersion: "v1", ...(Object.keys(data).length ? { data } : {}), kind: "Secret", metadata: { creationTimestamp: null, name }, ...(type ? { type } : {}) };
  finishCreate(R.secrets, obj, p, ctx, o, "created", undefined, "failed to create secret");
}
