// kubectl create ingress (pkg/cmd/create/create_ingress.go): rules `host/path=svc:port[,tls[=secret]]`,
// a default backend, a class and annotations, made into a networking.k8s.io/v1 Ingress as
// createIngress builds it.

import { R } from "../../../engine/api/resources.js";
import { dryRun, f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, type Parsed, str } from "../flags.js";
import { finishCreate } from "../generated.js";

interface IngressOptions {
  name: string;
  rules: string[];
  defaultBackend?: string;
  ingressClass?: string;
  annotations: string[];
  p: Parsed;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

/** ruleRegex: regexHostPathSvc + regexTLS (matched at the start only, as MatchString does). */
const RULE = /^([\w*\-.]*)(\/.*)=([\w-]+):([\w-]+)(,(tls)=?([\w-]+)?)?/;

/** parseServiceBackendPort: intstr.Parse, a number or a name. */
function backendPort(port: string): Obj {
  return /^-?\d+$/.test(port) && Number.isSafeInteger(Number(port)) ? { number: Number(port) } : { name: port };
}

function backend(service: string): Obj {
  const [name, port] = service.split(":");
  return { service: { name, port: backendPort(port) } };
}

function httpPath(pathsvc: string): Obj {
  const parts = pathsvc.split("=");
  let path = `/${parts[0]}`;
  let pathType = "Exact";
  // A trailing * makes the path a Prefix, without the *.
  if (path.endsWith("*")) {
    pathType = "Prefix";
    path = path.slice(0, -1);
  }
  return { path, pathType, backend: backend(parts[1]) };
}

function tlsRules(rules: string[]): Obj[] {
  const seen = new Set<string>();
  const out: Obj[] = [];
  for (const rule of rules) {
    const tls = rule.split(",");
    if (tls.length !== 2) continue;
    const host = rule.split("/")[0];
    const secretName = tls[1].split("=");
    const secret = secretName.length > 1 ? secretName[1] : "";
    const idx = out.findIndex((t) => (t.secretName ?? "") === secret);
    // The same host goes into TLS once.
    if (seen.has(host)) continue;
    if (idx > -1) {
      (out[idx].hosts ??= []).push(host);
      seen.add(host);
      continue;
    }
    const t: Obj = {};
    if (host) t.hosts = [host];
    if (secret) t.secretName = secret;
    if (t.secretName || t.hosts) out.push(t);
    seen.add(host);
  }
  return out;
}

function ingressRules(rules: string[]): Obj[] {
  const out: Obj[] = [];
  for (const rule of rules) {
    const noTLS = rule.split(",")[0];
    const slash = noTLS.indexOf("/");
    const host = noTLS.slice(0, slash);
    const path = httpPath(noTLS.slice(slash + 1));
    const idx = out.findIndex((r) => (r.host ?? "") === host);
    if (idx > -1) {
      out[idx].http.paths.push(path);
      continue;
    }
    out.push({ ...(host ? { host } : {}), http: { paths: [path] } });
  }
  return out;
}

export const createIngressCommand: KubectlCommand<IngressOptions> = {
  name: "create ingress",
  flags: [
    ...OUTPUT_FLAGS,
    f("class", "string"),
    f("rule", "array"),
    f("default-backend", "string"),
    f("annotation", "array"),
    f("save-config", "bool"),
    f("validate", "string"),
    f("field-manager", "string"),
  ],
  complete(p) {
    if (p.args.length !== 1) throw new KubectlError(`exactly one NAME is required, got ${p.args.length}\nSee 'kubectl create ingress -h' for help and examples`);
    dryRun(p);
    return { name: p.args[0], rules: arr(p, "rule"), defaultBackend: str(p, "default-backend"), ingressClass: str(p, "class"), annotations: arr(p, "annotation"), p };
  },
  validate(o) {
    if (!o.defaultBackend && !o.rules.length) {
      throw new KubectlError("not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)");
    }
    for (const rule of o.rules) if (!RULE.test(rule)) throw new KubectlError(`rule ${rule} is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]`);
    for (const a of o.annotations) if (!a.includes("=")) throw new KubectlError(`annotation ${a} is invalid and should be in format key=[value]`);
    if (o.defaultBackend && o.defaultBackend.split(":").length !== 2) throw new KubectlError("default-backend should be in format servicename:serviceport");
  },
  run(o, ctx, out) {
    const annotations: Record<string, string> = {};
    for (const a of o.annotations) {
      const i = a.indexOf("=");
      annotations[a.slice(0, i)] = a.slice(i + 1);
    }
    const spec: Obj = {};
    if (o.ingressClass) spec.ingressClassName = o.ingressClass;
    if (o.defaultBackend) spec.defaultBackend = backend(o.defaultBackend);
    const tls = tlsRules(o.rules);
    if (tls.length) spec.tls = tls;
    const rules = ingressRules(o.rules);
    if (rules.length) spec.rules = rules;
    const metadata: Obj = { creationTimestamp: null, name: o.name };
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    const obj = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata, spec, status: { loadBalancer: {} } };
    finishCreate(R.ingresses, obj, o.p, ctx, out, "created", undefined, "failed to create ingress");
  },
};
