// The data plane's view of the virtual servers, for connections without a trace: each server
// with its real servers in the kernel's list order, side by side in one array, found by a probe
// of a slot table that holds the record's offset.
//
// A connection to one of 10k virtual servers found the server through the address index's
// value array, then read the server, its list of real servers (an array object and its backing
// store) and the real server: in a heap of hundreds of MB each a cache and TLB miss. Here the
// list is read from the record (one or two cache lines of one array), so a connection reads the
// server (its scheduler state and counters stay on it) and the real server it gets.
//
// Records are derived: they are dropped whenever the proxier's virtual servers or any server's
// real servers change (VirtualServerMap.version, IpvsProxier's destsVersion) and made again by
// the connections that look them up.
import { AddrOffsets } from "../../net/addr-index.js";
import type { RealServer } from "./scheduler.js";
import type { VirtualServer } from "./proxier.js";

export class VsRecords {
  /** (address, protocol/port tag) -> the record's offset. */
  private readonly index = new AddrOffsets();
  /**
   * Record at offset o: the virtual server at o, its number of real servers n at o + 1, the real
   * servers at o + 2 .. o + 1 + n.
   */
  readonly refs: (VirtualServer | RealServer | number)[] = [];
  private servers = -1;
  private dests = -1;

  /** Drops every record when the virtual servers (version `servers`) or their real servers (`dests`) changed. */
  check(servers: number, dests: number): void {
    if (servers === this.servers && dests === this.dests) return;
    if (this.index.size !== 0) {
      this.index.clear();
      this.refs.length = 0;
    }
    this.servers = servers;
    this.dests = dests;
  }

  /** Are the records made for these versions? */
  current(servers: number, dests: number): boolean {
    return servers === this.servers && dests === this.dests;
  }

  /** The offset of the record at (addr, tag), or -1. */
  find(addr: number, tag: number): number {
    return this.index.get(addr, tag);
  }

  /** Makes the record of `vs`, found at (addr, tag); returns its offset. */
  add(addr: number, tag: number, vs: VirtualServer): number {
    const refs = this.refs;
    const o = refs.length;
    const dests = vs.dests;
    refs.push(vs, dests.length);
    for (let i = 0; i < dests.length; i++) refs.push(dests[i]);
    this.index.add(addr, tag, o);
    return o;
  }
}
