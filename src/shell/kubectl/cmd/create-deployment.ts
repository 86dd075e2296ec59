// kubectl create deployment (pkg/cmd/create/create_deployment.go).

import type { Container } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, parseFlags, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

export function createDeployment(rest: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("image", "array"), { ...f("replicas", "int", "r"), bits: 32 }, f("port", "int"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], "kubectl create deployment");
  const name = p.args[0];
  // cobra checks required flags before the command looks at its arguments.
  const images = arr(p, "image");
  if (!images.length) throw new KubectlError("required flag(s) \"image\" not set");
  if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create deployment -h' for help and examples`);
  // Validate: what follows "--" is the one container's command.
  const command = p.rest ?? [];
  if (images.length > 1 && command.length) throw new KubectlError("cannot specify multiple --image options and command");
  const labels = { app: name };
  const containers = images.map((img) => {
    const base = img.split("/").pop()!.split(":")[0].split("@")[0];
    const c: Container = { image: img, name: base, resources: {} };
    if (command.length) c.command = command;
    if (str(p, "port")) c.ports = [{ containerPort: Number(str(p, "port")) }];
    return c;
  });
  const obj = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { creationTimestamp: null, labels, name },
    spec: {
      replicas: Number(str(p, "replicas") ?? 1),
      selector: { matchLabels: labels },
      strategy: {},
      template: { metadata: { creationTimestamp: null, labels }, spec: { containers } },
    },
    status: {},
  };
  return finishCreate(R.deployments, obj, p, ctx, o, "created", undefined, "failed to create deployment");
}
