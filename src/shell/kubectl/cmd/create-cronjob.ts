// kubectl create cronjob (pkg/cmd/create/create_cronjob.go): a CronJob from --image, --schedule,
// --restart (OnFailure unless given) and an optional command.

import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";

interface CronJobOptions {
  name: string;
  image: string;
  schedule: string;
  restart: string;
  command: string[];
  p: Parsed;
}

export const createCronJobCommand: KubectlCommand<CronJobOptions> = {
  name: "create cronjob",
  flags: [...OUTPUT_FLAGS, f("image", "string"), f("schedule", "string"), f("restart", "string"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
  // cobra checks required flags (in the order they were marked) before the command looks at its arguments.
  required: ["image", "schedule"],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create cronjob -h' for help and examples`);
    dryRun(p);
    return { name: p.args[0], image: str(p, "image") ?? "", schedule: str(p, "schedule") ?? "", restart: str(p, "restart") || "OnFailure", command: p.rest ?? [], p };
  },
  validate() {},
  run(o, ctx, out) {
    const container: Record<string, unknown> = { name: o.name, image: o.image, resources: {} };
    if (o.command.length) container.command = o.command;
    const cronjob = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { creationTimestamp: null, name: o.name },
      spec: {
        jobTemplate: {
          metadata: { creationTimestamp: null, name: o.name },
          spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [container], restartPolicy: o.restart } } },
        },
        schedule: o.schedule,
      },
      status: {},
    };
    finishCreate(R.cronjobs, cronjob, o.p, ctx, out, "created", undefined, "failed to create cronjob");
  },
};
