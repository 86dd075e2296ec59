// kubectl create deployment (pkg/cmd/create/create_deployment.go).

import type { Container } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";

interface DeploymentOptions {
  name: string;
  images: string[];
  /** What follows "--": the one container's command. */
  command: string[];
  replicas: number;
  port?: number;
  /** The namespace and printing flags. */
  p: Parsed;
}

export const createDeploymentCommand: KubectlCommand<DeploymentOptions> = {
  name: "create deployment",
  flags: [...OUTPUT_FLAGS, f("image", "array"), { ...f("replicas", "int", "r"), bits: 32 }, f("port", "int"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
  // cobra checks required flags before the command looks at its arguments.
  required: ["image"],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create deployment -h' for help and examples`);
    // Complete reads --dry-run after NAME (finishCreate acts on it).
    dryRun(p);
    const port = str(p, "port");
    return { name: p.args[0], images: arr(p, "image"), command: p.rest ?? [], replicas: Number(str(p, "replicas") ?? 1), port: port ? Number(port) : undefined, p };
  },
  validate(o) {
    if (o.images.length > 1 && o.command.length) throw new KubectlError("cannot specify multiple --image options and command");
  },
  run(o, ctx, out) {
    const labels = { app: o.name };
    const containers = o.images.map((img) => {
      const base = img.split("/").pop()!.split(":")[0].split("@")[0];
      const c: Container = { image: img, name: base, resources: {} };
      if (o.command.length) c.command = o.command;
      if (o.port !== undefined) c.ports = [{ containerPort: o.port }];
      return c;
    });
    const obj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { creationTimestamp: null, labels, name: o.name },
      spec: {
        replicas: o.replicas,
        selector: { matchLabels: labels },
        strategy: {},
        template: { metadata: { creationTimestamp: null, labels }, spec: { containers } },
      },
      status: {},
    };
    finishCreate(R.deployments, obj, o.p, ctx, out, "created", undefined, "failed to create deployment");
  },
};
