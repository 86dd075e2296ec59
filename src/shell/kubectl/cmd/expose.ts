// kubectl expose (pkg/cmd/expose): a Service for a pod, service or workload's selector and ports.

import type { Container, DaemonSet, Deployment, ObjectMeta, ReplicaSet, ReplicationController, StatefulSet, Pod, Service, ServicePort, ServiceSpec } from "../../../engine/api/types.js";
import { R } from "../../../engine/api/resources.js";
import { dryRun, f, labelsFromString, nsOf, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";
import { podSpecOf } from "../pods.js";
import { get, resourceArgs } from "../targets.js";

interface ExposeOptions {
  args: string[];
  /** The service's flags (--port, --type, ...), the namespace and the printing flags. */
  p: Parsed;
}

/**
 * expose.go: the builder in Run finds the object; its selector and ports (or the flags') make
 * the Service, created as a generator's object is.
 */
export const exposeCommand: KubectlCommand<ExposeOptions> = {
  name: "expose",
  flags: [...OUTPUT_FLAGS, f("port", "string"), f("target-port", "string"), f("type", "string"), f("selector", "string"), f("name", "string"), f("protocol", "string"), f("labels", "string", "l"), f("external-ip", "string"), f("cluster-ip", "string"), f("session-affinity", "string"), f("load-balancer-ip", "string"), f("filename", "array", "f"), f("save-config", "bool"), f("override-type", "string"), f("overrides", "string")],
  // Complete reads --dry-run (finishCreate acts on it) before the builder runs.
  complete(p) {
    dryRun(p);
    return { args: p.args, p };
  },
  validate: noValidation,
  run(o, ctx, out) {
    const p = o.p;
    const groups = resourceArgs(o.args, ctx);
    if (!groups.length || !groups[0].names.length) throw new KubectlError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
    const { info, names } = groups[0];
    const ns = nsOf(p, ctx);
    const src = get(ctx, info, ns, names[0]);
    let selector: Record<string, string> | undefined;
    let ports: number[] = [];
    let protocol = str(p, "protocol");
    if (info === R.pods) {
      selector = src.metadata.labels ?? undefined;
      ports = containerPorts((src as Pod).spec.containers);
    } else if (info === R.services) {
      selector = (src as Service).spec?.selector ?? undefined;
      ports = ((src as Service).spec?.ports ?? []).map((x) => x.port);
    } else if (info === R.replicationcontrollers) {
      // MapBasedSelectorForObject: an RC's selector is a label map already.
      selector = (src as ReplicationController).spec?.selector ?? undefined;
      ports = containerPorts(podSpecOf(info, src)?.containers);
    } else if ([R.deployments, R.replicasets, R.daemonsets, R.statefulsets].includes(info)) {
      const workload = src as Deployment | ReplicaSet | DaemonSet | StatefulSet;
      const ml = workload.spec?.selector?.matchLabels ?? undefined;
      if (workload.spec?.selector?.matchExpressions?.length) throw new KubectlError(`couldn't retrieve selectors via --selector flag or introspection: the ${info.kind} has match expressions`);
      selector = ml;
      ports = containerPorts(podSpecOf(info, src)?.containers);
    } else {
      throw new KubectlError(`cannot expose a ${info.kind}`);
    }
    if (str(p, "selector")) selector = labelsFromString(str(p, "selector")!);
    if (!selector || !Object.keys(selector).length) throw new KubectlError(`couldn't retrieve selectors via --selector flag or introspection: the ${info.kind} has no labels`);
    const portFlag = str(p, "port");
    const svcPorts: ServicePort[] = [];
    const tp = str(p, "target-port");
    const target = (port: number) => (tp === undefined ? port : /^\d+$/.test(tp) ? Number(tp) : tp);
    if (portFlag) {
      for (const x of portFlag.split(",")) svcPorts.push({ port: Number(x), protocol: protocol ?? "TCP", targetPort: target(Number(x)) });
    } else {
      if (!ports.length) throw new KubectlError(`couldn't find port via --port flag or introspection\nSee 'kubectl expose -h' for help and examples`);
      ports.forEach((x, i) => svcPorts.push({ ...(ports.length > 1 ? { name: `port-${i + 1}` } : {}), port: x, protocol: protocol ?? "TCP", targetPort: target(x) }));
    }
    protocol = undefined;
    const name = str(p, "name") ?? names[0];
    const labels = str(p, "labels") ? labelsFromString(str(p, "labels")!) : src.metadata.labels;
    const spec: ServiceSpec = { ports: svcPorts, selector };
    if (str(p, "type")) spec.type = str(p, "type");
    if (str(p, "cluster-ip")) spec.clusterIP = str(p, "cluster-ip");
    if (str(p, "external-ip")) spec.externalIPs = str(p, "external-ip")!.split(",");
    if (str(p, "session-affinity")) spec.sessionAffinity = str(p, "session-affinity");
    if (str(p, "load-balancer-ip")) spec.loadBalancerIP = str(p, "load-balancer-ip");
    const metadata: ObjectMeta = { creationTimestamp: null, name };
    if (labels && Object.keys(labels).length) metadata.labels = labels;
    const obj = { apiVersion: "v1", kind: "Service", metadata, spec, status: { loadBalancer: {} } };
    finishCreate(R.services, obj, p, ctx, out, "exposed", ns);
  },
};

/** The container ports a pod spec declares, in order. */
function containerPorts(containers: Container[] | undefined): number[] {
  return (containers ?? []).flatMap((c) => (c.ports ?? []).map((x) => x.containerPort));
}
