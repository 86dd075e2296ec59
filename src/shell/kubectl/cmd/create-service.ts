// kubectl create service clusterip|nodeport|loadbalancer|externalname (pkg/cmd/create/create_service.go).

import type { ServicePort, ServiceSpec } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, parseFlags, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

export function createService(rest: string[], ctx: KubectlContext, o: Out): void {
  const kind = rest.find((a) => !a.startsWith("-"));
  const kinds: Record<string, string> = { clusterip: "ClusterIP", nodeport: "NodePort", loadbalancer: "LoadBalancer", externalname: "ExternalName" };
  if (!kind || !kinds[kind]) {
    throw new KubectlError(kind ? `unknown command "${kind}" for "kubectl create service"` : `must specify a type of service: clusterip, externalname, loadbalancer, nodeport`);
  }
  const r2 = rest.filter((a, i) => i !== rest.indexOf(kind));
  const p = parseFlags(r2, [...OUTPUT_FLAGS, f("tcp", "array"), f("clusterip", "string"), f("node-port", "int"), f("external-name", "string"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], `kubectl create service ${kind}`);
  const name = p.args[0];
  if (!name) throw new KubectlError(`exactly one NAME is required, got 0\nSee 'kubectl create service ${kind} -h' for help and examples`);
  const type = kinds[kind];
  const ports: ServicePort[] = [];
  for (const spec of arr(p, "tcp").flatMap((x) => x.split(","))) {
    const [port, target] = spec.split(":");
    const pn = Number(port);
    const tn = target === undefined ? pn : /^\d+$/.test(target) ? Number(target) : target;
    const sp: ServicePort = { name: `${port}-${target ?? port}`, port: pn, protocol: "TCP", targetPort: tn };
    if (type === "NodePort" && str(p, "node-port")) sp.nodePort = Number(str(p, "node-port"));
    ports.push(sp);
  }
  if (type !== "ExternalName" && !ports.length && str(p, "clusterip") !== "None") throw new KubectlError("at least one tcp port specifier must be provided");
  const spec: ServiceSpec = { ports, selector: { app: name }, type };
  if (type === "ExternalName") {
    const en = str(p, "external-name");
    if (!en) throw new KubectlError("required flag(s) \"external-name\" not set");
    spec.externalName = en;
    if (!ports.length) delete spec.ports;
  }
  if (str(p, "clusterip")) spec.clusterIP = str(p, "clusterip");
  const obj = { apiVersion: "v1", kind: "Service", metadata: { creationTimestamp: null, labels: { app: name }, name }, spec, status: { loadBalancer: {} } };
  return finishCreate(R.services, obj, p, ctx, o, "created", undefined, `failed to create ${type} service`);
}
