// The data plane's view of a node's IPVS proxier (IpvsHandle): kube-ipvs0's addresses, the
// ipsets, and the scheduler. The Cluster's NetEnv (cluster-env.ts) and SimNet (sim.ts) both
// hand the data plane one per node.
import type { IpvsProxier } from "../proxy/ipvs/proxier.js";
import type { IpvsHandle } from "./dataplane.js";

/** The data plane's view of one node's IPVS proxier. */
export function ipvsHandle(p: IpvsProxier): IpvsHandle {
  // p.expire walks every connection entry and every virtual server's templates. Nothing can
  // expire between two calls at the same instant (entries, templates and FIN timers are all set
  // to now + a positive timeout, and syncs finish graceful deletions themselves), so it runs
  // once per clock value instead of once per packet.
  let expiredAt = Number.NaN;
  // The answer to a schedule call is one object per handle, rewritten by the next call.
  const real = { ip: "", port: 0 };
  const found = { found: true as const, service: "", real: undefined as typeof real | undefined, conn: undefined as unknown };
  return {
    isBound: (ip) => p.bound.hasAddr(ip),
    ipset: (name) => p.ipsets.get(name),
    schedule(proto, ip, port, clientIP, clientPort, now, steps) {
      if (proto === "icmp") return NOT_FOUND;
      const vs = p.virtualServer(proto === "tcp" ? "TCP" : proto === "udp" ? "UDP" : "SCTP", ip, port);
      if (!vs) return NOT_FOUND;
      if (now !== expiredAt) (p.expire(now), (expiredAt = now));
      const dest = p.open(vs, clientIP, clientPort, now);
      found.service = "";
      if (steps) {
        const t = vs.persistent ? vs.templates.get(clientIP) : undefined;
        // The ipvsadm line of the virtual server and the scheduler's choice, for the trace only.
        found.service = `${vs.protocol}  ${vs.ip}:${vs.port} ${vs.scheduler}${vs.persistent ? ` persistent ${vs.persistent}` : ""}`;
        steps(
          dest
            ? `scheduler ${vs.scheduler}${t ? ` (persistence template for ${clientIP})` : ""}: -> ${dest.ip}:${dest.port} (weight ${dest.weight}, active ${dest.activeConns}, inactive ${dest.inactiveConns})`
            : `scheduler ${vs.scheduler}: no real server with weight > 0`,
        );
      }
      if (dest !== undefined) {
        real.ip = dest.ip;
        real.port = dest.port;
      }
      found.real = dest === undefined ? undefined : real;
      found.conn = dest ? p.lastConnection : undefined;
      return found;
    },
    close: (conn, now) => p.close(conn as number, now),
    count: (conn, inPkts, inBytes, outPkts, outBytes, now) => p.countConnection(conn as number, inPkts, inBytes, outPkts, outBytes, now),
  };
}

const NOT_FOUND = Object.freeze({ found: false as const });
