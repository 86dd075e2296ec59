// The one resolver every tool uses. Two layers, as on a real node:
//  - `DnsSocket`: queries sent over UDP to one server through the data plane, answered by CoreDNS
//    when a CoreDNS pod receives them (the kube-dns ClusterIP or a pod IP), by the nodes'
//    upstream resolver at 10.1.8.2, else timing out or refused (ICMP port unreachable). dig,
//    host and nslookup ask the server they are told to, and do not read /etc/hosts.
//  - `getaddrinfo`: what glibc (and musl) do for ping, curl, wget and getent: /etc/hosts first
//    (nsswitch "files dns"), then the resolv.conf search list with ndots, as res_nsearch orders it.
import type { Cluster } from "../cluster.js";
import { listenerApp } from "../kubelet/apps.js";
import { dataplaneOf, podIndexOf } from "../net/cluster-env.js";
import type { Source } from "../net/packet.js";
import { isDottedQuad } from "../util/ip.js";
import { CoreDNS } from "./coredns.js";
import { fqdn, type Question, type Reply } from "./message.js";
import { UPSTREAM_RESOLVER, upstreamAnswer } from "./upstream.js";

export interface ResolvConf {
  nameservers: string[];
  search: string[];
  ndots: number;
}

/** resolv.conf as glibc reads it: up to three nameservers, the last search/domain line, ndots. */
export function parseResolvConf(text: string): ResolvConf {
  const rc: ResolvConf = { nameservers: [], search: [], ndots: 1 };
  for (const line of text.split("\n")) {
    const [k, ...rest] = line.trim().split(/\s+/);
    if (k === "nameserver" && rest[0] && rc.nameservers.length < 3) rc.nameservers.push(rest[0]);
    else if (k === "search" || k === "domain") rc.search = rest.filter((d) => d !== ".");
    else if (k === "options") for (const o of rest) if (o.startsWith("ndots:")) rc.ndots = Math.min(15, Number(o.slice(6)) || 0);
  }
  // glibc's default when resolv.conf names no server.
  if (!rc.nameservers.length) rc.nameservers.push("127.0.0.1");
  return rc;
}

/** /etc/hosts: the first line naming `name` (canonical name or alias, any case). */
function hostsLookup(text: string, name: string): { address: string; canonical: string } | undefined {
  const want = name.toLowerCase().replace(/\.$/, "");
  for (const raw of text.split("\n")) {
    const [address, ...names] = raw.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !isDottedQuad(address)) continue;
    if (names.some((n) => n.toLowerCase() === want)) return { address, canonical: names[0] };
  }
  return undefined;
}

/**
 * res_nsearch's order: a name ending in "." only as is; one with at least ndots dots as is first,
 * then with each search domain; a shorter one with each search domain, then as is.
 */
export function searchNames(name: string, rc: ResolvConf): string[] {
  if (name.endsWith(".")) return [name];
  const dots = name.split(".").length - 1;
  const withSearch = rc.search.map((d) => `${name}.${d}.`);
  return dots >= rc.ndots ? [`${name}.`, ...withSearch] : [...withSearch, `${name}.`];
}

const coreDNS = new WeakMap<Cluster, CoreDNS>();
function coreDNSOf(cluster: Cluster): CoreDNS {
  let d = coreDNS.get(cluster);
  if (!d) {
    const rng = cluster.rng;
    d = new CoreDNS(cluster.store, { domain: cluster.config.dnsDomain, now: () => cluster.now(), random: (n) => rng.get("dns").int(n) });
    coreDNS.set(cluster, d);
  }
  return d;
}

export type Exchange =
  | { ok: true; reply: Reply; id: number; ms: number; server: "coredns" | "upstream" }
  | { ok: false; error: "timeout" | "refused"; id: number };

/** A client's UDP socket to one DNS server: one flow through the data plane, then queries over it. */
export class DnsSocket {
  private readonly who: "coredns" | "upstream" | "timeout" | "refused";

  constructor(
    private readonly cluster: Cluster,
    from: Source,
    readonly server: string,
  ) {
    this.who = server === UPSTREAM_RESOLVER ? "upstream" : reach(cluster, from, server);
  }

  /** One query and its reply (or why none came); each query has a fresh id. */
  query(q: Question): Exchange {
    const rng = this.cluster.rng.get("dns");
    const id = rng.int(65536);
    if (this.who === "timeout" || this.who === "refused") return { ok: false, error: this.who, id };
    const question = { name: fqdn(q.name), type: q.type };
    if (this.who === "upstream") return { ok: true, reply: upstreamAnswer(question, this.cluster.now()), id, ms: 1 + rng.int(4), server: "upstream" };
    const reply = coreDNSOf(this.cluster).serve(question);
    // Answers from the kubernetes plugin take well under a millisecond; forwarded ones a LAN round trip more.
    return { ok: true, reply, id, ms: reply.aa ? rng.int(2) : 1 + rng.int(4), server: "coredns" };
  }
}

/** Who answers UDP port 53 at `server` from `from`: a CoreDNS pod, or nothing. */
function reach(cluster: Cluster, from: Source, server: string): "coredns" | "timeout" | "refused" {
  const conn = dataplaneOf(cluster).connect(from, server, 53, { proto: "udp" });
  if (conn.verdict === "refused") return "refused";
  if (conn.verdict !== "established" || !conn.dst) return "timeout";
  const pod = podIndexOf(cluster).get(conn.dst.ip)?.pod;
  if (!pod) return "refused";
  for (const c of pod.spec.containers) {
    const prof = cluster.kubelet.profile(pod, c.name);
    if (prof && listenerApp(prof, conn.dst.port, "UDP") === "dns") return "coredns";
  }
  return "refused";
}

export type AddrInfo =
  | { ok: true; addresses: string[]; canonical: string; from: "files" | "dns" }
  | { ok: false; error: "NONAME" | "AGAIN" };

export interface ResolverFiles {
  hosts: string;
  resolvConf: string;
}

/** getaddrinfo(name) for IPv4 as glibc does it: a literal, /etc/hosts, then DNS with the search list. */
export function getaddrinfo(cluster: Cluster, from: Source, name: string, files: ResolverFiles): AddrInfo {
  if (isDottedQuad(name)) return { ok: true, addresses: [name], canonical: name, from: "files" };
  const h = hostsLookup(files.hosts, name);
  if (h) return { ok: true, addresses: [h.address], canonical: h.canonical, from: "files" };
  const rc = parseResolvConf(files.resolvConf);
  const sock = new DnsSocket(cluster, from, rc.nameservers[0]);
  for (const candidate of searchNames(name, rc)) {
    const x = sock.query({ name: candidate, type: "A" });
    // No reply at all ends the search (TRY_AGAIN); NXDOMAIN and NODATA move on to the next name.
    if (!x.ok) return { ok: false, error: "AGAIN" };
    if (x.reply.rcode === "SERVFAIL") return { ok: false, error: "AGAIN" };
    const addrs = x.reply.answer.filter((r) => r.type === "A");
    if (x.reply.rcode === "NOERROR" && addrs.length) return { ok: true, addresses: addrs.map((r) => r.data), canonical: addrs[0].name.replace(/\.$/, ""), from: "dns" };
  }
  return { ok: false, error: "NONAME" };
}
