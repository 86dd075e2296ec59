// The nodes' own resolver (10.1.8.2, the lab network's gateway; nameserver of the nodes'
// resolv.conf and, through `forward . /etc/resolv.conf`, CoreDNS's upstream). The lab has no
// internet: it knows the few hosts the labs download from (the guide's mirror, its registry and
// GitHub) and answers NXDOMAIN for every other name, as a recursive resolver does.
import { fqdn, type Question, type Reply, type RR } from "./message.js";

export const UPSTREAM_RESOLVER = "10.1.8.2";

/** Hosts the lab network resolves: where labs download from (src/shell/net/internet serves them). */
const INTERNET_HOSTS = ["laoma.cloud", "hub.laoma.cloud", "github.com", "codeload.github.com", "raw.githubusercontent.com"];

/** The address a known host resolves to: stable per name, inside 198.18.0.0/15 (RFC 2544). */
function internetAddress(host: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < host.length; i++) h = Math.imul(h ^ host.charCodeAt(i), 0x01000193) >>> 0;
  return `198.${18 + (h & 1)}.${(h >>> 8) & 0xff}.${1 + ((h >>> 16) % 254)}`;
}

export function isInternetAddress(ip: string): boolean {
  return /^198\.(18|19)\./.test(ip);
}

const A_TTL = 300;

/** The root zone's SOA, which a recursive resolver returns with NXDOMAIN; its serial is the day's. */
function rootSoa(now: number): RR {
  const d = new Date(now);
  const serial = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, "0")}${String(d.getUTCDate()).padStart(2, "0")}00`;
  return { name: ".", ttl: 86400, type: "SOA", data: `a.root-servers.net. nstld.verisign-grs.com. ${serial} 1800 900 604800 86400` };
}

/** RFC 6303's locally served empty zone for 10.in-addr.arpa (private addresses have no PTR). */
const PRIVATE_REVERSE_SOA: RR = { name: "10.in-addr.arpa.", ttl: 10800, type: "SOA", data: "localhost. nobody.invalid. 1 3600 1200 604800 10800" };

export function upstreamAnswer(q: Question, now: number): Reply {
  const name = fqdn(q.name.toLowerCase());
  const base: Reply = { rcode: "NOERROR", aa: false, ra: true, answer: [], authority: [], additional: [], compressed: true };
  if (name.endsWith(".10.in-addr.arpa.")) return { ...base, rcode: "NXDOMAIN", aa: true, authority: [PRIVATE_REVERSE_SOA] };
  const host = name.slice(0, -1);
  if (!INTERNET_HOSTS.includes(host)) return { ...base, rcode: "NXDOMAIN", authority: [rootSoa(now)] };
  if (q.type === "A" || q.type === "ANY") return { ...base, answer: [{ name, ttl: A_TTL, type: "A", data: internetAddress(host) }] };
  return base;
}
