// Lookup indexes the data plane reads for every packet in IPVS mode, kept exact by construction:
// each is a Map subclass that updates its index in set/delete/clear, so whoever writes the map
// (the proxier, a test) keeps the index true, and the map itself stays what renders.
//
// Why: a packet's lookups (`-m set --match-set KUBE-CLUSTER-IP dst,dst`, the virtual server
// at proto/ip/port) were keyed by strings built per packet ("10.96.0.1,tcp:443",
// "TCP:10.96.0.1:443"): a concatenation, its flattening and hashing, a probe of a table of
// 10k+ entries and a character compare, several times per connection. Keyed by the address
// string the packet already carries, they still probed tables of 10k+ string keys (cache misses
// on the table, its entries and the key strings). Keyed by the address as a number, a lookup
// reads two typed arrays.
import { AddrIndex, IndexedMap, TAG_ADDR, portNum, portTextNum, protoCode, protoPortTag } from "../../util/addr-index.js";
import { ipv4Num } from "../../util/ip.js";

/**
 * ipset entries (entry text -> how many service ports contributed it), with a numeric index
 * (net/addr-index.ts) of the canonical hash:ip,port and hash:ip,port,ip entries.
 *
 * `hasIpPort(ip, proto, port, ip2)` answers exactly `has(ip2 === undefined ? "ip,proto:port" :
 * "ip,proto:port,ip2")`: an entry text whose addresses are canonical dotted quads, protocol
 * tcp/udp/sctp and port canonical decimal is in the index under those numbers (whoever wrote
 * it), and a lookup with anything else asks the string map.
 */
export class IpsetEntries extends Map<string, number> {
  /** "ip,proto:port" entries. */
  private readonly ipPort = new AddrIndex<true>();
  /** "ip,proto:port,ip2" entries: the ip2 addresses of each (ip, proto, port). */
  private readonly ipPortIp = new AddrIndex<number[]>();

  override set(key: string, value: number): this {
    if (!super.has(key)) this.index(key, true);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (!super.delete(key)) return false;
    this.index(key, false);
    return true;
  }

  override clear(): void {
    super.clear();
    this.ipPort.clear();
    this.ipPortIp.clear();
  }

  hasIpPort(ip: string, proto: string, port: number, ip2: string | undefined): boolean {
    const a = ipv4Num(ip);
    const p = protoCode(proto);
    const n = portNum(port);
    const b = ip2 === undefined ? 0 : ipv4Num(ip2);
    if (a < 0 || p === 0 || n < 0 || b < 0) return super.has(ip2 === undefined ? `${ip},${proto}:${port}` : `${ip},${proto}:${port},${ip2}`);
    const tag = protoPortTag(p, n);
    if (ip2 === undefined) return this.ipPort.has(a, tag);
    const list = this.ipPortIp.get(a, tag);
    return list !== undefined && list.includes(b);
  }

  private index(key: string, add: boolean): void {
    const c1 = key.indexOf(",");
    if (c1 < 0) return;
    const colon = key.indexOf(":", c1 + 1);
    if (colon < 0) return;
    const c2 = key.indexOf(",", colon + 1);
    const a = ipv4Num(key.slice(0, c1));
    const p = protoCode(key.slice(c1 + 1, colon));
    const n = portTextNum(c2 < 0 ? key.slice(colon + 1) : key.slice(colon + 1, c2));
    const b = c2 < 0 ? 0 : ipv4Num(key.slice(c2 + 1));
    if (a < 0 || p === 0 || n < 0 || b < 0) return;
    const tag = protoPortTag(p, n);
    if (c2 < 0) {
      if (add) this.ipPort.set(a, tag, true);
      else this.ipPort.delete(a, tag);
      return;
    }
    const list = this.ipPortIp.get(a, tag);
    if (add) {
      if (list === undefined) this.ipPortIp.set(a, tag, [b]);
      else list.push(b);
    } else if (list !== undefined) {
      const i = list.indexOf(b);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.ipPortIp.delete(a, tag);
    }
  }
}

/** What a virtual server is keyed by. */
interface VsLike {
  readonly protocol: string;
  readonly ip: string;
  readonly port: number;
}

const VS_PROTO: Record<string, number> = { TCP: 1, UDP: 2, SCTP: 3 };

/**
 * Virtual servers by key ("TCP:10.96.0.1:443"), with an index by (address, protocol, port):
 * `find(protocol, ip, port)` is the server whose protocol, ip and port are those (the proxier
 * keys each server by exactly those three fields, see vsKey). Servers with a canonical address,
 * TCP/UDP/SCTP and a port 0-65535 are in a numeric index; any other in a list by address text.
 */
/** The index tag of a virtual server's protocol ("TCP", "UDP", "SCTP") and port, or 0 (not indexed). */
function vsTag(protocol: string, port: number): number {
  const p = VS_PROTO[protocol] ?? 0;
  const n = portNum(port);
  return p === 0 || n < 0 ? 0 : protoPortTag(p, n);
}

export class VirtualServerMap<V extends VsLike> extends Map<string, V> {
  private readonly index = new AddrIndex<V>();
  private readonly odd = new Map<string, V[]>();

  override set(key: string, vs: V): this {
    const old = super.get(key);
    if (old !== vs) {
      if (old !== undefined) this.unindex(old);
      const k = VirtualServerMap.numKey(vs.protocol, vs.ip, vs.port);
      if (k !== undefined) this.index.set(k.a, k.tag, vs);
      else {
        const list = this.odd.get(vs.ip);
        if (list === undefined) this.odd.set(vs.ip, [vs]);
        else list.push(vs);
      }
    }
    return super.set(key, vs);
  }

  override delete(key: string): boolean {
    const old = super.get(key);
    if (!super.delete(key)) return false;
    if (old !== undefined) this.unindex(old);
    return true;
  }

  override clear(): void {
    super.clear();
    this.index.clear();
    this.odd.clear();
  }

  find(protocol: string, ip: string, port: number): V | undefined {
    // numKey without its object: this runs for every packet to a local address.
    const a = ipv4Num(ip);
    const tag = vsTag(protocol, port);
    if (a >= 0 && tag !== 0) return this.index.get(a, tag);
    const list = this.odd.get(ip);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const vs = list[i];
      if (vs.port === port && vs.protocol === protocol) return vs;
    }
    return undefined;
  }

  private static numKey(protocol: string, ip: string, port: number): { a: number; tag: number } | undefined {
    const a = ipv4Num(ip);
    const tag = vsTag(protocol, port);
    return a < 0 || tag === 0 ? undefined : { a, tag };
  }

  private unindex(vs: V): void {
    const k = VirtualServerMap.numKey(vs.protocol, vs.ip, vs.port);
    if (k !== undefined) {
      if (this.index.get(k.a, k.tag) === vs) this.index.delete(k.a, k.tag);
      return;
    }
    const list = this.odd.get(vs.ip);
    if (list === undefined) return;
    const i = list.indexOf(vs);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.odd.delete(vs.ip);
  }
}

/**
 * Addresses (text -> a count) with a numeric index: `hasAddr(ip)` is exactly `has(ip)`
 * (kube-ipvs0's addresses, probed for every packet's destination).
 */
export class AddrMap<V> extends IndexedMap<V> {
  protected indexKey(key: string): { addr: number; tag: number } | undefined {
    const a = ipv4Num(key);
    return a < 0 ? undefined : { addr: a, tag: TAG_ADDR };
  }
}
