// The iptables proxier's native ruleset: tables -> chains -> rules, each rule a typed list of
// matches and one target (never a string), so that renderers (iptables-save, iptables -L/-S,
// kube-proxy's restore input) and a packet evaluator read the same structure rule by rule.
//
// RULE SHAPES. These are all the rules the proxier emits, written here in kube-proxy's own
// argument order (K/pkg/proxy/iptables/proxier.go); `restoreArgs` in render.ts reproduces that
// order, iptables-save prints the kernel's canonical order instead
// (`[!] -s [!] -d -p` first, then the matches in the order given, then `-j`).
// An evaluator only has to understand these fields:
//   src/srcNeg dst/dstNeg proto, matches: comment | tcp/udp/sctp(dport?) | addrtype |
//   statistic | recent | conntrack | mark | nfacct, target: jump | ACCEPT | DROP | RETURN |
//   REJECT | DNAT | MARK | MASQUERADE | null (no -j: fall through).
//
//  built-in jumps (EnsureRule, not restore input; `-m conntrack --ctstate NEW` only where noted)
//   J1  [-m conntrack --ctstate NEW] [-m comment --comment C] -j KUBE-*
//  nat KUBE-POSTROUTING / KUBE-MARK-MASQ
//   P1  -m mark ! --mark M/M -j RETURN
//   P2  -j MARK --xor-mark M
//   P3  -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE [--random-fully]
//   P4  -j MARK --or-mark M
//  nat KUBE-SERVICES (per service port, then the nodeports tail rule)
//   S1  -m comment --comment "<spn> cluster IP|external IP|loadbalancer IP" -m P -p P -d IP --dport N -j SVC|SVL|EXT|FW
//   S2  -m comment --comment "kubernetes service nodeports; NOTE: ..." -m addrtype --dst-type LOCAL [! -d 127.0.0.0/8] -j KUBE-NODEPORTS
//   S3  -m comment --comment "kubernetes service nodeports; NOTE: ..." -d NODEIP -j KUBE-NODEPORTS   (nodePortAddresses set)
//  nat KUBE-NODEPORTS
//   N1  -m comment --comment <spn> -m P -p P -d 127.0.0.0/8 --dport NP -m nfacct --nfacct-name localhost_nps_accepted_pkts -j EXT
//   N2  -m comment --comment <spn> -m P -p P --dport NP -j EXT
//  nat KUBE-SVC-* / KUBE-SVL-*
//   V1  -m comment --comment "<spn> cluster IP" -m P -p P -d CIP --dport N [! -s CLUSTERCIDR] -j KUBE-MARK-MASQ
//   V2  [-m comment --comment "<spn> -> IP:port"] -m recent --name SEP --rcheck --seconds T --reap -j SEP
//   V3  [-m comment --comment "<spn> -> IP:port"] [-m statistic --mode random --probability p] -j SEP
//  nat KUBE-EXT-*
//   E1  -m comment --comment "masquerade traffic for <spn> external destinations" -j KUBE-MARK-MASQ
//   E2  -m comment --comment "pod traffic for <spn> external destinations" -s CLUSTERCIDR -j SVC
//   E3  -m comment --comment "masquerade LOCAL traffic for <spn> ..." -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
//   E4  -m comment --comment "route LOCAL traffic for <spn> ..." -m addrtype --src-type LOCAL -j SVC
//   E5  -j SVC|SVL
//  nat KUBE-FW-*
//   F1  -m comment --comment "<spn> loadbalancer IP" -s CIDR|LBIP -j EXT
//   F2  -m comment --comment "other traffic to <spn> will be dropped by KUBE-PROXY-FIREWALL"   (no target)
//  nat KUBE-SEP-*
//   D1  [-m comment --comment <spn>] -s EPIP -j KUBE-MARK-MASQ
//   D2  [-m comment --comment <spn>] [-m recent --name SEP --set] -m P -p P -j DNAT --to-destination IP:port
//  filter KUBE-SERVICES / KUBE-EXTERNAL-SERVICES / KUBE-PROXY-FIREWALL / KUBE-NODEPORTS
//   R1  -m comment --comment "<spn> has no endpoints|has no local endpoints|traffic not accepted by FW" -m P -p P -d IP --dport N -j REJECT|DROP
//   R2  -m comment --comment C -m addrtype --dst-type LOCAL -m P -p P --dport NP -j REJECT|DROP
//   R3  -m comment --comment "<spn> health check node port" -m tcp -p tcp --dport HC -j ACCEPT
//  filter KUBE-FIREWALL / KUBE-FORWARD
//   K1  -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
//   K2  -m conntrack --ctstate INVALID [-m nfacct --nfacct-name ct_state_invalid_dropped_pkts] -j DROP
//   K3  -m comment --comment "kubernetes forwarding rules" -m mark --mark M/M -j ACCEPT
//   K4  -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT

export type TableName = "mangle" | "filter" | "nat";
export type L4 = "tcp" | "udp" | "sctp";
export type CtState = "INVALID" | "NEW" | "RELATED" | "ESTABLISHED" | "UNTRACKED" | "SNAT" | "DNAT";

/** Tables in the order iptables-save prints them (raw, mangle, filter, security, nat). */
export const TABLE_ORDER: readonly TableName[] = ["mangle", "filter", "nat"];

/** Built-in chains per table, in the kernel's order. */
export const BUILTIN_CHAINS: Readonly<Record<TableName, readonly string[]>> = {
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
};

export type Match =
  | { readonly m: "comment"; readonly text: string }
  /** -m tcp|udp|sctp [--dport N]; always paired with the rule's `proto`. */
  | { readonly m: L4; readonly dport: number | undefined }
  | { readonly m: "addrtype"; readonly srcType: "LOCAL" | undefined; readonly dstType: "LOCAL" | undefined }
  /** -m statistic --mode random --probability p, p as kube-proxy wrote it (%0.10f of 1/n). */
  | { readonly m: "statistic"; readonly probability: number }
  /** -m recent --name N (--rcheck --seconds T --reap | --set), source side, all-ones mask. */
  | { readonly m: "recent"; readonly op: "rcheck" | "set"; readonly name: string; readonly seconds: number | undefined; readonly reap: boolean }
  | { readonly m: "conntrack"; readonly ctstate: readonly CtState[]; readonly invert: boolean }
  | { readonly m: "mark"; readonly value: number; readonly mask: number; readonly invert: boolean }
  | { readonly m: "nfacct"; readonly name: string }
  /** -m set --match-set NAME FLAGS (IPVS mode's ipset matches; flags like "dst,dst"). */
  | { readonly m: "set"; readonly name: string; readonly flags: string };

export type Target =
  /** -j to a user-defined chain. */
  | { readonly t: "jump"; readonly chain: string }
  | { readonly t: "ACCEPT" | "DROP" | "RETURN" }
  /** -j REJECT (kernel default --reject-with icmp-port-unreachable). */
  | { readonly t: "REJECT" }
  | { readonly t: "DNAT"; readonly to: string }
  /** --or-mark V (set-xmark V/V) or --xor-mark V (set-xmark V/0). */
  | { readonly t: "MARK"; readonly op: "or" | "xor"; readonly value: number }
  | { readonly t: "MASQUERADE"; readonly randomFully: boolean };

export interface Rule {
  /** -s address or CIDR as kube-proxy wrote it (iptables-save adds /32 to hosts). */
  readonly src: string | undefined;
  readonly srcNeg: boolean;
  readonly dst: string | undefined;
  readonly dstNeg: boolean;
  /** -p; kube-proxy always pairs it with the same-named match in `matches`. */
  readonly proto: L4 | undefined;
  /** In the kernel's order, i.e. the order of the -m options kube-proxy passed. */
  readonly matches: readonly Match[];
  /** null: no -j at all (the rule only counts; the packet continues with the next rule). */
  readonly target: Target | null;
}

/** Why a chain exists: the kernel's own, created by EnsureChain, or written in the restore input. */
export type ChainOrigin = "builtin" | "ensure" | "restore";

export interface Chain {
  readonly name: string;
  readonly origin: ChainOrigin;
  /** Only built-in chains have a policy. */
  readonly policy: "ACCEPT" | "DROP" | undefined;
  rules: Rule[];
}

/**
 * A table's chains by name: a Map, or a view that assembles them (the iptables proxier's nat
 * table finds its per-service chains in service records shared between nodes).
 */
export interface ChainMap extends ReadonlyMap<string, Chain> {
  set(name: string, chain: Chain): unknown;
  delete(name: string): boolean;
}

export interface Table {
  readonly name: TableName;
  /** Built-in chains first (kernel order), then user chains (renderers sort them). */
  readonly chains: ChainMap;
  /** Bumped whenever a chain is added or removed (renderers cache their sorted chain lists on it). */
  chainSetVersion: number;
}

export interface Ruleset {
  /** Present tables, in TABLE_ORDER. */
  readonly tables: readonly Table[];
}

function getTable(rs: Ruleset, name: string): Table | undefined {
  return rs.tables.find((t) => t.name === name);
}

export function getChain(rs: Ruleset, table: string, chain: string): Chain | undefined {
  return getTable(rs, table)?.chains.get(chain);
}

const EMPTY: readonly Match[] = Object.freeze([]);

/** A rule with only the fields given; everything else unset. */
export function rule(fields: Partial<Rule> & { target: Target | null }): Rule {
  return {
    src: fields.src,
    srcNeg: fields.srcNeg ?? false,
    dst: fields.dst,
    dstNeg: fields.dstNeg ?? false,
    proto: fields.proto,
    matches: fields.matches ?? EMPTY,
    target: fields.target,
  };
}

/** Every `-j CHAIN` whose chain does not exist in the same table, as "table/chain -> target". */
export function danglingJumps(rs: Ruleset): string[] {
  const out: string[] = [];
  for (const table of rs.tables) {
    for (const chain of table.chains.values()) {
      for (const r of chain.rules) {
        if (r.target?.t === "jump" && !table.chains.has(r.target.chain)) {
          out.push(`${table.name}/${chain.name} -> ${r.target.chain}`);
        }
      }
    }
  }
  return out;
}

