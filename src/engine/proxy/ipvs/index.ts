// Lookup indexes the data plane reads for every packet in IPVS mode, kept exact by construction:
// each is a Map subclass that updates its index in set/delete/clear, so whoever writes the map
// (the proxier, a test) keeps the index true, and the map itself stays what renders.
//
// Why: a packet's lookups (`-m set --match-set KUBE-CLUSTER-IP dst,dst`, the virtual server
// at proto/ip/port) were keyed by strings built per packet ("10.96.0.1,tcp:443",
// "TCP:10.96.0.1:443"): a concatenation, its flattening and hashing, a probe of a table of
// 10k+ entries and a character compare, several times per connection. Keyed by the address
// string the packet already carries (hashed once, usually the very same string object), the
// lookup is one probe and a compare of a few small fields.

/** One hash:ip,port[,ip] entry as parsed from its text: "ip,proto:port[,ip2]". */
interface IpPortEntry {
  readonly proto: string;
  /** The port as a number when its text is canonical decimal (else NaN: matches no packet). */
  readonly port: number;
  /** The third field (hash:ip,port,ip and hash:ip,port,net), undefined for hash:ip,port entries. */
  readonly ip2: string | undefined;
}

/**
 * ipset entries (entry text -> how many service ports contributed it), with an index by the
 * entry's first field for hash:ip,port and hash:ip,port,ip lookups.
 *
 * `hasIpPort(ip, proto, port, ip2)` answers exactly `has(ip2 === undefined ? "ip,proto:port" :
 * "ip,proto:port,ip2")` for an address `ip` without ',' (a packet's dotted quad): such a string
 * equals an entry's text iff the text's fields before the first ',', between it and the next
 * ':', up to the next ',' (compared as the canonical decimal of `port`) and the rest agree.
 */
export class IpsetEntries extends Map<string, number> {
  private readonly byIP = new Map<string, IpPortEntry[]>();

  override set(key: string, value: number): this {
    if (!super.has(key)) this.index(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (!super.delete(key)) return false;
    this.unindex(key);
    return true;
  }

  override clear(): void {
    super.clear();
    this.byIP.clear();
  }

  hasIpPort(ip: string, proto: string, port: number, ip2: string | undefined): boolean {
    const list = this.byIP.get(ip);
    if (list === undefined) return false;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (e.port === port && e.proto === proto && e.ip2 === ip2) return true;
    }
    return false;
  }

  private static parse(key: string): { ip: string; e: IpPortEntry } | undefined {
    const c1 = key.indexOf(",");
    if (c1 < 0) return undefined;
    const colon = key.indexOf(":", c1 + 1);
    if (colon < 0) return undefined;
    const c2 = key.indexOf(",", colon + 1);
    const portText = c2 < 0 ? key.slice(colon + 1) : key.slice(colon + 1, c2);
    const n = Number(portText);
    const port = String(n) === portText ? n : Number.NaN;
    return { ip: key.slice(0, c1), e: { proto: key.slice(c1 + 1, colon), port, ip2: c2 < 0 ? undefined : key.slice(c2 + 1) } };
  }

  private index(key: string): void {
    const p = IpsetEntries.parse(key);
    if (p === undefined) return;
    const list = this.byIP.get(p.ip);
    if (list === undefined) this.byIP.set(p.ip, [p.e]);
    else list.push(p.e);
  }

  private unindex(key: string): void {
    const p = IpsetEntries.parse(key);
    if (p === undefined) return;
    const list = this.byIP.get(p.ip);
    if (list === undefined) return;
    const i = list.findIndex((e) => e.proto === p.e.proto && Object.is(e.port, p.e.port) && e.ip2 === p.e.ip2);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byIP.delete(p.ip);
  }
}

/** What a virtual server is keyed by. */
interface VsLike {
  readonly protocol: string;
  readonly ip: string;
  readonly port: number;
}

/**
 * Virtual servers by key ("TCP:10.96.0.1:443"), with an index by address: `find(protocol, ip,
 * port)` is the server whose protocol, ip and port are those (the proxier keys each server by
 * exactly those three fields, see vsKey).
 */
export class VirtualServerMap<V extends VsLike> extends Map<string, V> {
  private readonly byIP = new Map<string, V[]>();

  override set(key: string, vs: V): this {
    const old = super.get(key);
    if (old !== vs) {
      if (old !== undefined) this.unindex(old);
      const list = this.byIP.get(vs.ip);
      if (list === undefined) this.byIP.set(vs.ip, [vs]);
      else list.push(vs);
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
    this.byIP.clear();
  }

  find(protocol: string, ip: string, port: number): V | undefined {
    const list = this.byIP.get(ip);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const vs = list[i];
      if (vs.port === port && vs.protocol === protocol) return vs;
    }
    return undefined;
  }

  private unindex(vs: V): void {
    const list = this.byIP.get(vs.ip);
    if (list === undefined) return;
    const i = list.indexOf(vs);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byIP.delete(vs.ip);
  }
}
