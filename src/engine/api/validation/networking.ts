// networking.k8s.io/v1 validation: pkg/apis/networking/validation (v1.33) ValidateIngressCreate /
// Update and ValidateIngressClass, for requests in networking.k8s.io/v1.

import { field, type FieldError, GoValue } from "../status";
import { validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { isDNS1123Subdomain, isValidPortName, isValidPortNum, nameIsDNS1035Label, nameIsDNSSubdomain } from "./names";

/* eslint-disable @typescript-eslint/no-explicit-any */

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function isWildcardDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push("must be no more than 253 characters");
  if (!/^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(v)) errs.push(WILDCARD_MSG);
  return errs;
}

const isIP = (h: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || (h.includes(":") && /^[0-9a-fA-F:.]+$/.test(h));

function validateHost(host: string, path: string): FieldError[] {
  const msgs = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
  return msgs.map((m) => field.invalid(path, host, m));
}

function validateBackend(b: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const hasResource = !!b?.resource;
  const hasService = !!b?.service;
  if (hasResource && hasService) return [field.invalid(path, "", "cannot set both resource and service backends")];
  if (hasResource) {
    const r = b.resource;
    if (r.apiGroup) errs.push(...isDNS1123Subdomain(r.apiGroup).map((m) => field.invalid(`${path}.resource.apiGroup`, r.apiGroup, m)));
    if (!r.kind) errs.push(field.required(`${path}.resource.kind`, "kind is required"));
    if (!r.name) errs.push(field.required(`${path}.resource.name`, "name is required"));
    return errs;
  }
  if (!hasService) return [field.invalid(path, "", "resource or service backend is required")];
  const svc = b.service;
  if (!svc.name) errs.push(field.required(`${path}.service.name`));
  else errs.push(...nameIsDNS1035Label(svc.name, false).map((m) => field.invalid(`${path}.service.name`, svc.name, m)));
  const name: string = svc.port?.name ?? "";
  const number: number = svc.port?.number ?? 0;
  if (name && number) errs.push(field.invalid(path, "", "cannot set both port name & port number"));
  else if (name) errs.push(...isValidPortName(name).map((m) => field.invalid(`${path}.service.port.name`, name, m)));
  else if (number) errs.push(...isValidPortNum(number).map((m) => field.invalid(`${path}.service.port.number`, number, m)));
  else errs.push(field.required(path, "port name or number is required"));
  return errs;
}

function validatePath(p: any, path: string): FieldError[] {
  if (p?.pathType === undefined || p?.pathType === null) return [field.required(`${path}.pathType`, "pathType must be specified")];
  const errs: FieldError[] = [];
  const value: string = p.path ?? "";
  if (p.pathType === "Exact" || p.pathType === "Prefix") {
    if (!value.startsWith("/")) errs.push(field.invalid(`${path}.path`, value, "must be an absolute path"));
    if (value) {
      for (const seq of INVALID_SEQUENCES) if (value.includes(seq)) errs.push(field.invalid(`${path}.path`, value, `must not contain '${seq}'`));
      for (const suf of INVALID_SUFFIXES) if (value.endsWith(suf)) errs.push(field.invalid(`${path}.path`, value, `cannot end with '${suf}'`));
    }
  } else if (p.pathType === "ImplementationSpecific") {
    if (value && !value.startsWith("/")) errs.push(field.invalid(`${path}.path`, value, "must be an absolute path"));
  } else {
    errs.push(field.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(p.backend, `${path}.backend`));
  return errs;
}

function validateIngressSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  const rules: any[] = spec.rules ?? [];
  if (!rules.length && !spec.defaultBackend) errs.push(field.invalid("spec", new GoValue("[]networking.IngressRule(nil)"), "either `defaultBackend` or `rules` must be specified"));
  if (spec.defaultBackend) errs.push(...validateBackend(spec.defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const host: string = rule?.host ?? "";
    if (host) {
      if (isIP(host)) errs.push(field.invalid(`${path}.host`, host, "must be a DNS name, not an IP address"));
      errs.push(...validateHost(host, `${path}.host`));
    }
    if (rule?.http) {
      const paths: any[] = rule.http.paths ?? [];
      if (!paths.length) errs.push(field.required(`${path}.http.paths`));
      paths.forEach((p, j) => errs.push(...validatePath(p, `${path}.http.paths[${j}]`)));
    }
  });
  (spec.tls ?? []).forEach((tls: any, i: number) => {
    (tls?.hosts ?? []).forEach((h: string, j: number) => errs.push(...validateHost(h, `spec.tls[${i}].hosts[${j}]`)));
    if (tls?.secretName) errs.push(...nameIsDNSSubdomain(tls.secretName, false).map((m) => field.invalid(`spec.tls[${i}].secretName`, tls.secretName, m)));
  });
  if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) {
    errs.push(...nameIsDNSSubdomain(spec.ingressClassName, false).map((m) => field.invalid("spec.ingressClassName", spec.ingressClassName, m)));
  }
  return errs;
}

export function validateIngress(ing: any): FieldError[] {
  const errs = validateObjectMeta(ing?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validateIngressSpec(ing?.spec ?? {}));
  return errs;
}

export function validateIngressUpdate(ing: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(ing?.metadata, old?.metadata);
  errs.push(...validateIngressSpec(ing?.spec ?? {}));
  return errs;
}

export function validateIngressClass(ic: any): FieldError[] {
  const errs = validateObjectMeta(ic?.metadata, false, nameIsDNSSubdomain);
  const controller: string = ic?.spec?.controller ?? "";
  if (controller.length > 250) errs.push(field.tooLong("spec.controller", controller, 250));
  // IsDomainPrefixedPath
  if (!controller) errs.push(field.required("spec.controller"));
  else {
    const slash = controller.indexOf("/");
    const host = slash < 0 ? controller : controller.slice(0, slash);
    if (slash < 0) errs.push(field.invalid("spec.controller", controller, "must be a domain-prefixed path (such as \"acme.io/foo\")"));
    else errs.push(...isDNS1123Subdomain(host).map((m) => field.invalid("spec.controller", host, m)));
  }
  const p = ic?.spec?.parameters;
  if (p) {
    if (!p.kind) errs.push(field.required("spec.parameters.kind", "kind is required"));
    if (!p.name) errs.push(field.required("spec.parameters.name", "name is required"));
  }
  return errs;
}

export function validateIngressClassUpdate(ic: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(ic?.metadata, old?.metadata);
  if ((ic?.spec?.controller ?? "") !== (old?.spec?.controller ?? "")) errs.push(field.invalid("spec.controller", ic?.spec?.controller ?? "", "field is immutable"));
  errs.push(...validateIngressClass(ic).filter((e) => !e.field.startsWith("metadata.")));
  return errs;
}
