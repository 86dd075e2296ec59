// kubectl create secret (pkg/cmd/create/create_secret.go): generic; tls and docker-registry are
// kubectl's but not ServiceLab's.

import { R } from "../../../engine/api/resources.js";
import { subcommandFirst } from "../cmdline.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type CommandGroup, type KubectlCommand, noValidation } from "../command.js";
import { KubectlError, notInServiceLab } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { helpFor } from "../help-texts.js";
import { readDataSources } from "./data-sources.js";

interface SecretOptions {
  name: string;
  type?: string;
  /** The data sources, the namespace and the printing flags. */
  p: Parsed;
}

const createSecretGeneric: KubectlCommand<SecretOptions> = {
  name: "create secret generic",
  flags: [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("type", "string"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create secret generic -h' for help and examples`);
    // Complete reads --dry-run after NAME (finishCreate acts on it).
    dryRun(p);
    return { name: p.args[0], type: str(p, "type"), p };
  },
  validate: noValidation,
  async run(o, ctx, out) {
    const data: Record<string, string> = {};
    const add = (key: string, value: string) => {
      if (key in data) throw new KubectlError(`cannot add key ${key}, another key by that name already exists`);
      data[key] = Buffer.from(value, "utf8").toString("base64");
    };
    await readDataSources(o.p, ctx, add);
    const obj = { apiVersion: "v1", ...(Object.keys(data).length ? { data } : {}), kind: "Secret", metadata: { creationTimestamp: null, name: o.name }, ...(o.type ? { type: o.type } : {}) };
    finishCreate(R.secrets, obj, o.p, ctx, out, "created", undefined, "failed to create secret");
  },
};

export const createSecretCommand: CommandGroup = {
  name: "create secret",
  subcommands: { generic: createSecretGeneric },
  pick(rest, out) {
    const args = subcommandFirst(rest);
    const sub = args[0]?.startsWith("-") ? undefined : args[0];
    if (sub === undefined) {
      // cmdutil.DefaultSubCommandRun: the command's help on stderr, exit 1.
      out.err(helpFor(["create", "secret"]));
      throw new KubectlError("", 1);
    }
    if (sub === "tls" || sub === "docker-registry") throw notInServiceLab(`kubectl create secret ${sub}`);
    if (sub !== "generic") {
      const words = args.filter((a) => !a.startsWith("-"));
      throw new KubectlError(`unknown command ${JSON.stringify(words.join(" "))}\nSee 'kubectl create secret -h' for help and examples`);
    }
    return { command: createSecretGeneric, args: args.slice(1) };
  },
};
