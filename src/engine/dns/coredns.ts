// CoreDNS's kubernetes plugin (dns/docs/specification.md, schema 1.1.0) answering from the
// store: A for ClusterIP Services, one A per ready endpoint for headless Services and
// <hostname>.<svc> records, SRV per named port, PTR, CNAME for ExternalName, NXDOMAIN otherwise.
// Names outside the cluster domain go to the node's resolver (10.1.8.2), which has no internet
// behind it: NXDOMAIN for everything. Pure: reads the store only.
import { key as rkey } from "../apiserver/apiserver.js";
import { R } from "../api/resources.js";
import type { EndpointSlice, Service } from "../api/types.js";
import type { Store } from "../store/store.js";

export type RRType = "A" | "SRV" | "PTR" | "CNAME" | "TXT" | "AAAA";

export interface RR {
  name: string;
  ttl: number;
  type: RRType;
  /** A: address; CNAME/PTR: target name; SRV: "prio weight port target"; TXT: quoted text. */
  data: string;
}

export interface DnsAnswer {
  rcode: "NOERROR" | "NXDOMAIN" | "SERVFAIL";
  answers: RR[];
  /** Which server answered: CoreDNS (cluster domain) or the upstream resolver. */
  authority: "cluster" | "upstream";
}

const SERVICES = rkey(R.services);
const SLICES = rkey(R.endpointslices);
const TTL = 30; // kubeadm's Corefile: ttl 30
export const UPSTREAM_RESOLVER = "10.1.8.2";

export interface DnsOptions {
  domain: string;
}

function fqdn(n: string): string {
  return n.endsWith(".") ? n : `${n}.`;
}

export class CoreDNS {
  constructor(
    private readonly store: Store,
    private readonly opts: DnsOptions = { domain: "cluster.local" },
  ) {}

  private service(ns: string, name: string): Service | undefined {
    return this.store.get(SERVICES, ns, name) as Service | undefined;
  }

  private slices(ns: string, svc: string): EndpointSlice[] {
    return (this.store.list(SLICES, ns) as unknown as EndpointSlice[]).filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === svc && s.addressType === "IPv4");
  }

  /** Ready (or published-not-ready) endpoints of a headless service, deduplicated by address. */
  private endpoints(svc: Service): { ip: string; hostname?: string }[] {
    const ns = svc.metadata.namespace!;
    const all = svc.spec?.publishNotReadyAddresses === true;
    const out = new Map<string, { ip: string; hostname?: string }>();
    for (const sl of this.slices(ns, svc.metadata.name!)) {
      for (const e of sl.endpoints ?? []) {
        if (!all && e.conditions?.ready === false) continue;
        for (const ip of e.addresses) if (!out.has(ip)) out.set(ip, { ip, hostname: e.hostname ?? undefined });
      }
    }
    return [...out.values()].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  }

  /** Is `name` (fully qualified) inside the cluster zone? */
  inZone(name: string): boolean {
    const n = fqdn(name.toLowerCase());
    const z = `${this.opts.domain}.`;
    return n === z || n.endsWith(`.${z}`) || n.endsWith(".in-addr.arpa.");
  }

  query(qname: string, qtype: RRType): DnsAnswer {
    const name = fqdn(qname.toLowerCase());
    if (!this.inZone(name)) return { rcode: "NXDOMAIN", answers: [], authority: "upstream" };
    if (name.endsWith(".in-addr.arpa.")) return this.ptr(name);
    const zone = `.${this.opts.domain}.`;
    const rel = name.slice(0, name.length - zone.length);
    const labels = rel.split(".");
    const nx: DnsAnswer = { rcode: "NXDOMAIN", answers: [], authority: "cluster" };
    const empty: DnsAnswer = { rcode: "NOERROR", answers: [], authority: "cluster" };
    if (rel === `dns-version`) return qtype === "TXT" ? { rcode: "NOERROR", answers: [{ name, ttl: TTL, type: "TXT", data: '"1.1.0"' }], authority: "cluster" } : empty;
    // <svc>.<ns>.svc | <host>.<svc>.<ns>.svc | _port._proto.<svc>.<ns>.svc
    if (labels[labels.length - 1] !== "svc") return nx;
    const l = labels.slice(0, -1);
    if (l.length === 1) {
      // <ns>.svc: exists if the namespace has services
      return this.store.list(SERVICES, l[0]).length ? empty : nx;
    }
    if (l.length === 2) {
      const [svcName, ns] = l;
      const svc = this.service(ns, svcName);
      if (!svc) return nx;
      const spec = svc.spec ?? {};
      if (spec.type === "ExternalName") {
        return { rcode: "NOERROR", answers: [{ name, ttl: TTL, type: "CNAME", data: fqdn(spec.externalName ?? "") }], authority: "cluster" };
      }
      const headless = spec.clusterIP === "None";
      if (qtype === "A") {
        if (!headless) return spec.clusterIP ? { rcode: "NOERROR", answers: [{ name, ttl: TTL, type: "A", data: spec.clusterIP }], authority: "cluster" } : nx;
        const eps = this.endpoints(svc);
        if (!eps.length) return nx;
        return { rcode: "NOERROR", answers: eps.map((e) => ({ name, ttl: TTL, type: "A" as const, data: e.ip })), authority: "cluster" };
      }
      if (qtype === "SRV") return this.srv(svc, name, undefined);
      return empty;
    }
    if (l.length === 3 && l[0].startsWith("_") && l[1].startsWith("_")) return nx; // _port._proto.<ns>.svc? malformed
    if (l.length === 4 && l[0].startsWith("_") && l[1].startsWith("_")) {
      const svc = this.service(l[3], l[2]);
      if (!svc) return nx;
      const r = this.srv(svc, `${l[2]}.${l[3]}.svc${zone}`, { port: l[0].slice(1), proto: l[1].slice(1) }, name);
      return r.answers.length ? r : nx;
    }
    if (l.length === 3) {
      const [host, svcName, ns] = l;
      const svc = this.service(ns, svcName);
      if (!svc || svc.spec?.clusterIP !== "None") return nx;
      const hit = this.endpoints(svc).filter((e) => (e.hostname ?? dashed(e.ip)) === host);
      if (!hit.length) return nx;
      return qtype === "A" ? { rcode: "NOERROR", answers: hit.map((e) => ({ name, ttl: TTL, type: "A" as const, data: e.ip })), authority: "cluster" } : empty;
    }
    return nx;
  }

  private srv(svc: Service, svcName: string, only: { port: string; proto: string } | undefined, qname?: string): DnsAnswer {
    const answers: RR[] = [];
    const headless = svc.spec?.clusterIP === "None";
    const targets = headless ? this.endpoints(svc).map((e) => `${e.hostname ?? dashed(e.ip)}.${svcName}`) : [svcName];
    for (const p of svc.spec?.ports ?? []) {
      if (!p.name) continue;
      const proto = (p.protocol ?? "TCP").toLowerCase();
      if (only && (only.port !== p.name.toLowerCase() || only.proto !== proto)) continue;
      const name = qname ?? `_${p.name}._${proto}.${svcName}`;
      const weight = targets.length ? Math.floor(100 / targets.length) : 100;
      for (const t of targets) answers.push({ name, ttl: TTL, type: "SRV", data: `0 ${weight} ${p.port} ${t}` });
    }
    return { rcode: answers.length ? "NOERROR" : "NXDOMAIN", answers, authority: "cluster" };
  }

  private ptr(name: string): DnsAnswer {
    const parts = name.slice(0, -".in-addr.arpa.".length).split(".");
    const ip = parts.reverse().join(".");
    for (const o of this.store.list(SERVICES)) {
      const svc = o as unknown as Service;
      const base = `${svc.metadata.name}.${svc.metadata.namespace}.svc.${this.opts.domain}.`;
      if (svc.spec?.clusterIP === ip) return { rcode: "NOERROR", answers: [{ name, ttl: TTL, type: "PTR", data: base }], authority: "cluster" };
      if (svc.spec?.clusterIP === "None") {
        const e = this.endpoints(svc).find((x) => x.ip === ip);
        if (e) return { rcode: "NOERROR", answers: [{ name, ttl: TTL, type: "PTR", data: `${e.hostname ?? dashed(e.ip)}.${base}` }], authority: "cluster" };
      }
    }
    return { rcode: "NXDOMAIN", answers: [], authority: "cluster" };
  }
}

/** CoreDNS's endpoint label for endpoints without a hostname: the address with dashes. */
function dashed(ip: string): string {
  return ip.replace(/\./g, "-");
}

export interface ResolvConf {
  nameservers: string[];
  search: string[];
  ndots: number;
}

export function parseResolvConf(text: string): ResolvConf {
  const rc: ResolvConf = { nameservers: [], search: [], ndots: 1 };
  for (const line of text.split("\n")) {
    const [k, ...rest] = line.trim().split(/\s+/);
    if (k === "nameserver") rc.nameservers.push(...rest);
    else if (k === "search") rc.search = rest;
    else if (k === "options") for (const o of rest) if (o.startsWith("ndots:")) rc.ndots = Number(o.slice(6));
  }
  return rc;
}

/**
 * The resolver's search: a name with fewer than ndots dots is tried with each search domain
 * first, then as is; a name ending in "." only as is. Returns the candidates in order.
 */
export function searchCandidates(name: string, rc: ResolvConf): string[] {
  if (name.endsWith(".")) return [name];
  const dots = name.split(".").length - 1;
  const withSearch = rc.search.map((d) => `${name}.${d}.`);
  return dots >= rc.ndots ? [`${name}.`, ...withSearch] : [...withSearch, `${name}.`];
}

/** Resolves `name` to A records as glibc/musl would with `rc`: first candidate that answers. */
export function resolveA(dns: CoreDNS, name: string, rc: ResolvConf): { name: string; answer: DnsAnswer } | undefined {
  for (const c of searchCandidates(name, rc)) {
    const a = dns.query(c, "A");
    if (a.rcode === "NOERROR" && a.answers.length) {
      // Follow a CNAME inside the cluster; outside there is nothing to follow to.
      const last = a.answers[a.answers.length - 1];
      if (last.type === "CNAME") {
        const t = dns.query(last.data, "A");
        return { name: c, answer: { rcode: t.answers.length ? "NOERROR" : "NXDOMAIN", answers: [...a.answers, ...t.answers], authority: a.authority } };
      }
      return { name: c, answer: a };
    }
  }
  return undefined;
}
