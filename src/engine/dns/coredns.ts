// CoreDNS as kubeadm deploys it (Corefile: `kubernetes cluster.local in-addr.arpa ip6.arpa {
// pods insecure; fallthrough in-addr.arpa ip6.arpa; ttl 30 }`, `forward . /etc/resolv.conf`,
// `cache 30`, `loadbalance`), answering from the store as its kubernetes plugin does
// (plugin/kubernetes: parse.go, kubernetes.go findServices/findPods, reverse.go;
// plugin/backend_lookup.go A/SRV/PTR/SOA): A for ClusterIPs and for each ready endpoint of a
// headless Service, `<endpoint>.<svc>.<ns>.svc` for any Service's endpoints, SRV per named port,
// CNAME for ExternalName followed by the target's own lookup, `a-b-c-d.<ns>.pod` A records,
// PTR for ClusterIPs and endpoints, the zone's SOA with NXDOMAIN and NODATA; everything else is
// forwarded to the node's resolver. Pure: reads the store and the clock it is given.
import { R } from "../api/resources.js";
import type { EndpointSlice, Service } from "../api/types.js";
import { key as rkey } from "../apiserver/apiserver.js";
import type { Store } from "../store/store.js";
import { fqdn, type Question, type Reply, type RR } from "./message.js";
import { upstreamAnswer } from "./upstream.js";

const SERVICES = rkey(R.services);
const SLICES = rkey(R.endpointslices);
const NAMESPACES = rkey(R.namespaces);
const TTL = 30; // kubeadm's Corefile: ttl 30
const CACHE_CAP = 30; // cache 30: nothing is served with a longer TTL
const SCHEMA_VERSION = "1.1.0";
const TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

interface CoreDNSOptions {
  domain: string;
  /** The cluster clock (ms), for the upstream's SOA serial. */
  now: () => number;
  /** The loadbalance plugin's shuffle: a random integer in [0, n). */
  random?: (n: number) => number;
}

/** plugin/etcd/msg.Service: an address or a name, a port, and the record's own name. */
interface Target {
  host: string;
  port: number;
  /** The name the record is known by (SRV target): "<svc>.<ns>.svc.<zone>." or "<ep>.<svc>...". */
  domain: string;
  text?: string;
  ttl?: number;
}

class NameError extends Error {}

/** What parseRequest makes of a name in the zone. */
interface Request {
  port: string;
  protocol: string;
  endpoint: string;
  service: string;
  namespace: string;
  podOrSvc: "" | "svc" | "pod";
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export class CoreDNS {
  private readonly zone: string;

  constructor(
    private readonly store: Store,
    private readonly opts: CoreDNSOptions,
  ) {
    this.zone = `${opts.domain}.`;
  }

  /** The reply to one query, as the client receives it. */
  serve(q: Question): Reply {
    const name = fqdn(q.name.toLowerCase());
    const inZone = name === this.zone || name.endsWith(`.${this.zone}`);
    if (name.endsWith(".in-addr.arpa.") && q.type === "PTR") {
      const ptr = this.reverse(name);
      // fallthrough in-addr.arpa: what the plugin does not know goes on to `forward`.
      if (ptr.length) return this.reply("NOERROR", ptr.map((h) => ({ name, ttl: TTL, type: "PTR" as const, data: h })));
      return this.forward(q);
    }
    if (!inZone) return this.forward(q);
    try {
      const answer = this.records(name, q);
      if (!answer.records.length) return { ...this.reply("NOERROR", []), authority: [this.soa()] };
      return { ...this.reply("NOERROR", this.loadbalance(answer.records)), additional: answer.extra };
    } catch (e) {
      if (e instanceof NameError) return { ...this.reply("NXDOMAIN", []), authority: [this.soa()] };
      throw e;
    }
  }

  private reply(rcode: Reply["rcode"], answer: RR[]): Reply {
    return { rcode, aa: true, ra: false, answer, authority: [], additional: [], compressed: false };
  }

  /** forward . /etc/resolv.conf, through `cache 30`: the upstream's reply, TTLs capped, written uncompressed. */
  private forward(q: Question): Reply {
    const r = upstreamAnswer(q, this.opts.now());
    const cap = (rr: RR): RR => ({ ...rr, ttl: Math.min(rr.ttl, CACHE_CAP) });
    return { ...r, aa: false, answer: r.answer.map(cap), authority: r.authority.map(cap), additional: r.additional.map(cap), compressed: false };
  }

  /** The zone's SOA (plugin.SOA): serial is the last time a Service or its endpoints changed. */
  private soa(): RR {
    let serial = 0;
    for (const o of this.store.listView(SERVICES)) serial = Math.max(serial, Date.parse(o.metadata.creationTimestamp ?? "") || 0);
    for (const o of this.store.listView(SLICES)) serial = Math.max(serial, Date.parse(o.metadata.annotations?.[TRIGGER_TIME] ?? o.metadata.creationTimestamp ?? "") || 0);
    return { name: this.zone, ttl: TTL, type: "SOA", data: `ns.dns.${this.zone} hostmaster.${this.zone} ${Math.floor(serial / 1000)} 7200 1800 86400 ${TTL}` };
  }

  /** The loadbalance plugin: A records in random order after any CNAMEs. */
  private loadbalance(rrs: RR[]): RR[] {
    const rand = this.opts.random;
    const addr = rrs.filter((r) => r.type === "A" || r.type === "AAAA");
    if (!rand || addr.length < 2) return rrs;
    for (let j = 0; j < addr.length; j++) {
      const p = j + rand(addr.length - j);
      [addr[j], addr[p]] = [addr[p], addr[j]];
    }
    return [...rrs.filter((r) => r.type !== "A" && r.type !== "AAAA"), ...addr];
  }

  private records(name: string, q: Question): { records: RR[]; extra: RR[] } {
    if (q.type === "TXT") {
      const rel = name.slice(0, -this.zone.length - 1);
      return { records: rel === "dns-version" ? [{ name, ttl: 28800, type: "TXT", data: `"${SCHEMA_VERSION}"` }] : [], extra: [] };
    }
    const targets = this.services(name);
    switch (q.type) {
      case "A":
      case "AAAA":
        return { records: this.addresses(name, q.type, targets, 0), extra: [] };
      case "SRV":
        return this.srv(name, targets);
      case "CNAME": {
        const t = targets[0];
        return { records: t && !IPV4.test(t.host) ? [{ name, ttl: TTL, type: "CNAME", data: fqdn(t.host) }] : [], extra: [] };
      }
      default:
        return { records: [], extra: [] };
    }
  }

  /** plugin.A / plugin.AAAA: addresses, or a CNAME followed by its target's own lookup. */
  private addresses(name: string, type: "A" | "AAAA", targets: Target[], depth: number): RR[] {
    const out: RR[] = [];
    const seen = new Set<string>();
    for (const t of targets) {
      if (IPV4.test(t.host)) {
        if (type === "A" && !seen.has(t.host)) seen.add(t.host), out.push({ name, ttl: TTL, type: "A", data: t.host });
        continue;
      }
      const target = fqdn(t.host.toLowerCase());
      if (target === name || depth > 7) continue;
      const cname: RR = { name, ttl: TTL, type: "CNAME", data: fqdn(t.host) };
      if (target === this.zone || target.endsWith(`.${this.zone}`)) {
        try {
          const next = this.addresses(target, type, this.services(target), depth + 1);
          if (next.length) out.push(cname, ...next);
        } catch (e) {
          if (!(e instanceof NameError)) throw e;
        }
        continue;
      }
      // Outside the zone: the upstream's answer for the target, whatever it is.
      out.push(cname, ...this.forward({ name: target, type }).answer);
    }
    return out;
  }

  /** plugin.SRV: weights share 100 per priority; targets' addresses go in the additional section. */
  private srv(name: string, all: Target[]): { records: RR[]; extra: RR[] } {
    const targets = all.filter((t) => IPV4.test(t.host));
    const weight = Math.max(1, Math.floor(100 / Math.max(1, targets.length)));
    const records: RR[] = [];
    const extra: RR[] = [];
    const dup = new Set<string>();
    for (const t of targets) {
      if (t.port === -1) continue;
      if (!dup.has(`${t.domain}|${t.port}`)) dup.add(`${t.domain}|${t.port}`), records.push({ name, ttl: TTL, type: "SRV", data: `0 ${weight} ${t.port} ${t.domain}` });
      if (!dup.has(`${t.domain}|${t.host}`)) dup.add(`${t.domain}|${t.host}`), extra.push({ name: t.domain, ttl: TTL, type: "A", data: t.host });
    }
    return { records, extra };
  }

  /** parse.go parseRequest: the labels left of the zone, right to left. */
  private parse(name: string): Request {
    const r: Request = { port: "", protocol: "", endpoint: "", service: "", namespace: "", podOrSvc: "" };
    const base = name === this.zone ? "" : name.slice(0, -this.zone.length - 1);
    if (base === "" || base === "svc" || base === "pod") return r;
    const segs = base.split(".");
    let last = segs.length - 1;
    const kind = segs[last];
    if (kind !== "svc" && kind !== "pod") throw new NameError();
    r.podOrSvc = kind;
    if (--last < 0) return r;
    r.namespace = segs[last];
    if (--last < 0) return r;
    r.service = segs[last];
    if (--last < 0) return r;
    if (last === 0) r.endpoint = segs[0];
    else if (last === 1) (r.protocol = segs[1].replace(/^_/, "")), (r.port = segs[0].replace(/^_/, ""));
    else throw new NameError();
    return r;
  }

  /** kubernetes.go Records: what a name denotes, or NameError (NXDOMAIN). */
  private services(name: string): Target[] {
    const r = this.parse(name);
    if (r.podOrSvc === "") return [];
    if (!this.store.get(NAMESPACES, undefined, r.namespace)) throw new NameError();
    return r.podOrSvc === "pod" ? this.pods(r) : this.findServices(r);
  }

  /** findPods in `pods insecure` mode: "1-2-3-4" is 1.2.3.4, unverified. */
  private pods(r: Request): Target[] {
    if (r.service === "") return [];
    const ip = r.service.replace(/-/g, ".");
    const m = IPV4.exec(ip);
    if ((r.service.match(/-/g) ?? []).length !== 3 || !m || m.slice(1).some((x) => Number(x) > 255)) throw new NameError();
    return [{ host: m.slice(1).map(Number).join("."), port: 0, domain: `${r.service}.${r.namespace}.pod.${this.zone}` }];
  }

  private findServices(r: Request): Target[] {
    if (r.service === "") return [];
    const svc = this.store.get(SERVICES, r.namespace, r.service) as Service | undefined;
    if (!svc) throw new NameError();
    const spec = svc.spec ?? {};
    const svcDomain = `${svc.metadata.name}.${svc.metadata.namespace}.svc.${this.zone}`;
    const out: Target[] = [];
    const match = (a: string, b: string | null | undefined) => a === "" || a.toLowerCase() === (b ?? "").toLowerCase();
    if (spec.type === "ExternalName") {
      if (r.endpoint === "" && spec.externalName) out.push({ host: spec.externalName, port: 0, domain: svcDomain });
    } else if (spec.clusterIP === "None" || r.endpoint !== "") {
      for (const ep of this.endpointsOf(svc)) {
        if (r.endpoint !== "" && r.endpoint !== ep.hostname) continue;
        for (const p of ep.ports) {
          if (!match(r.port, p.name) || !match(r.protocol, p.protocol)) continue;
          out.push({ host: ep.ip, port: p.port, domain: `${ep.hostname}.${svcDomain}` });
        }
      }
    } else {
      for (const p of spec.ports ?? []) {
        if (!match(r.port, p.name) || !match(r.protocol, p.protocol ?? "TCP")) continue;
        for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) if (IPV4.test(ip)) out.push({ host: ip, port: p.port, domain: svcDomain });
      }
    }
    if (!out.length) throw new NameError();
    return out;
  }

  /** Ready addresses of a Service's IPv4 EndpointSlices, as CoreDNS's object.Endpoints holds them. */
  private endpointsOf(svc: Service): { ip: string; hostname: string; ports: { name: string; protocol: string; port: number }[] }[] {
    const ns = svc.metadata.namespace!;
    const out: { ip: string; hostname: string; ports: { name: string; protocol: string; port: number }[] }[] = [];
    for (const o of this.store.listView(SLICES, ns)) {
      const sl = o as unknown as EndpointSlice;
      if (sl.metadata.labels?.["kubernetes.io/service-name"] !== svc.metadata.name || sl.addressType !== "IPv4") continue;
      const ports = (sl.ports ?? []).map((p) => ({ name: p.name ?? "", protocol: p.protocol ?? "TCP", port: p.port ?? -1 }));
      // object.EndpointSliceToEndpoints: a sentinel port -1 when the slice has none.
      if (!ports.length) ports.push({ name: "", protocol: "", port: -1 });
      for (const e of sl.endpoints ?? []) {
        if (e.conditions?.ready === false) continue;
        for (const ip of e.addresses) out.push({ ip, hostname: e.hostname || ip.replace(/\./g, "-"), ports });
      }
    }
    return out;
  }

  /** reverse.go serviceRecordForIP: a ClusterIP's Service, else every endpoint with the address. */
  private reverse(name: string): string[] {
    const ip = name.slice(0, -".in-addr.arpa.".length).split(".").reverse().join(".");
    if (!IPV4.test(ip)) return [];
    for (const o of this.store.listView(SERVICES)) {
      const svc = o as unknown as Service;
      if ((svc.spec?.clusterIPs ?? [svc.spec?.clusterIP]).includes(ip)) return [`${svc.metadata.name}.${svc.metadata.namespace}.svc.${this.zone}`];
    }
    const out: string[] = [];
    for (const o of this.store.listView(SLICES)) {
      const sl = o as unknown as EndpointSlice;
      const svcName = sl.metadata.labels?.["kubernetes.io/service-name"];
      if (!svcName || sl.addressType !== "IPv4") continue;
      for (const e of sl.endpoints ?? []) {
        if (e.conditions?.ready === false || !e.addresses.includes(ip)) continue;
        const host = `${e.hostname || ip.replace(/\./g, "-")}.${svcName}.${sl.metadata.namespace}.svc.${this.zone}`;
        if (!out.includes(host)) out.push(host);
      }
    }
    return out;
  }
}
