// One connection plus what answers on it: the connection through the data plane, then the app
// (httpd/nginx files via the kubelet, others not HTTP). Shared by curl, wget and the 100-request
// loop benchmark. Names are resolved before, by the one resolver (engine/dns/resolver.ts).
import type { Pod } from "../../engine/api/types.js";
import type { Cluster } from "../../engine/cluster.js";
import { getaddrinfo } from "../../engine/dns/resolver.js";
import { isDottedQuad } from "../../engine/util/ip.js";
import { httpGet, listenerApp, type HttpResponse } from "../../engine/kubelet/apps.js";
import { dataplaneOf, podIndexOf } from "../../engine/net/cluster-env.js";
import type { ConnectResult, Source } from "../../engine/net/packet.js";
import { NODE_RESOLV_CONF } from "../../engine/kubelet/kubelet.js";

export interface Where {
  cluster: Cluster;
  node: string;
  pod?: Pod;
}

export function sourceOf(w: Where): Source {
  if (w.pod && !w.pod.spec.hostNetwork && w.pod.status?.podIP) return { kind: "pod", ip: w.pod.status.podIP, node: w.pod.spec.nodeName ?? w.node };
  return { kind: "node", node: w.pod?.spec.nodeName ?? w.node };
}

interface Fetch {
  conn: ConnectResult;
  /** Set when an HTTP server answered. */
  response?: HttpResponse;
  /** The peer accepted but does not speak HTTP. */
  notHttp?: boolean;
}

/** Opens a TCP connection and, when it is established, asks the app for `path` (`host`: the Host header). */
export function fetch(w: Where, ip: string, port: number, path: string, method = "GET", host = ip): Fetch {
  const dp = dataplaneOf(w.cluster);
  const conn = dp.connect(sourceOf(w), ip, port);
  if (conn.verdict !== "established") return { conn };
  if (conn.pod && conn.dst) {
    const e = podIndexOf(w.cluster).get(conn.dst.ip);
    if (e) {
      const kubelet = w.cluster.kubelet;
      for (const c of e.pod.spec.containers) {
        const prof = kubelet.profile(e.pod, c.name);
        const fs = kubelet.filesystem(e.pod, c.name);
        if (!prof || !fs) continue;
        const app = listenerApp(prof, conn.dst.port, "TCP");
        if (app === "http" || app === "wordpress") {
          const dbAccepts = app === "wordpress" ? wordpressDatabaseAccepts(w.cluster, e.pod, c.name) : undefined;
          const response = httpGet(prof, fs, path, { host, dbAccepts });
          kubelet.appendLog(e.pod, c.name, [accessLog(prof.key, conn.seenSrc?.ip ?? "", method, path, response, w.cluster.now())]);
          dp.transfer(conn, requestBytes(method, path, host), responseBytes(response));
          return { conn, response };
        }
        if (app) return { conn, notHttp: true };
      }
    }
  }
  return { conn, notHttp: true };
}

/**
 * Whether a WordPress container reaches its database as its wp-config does: WORDPRESS_DB_HOST
 * ("host[:port]", default "mysql") resolved with the pod's resolv.conf, a TCP connection from the
 * pod through the data plane, a mysql server behind it, and WORDPRESS_DB_USER/PASSWORD (image
 * defaults "example username"/"example password") known to that server (root with
 * MYSQL_ROOT_PASSWORD, or MYSQL_USER with MYSQL_PASSWORD).
 */
function wordpressDatabaseAccepts(cluster: Cluster, pod: Pod, container: string): boolean {
  const kubelet = cluster.kubelet;
  const env = new Map(kubelet.environment(pod, container));
  const [dbHost, dbPort] = (env.get("WORDPRESS_DB_HOST") || "mysql").split(":");
  const user = env.get("WORDPRESS_DB_USER") ?? "example username";
  const password = env.get("WORDPRESS_DB_PASSWORD") ?? "example password";
  const w: Where = { cluster, node: pod.spec.nodeName ?? "", pod };
  let ip = dbHost;
  if (!isDottedQuad(dbHost)) {
    const fs = kubelet.filesystem(pod, container);
    const read = (path: string, fallback: string) => {
      try {
        return fs?.read(path) ?? fallback;
      } catch {
        return fallback;
      }
    };
    const r = getaddrinfo(cluster, sourceOf(w), dbHost, { hosts: read("/etc/hosts", ""), resolvConf: read("/etc/resolv.conf", NODE_RESOLV_CONF) });
    if (!r.ok) return false;
    ip = r.addresses[0];
  }
  const conn = dataplaneOf(cluster).connect(sourceOf(w), ip, Number(dbPort || 3306));
  if (conn.verdict !== "established" || !conn.dst) return false;
  const db = podIndexOf(cluster).get(conn.dst.ip)?.pod;
  if (!db) return false;
  for (const c of db.spec.containers) {
    const prof = kubelet.profile(db, c.name);
    if (!prof || listenerApp(prof, conn.dst.port, "TCP") !== "mysql") continue;
    const dbEnv = new Map(kubelet.environment(db, c.name));
    if (user === "root") return password === dbEnv.get("MYSQL_ROOT_PASSWORD");
    return !!dbEnv.get("MYSQL_USER") && user === dbEnv.get("MYSQL_USER") && password === dbEnv.get("MYSQL_PASSWORD");
  }
  return false;
}

const UTF8 = new TextEncoder();
/** Bytes of `s` in UTF-8 (a body's Content-Length): its length when it is ASCII, as index pages are. */
/** The bytes of curl's request line and headers (what the connection carries to the server). */
function requestBytes(method: string, path: string, host: string): number {
  return `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n`.length;
}

/** The bytes of an answer: status line, the server's headers (Date's 37 among them), body. */
function responseBytes(r: HttpResponse): number {
  let n = `HTTP/1.1 ${r.status} ${r.reason}\r\n`.length + 37 + 2;
  for (const [k, v] of Object.entries(r.headers)) n += k.length + v.length + 4;
  const body = utf8Length(r.body);
  return n + `Content-Length: ${body}\r\n`.length + body;
}

export function utf8Length(s: string): number {
  return /^[\x00-\x7f]*$/.test(s) ? s.length : UTF8.encode(s).length;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
function accessLog(server: string, src: string, method: string, path: string, r: HttpResponse, t: number): string {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, "0");
  const ts = `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
  const size = utf8Length(r.body);
  if (server === "nginx") return `${src} - - [${ts}] "${method} ${path} HTTP/1.1" ${r.status} ${size} "-" "curl/8.5.0" "-"`;
  return `${src} - - [${ts}] "${method} ${path} HTTP/1.1" ${r.status} ${size}`;
}
