// kubectl create job (pkg/cmd/create/create_job.go): a Job from --image and an optional command,
// or from a CronJob's job template (--from=cronjob/NAME).

import { R } from "../../../engine/api/resources.js";
import type { KObject } from "../../../engine/api/types.js";
import type { CronJob } from "../../../engine/api/types-batch.js";
import { dryRun, f, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { get, list, typeOrThrow } from "../targets.js";

interface JobOptions {
  name: string;
  image: string;
  from: string;
  command: string[];
  p: Parsed;
}

export const createJobCommand: KubectlCommand<JobOptions> = {
  name: "create job",
  flags: [...OUTPUT_FLAGS, f("image", "string"), f("from", "string"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create job -h' for help and examples`);
    dryRun(p);
    return { name: p.args[0], image: str(p, "image") ?? "", from: str(p, "from") ?? "", command: p.rest ?? [], p };
  },
  validate(o) {
    if ((!o.image && !o.from) || (o.image && o.from)) throw new KubectlError("either --image or --from must be specified");
    if (o.command.length && o.from) throw new KubectlError("cannot specify --from and command");
  },
  run(o, ctx, out) {
    let job: KObject;
    if (o.image) {
      const container: Record<string, unknown> = { name: o.name, image: o.image, resources: {} };
      if (o.command.length) container.command = o.command;
      job = {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { creationTimestamp: null, name: o.name },
        spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [container], restartPolicy: "Never" } } },
        status: {},
      };
    } else {
      // The resource builder on --from: TYPE/NAME, or every object of TYPE.
      const ns = nsOf(o.p, ctx);
      const slash = o.from.indexOf("/");
      const info = typeOrThrow(slash < 0 ? o.from : o.from.slice(0, slash), ctx);
      const found = slash < 0 ? list(ctx, info, ns) : [get(ctx, info, ns, o.from.slice(slash + 1))];
      if (found.length !== 1) throw new KubectlError("from must be an existing cronjob");
      if (info.kind !== "CronJob") throw new KubectlError(`unknown object type *v1.${info.kind}`);
      job = fromCronJob(o.name, found[0] as CronJob);
    }
    finishCreate(R.jobs, job, o.p, ctx, out, "created", undefined, "failed to create job");
  },
};

/** createJobFromCronJob: the template's spec, labels and annotations, owned by the CronJob. */
function fromCronJob(name: string, cj: CronJob): KObject {
  const t = cj.spec.jobTemplate;
  const metadata: Record<string, unknown> = {
    name,
    creationTimestamp: null,
    ...(t.metadata?.labels ? { labels: t.metadata.labels } : {}),
    annotations: { "cronjob.kubernetes.io/instantiate": "manual", ...(t.metadata?.annotations ?? {}) },
    ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: cj.metadata.name!, uid: cj.metadata.uid!, controller: true }],
  };
  return { apiVersion: "batch/v1", kind: "Job", metadata, spec: structuredClone(t.spec), status: {} } as KObject;
}
