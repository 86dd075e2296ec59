// kubectl create service clusterip|nodeport|loadbalancer|externalname (pkg/cmd/create/create_service.go).

import type { ServicePort, ServiceSpec } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type CommandGroup, type KubectlCommand, own } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, type FlagSpec, type Parsed, str } from "../flags.js";
import { subcommandFirst } from "../cmdline.js";
import { finishCreate } from "../generated.js";

interface ServiceOptions {
  name: string;
  ports: string[];
  clusterIP?: string;
  externalName?: string;
  nodePort?: string;
  /** The namespace and printing flags. */
  p: Parsed;
}

/** One of the four generators: its subcommand, the Service type it makes and the flags it has. */
function serviceCommand(kind: string, type: string, flags: FlagSpec[], required?: string[]): KubectlCommand<ServiceOptions> {
  return {
    name: `create service ${kind}`,
    required,
    flags: [...OUTPUT_FLAGS, ...flags, f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")],
    // Complete: exactly one NAME.
    complete(p) {
      if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create service ${kind} -h' for help and examples`);
      // Complete reads --dry-run after NAME (finishCreate acts on it).
      dryRun(p);
      return { name: p.args[0], ports: arr(p, "tcp").flatMap((x) => x.split(",")), clusterIP: str(p, "clusterip"), externalName: str(p, "external-name"), nodePort: str(p, "node-port"), p };
    },
    // ServiceOptions.Validate: ports for every type but ExternalName and a headless ClusterIP.
    validate(o) {
      if (type !== "ExternalName" && !o.ports.length && o.clusterIP !== "None") throw new KubectlError("at least one tcp port specifier must be provided");
      if (o.clusterIP === "None" && type !== "ClusterIP") throw new KubectlError("ClusterIP=None can only be used with ClusterIP service type");
      if (type === "ExternalName") {
        if (!o.externalName) throw new KubectlError("required flag(s) \"external-name\" not set");
        if (!isDns1123Subdomain(o.externalName)) throw new KubectlError(`invalid service external name ${o.externalName}`);
      }
    },
    // createService: each PORT[:TARGET] as kubectl parses it; a port without a target names itself.
    run(o, ctx, out) {
      const ports: ServicePort[] = o.ports.map((spec) => {
        const [port, target] = spec.split(":");
        const pn = parseUint16(port);
        const sp: ServicePort = { name: target === undefined ? port : `${port}-${target}`, port: pn, protocol: "TCP", targetPort: target === undefined ? pn : /^\d+$/.test(target) ? Number(target) : target };
        if (type === "NodePort" && o.nodePort) sp.nodePort = Number(o.nodePort);
        return sp;
      });
      const spec: ServiceSpec = { ports, selector: { app: o.name }, type };
      // kubectl's ports slice is empty, and omitted, without --tcp (ExternalName, headless ClusterIP).
      if (!ports.length) delete spec.ports;
      if (type === "ExternalName") spec.externalName = o.externalName;
      if (o.clusterIP) spec.clusterIP = o.clusterIP;
      const obj = { apiVersion: "v1", kind: "Service", metadata: { creationTimestamp: null, labels: { app: o.name }, name: o.name }, spec, status: { loadBalancer: {} } };
      finishCreate(R.services, obj, o.p, ctx, out, "created", undefined, `failed to create ${type} service`);
    },
  };
}

/** The four generators (only clusterip takes --clusterip). */
const KINDS: Readonly<Record<string, KubectlCommand<ServiceOptions>>> = {
  clusterip: serviceCommand("clusterip", "ClusterIP", [f("tcp", "array"), f("clusterip", "string")]),
  externalname: serviceCommand("externalname", "ExternalName", [f("tcp", "array"), f("external-name", "string")], ["external-name"]),
  loadbalancer: serviceCommand("loadbalancer", "LoadBalancer", [f("tcp", "array")]),
  nodeport: serviceCommand("nodeport", "NodePort", [f("tcp", "array"), f("node-port", "int")]),
};

export const createServiceCommand: CommandGroup = {
  name: "create service",
  subcommands: KINDS,
  pick(rest) {
    const args = subcommandFirst(rest);
    const kind = args[0]?.startsWith("-") ? undefined : args[0];
    const command = kind === undefined ? undefined : own(KINDS, kind);
    if (!command) throw new KubectlError(kind ? `unknown command "${kind}" for "kubectl create service"` : `must specify a type of service: clusterip, externalname, loadbalancer, nodeport`);
    return { command, args: args.slice(1) };
  },
};

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
