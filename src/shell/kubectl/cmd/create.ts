// kubectl create (pkg/cmd/create): -f through the apply path, or one of the generators.

import { SUBCOMMAND_ALIASES } from "../commands.js";
import { type Command, type CommandGroup, own } from "../command.js";
import { notInServiceLab } from "../errors.js";
import { isCommand } from "../help-texts.js";
import { createFromFilesCommand } from "./apply.js";
import { createConfigMapCommand } from "./create-configmap.js";
import { createCronJobCommand } from "./create-cronjob.js";
import { createDeploymentCommand } from "./create-deployment.js";
import { createJobCommand } from "./create-job.js";
import { createIngressCommand } from "./create-ingress.js";
import { createNamespaceCommand } from "./create-namespace.js";
import { createSecretCommand } from "./create-secret.js";
import { createServiceCommand } from "./create-service.js";
import { createServiceAccountCommand } from "./create-serviceaccount.js";

/** The create subcommands ServiceLab runs (the others of kubectl's are refused plainly). */
const GENERATORS: Readonly<Record<string, Command>> = {
  configmap: createConfigMapCommand,
  cronjob: createCronJobCommand,
  deployment: createDeploymentCommand,
  job: createJobCommand,
  ingress: createIngressCommand,
  namespace: createNamespaceCommand,
  secret: createSecretCommand,
  service: createServiceCommand,
  serviceaccount: createServiceAccountCommand,
};

const ALIASES = SUBCOMMAND_ALIASES.create;

export const createCommand: CommandGroup = {
  name: "create",
  subcommands: GENERATORS,
  // create's own run (create -f) unless the first word is one of kubectl's create subcommands.
  pick(argv) {
    const sub = argv.find((a) => !a.startsWith("-"));
    const subIdx = sub === undefined ? -1 : argv.indexOf(sub);
    const alias = sub === undefined ? undefined : own(ALIASES, sub);
    const name = alias ?? sub;
    if (name === undefined || !(alias || own(GENERATORS, name) || isCommand(["create", name])) || argv.slice(0, subIdx).some((a) => /^-f$|^--filename/.test(a))) {
      return { command: createFromFilesCommand, args: argv };
    }
    const command = own(GENERATORS, name);
    // One of kubectl's create subcommands that ServiceLab does not run: said so, never an unknown flag.
    if (!command) throw notInServiceLab(`kubectl create ${name}`);
    return { command, args: [...argv.slice(0, subIdx), ...argv.slice(subIdx + 1)] };
  },
};
