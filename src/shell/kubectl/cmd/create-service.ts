// kubectl create service clusterip|nodeport|loadbalancer|externalname (pkg/cmd/create/create_service.go).

import type { ServicePort, ServiceSpec } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, type FlagSpec, parseFlags, str } from "../flags.js";
import { subcommandFirst } from "../cmdline.js";
import { finishCreate } from "../generated.js";
import { Out } from "../out.js";

/** The four generators: each its type and the flags it has (only clusterip takes --clusterip). */
const KINDS: Record<string, { type: string; flags: FlagSpec[] }> = {
  clusterip: { type: "ClusterIP", flags: [f("tcp", "array"), f("clusterip", "string")] },
  externalname: { type: "ExternalName", flags: [f("tcp", "array"), f("external-name", "string")] },
  loadbalancer: { type: "LoadBalancer", flags: [f("tcp", "array")] },
  nodeport: { type: "NodePort", flags: [f("tcp", "array"), f("node-port", "int")] },
};

export function createService(rest: string[], ctx: KubectlContext, o: Out): void {
  const args = subcommandFirst(rest);
  const kind = args[0]?.startsWith("-") ? undefined : args[0];
  if (!kind || !KINDS[kind]) {
    throw new KubectlError(kind ? `unknown command "${kind}" for "kubectl create service"` : `must specify a type of service: clusterip, externalname, loadbalancer, nodeport`);
  }
  const { type, flags } = KINDS[kind];
  const p = parseFlags(args.slice(1), [...OUTPUT_FLAGS, ...flags, f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], `kubectl create service ${kind}`);
  // Complete: exactly one NAME.
  if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create service ${kind} -h' for help and examples`);
  const name = p.args[0];
  const clusterIP = str(p, "clusterip");
  // Validate (ServiceOptions.Validate): ports for every type but ExternalName and a headless ClusterIP.
  const specs = arr(p, "tcp").flatMap((x) => x.split(","));
  if (type !== "ExternalName" && !specs.length && clusterIP !== "None") throw new KubectlError("at least one tcp port specifier must be provided");
  if (clusterIP === "None" && type !== "ClusterIP") throw new KubectlError("ClusterIP=None can only be used with ClusterIP service type");
  const externalName = str(p, "external-name");
  if (type === "ExternalName") {
    if (!externalName) throw new KubectlError("required flag(s) \"external-name\" not set");
    if (!isDns1123Subdomain(externalName)) throw new KubectlError(`invalid service external name ${externalName}`);
  }
  // createService: each PORT[:TARGET] as kubectl parses it; a port without a target names itself.
  const ports: ServicePort[] = specs.map((spec) => {
    const [port, target] = spec.split(":");
    const pn = parseUint16(port);
    const sp: ServicePort = { name: target === undefined ? port : `${port}-${target}`, port: pn, protocol: "TCP", targetPort: target === undefined ? pn : /^\d+$/.test(target) ? Number(target) : target };
    if (type === "NodePort" && str(p, "node-port")) sp.nodePort = Number(str(p, "node-port"));
    return sp;
  });
  const spec: ServiceSpec = { ports, selector: { app: name }, type };
  // kubectl's ports slice is empty, and omitted, without --tcp (ExternalName, headless ClusterIP).
  if (!ports.length) delete spec.ports;
  if (type === "ExternalName") spec.externalName = externalName;
  if (clusterIP) spec.clusterIP = clusterIP;
  const obj = { apiVersion: "v1", kind: "Service", metadata: { creationTimestamp: null, labels: { app: name }, name }, spec, status: { loadBalancer: {} } };
  return finishCreate(R.services, obj, p, ctx, o, "created", undefined, `failed to create ${type} service`);
}

/** strconv.ParseUint(s, 10, 16), with its errors as kubectl reports them. */
function parseUint16(s: string): number {
  if (!/^\d+$/.test(s)) throw new KubectlError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (n > 65535) throw new KubectlError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

/** validation.IsDNS1123Subdomain. */
function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}
