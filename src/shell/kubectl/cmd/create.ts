// kubectl create (pkg/cmd/create): -f through the apply path, or one of the generators.

import { SUBCOMMAND_ALIASES } from "../commands.js";
import type { KubectlContext } from "../context.js";
import { notInServiceLab } from "../errors.js";
import { isCommand } from "../help-texts.js";
import { Out } from "../out.js";
import { cmdApplyLike } from "./apply.js";
import { createConfigMap } from "./create-configmap.js";
import { createDeployment } from "./create-deployment.js";
import { createNamespace } from "./create-namespace.js";
import { createSecret } from "./create-secret.js";
import { createService } from "./create-service.js";
import { createServiceAccount } from "./create-serviceaccount.js";

type Generator = (rest: string[], ctx: KubectlContext, o: Out) => Promise<void> | void;

/** The create subcommands ServiceLab runs (the others of kubectl's are refused plainly). */
const GENERATORS: Record<string, Generator> = {
  configmap: createConfigMap,
  deployment: createDeployment,
  namespace: createNamespace,
  secret: createSecret,
  service: createService,
  serviceaccount: createServiceAccount,
};

const ALIASES = SUBCOMMAND_ALIASES.create;

export function cmdCreate(argv: string[], ctx: KubectlContext, o: Out): Promise<void> | void {
  const sub = argv.find((a) => !a.startsWith("-"));
  const subIdx = sub === undefined ? -1 : argv.indexOf(sub);
  if (sub === undefined || !(sub in GENERATORS || sub in ALIASES || isCommand(["create", sub])) || argv.slice(0, subIdx).some((a) => /^-f$|^--filename/.test(a))) {
    return cmdApplyLike(argv, ctx, o, "create");
  }
  const generator = GENERATORS[ALIASES[sub] ?? sub];
  // One of kubectl's create subcommands that ServiceLab does not run: said so, never an unknown flag.
  if (!generator) throw notInServiceLab(`kubectl create ${ALIASES[sub] ?? sub}`);
  return generator([...argv.slice(0, subIdx), ...argv.slice(subIdx + 1)], ctx, o);
}
