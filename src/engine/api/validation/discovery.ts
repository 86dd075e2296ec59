// discovery.k8s.io/v1 EndpointSlice validation: pkg/apis/discovery/validation/validation.go.

import { field, type FieldError } from "../status";
import { FIELD_IMMUTABLE, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from "./meta";
import { dns1123Label, SUPPORTED_PROTOCOLS, validateNonSpecialIP } from "./core";
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from "./names";
import { formatIPv6, ipv4Octets, parseIPv6 } from "../../util/ip.js";
import { goQ } from "./gofmt";

/* eslint-disable @typescript-eslint/no-explicit-any */

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

function isValidIPv4Address(path: string, v: string): FieldError[] {
  if (ipv4Octets(v)) return [];
  if (parseIPv6(v)) return [field.invalid(path, v, "must be a valid IPv4 address")];
  return [field.invalid(path, v, "must be a valid IPv4 address")];
}

function isValidIPv6Address(path: string, v: string): FieldError[] {
  const h = ipv4Octets(v) ? null : parseIPv6(v);
  if (!h) return [field.invalid(path, v, "must be a valid IPv6 address")];
  const canon = formatIPv6(h);
  if (canon !== v) return [field.invalid(path, v, `must be in canonical form (${goQ(canon)})`)];
  return [];
}

function isFQDN(path: string, name: string): FieldError[] {
  if (!name) return [field.required(path)];
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  const e = isDNS1123Subdomain(n);
  if (e.length) return [field.invalid(path, n, e.join(","))];
  if (n.split(".").length < 2) return [field.invalid(path, n, "should be a domain with at least two segments separated by dots")];
  for (const l of n.split(".")) {
    const le = isDNS1123Label(l);
    if (le.length) return [field.invalid(path, l, le.join(","))];
  }
  return [];
}

export function validateEndpointSlice(es: any, allowed = ADDRESS_TYPES): FieldError[] {
  const errs = validateObjectMeta(es?.metadata, true, nameIsDNSSubdomain);
  const at = es?.addressType ?? "";
  if (at === "") errs.push(field.required("addressType"));
  else if (!allowed.includes(at)) errs.push(field.notSupported("addressType", at, allowed));
  const eps = arr(es?.endpoints);
  if (eps.length > MAX_ENDPOINTS) errs.push(field.tooMany("endpoints", eps.length, MAX_ENDPOINTS));
  else {
    eps.forEach((ep, i) => {
      const idx = `endpoints[${i}]`;
      const ap = `${idx}.addresses`;
      const addrs = arr(ep?.addresses);
      if (addrs.length === 0) errs.push(field.required(ap, "must contain at least 1 address"));
      else if (addrs.length > MAX_ADDRESSES) errs.push(field.tooMany(ap, addrs.length, MAX_ADDRESSES));
      addrs.forEach((a, j) => {
        const p = `${ap}[${j}]`;
        if (at === "IPv4") errs.push(...isValidIPv4Address(p, a), ...validateNonSpecialIP(a, p));
        else if (at === "IPv6") errs.push(...isValidIPv6Address(p, a), ...validateNonSpecialIP(a, p));
        else if (at === "FQDN") errs.push(...isFQDN(p, a));
      });
      const topo = ep?.deprecatedTopology;
      if (topo && Object.keys(topo).length > 16) errs.push(field.tooMany(`${idx}.topology`, Object.keys(topo).length, 16));
      errs.push(...validateLabels(topo, `${idx}.topology`));
      if (ep?.hostname !== undefined && ep?.hostname !== null) errs.push(...dns1123Label(ep.hostname, `${idx}.hostname`));
    });
  }
  const ports = arr(es?.ports);
  if (ports.length > MAX_PORTS) errs.push(field.tooMany("ports", ports.length, MAX_PORTS));
  else {
    const names = new Set<string>();
    ports.forEach((p, i) => {
      const idx = `ports[${i}]`;
      const name: string = p?.name ?? "";
      if (name) errs.push(...dns1123Label(name, `${idx}.name`));
      if (names.has(name)) errs.push(field.duplicate(`${idx}.name`, name));
      else names.add(name);
      if (p?.protocol === undefined || p?.protocol === null) errs.push(field.required(`${idx}.protocol`));
      else if (!SUPPORTED_PROTOCOLS.includes(p.protocol)) errs.push(field.notSupported(`${idx}.protocol`, p.protocol, SUPPORTED_PROTOCOLS));
      if (p?.appProtocol !== undefined && p?.appProtocol !== null) {
        for (const m of isQualifiedName(p.appProtocol)) errs.push(field.invalid(`${idx}.appProtocol`, p.appProtocol, m));
      }
    });
  }
  return errs;
}

export function validateEndpointSliceUpdate(es: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(es?.metadata, old?.metadata);
  errs.push(...validateEndpointSlice(es, ["FQDN", "IP", "IPv4", "IPv6"]).filter((e) => !e.field.startsWith("metadata.")));
  if ((es?.addressType ?? "") !== (old?.addressType ?? "")) errs.push(field.invalid("addressType", es?.addressType ?? "", FIELD_IMMUTABLE));
  return errs;
}
