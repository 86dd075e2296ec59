// A container's environment as the kubelet builds it (K/pkg/kubelet/kubelet_pods.go
// makeEnvironmentVariables, K/pkg/kubelet/envvars/envvars.go), and its resolv.conf
// (K/pkg/kubelet/network/dns/dns.go).

import type { ConfigMap, Container, Pod, Service } from "../api/types.js";

export interface ServiceEnvSource {
  name: string;
  namespace: string;
  clusterIP: string;
  ports: { name?: string; port: number; protocol?: string }[];
}

export function serviceEnvSource(svc: Service): ServiceEnvSource | undefined {
  const ip = svc.spec?.clusterIP;
  // Headless and ExternalName services have no cluster IP and give no variables.
  if (!ip || ip === "None") return undefined;
  return {
    name: svc.metadata.name!,
    namespace: svc.metadata.namespace!,
    clusterIP: ip,
    ports: (svc.spec?.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
  };
}

function envName(s: string): string {
  return s.toUpperCase().replace(/-/g, "_");
}

/** envvars.FromServices: the Docker-link style variables of each service, in order. */
function serviceEnvVars(services: readonly ServiceEnvSource[]): [string, string][] {
  const out: [string, string][] = [];
  for (const svc of services) {
    const name = envName(svc.name);
    const host = svc.clusterIP;
    if (svc.ports.length === 0) continue;
    out.push([`${name}_SERVICE_HOST`, host]);
    out.push([`${name}_SERVICE_PORT`, String(svc.ports[0].port)]);
    for (const p of svc.ports) if (p.name) out.push([`${name}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
    const addr = host.includes(":") ? `[${host}]` : host;
    const first = svc.ports[0];
    out.push([`${name}_PORT`, `${(first.protocol ?? "TCP").toLowerCase()}://${addr}:${first.port}`]);
    for (const p of svc.ports) {
      const proto = (p.protocol ?? "TCP").toUpperCase();
      const prefix = `${name}_PORT_${p.port}_${proto}`;
      out.push([prefix, `${proto.toLowerCase()}://${addr}:${p.port}`]);
      out.push([`${prefix}_PROTO`, proto.toLowerCase()]);
      out.push([`${prefix}_PORT`, String(p.port)]);
      out.push([`${prefix}_ADDR`, host]);
    }
  }
  return out;
}

/** Expands $(VAR) references as the kubelet does ($$ escapes a dollar; unknown refs stay). */
function expandEnv(value: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "$" && i + 1 < value.length) {
      const n = value[i + 1];
      if (n === "$") {
        out += "$";
        i++;
        continue;
      }
      if (n === "(") {
        const end = value.indexOf(")", i + 2);
        if (end > 0) {
          const ref = value.slice(i + 2, end);
          const v = lookup(ref);
          out += v ?? `$(${ref})`;
          i = end;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

interface EnvInputs {
  pod: Pod;
  container: Container;
  imageEnv: Record<string, string>;
  /** Services visible to the container (already filtered by namespace and start time). */
  services: readonly ServiceEnvSource[];
  configMaps: (name: string) => ConfigMap | undefined;
  nodeIP: string;
  tty: boolean;
}

/** The container's environment in the order `env` prints it. */
export function containerEnv(inp: EnvInputs): [string, string][] {
  const { pod, container } = inp;
  const result = new Map<string, string>();
  for (const [k, v] of Object.entries(inp.imageEnv)) result.set(k, v);
  result.set("HOSTNAME", pod.spec.hostname ?? pod.metadata.name!);
  // Service variables first, so explicit env wins (kubelet builds the service map, then applies container env).
  const serviceVars = serviceEnvVars(inp.services);
  const explicit = new Map<string, string>();
  const lookup = (n: string) => explicit.get(n) ?? serviceVars.find(([k]) => k === n)?.[1];
  for (const src of container.envFrom ?? []) {
    const cm = src.configMapRef?.name ? inp.configMaps(src.configMapRef.name) : undefined;
    for (const [k, v] of Object.entries(cm?.data ?? {})) explicit.set(`${src.prefix ?? ""}${k}`, v);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) explicit.set(e.name, expandEnv(e.value, lookup));
    else if (e.valueFrom?.fieldRef) explicit.set(e.name, fieldRefValue(pod, e.valueFrom.fieldRef.fieldPath, inp.nodeIP));
    else if (e.valueFrom?.configMapKeyRef) {
      const cm = inp.configMaps(e.valueFrom.configMapKeyRef.name ?? "");
      const v = cm?.data?.[e.valueFrom.configMapKeyRef.key];
      if (v !== undefined) explicit.set(e.name, v);
    } else explicit.set(e.name, "");
  }
  for (const [k, v] of serviceVars) if (!explicit.has(k)) result.set(k, v);
  for (const [k, v] of explicit) result.set(k, v);
  if (inp.tty) result.set("TERM", "xterm");
  if (!result.has("HOME")) result.set("HOME", "/root");
  return [...result.entries()];
}

function fieldRefValue(pod: Pod, path: string, nodeIP: string): string {
  switch (path) {
    case "metadata.name":
      return pod.metadata.name ?? "";
    case "metadata.namespace":
      return pod.metadata.namespace ?? "";
    case "metadata.uid":
      return pod.metadata.uid ?? "";
    case "spec.nodeName":
      return pod.spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.hostIP":
      return nodeIP;
    case "status.podIP":
      return pod.status?.podIP ?? "";
    default: {
      const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
      if (m) return (pod.metadata[m[1] as "labels" | "annotations"] ?? {})[m[2]] ?? "";
      return "";
    }
  }
}

interface DnsSettings {
  clusterDNS: string;
  clusterDomain: string;
  /** The node's own resolv.conf (dnsPolicy Default). */
  nodeResolvConf: string;
}

/** /etc/resolv.conf of a pod, per its dnsPolicy and dnsConfig. */
export function resolvConf(pod: Pod, dns: DnsSettings): string {
  let policy = pod.spec.dnsPolicy ?? "ClusterFirst";
  if (policy === "ClusterFirst" && pod.spec.hostNetwork) policy = "Default";
  let nameservers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  if (policy === "ClusterFirst" || policy === "ClusterFirstWithHostNet") {
    const ns = pod.metadata.namespace!;
    nameservers = [dns.clusterDNS];
    searches = [`${ns}.svc.${dns.clusterDomain}`, `svc.${dns.clusterDomain}`, dns.clusterDomain];
    options = ["ndots:5"];
  } else if (policy === "Default") {
    for (const line of dns.nodeResolvConf.split("\n")) {
      const [k, ...rest] = line.trim().split(/\s+/);
      if (k === "nameserver") nameservers.push(...rest);
      else if (k === "search") searches.push(...rest);
      else if (k === "options") options.push(...rest);
    }
  }
  const cfg = pod.spec.dnsConfig;
  if (cfg) {
    nameservers.push(...(cfg.nameservers ?? []));
    searches.push(...(cfg.searches ?? []));
    for (const o of cfg.options ?? []) {
      const opt = o.value !== undefined ? `${o.name}:${o.value}` : (o.name ?? "");
      const name = o.name ?? "";
      options = options.filter((x) => x.split(":")[0] !== name);
      options.push(opt);
    }
  }
  const uniq = (xs: string[]) => [...new Set(xs)];
  const lines: string[] = [];
  if (searches.length) lines.push(`search ${uniq(searches).join(" ")}`);
  for (const n of uniq(nameservers).slice(0, 3)) lines.push(`nameserver ${n}`);
  if (options.length) lines.push(`options ${uniq(options).join(" ")}`);
  return lines.join("\n") + "\n";
}
