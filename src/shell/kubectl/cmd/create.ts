// kubectl create (pkg/cmd/create): -f through the apply path, or one of the generators.

import type { KubectlContext } from "../context.js";
import { Out } from "../out.js";
import { cmdApplyLike } from "./apply.js";
import { createConfigMap } from "./create-configmap.js";
import { createDeployment } from "./create-deployment.js";
import { createNamespace } from "./create-namespace.js";
import { createService } from "./create-service.js";

export function cmdCreate(argv: string[], ctx: KubectlContext, o: Out): Promise<void> | void {
  const sub = argv.find((a) => !a.startsWith("-"));
  const subIdx = sub === undefined ? -1 : argv.indexOf(sub);
  const known = ["deployment", "deploy", "service", "svc", "configmap", "cm", "namespace", "ns"];
  if (sub === undefined || !known.includes(sub) || argv.slice(0, subIdx).some((a) => /^-f$|^--filename/.test(a))) {
    return cmdApplyLike(argv, ctx, o, "create");
  }
  const rest = [...argv.slice(0, subIdx), ...argv.slice(subIdx + 1)];
  switch (sub) {
    case "deployment":
    case "deploy":
      return createDeployment(rest, ctx, o);
    case "service":
    case "svc":
      return createService(rest, ctx, o);
    case "configmap":
    case "cm":
      return createConfigMap(rest, ctx, o);
    case "namespace":
    case "ns":
      return createNamespace(rest, ctx, o);
  }
}
