// What a node in IPVS mode prints: `ipvsadm -Ln` (and -Lnt VIP:PORT, --stats, --rate, -Lnc)
// in ipvsadm 1.31's printf formats, `ipset list [NAME]` as ipset 7.x lists kube-proxy's sets,
// and `ip addr show kube-ipvs0`. All read the proxier's live structures.

import { rates } from "./estimator.js";
import { parseIPv4Sloppy } from "../../util/ip.js";
import type { Ruleset } from "../iptables/model.js";
import { fnv32a } from "../../util/hash.js";
import { DUMMY_DEVICE, type IpSet, type IpvsProxier, type VirtualServer } from "./proxier.js";
import type { RealServer } from "./scheduler.js";

const TITLE = "IP Virtual Server version 1.2.1 (size=4096)";
const PROTO_NUM: Record<string, number> = { TCP: 6, UDP: 17, SCTP: 132 };

function ipNum(ip: string): number {
  return parseIPv4Sloppy(ip) ?? 0;
}

/** ipvs_cmp_services: protocol number, then address, then port. */
function sortedServices(p: IpvsProxier): VirtualServer[] {
  // Decorate once: parsing addresses inside the comparator is n log n parses.
  const keyed = [...p.services.values()].map((vs) => ({ vs, k: PROTO_NUM[vs.protocol] * 2 ** 48 + ipNum(vs.ip) * 65536 + vs.port }));
  keyed.sort((a, b) => a.k - b.k);
  return keyed.map((x) => x.vs);
}

function sortedDests(vs: VirtualServer): RealServer[] {
  if (vs.dests.length < 2) return vs.dests;
  const keyed = vs.dests.map((d) => ({ d, k: ipNum(d.ip) * 65536 + d.port }));
  keyed.sort((a, b) => a.k - b.k);
  return keyed.map((x) => x.d);
}

const pad = (s: string, w: number) => s.padEnd(w);
const rpad = (n: number | string, w: number) => String(n).padStart(w);

/** print_largenum: 9 columns, K/M/G suffixes from 100 million on. */
function largenum(i: number): string {
  if (i < 100_000_000) return rpad(i, 9);
  if (i < 1_000_000_000) return rpad(`${Math.floor(i / 1000)}K`, 9);
  if (i < 1_000_000_000_000) return rpad(`${Math.floor(i / 1_000_000)}M`, 9);
  return rpad(`${Math.floor(i / 1_000_000_000)}G`, 9);
}

type IpvsadmFormat = "list" | "stats" | "rate";

function serviceHead(vs: VirtualServer): string {
  return `${vs.protocol}  ${vs.ip}:${vs.port}`;
}

/** `ipvsadm -Ln [--stats|--rate] [-t|-u VIP:PORT]`; undefined when the named service does not exist. */
export function ipvsadmList(p: IpvsProxier, o: { format?: IpvsadmFormat; service?: { protocol: string; ip: string; port: number }; now?: number } = {}): string | undefined {
  const format = o.format ?? "list";
  let services = sortedServices(p);
  if (o.service) {
    const vs = p.virtualServer(o.service.protocol as "TCP", o.service.ip, o.service.port);
    if (!vs) return undefined;
    services = [vs];
  }
  const out: string[] = [TITLE];
  if (format === "list") {
    out.push("Prot LocalAddress:Port Scheduler Flags", "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn");
  } else if (format === "stats") {
    out.push("Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes", "  -> RemoteAddress:Port");
  } else {
    out.push("Prot LocalAddress:Port                 CPS    InPPS   OutPPS    InBPS   OutBPS", "  -> RemoteAddress:Port");
  }
  for (const vs of services) {
    if (format === "list") {
      out.push(`${serviceHead(vs)} ${vs.scheduler}${vs.persistent ? ` persistent ${vs.persistent}` : ""}`);
      for (const d of sortedDests(vs)) {
        out.push(`  -> ${pad(`${d.ip}:${d.port}`, 28)} ${pad("Masq", 7)} ${pad(String(d.weight), 6)} ${pad(String(d.activeConns), 10)} ${pad(String(d.inactiveConns), 10)}`);
      }
    } else if (format === "stats") {
      out.push(pad(serviceHead(vs), 33) + [vs.conns, vs.inPkts, vs.outPkts, vs.inBytes, vs.outBytes].map(largenum).join(""));
      for (const d of sortedDests(vs)) out.push(pad(`  -> ${d.ip}:${d.port}`, 33) + [d.conns, d.inPkts, d.outPkts, d.inBytes, d.outBytes].map(largenum).join(""));
    } else {
      // The kernel's rate estimator (estimator.ts): traffic of the last seconds, decaying at rest.
      const now = o.now ?? 0;
      out.push(pad(serviceHead(vs), 33) + rates(vs, now).map(largenum).join(""));
      for (const d of sortedDests(vs)) out.push(pad(`  -> ${d.ip}:${d.port}`, 33) + rates(d, now).map(largenum).join(""));
    }
  }
  return out.join("\n") + "\n";
}

/** `ipvsadm -Lnc`: the connection entries with their remaining time. */
export function ipvsadmConnections(p: IpvsProxier, now: number): string {
  const out = ["IPVS connection entries", `pro expire ${pad("state", 11)} ${pad("source", 18)} ${pad("virtual", 18)} destination`];
  for (const c of p.connectionEntries()) {
    const left = Math.max(0, Math.floor((c.expires - now) / 1000));
    const mm = String(Math.floor(left / 60)).padStart(2, "0");
    const ss = String(left % 60).padStart(2, "0");
    const state = c.vs.protocol === "UDP" ? "UDP" : c.state;
    out.push(`${pad(c.vs.protocol, 3)} ${mm}:${ss}  ${pad(state, 11)} ${pad(`${c.client.ip}:${c.client.port}`, 18)} ${pad(`${c.vs.ip}:${c.vs.port}`, 18)} ${c.dest.ip}:${c.dest.port}`);
  }
  return out.join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------------
// ipset

/** Set type revisions of a 6.x kernel's ipset modules (estimates, see README). */
const REVISION: Record<string, number> = { "hash:ip": 6, "hash:ip,port": 6, "hash:ip,port,ip": 5, "hash:ip,port,net": 7, "bitmap:port": 3 };

/** iptables rules that match the set (ipset's "References"). */
function references(rs: Ruleset | undefined, name: string): number {
  let n = 0;
  for (const t of rs?.tables ?? []) for (const c of t.chains.values()) for (const r of c.rules) for (const m of r.matches) if (m.m === "set" && m.name === name) n++;
  return n;
}

function entryOrder(a: string, b: string): number {
  const [ia, ib] = [a.split(",")[0], b.split(",")[0]];
  const na = parseIPv4Sloppy(ia);
  const nb = parseIPv4Sloppy(ib);
  if (na !== undefined && nb !== undefined && na !== nb) return na - nb;
  if (na === undefined && nb === undefined) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function setLines(set: IpSet, p: IpvsProxier, rs: Ruleset | undefined): string[] {
  const bitmap = set.type === "bitmap:port";
  const initval = (fnv32a(`${p.node.name}/${set.name}`) >>> 0).toString(16).padStart(8, "0");
  const header = bitmap ? "range 0-65535 comment" : `family inet hashsize 1024 maxelem 65536 comment bucketsize 12 initval 0x${initval}`;
  const members = [...set.entries.keys()].sort(entryOrder);
  const size = bitmap ? 532 + 8192 + members.length * 48 : 440 + members.length * (set.type === "hash:ip" ? 64 : 96);
  return [
    `Name: ${set.name}`,
    `Type: ${set.type}`,
    `Revision: ${REVISION[set.type]}`,
    `Header: ${header}`,
    `Size in memory: ${size}`,
    `References: ${references(rs, set.name)}`,
    `Number of entries: ${members.length}`,
    "Members:",
    ...members.map((m) => `${m} comment "${set.comment}"`),
  ];
}

/** `ipset list [NAME]`; `rs` is the node's iptables (for References). Undefined: no such set. */
export function ipsetList(p: IpvsProxier, rs: Ruleset | undefined, name?: string): string | undefined {
  if (name !== undefined) {
    const set = p.ipsets.get(name);
    return set ? setLines(set, p, rs).join("\n") + "\n" : undefined;
  }
  const blocks = [...p.ipsets.values()].map((s) => setLines(s, p, rs).join("\n"));
  return blocks.join("\n\n") + "\n";
}

/** `ipset list NAME` of a missing set: ipset's error text. */
export function ipsetMissing(name: string): string {
  return `ipset v7.17: The set with the given name does not exist\n`;
}

// ---------------------------------------------------------------------------------------------
// ip addr

/** `ip addr show kube-ipvs0`: the dummy device, DOWN, with every bound service address as /32. */
export function ipAddrShowDummy(p: IpvsProxier, ifindex = 5): string {
  const h = fnv32a(`${p.node.name}/${DUMMY_DEVICE}`) >>> 0;
  const bytes = [((h >>> 24) & 0xfc) | 0x02, (h >>> 16) & 255, (h >>> 8) & 255, h & 255, (h >>> 4) & 255, (h >>> 12) & 255];
  const mac = bytes.map((b) => b.toString(16).padStart(2, "0")).join(":");
  const out = [`${ifindex}: ${DUMMY_DEVICE}: <BROADCAST,NOARP> mtu 1500 qdisc noop state DOWN group default `, `    link/ether ${mac} brd ff:ff:ff:ff:ff:ff`];
  for (const ip of p.bound.keys()) {
    out.push(`    inet ${ip}/32 scope global ${DUMMY_DEVICE}`, "       valid_lft forever preferred_lft forever");
  }
  return out.join("\n") + "\n";
}
