// The data plane's vocabulary: a connection's first packet, where it comes from, what the
// nodes' rules did to it (the trace) and how it ended (the verdict).

export type L4 = "tcp" | "udp" | "sctp" | "icmp";

/** A connection's 5-tuple as one node's conntrack sees it (icmp: ports are the echo id / 0). */
export interface Tuple {
  proto: L4;
  src: string;
  sport: number;
  dst: string;
  dport: number;
}

/**
 * Who opens the connection:
 * - a pod (its packets enter its node from the pod's veth),
 * - a node's own process (curl on the node: locally generated, OUTPUT hook),
 * - an external client whose packets enter the cluster at `entryNode` (the node owning the
 *   destination IP, or the MetalLB speaker announcing it).
 */
export type Source =
  | { kind: "pod"; ip: string; node: string }
  | { kind: "node"; node: string }
  | { kind: "external"; ip: string; entryNode?: string };

/** How a connection attempt ended, as the client's socket sees it. */
export type Verdict =
  /** Handshake completed: something listens at the final destination. */
  | "established"
  /** TCP RST or ICMP port unreachable (REJECT, no listener, a ClusterIP port with no rule in nftables). */
  | "refused"
  /** Silently dropped (DROP, a ClusterIP nothing answers for, no internet): the client times out. */
  | "timeout"
  /** ICMP host unreachable: ARP for a pod IP nobody owns. */
  | "unreachable";

/** One step of a connection's path, as data for the UI and text for `explain`. */
export interface TraceStep {
  node: string;
  kind: "hop" | "hook" | "chain" | "rule" | "skip" | "lookup" | "random" | "scheduler" | "nat" | "route" | "conntrack" | "verdict" | "app";
  /** iptables table or nftables table/family ("ip kube-proxy"). */
  table?: string;
  chain?: string;
  /** 1-based rule number in its chain (iptables --line-numbers; nft rule position). */
  rule?: number;
  /** Rules evaluated by this step (a `skip` step summarises many non-matching rules). */
  count?: number;
  text: string;
}

export interface ConnectResult {
  verdict: Verdict;
  /** The tuple as the client sent it. */
  tuple: Tuple;
  /** Where the connection ended up (after DNAT), when it got anywhere. */
  dst?: { ip: string; port: number };
  /** The pod that answered or refused, as "namespace/name", when the destination is a pod. */
  pod?: string;
  /** The node whose host answered (destination was a local address without DNAT). */
  host?: string;
  /** The source address:port the destination sees (after masquerading). */
  seenSrc?: { ip: string; port: number };
  masqueraded: boolean;
  /** Nodes the packet crossed, in order. */
  path: string[];
  /** Rules evaluated on the way (iptables: linear in services; nftables/IPVS: constant). */
  rules: number;
  /** Human reason for refused/timeout/unreachable (which rule, which check). */
  reason: string;
  /** Present when tracing was asked for. */
  trace?: TraceStep[];
  /** True when an existing conntrack entry decided the destination (no NAT rules ran). */
  established?: boolean;
  /** A diagnostic connection (explain): observers need not count it as traffic. */
  probe?: boolean;
}
