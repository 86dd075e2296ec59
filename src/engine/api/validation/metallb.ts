// metallb.io/v1beta1: the CRDs' OpenAPI checks (as the apiserver words them for CRDs) and MetalLB's
// validating webhooks (internal/k8s/webhooks/webhookv1beta1, internal/config/config.go). A webhook
// denial is not a 422 field error: the apiserver returns it as
//   admission webhook "<name>" denied the request: <message>
// with the webhook's code (403), so it is exposed separately by metallbWebhookDenial.

import { field, type FieldError } from "../status";
import { validateLabelSelector, validateObjectMeta } from "./meta";
import { nameIsDNSSubdomain } from "./names";
import { ipv4Octets, parseIPv6 } from "../../util/ip.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

const METALLB_NAMESPACE = "metallb-system";

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

export function validateIPAddressPool(p: any): FieldError[] {
  const errs = validateObjectMeta(p?.metadata, true, nameIsDNSSubdomain);
  if (!Array.isArray(p?.spec?.addresses)) errs.push(field.required("spec.addresses"));
  const sa = p?.spec?.serviceAllocation;
  if (sa) {
    arr(sa.namespaceSelectors).forEach((s, i) => errs.push(...validateLabelSelector(s, `spec.serviceAllocation.namespaceSelectors[${i}]`)));
    arr(sa.serviceSelectors).forEach((s, i) => errs.push(...validateLabelSelector(s, `spec.serviceAllocation.serviceSelectors[${i}]`)));
  }
  return errs;
}

export function validateL2Advertisement(a: any): FieldError[] {
  const errs = validateObjectMeta(a?.metadata, true, nameIsDNSSubdomain);
  for (const k of ["ipAddressPoolSelectors", "nodeSelectors", "serviceSelectors"]) {
    arr(a?.spec?.[k]).forEach((s, i) => errs.push(...validateLabelSelector(s, `spec.${k}[${i}]`)));
  }
  return errs;
}

const parseIP = (s: string) => ipv4Octets(s) ?? (parseIPv6(s) ? s : null);

/** config.ParseCIDR's error for one entry of spec.addresses, or null when it parses. */
function parseAddressError(cidr: string): string | null {
  if (!cidr.includes("-")) {
    const slash = cidr.indexOf("/");
    const ip = slash < 0 ? "" : cidr.slice(0, slash);
    const bits = slash < 0 ? "" : cidr.slice(slash + 1);
    const v4 = ipv4Octets(ip);
    const max = v4 ? 32 : parseIPv6(ip) ? 128 : -1;
    if (max < 0 || !/^[0-9]+$/.test(bits) || Number(bits) > max) return `invalid CIDR ${JSON.stringify(cidr)}`;
    return null;
  }
  const i = cidr.indexOf("-");
  const fs = [cidr.slice(0, i), cidr.slice(i + 1)];
  const start = fs[0].trim();
  const end = fs[1].trim();
  if (!parseIP(start)) return `invalid IP range ${JSON.stringify(cidr)}: invalid start IP ${JSON.stringify(fs[0])}`;
  if (!parseIP(end)) return `invalid IP range ${JSON.stringify(cidr)}: invalid end IP ${JSON.stringify(fs[1])}`;
  const a = ipv4Octets(start);
  const b = ipv4Octets(end);
  if (a && b) {
    const k = a.findIndex((_, j) => a[j] !== b[j]);
    if (k >= 0 && a[k] > b[k]) {
      return `invalid IP range ${JSON.stringify(cidr)}: start IP ${JSON.stringify(start)} is after the end IP ${JSON.stringify(end)}`;
    }
  }
  return null;
}

/**
 * The webhook's verdict on a create or update: null when admitted, else the denial message
 * (without the `admission webhook "..." denied the request: ` prefix, see webhookName).
 * Overlap with other pools needs the cluster's pools and is not checked here.
 */
export function metallbWebhookDenial(kind: string, obj: any, isCreate = true): string | null {
  if (kind !== "IPAddressPool" && kind !== "L2Advertisement") return null;
  if (isCreate && obj?.metadata?.namespace !== METALLB_NAMESPACE) return `resource must be created in ${METALLB_NAMESPACE} namespace`;
  if (kind === "L2Advertisement") return null;
  const name = obj?.metadata?.name ?? "";
  const addrs = arr(obj?.spec?.addresses);
  if (addrs.length === 0) return `parsing address pool ${name}: pool has no prefixes defined`;
  for (const c of addrs) {
    const e = parseAddressError(String(c));
    if (e) return `parsing address pool ${name}: invalid CIDR ${JSON.stringify(String(c))} in pool ${JSON.stringify(name)}: ${e}`;
  }
  return null;
}
