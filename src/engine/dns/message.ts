// DNS messages as the tools see them: a question, the answer/authority/additional sections, the
// header bits dig prints, and the size the message has on the wire (RFC 1035 §4), which is what
// dig's "MSG SIZE rcvd" reports. CoreDNS writes its answers without name compression (its
// Scrub only compresses above the UDP fragment limit); upstream resolvers compress.

export type RRType = "A" | "AAAA" | "CNAME" | "PTR" | "SRV" | "TXT" | "SOA" | "NS" | "MX" | "ANY";
type Rcode = "NOERROR" | "FORMERR" | "SERVFAIL" | "NXDOMAIN" | "NOTIMP" | "REFUSED";

export interface Question {
  /** Fully qualified, with the trailing dot. */
  name: string;
  type: RRType;
}

export interface RR {
  /** Owner name, fully qualified. */
  name: string;
  ttl: number;
  type: RRType;
  /**
   * Presentation form of the data: A an address; CNAME/PTR/NS a name with its dot; SRV
   * "priority weight port target."; SOA "mname. rname. serial refresh retry expire minimum";
   * TXT one quoted string.
   */
  data: string;
}

export interface Reply {
  rcode: Rcode;
  /** Authoritative answer (CoreDNS for its zones). */
  aa: boolean;
  /** Recursion available (set by recursive resolvers and by CoreDNS when it forwarded). */
  ra: boolean;
  answer: RR[];
  authority: RR[];
  additional: RR[];
  /** The server compresses names (BIND, unbound); CoreDNS does not. */
  compressed: boolean;
}

/** The request's EDNS as dig sends it: a 1232-byte buffer and an 8-byte client cookie. */
interface Edns {
  udp: number;
  cookie?: string;
}

export function fqdn(name: string): string {
  return name.endsWith(".") ? name : `${name}.`;
}

function rdataLength(rr: RR, names: Compressor): number {
  switch (rr.type) {
    case "A":
      return 4;
    case "AAAA":
      return 16;
    case "CNAME":
    case "PTR":
    case "NS":
      return names.size(rr.data);
    case "SRV":
      return 6 + names.size(rr.data.split(" ")[3], false);
    case "MX":
      return 2 + names.size(rr.data.split(" ")[1]);
    case "SOA": {
      const [m, r] = rr.data.split(" ");
      return names.size(m) + names.size(r) + 20;
    }
    case "TXT":
      return [...rr.data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].reduce((a, m) => a + 1 + m[1].length, 0);
    default:
      return 0;
  }
}

/** Names already written, for compression: a suffix seen before costs a 2-byte pointer. */
class Compressor {
  private readonly seen = new Set<string>();
  constructor(private readonly on: boolean) {}
  size(name: string, allowed = true): number {
    const labels = fqdn(name).toLowerCase().split(".").slice(0, -1);
    let n = 0;
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join(".");
      if (this.on && allowed && this.seen.has(suffix)) return n + 2;
      if (this.on) this.seen.add(suffix);
      n += 1 + labels[i].length;
    }
    return n + 1;
  }
}

/** Size in bytes of the message carrying `q` and `r` (with the OPT record when EDNS was used). */
export function wireSize(q: Question, r: Reply, edns?: Edns): number {
  const names = new Compressor(r.compressed);
  let n = 12 + names.size(q.name) + 4;
  for (const rr of [...r.answer, ...r.authority, ...r.additional]) n += names.size(rr.name) + 10 + rdataLength(rr, names);
  if (edns) n += 11 + (edns.cookie ? 4 + edns.cookie.length / 2 : 0);
  return n;
}
