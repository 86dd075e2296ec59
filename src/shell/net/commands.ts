// The node and pod network commands, as (argv, context) -> {stdout, stderr, exitCode}:
// curl, wget, ping, nslookup, dig, host, iptables-save, iptables, nft, ipvsadm, ipset,
// conntrack, ip, and `explain` (ServiceLab's own: the trace of one connection).
import { conntrackList } from "../../engine/net/conntrack.js";
import { dataplaneOf } from "../../engine/net/cluster-env.js";
import { explainText } from "../../engine/net/explain.js";
import { counterSource } from "../../engine/net/counters.js";
import type { L4, Source } from "../../engine/net/packet.js";
import { iptablesList, iptablesRules, iptablesSave, toOutput } from "../../engine/proxy/iptables/render.js";
import { ipsetList, ipsetMissing, ipvsadmConnections, ipvsadmList } from "../../engine/proxy/ipvs/render.js";
import { nftList } from "../../engine/proxy/nftables/render.js";
import { iptablesNftList } from "../../engine/proxy/iptables/nft-list.js";
import type { NodeCommand, NodeCommandContext, NodeCommandResult } from "../node-commands.js";
import { isInternetAddress } from "../../engine/dns/upstream.js";
import { dig, getent, host, nslookup } from "./dns-tools.js";
import { isDottedQuad } from "../../engine/util/ip.js";
import { fetch, sourceOf, utf8Length } from "./http.js";
import { internetGet } from "./internet/index.js";
import { resolveHost, resolveName, where } from "./resolve.js";
import { dmesg } from "./dmesg.js";

const ok = (stdout: string, stderr = ""): NodeCommandResult => ({ stdout, stderr, exitCode: 0 });
const fail = (stderr: string, exitCode = 1, stdout = ""): NodeCommandResult => ({ stdout, stderr, exitCode });

/** A URL's parts; `authority` is host[:port] as written (what Host: and BusyBox's messages show). */
function parseURL(u: string): { scheme: string; host: string; port: number; path: string; authority: string } | undefined {
  const m = /^(?:([a-z]+):\/\/)?([^/:?#]+)(?::(\d+))?([/?][^#]*)?$/i.exec(u);
  if (!m) return undefined;
  const scheme = (m[1] ?? "http").toLowerCase();
  return { scheme, host: m[2], port: m[3] ? Number(m[3]) : scheme === "https" ? 443 : 80, path: m[4] ? (m[4].startsWith("?") ? `/${m[4]}` : m[4]) : "/", authority: m[3] ? `${m[2]}:${m[3]}` : m[2] };
}

// ---- curl ------------------------------------------------------------------------------------

const curl: NodeCommand = async (args, ctx) => {
  let silent = false;
  let showErr = false;
  let verbose = false;
  let head = false;
  let out: string | undefined;
  let maxTime: number | undefined;
  let url: string | undefined;
  let writeOut: string | undefined;
  let follow = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-o" || a === "--output") out = args[++i];
    else if (a === "-m" || a === "--max-time" || a === "--connect-timeout") maxTime = Number(args[++i]);
    else if (a === "-w" || a === "--write-out") writeOut = args[++i];
    else if (a === "-H" || a === "-X" || a === "-A" || a === "-d") i++;
    else if (a.startsWith("--") && a.length > 2) {
      if (a === "--silent") silent = true;
      else if (a === "--verbose") verbose = true;
      else if (a === "--head") head = true;
      else if (a === "--show-error") showErr = true;
      else if (a === "--location") follow = true;
    } else if (a.startsWith("-") && a.length > 1) {
      for (const f of a.slice(1)) {
        if (f === "s") silent = true;
        else if (f === "S") showErr = true;
        else if (f === "v") verbose = true;
        else if (f === "I") head = true;
        else if (f === "L") follow = true;
      }
    } else url = a;
  }
  const err = (code: number, msg: string): NodeCommandResult => fail(silent && !showErr ? "" : `curl: (${code}) ${msg}\n`, code);
  if (!url) return fail("curl: try 'curl --help' or 'curl --manual' for more information\n", 2);
  const u = parseURL(url);
  if (!u) return err(3, "URL rejected: Malformed input to a URL function");
  if (u.scheme !== "http" && u.scheme !== "https") return err(1, `Protocol "${u.scheme}" not supported`);
  let ip = await resolveHost(ctx, u.host);
  if (!ip) return err(6, `Could not resolve host: ${u.host}`);
  // A host of the lab network's catalog (./internet): its file, or its 404 page.
  if (isInternetAddress(ip)) {
    const remote = internetGet(u.host, u.path);
    const body = remote ? remote.body : new TextEncoder().encode("404: Not Found");
    if (out !== undefined && out !== "-" && out !== "/dev/null") {
      await ctx.writeFile(out, body);
      return ok("");
    }
    return ok(out === "/dev/null" ? "" : new TextDecoder().decode(body));
  }
  let vlog = verbose ? `*   Trying ${ip}:${u.port}...\n` : "";
  // curl's Host header carries the port only when it is not the scheme's default.
  const hostHeader = (p: NonNullable<typeof u>) => (p.port === (p.scheme === "https" ? 443 : 80) ? p.host : `${p.host}:${p.port}`);
  let f = fetch(where(ctx), ip, u.port, u.path, head ? "HEAD" : "GET", hostHeader(u));
  // -L: follow Location (up to curl's default of 50), each hop a new connection.
  for (let hop = 0; follow && hop < 50 && f.response && f.response.status >= 300 && f.response.status < 400 && f.response.headers.Location; hop++) {
    const loc = f.response.headers.Location;
    const next = parseURL(loc.startsWith("/") ? `${u.scheme}://${u.authority}${loc}` : loc);
    if (!next) break;
    const nip = await resolveHost(ctx, next.host);
    if (!nip) return err(6, `Could not resolve host: ${next.host}`);
    ip = nip;
    f = fetch(where(ctx), ip, next.port, next.path, head ? "HEAD" : "GET", hostHeader(next));
  }
  const c = f.conn;
  const timeoutMs = maxTime !== undefined ? Math.round(maxTime * 1000) : 0;
  if (c.verdict === "timeout") {
    if (timeoutMs) return { ...err(28, `Connection timed out after ${timeoutMs + 1} milliseconds`), stderr: vlog + (silent && !showErr ? "" : `curl: (28) Connection timed out after ${timeoutMs + 1} milliseconds\n`) };
    return { ...err(28, `Failed to connect to ${u.host} port ${u.port} after 134321 ms: Couldn't connect to server`), stderr: vlog + (silent && !showErr ? "" : `curl: (28) Failed to connect to ${u.host} port ${u.port} after 134321 ms: Couldn't connect to server\n`) };
  }
  if (c.verdict === "refused" || c.verdict === "unreachable") {
    const ms = c.verdict === "unreachable" ? 3068 : 0;
    const r = err(7, `Failed to connect to ${u.host} port ${u.port} after ${ms} ms: Couldn't connect to server`);
    return { ...r, stderr: vlog + r.stderr };
  }
  if (u.scheme === "https" || !f.response) {
    vlog += verbose ? `* Connected to ${u.host} (${ip}) port ${u.port}\n` : "";
    if (u.scheme === "https") return { ...err(35, "OpenSSL/3.0.13: error:0A00010B:SSL routines::wrong version number"), stderr: vlog + (silent && !showErr ? "" : "curl: (35) OpenSSL/3.0.13: error:0A00010B:SSL routines::wrong version number\n") };
    return { ...err(52, "Empty reply from server"), stderr: vlog + (silent && !showErr ? "" : "curl: (52) Empty reply from server\n") };
  }
  const r = f.response;
  if (!verbose && !head && writeOut === undefined && out === undefined) return ok(r.body, "");
  const date = new Date(ctx.cluster.now()).toUTCString();
  const size = utf8Length(r.body);
  const headers = [`HTTP/1.1 ${r.status} ${r.reason}`, `Date: ${date}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${size}`];
  if (verbose) {
    vlog += `* Connected to ${u.host} (${ip}) port ${u.port}\n> ${head ? "HEAD" : "GET"} ${u.path} HTTP/1.1\n> Host: ${u.host}${u.port === 80 ? "" : `:${u.port}`}\n> User-Agent: curl/8.5.0\n> Accept: */*\n> \n`;
    vlog += headers.map((h) => `< ${h}\n`).join("") + "< \n";
  }
  const body = head ? headers.map((h) => `${h}\r\n`).join("") + "\r\n" : r.body;
  if (verbose) vlog += `* Connection #0 to host ${u.host} left intact\n`;
  // -w: the variables the labs use.
  const written = writeOut === undefined ? "" : writeOut.replace(/%\{(\w+)\}/g, (m, v: string) => (v === "http_code" || v === "response_code" ? String(r.status) : v === "remote_ip" ? ip! : v === "size_download" ? String(head ? 0 : size) : m)).replace(/\\n/g, "\n");
  if (out === "/dev/null") return ok(written, vlog);
  if (out !== undefined && out !== "-") {
    await ctx.writeFile(out, body);
    const progress = silent ? "" : `  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n100   ${String(size).padStart(3)}  100   ${String(size).padStart(3)}    0     0   ${size}k      0 --:--:-- --:--:-- --:--:-- ${size}k\n`;
    return ok(written, vlog + progress);
  }
  return ok(body + written, vlog);
};

// ---- wget: GNU Wget 1.21 on the node (Rocky Linux 9), BusyBox's in pods -------------------------

const wget: NodeCommand = async (args, ctx) => (ctx.pod ? busyboxWget(args, ctx) : gnuWget(args, ctx));

async function busyboxWget(args: string[], ctx: NodeCommandContext): Promise<NodeCommandResult> {
  let out: string | undefined;
  let quiet = false;
  let url: string | undefined;
  let timeout = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-O") out = args[++i];
    else if (a === "-q") quiet = true;
    else if (a === "-qO-" || a === "-qO") (quiet = true), (out = a === "-qO-" ? "-" : args[++i]);
    else if (a === "-T") timeout = Number(args[++i]);
    else if (!a.startsWith("-")) url = a;
  }
  if (!url) return fail("BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n", 1);
  let u = parseURL(url);
  if (!u) return fail(`wget: bad address '${url}'\n`);
  // The output name comes from the URL as typed, before any redirect (download_one_url).
  const file = out ?? (u.path.split("?")[0].split("/").pop() || "index.html");
  let log = "";
  // BusyBox follows up to 5 redirects, printing "Connecting to host[:port] (ip:port)" for each hop.
  for (let hop = 0; ; hop++) {
    const ip = await resolveHost(ctx, u.host);
    if (!ip) return fail(`${log}wget: bad address '${u.host}'\n`);
    log += quiet ? "" : `Connecting to ${u.authority} (${ip}:${u.port})\n`;
    const f = fetch(where(ctx), ip, u.port, u.path, "GET", u.authority);
    if (f.conn.verdict === "refused" || f.conn.verdict === "unreachable") return fail(`${log}wget: can't connect to remote host (${ip}): ${f.conn.verdict === "refused" ? "Connection refused" : "Host is unreachable"}\n`);
    if (f.conn.verdict === "timeout") return fail(`${log}wget: ${timeout ? "download timed out" : `can't connect to remote host (${ip}): Connection timed out`}\n`);
    if (!f.response) return fail(`${log}wget: error getting response: Connection reset by peer\n`);
    const r = f.response;
    const loc = r.headers.Location;
    if (r.status >= 300 && r.status < 400 && loc) {
      if (hop >= 5) return fail(`${log}wget: too many redirections\n`);
      const next = parseURL(loc.startsWith("/") ? `${u.scheme}://${u.authority}${loc}` : loc);
      if (!next) return fail(`${log}wget: bad address '${loc}'\n`);
      u = next;
      continue;
    }
    if (r.status >= 400) return fail(`${log}wget: server returned error: HTTP/1.1 ${r.status} ${r.reason}\n`);
    const size = utf8Length(r.body);
    const bar = (name: string) => `${name.padEnd(20)} 100% |********************************|  ${String(size).padStart(4)}  0:00:00 ETA\n`;
    if (out === "-") return ok(r.body, quiet ? "" : `${log}writing to stdout\n${bar("-")}written to stdout\n`);
    if (out === undefined && ctx.exists && (await ctx.exists(file))) return fail(`${log}wget: can't open '${file}': File exists\n`);
    await ctx.writeFile(file, r.body);
    return ok("", quiet ? "" : `${log}saving to '${file}'\n${bar(file)}'${file}' saved\n`);
  }
}

function wgetTime(t: number): string {
  return new Date(t).toISOString().replace("T", " ").slice(0, 19);
}

/** Wget's sizes: the progress bar with two decimals, "Length: (...)" with one below 10, else none. */
function humanSize(n: number, short = false): string {
  if (n < 1024) return `${n}`;
  const [v, unit] = n < 1024 * 1024 ? [n / 1024, "K"] : [n / 1024 / 1024, "M"];
  return `${v.toFixed(short ? (v < 10 ? 1 : 0) : 2)}${unit}`;
}

/**
 * GNU Wget on the node. The node has no internet: a host resolves only for what the built-in
 * catalog serves (./internet); cluster addresses are reached through the data plane.
 */
async function gnuWget(args: string[], ctx: NodeCommandContext): Promise<NodeCommandResult> {
  let out: string | undefined;
  let quiet = false;
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-O" || a === "--output-document") out = args[++i];
    else if (a.startsWith("--output-document=")) out = a.slice(18);
    else if (a === "-q" || a === "--quiet") quiet = true;
    else if (a === "-qO-" || a === "-qO") (quiet = true), (out = a === "-qO-" ? "-" : args[++i]);
    else if (a === "-T" || a === "-t" || a === "--timeout" || a === "--tries") i++;
    else if (a.startsWith("-")) continue;
    else urls.push(a);
  }
  if (!urls.length) return fail("wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n", 1);
  let stdout = "";
  let stderr = "";
  let code = 0;
  const now = ctx.cluster.now();
  for (const raw of urls) {
    const u = parseURL(raw);
    if (!u) {
      stderr += `${raw}: Unsupported scheme.\n`;
      code = 1;
      continue;
    }
    const shown = `${u.scheme}://${u.authority}${u.path}`;
    const say = (s: string) => {
      if (!quiet) stderr += s;
    };
    say(`--${wgetTime(now)}--  ${shown}\n`);
    let ip: string | undefined;
    let body: Uint8Array | undefined;
    let status = "200 OK";
    let type = "text/html";
    if (!isDottedQuad(u.host)) {
      const r = await resolveName(ctx, u.host);
      if (!r.ok) {
        const why = r.error === "AGAIN" ? "Temporary failure in name resolution" : "Name or service not known";
        say(`Resolving ${u.host} (${u.host})... failed: ${why}.\n`);
        stderr += `wget: unable to resolve host address ‘${u.host}’\n`;
        code = 4;
        continue;
      }
      ip = r.addresses[0];
    } else ip = u.host;
    // A host of the lab network's catalog (the guide's mirror, GitHub): served from ./internet.
    const remote = isInternetAddress(ip) ? internetGet(u.host, u.path) : undefined;
    if (isInternetAddress(ip)) {
      say(`Resolving ${u.host} (${u.host})... ${ip}\n`);
      say(`Connecting to ${u.host} (${u.host})|${ip}|:${u.port}... connected.\n`);
      if (!remote) {
        say(`HTTP request sent, awaiting response... 404 Not Found\n${wgetTime(now)} ERROR 404: Not Found.\n\n`);
        code = 8;
        continue;
      }
      body = remote.body;
      type = remote.contentType;
    } else {
      if (!isDottedQuad(u.host)) say(`Resolving ${u.host} (${u.host})... ${ip}\n`);
      const target = isDottedQuad(u.host) ? `${ip}:${u.port}` : `${u.host} (${u.host})|${ip}|:${u.port}`;
      const f = fetch(where(ctx), ip, u.port, u.path, "GET", u.authority);
      if (f.conn.verdict !== "established") {
        const why = f.conn.verdict === "refused" ? "Connection refused" : f.conn.verdict === "unreachable" ? "No route to host" : "Connection timed out";
        say(`Connecting to ${target}... failed: ${why}.\n`);
        code = 4;
        continue;
      }
      say(`Connecting to ${target}... connected.\n`);
      if (u.scheme === "https" || !f.response) {
        say(u.scheme === "https" ? `GnuTLS: An unexpected TLS packet was received.\nUnable to establish SSL connection.\n` : `HTTP request sent, awaiting response... No data received.\n`);
        code = 4;
        continue;
      }
      status = `${f.response.status} ${f.response.reason}`;
      if (f.response.status >= 400) {
        say(`HTTP request sent, awaiting response... ${status}\n${wgetTime(now)} ERROR ${status}.\n\n`);
        code = 8;
        continue;
      }
      body = new TextEncoder().encode(f.response.body);
      type = f.response.headers["Content-Type"] ?? "text/html";
    }
    say(`HTTP request sent, awaiting response... ${status}\n`);
    const n = body.length;
    say(`Length: ${n}${n >= 1024 ? ` (${humanSize(n, true)})` : ""} [${type.split(";")[0]}]\n`);
    let file = out ?? (u.path.split("?")[0].split("/").pop() || "index.html");
    if (out === "-") {
      say(`Saving to: ‘STDOUT’\n\n`);
      stdout += new TextDecoder().decode(body);
    } else {
      // An existing file is kept: the download becomes file.1, file.2, ...
      if (out === undefined && ctx.exists && (await ctx.exists(file))) {
        let k = 1;
        while (await ctx.exists(`${file}.${k}`)) k++;
        file = `${file}.${k}`;
      }
      await ctx.writeFile(file, body);
      say(`Saving to: ‘${file}’\n\n`);
    }
    const name = (out === "-" ? "-" : file).padEnd(22).slice(0, 22);
    say(`${name}100%[===================>] ${humanSize(n).padStart(7)}  --.-KB/s    in 0s      \n\n`);
    say(`${wgetTime(now)} (${(n / 1024 / 1024 / 0.001).toFixed(0)} MB/s) - ${out === "-" ? "written to stdout" : `‘${file}’ saved`} [${n}/${n}]\n\n`);
  }
  return { stdout, stderr, exitCode: code };
}

// ---- ping (iputils) --------------------------------------------------------------------------

const ping: NodeCommand = async (args, ctx) => {
  let count = 4;
  let host: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-c") count = Number(args[++i]);
    else if (args[i] === "-W" || args[i] === "-i" || args[i] === "-w") i++;
    else if (!args[i].startsWith("-")) host = args[i];
  }
  if (!host) return fail("ping: usage error: Destination address required\n", 2);
  const r = await resolveName(ctx, host);
  if (!r.ok) return fail(`ping: ${host}: ${r.error === "AGAIN" ? "Temporary failure in name resolution" : "Name or service not known"}\n`, 2);
  const ip = r.addresses[0];
  const dp = dataplaneOf(ctx.cluster);
  const src = sourceOf(where(ctx));
  let out = `PING ${host} (${ip}) 56(84) bytes of data.\n`;
  let received = 0;
  let errors = 0;
  const times: number[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const r = dp.connect(src, ip, 0, { proto: "icmp", sport: 8 });
    if (r.verdict === "established") {
      received++;
      const hops = r.path.length - 1 + (r.pod ? 1 : 0);
      const t = 0.05 + 0.35 * Math.min(hops, 2) + ((seq * 37) % 11) / 100;
      times.push(t);
      out += `64 bytes from ${ip}: icmp_seq=${seq} ttl=${64 - Math.max(0, hops - 1)} time=${t.toFixed(3)} ms\n`;
    } else if (r.verdict === "refused" || r.verdict === "unreachable") {
      errors++;
      out += `From ${r.path.length ? (dp.nodeNet(r.path[r.path.length - 1])?.ip ?? ip) : ip} icmp_seq=${seq} Destination ${r.verdict === "refused" ? "Port" : "Host"} Unreachable\n`;
    }
  }
  const loss = Math.round(((count - received) / count) * 100);
  out += `\n--- ${host} ping statistics ---\n${count} packets transmitted, ${received} received, ${errors ? `+${errors} errors, ` : ""}${loss}% packet loss, time ${Math.max(0, count - 1) * 1001 + (received ? 2 : 40)}ms\n`;
  if (times.length) {
    const min = Math.min(...times);
    const max = Math.max(...times);
    const avg = times.reduce((a, b) => a + b, 0) / times.length;
    const mdev = Math.sqrt(times.reduce((a, b) => a + (b - avg) ** 2, 0) / times.length);
    out += `rtt min/avg/max/mdev = ${min.toFixed(3)}/${avg.toFixed(3)}/${max.toFixed(3)}/${mdev.toFixed(3)} ms\n`;
  }
  return { stdout: out, stderr: "", exitCode: received ? 0 : 1 };
};

// ---- rule listings -------------------------------------------------------------------------------

export function ctime(t: number): string {
  const d = new Date(t);
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p = (n: number) => String(n).padStart(2, "0");
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, " ")} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

const EMPTY_RULESET = { tables: [] };

/** The node's rule counters as the renderers read them (node kernel state: see engine/net/counters.ts). */
function nodeCounters(ctx: NodeCommandContext) {
  return counterSource(dataplaneOf(ctx.cluster).kernel(ctx.node).counters);
}

const iptablesSaveCmd: NodeCommand = (args, ctx) => {
  let table: string | undefined;
  let withRuleCounters = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-t" || args[i] === "--table") table = args[++i];
    else if (args[i] === "-c" || args[i] === "--counters") withRuleCounters = true;
  }
  const rs = ctx.cluster.proxies.node(ctx.node).iptables() ?? EMPTY_RULESET;
  return toOutput(iptablesSave(rs, { date: ctime(ctx.cluster.now()), table, counters: nodeCounters(ctx), withRuleCounters }));
};

/**
 * The version the node's iptables reports: iptables-nft, as on Rocky Linux 9 (RHEL 9 ships no
 * legacy backend) and Debian 12; 1.8.9 as every iptables text here says (iptables-save's header),
 * checked against the real 1.8.9 in a network namespace.
 */
const IPTABLES_VERSION = "iptables v1.8.9 (nf_tables)";

const iptables: NodeCommand = (args, ctx) => {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) return ok(`${IPTABLES_VERSION}\n`);
  let table = "filter";
  let chain: string | undefined;
  let op: "L" | "S" | undefined;
  let numeric = false;
  let verbose = false;
  let exact = false;
  let lineNumbers = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-t") table = args[++i];
    else if (a === "--line-numbers") lineNumbers = true;
    else if (a === "--numeric") numeric = true;
    else if (a === "--verbose") verbose = true;
    else if (a === "--exact") exact = true;
    else if (a === "-L" || a === "--list" || a === "-S" || a === "--list-rules") {
      op = a === "-L" || a === "--list" ? "L" : "S";
      if (args[i + 1] && !args[i + 1].startsWith("-")) chain = args[++i];
    } else if (/^-[LSnvx]+$/.test(a)) {
      for (const f of a.slice(1)) {
        if (f === "L") op = "L";
        else if (f === "S") op = "S";
        else if (f === "n") numeric = true;
        else if (f === "v") verbose = true;
        else if (f === "x") exact = true;
      }
      if ((a.includes("L") || a.includes("S")) && args[i + 1] && !args[i + 1].startsWith("-")) chain = args[++i];
    } else return fail(`iptables v1.8.9 (nf_tables): unknown option "${a}"\nTry \`iptables -h' or 'iptables --help' for more information.\n`, 2);
  }
  if (!op) return fail("iptables v1.8.9 (nf_tables): no command specified\nTry `iptables -h' or 'iptables --help' for more information.\n", 2);
  const rs = ctx.cluster.proxies.node(ctx.node).iptables() ?? EMPTY_RULESET;
  if (op === "S") return toOutput(iptablesRules(rs, { table, chain, counters: verbose ? nodeCounters(ctx) : undefined }));
  return toOutput(iptablesList(rs, { table, chain, numeric, verbose, exact, lineNumbers, counters: verbose ? nodeCounters(ctx) : undefined }));
};

/** nft's options that change nothing here (numeric output, stateless, echo...) or add handles. */
const NFT_SHORT = new Set(["a", "n", "s", "N", "y", "e", "t", "T", "S", "u", "c"]);
const NFT_LONG: Record<string, string> = {
  "--handle": "a", "--numeric": "n", "--stateless": "s", "--reversedns": "N", "--numeric-priority": "y",
  "--echo": "e", "--terse": "t", "--numeric-time": "T", "--service": "S", "--guid": "u", "--check": "c",
};

const nft: NodeCommand = (args, ctx) => {
  const p = ctx.cluster.proxies.node(ctx.node).nftables();
  // getopt stops at the first word that is not an option: nft's options come before the command.
  let handles = false;
  let i = 0;
  for (; i < args.length && args[i].startsWith("-") && args[i] !== "-"; i++) {
    const a = args[i];
    const flags = a.startsWith("--") ? NFT_LONG[a] : a.slice(1);
    if (flags === undefined) return fail(`nft: unrecognized option '${a}'\n`);
    for (const f of flags) {
      if (!NFT_SHORT.has(f)) return fail(`nft: invalid option -- '${f}'\n`);
      if (f === "a") handles = true;
    }
  }
  const words = args.slice(i);
  const late = words.findIndex((w) => /^-(-?[a-zA-Z])/.test(w));
  if (late >= 0) {
    const line = `nft ${words.join(" ")} `;
    const at = 4 + words.slice(0, late).join(" ").length + (late ? 1 : 0);
    return fail(`Error: syntax error, options must be specified before commands\n${line}\n   ^${" ".repeat(Math.max(0, at - 4))}${"~".repeat(words[late].length)}\n`);
  }
  // iptables mode: iptables is iptables-nft, so its tables are what nft lists.
  const rs = p ? undefined : ctx.cluster.proxies.node(ctx.node).iptables();
  if (rs) return iptablesNftList(rs, words, nodeCounters(ctx), { handles });
  return nftList(p?.table, words, { handles });
};

const ipvsadm: NodeCommand = (args, ctx) => {
  const p = ctx.cluster.proxies.node(ctx.node).ipvs();
  const flags = args.join(" ");
  const empty = "IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n";
  if (!p) return ok(empty);
  if (/-L?[a-z]*c|--connection/.test(flags) && /-[A-Za-z]*c/.test(flags)) return ok(ipvsadmConnections(p, ctx.cluster.now()));
  let service: { protocol: string; ip: string; port: number } | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^-[A-Za-z]*([tu])$/.exec(a);
    if ((m || a === "--tcp-service" || a === "--udp-service") && args[i + 1]) {
      const [ip, port] = args[i + 1].split(":");
      service = { protocol: (m ? m[1] : a[2]) === "u" ? "UDP" : "TCP", ip, port: Number(port) };
    }
  }
  const format = args.includes("--stats") ? "stats" : args.includes("--rate") ? "rate" : "list";
  const out = ipvsadmList(p, { format, service, now: ctx.cluster.now() });
  if (out === undefined) return fail("Memory allocation problem\n", 1);
  return ok(out);
};

const ipset: NodeCommand = (args, ctx) => {
  const p = ctx.cluster.proxies.node(ctx.node).ipvs();
  if (args[0] !== "list" && args[0] !== "-L") return fail(`ipset v7.17: Unknown argument: \`${args[0] ?? ""}'\n`, 1);
  if (!p) return args[1] ? fail(ipsetMissing(args[1]), 1) : ok("");
  const out = ipsetList(p, ctx.cluster.proxies.node(ctx.node).iptables(), args[1]);
  return out === undefined ? fail(ipsetMissing(args[1] ?? ""), 1) : ok(out);
};

const conntrack: NodeCommand = (args, ctx) => {
  const dp = dataplaneOf(ctx.cluster);
  const now = ctx.cluster.now();
  const o: { proto?: string; src?: string; dst?: string; dport?: number } = {};
  let op = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-L" || a === "--dump" || a === "-F" || a === "--flush" || a === "-C" || a === "--count") op = a;
    else if (a === "-p" || a === "--proto") o.proto = args[++i];
    else if (a === "-s" || a === "--src" || a === "--orig-src") o.src = args[++i];
    else if (a === "-d" || a === "--dst" || a === "--orig-dst") o.dst = args[++i];
    else if (a === "--dport" || a === "--orig-port-dst") o.dport = Number(args[++i]);
  }
  const table = dp.conntrack(ctx.node);
  if (op === "-F" || op === "--flush") {
    table.flush();
    return ok("", "conntrack v1.4.7 (conntrack-tools): connection tracking table has been emptied.\n");
  }
  if (op === "-C" || op === "--count") return ok(`${table.list(now).length}\n`);
  if (!op) return fail("conntrack v1.4.7 (conntrack-tools): no command specified. Please, use -h or --help\n", 2);
  const r = conntrackList(table, now, o);
  return ok(r.stdout, r.stderr);
};

// ---- ip ------------------------------------------------------------------------------------------

/** One network interface as `ip link` and `ip -br` print it. */
interface Link {
  index?: number;
  name: string;
  flags: string;
  mtu: number;
  qdisc: string;
  state: "UP" | "UNKNOWN" | "DOWN";
  qlen?: number;
  type: "loopback" | "ether";
  mac: string;
  /** `link-netnsid 0` for a pod's end of a veth pair. */
  netns?: boolean;
  addrs: string[];
}

const hex2 = (n: number) => n.toString(16).padStart(2, "0");
/** A MAC address from an IPv4 address, as the CNI plugins make them: 0a:58 and the address's bytes. */
const macOf = (ip: string) => ["0a", "58", ...ip.split(".").map((o) => hex2(Number(o)))].join(":");

/** The interfaces of a node (loopback, its NIC, flannel's VXLAN device, the CNI bridge) or of a pod. */
function interfaces(ctx: NodeCommandContext): Link[] | undefined {
  const lo: Link = { name: "lo", flags: "LOOPBACK,UP,LOWER_UP", mtu: 65536, qdisc: "noqueue", state: "UNKNOWN", qlen: 1000, type: "loopback", mac: "00:00:00:00:00:00", addrs: ["127.0.0.1/8"] };
  if (ctx.pod?.pod.status?.podIP && !ctx.pod.pod.spec.hostNetwork) {
    const pip = ctx.pod.pod.status.podIP;
    return [lo, { name: "eth0@if7", flags: "BROADCAST,MULTICAST,UP,LOWER_UP", mtu: 1450, qdisc: "noqueue", state: "UP", type: "ether", mac: "0a:58:0a:f4:01:05", netns: true, addrs: [`${pip}/24`] }];
  }
  const me = dataplaneOf(ctx.cluster).nodeNet(ctx.node);
  if (!me) return undefined;
  const base = me.podCIDR.split("/")[0].split(".").slice(0, 3).join(".");
  const out: Link[] = [
    lo,
    { name: "eth0", flags: "BROADCAST,MULTICAST,UP,LOWER_UP", mtu: 1500, qdisc: "fq_codel", state: "UP", qlen: 1000, type: "ether", mac: `00:0c:29:00:08:${me.ip.split(".")[3]}`, addrs: [`${me.ip}/24`] },
    { name: "flannel.1", flags: "BROADCAST,MULTICAST,UP,LOWER_UP", mtu: 1450, qdisc: "noqueue", state: "UNKNOWN", type: "ether", mac: macOf(`${base}.0`).replace(/^0a:58/, "ce:1f"), addrs: [`${base}.0/32`] },
    { name: "cni0", flags: "BROADCAST,MULTICAST,UP,LOWER_UP", mtu: 1450, qdisc: "noqueue", state: "UP", qlen: 1000, type: "ether", mac: macOf(`${base}.1`), addrs: [`${base}.1/24`] },
  ];
  const ipvs = ctx.cluster.proxies.node(ctx.node).ipvs();
  if (ipvs) out.push({ name: "kube-ipvs0", flags: "BROADCAST,NOARP", mtu: 1500, qdisc: "noop", state: "DOWN", type: "ether", mac: macOf(me.ip).replace(/^0a:58/, "a6:5c"), addrs: [] });
  return out;
}

/** `ip link`: each interface's header and link line. */
function ipLink(links: Link[]): string {
  return links
    .map((l) => {
      const head = `${l.index}: ${l.name}: <${l.flags}> mtu ${l.mtu} qdisc ${l.qdisc} state ${l.state} mode DEFAULT group default${l.qlen ? ` qlen ${l.qlen}` : ""}\n`;
      return `${head}    link/${l.type} ${l.mac} brd ${l.type === "loopback" ? "00:00:00:00:00:00" : "ff:ff:ff:ff:ff:ff"}${l.netns ? " link-netnsid 0" : ""}\n`;
    })
    .join("");
}

/** `ip -br addr` / `ip -br link`: iproute2's brief columns (name 16, state 14, then the items). */
function ipBrief(links: Link[], what: "addr" | "link"): string {
  return links.map((l) => `${l.name.padEnd(16)} ${l.state.padEnd(14)} ${(what === "addr" ? l.addrs : [l.mac, `<${l.flags}>`]).map((a) => `${a} `).join("")}\n`).join("");
}

const ip: NodeCommand = (args, ctx) => {
  // iproute2's options come before the object: -br/-brief, -4, -6, -c, -d, -s, -o.
  let brief = false;
  while (args[0]?.startsWith("-")) {
    const o = args[0];
    if (o === "-br" || o === "-brief") brief = true;
    else if (!/^-(4|6|c|color|d|details|s|stats|o|oneline|n)$/.test(o)) return fail(`Option "${o}" is unknown, try "ip -help".\n`, 255);
    args = args.slice(1);
  }
  const links = interfaces(ctx)?.map((l, i) => ({ ...l, index: i + 1 }));
  const obj = args[0] ?? "";
  if (/^(l|li|lin|link)$/.test(obj) || (brief && /^(a|addr|address)$/.test(obj))) {
    if (!links) return fail("Cannot find device\n");
    const i = args.indexOf("dev") >= 0 ? args.indexOf("dev") : args.indexOf("show");
    const name = i >= 0 ? args[i + 1] : undefined;
    const chosen = name ? links.filter((l) => l.name.split("@")[0] === name) : links;
    if (name && !chosen.length) return fail(`Device "${name}" does not exist.\n`);
    if (brief) return ok(ipBrief(chosen, /^l/.test(obj) ? "link" : "addr"));
    return ok(ipLink(chosen));
  }
  const dp = dataplaneOf(ctx.cluster);
  if (ctx.pod?.pod.status?.podIP && !ctx.pod.pod.spec.hostNetwork) {
    const pip = ctx.pod.pod.status.podIP;
    const gw = pip.split(".").slice(0, 3).join(".") + ".1";
    if (/^r/.test(obj)) return ok(`default via ${gw} dev eth0 \n10.244.0.0/16 via ${gw} dev eth0 \n${pip.split(".").slice(0, 3).join(".")}.0/24 dev eth0 proto kernel scope link src ${pip} \n`);
    return ok(`1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n2: eth0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UP group default\n    link/ether 0a:58:0a:f4:01:05 brd ff:ff:ff:ff:ff:ff link-netnsid 0\n    inet ${pip}/24 brd ${pip.split(".").slice(0, 3).join(".")}.255 scope global eth0\n       valid_lft forever preferred_lft forever\n`);
  }
  const me = dp.nodeNet(ctx.node);
  if (!me) return fail("Cannot find device\n");
  const base = me.podCIDR.split("/")[0].split(".").slice(0, 3).join(".");
  if (/^r/.test(obj)) {
    let out = `default via 10.1.8.2 dev eth0 proto static \n10.1.8.0/24 dev eth0 proto kernel scope link src ${me.ip} \n`;
    for (const n of ctx.cluster.config.nodes) {
      if (n.name === ctx.node) out += `${n.podCIDR} dev cni0 proto kernel scope link src ${base}.1 \n`;
      else out += `${n.podCIDR} via ${n.podCIDR.split("/")[0]} dev flannel.1 onlink \n`;
    }
    return ok(out);
  }
  if (/^(a|addr|address)$/.test(obj)) {
    const dev = args[args.indexOf("show") + 1] ?? args[args.indexOf("dev") + 1];
    const ipvs = ctx.cluster.proxies.node(ctx.node).ipvs();
    let out = `1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n`;
    out += `2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen 1000\n    link/ether 00:0c:29:00:08:${me.ip.split(".")[3]} brd ff:ff:ff:ff:ff:ff\n    inet ${me.ip}/24 brd 10.1.8.255 scope global eth0\n       valid_lft forever preferred_lft forever\n`;
    out += `3: flannel.1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UNKNOWN group default\n    inet ${base}.0/32 scope global flannel.1\n       valid_lft forever preferred_lft forever\n`;
    out += `4: cni0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UP group default qlen 1000\n    inet ${base}.1/24 brd ${base}.255 scope global cni0\n       valid_lft forever preferred_lft forever\n`;
    if (dev === "kube-ipvs0") return ipvs ? ok(ipAddrDummy(ipvs)) : fail('Device "kube-ipvs0" does not exist.\n');
    return ok(out);
  }
  return fail(`Object "${obj}" is unknown, try "ip help".\n`, 255);
};
import { ipAddrShowDummy as ipAddrDummy } from "../../engine/proxy/ipvs/render.js";

// ---- explain -------------------------------------------------------------------------------------

/** `explain [--from pod/NAME|node/NAME|IP] [-u|--udp] [--json] HOST[:PORT]`: one connection's full trace. */
const explain: NodeCommand = async (args, ctx) => {
  let from: string | undefined;
  let target: string | undefined;
  let proto: L4 = "tcp";
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--from") from = args[++i];
    else if (a === "-u" || a === "--udp") proto = "udp";
    else if (a === "--icmp") proto = "icmp";
    else if (a === "--json") json = true;
    else target = a;
  }
  if (!target) return fail("usage: explain [--from pod/NAME|node/NAME|IP] [--udp|--icmp] [--json] HOST[:PORT]\n", 2);
  const u = parseURL(target);
  if (!u) return fail(`explain: bad target ${target}\n`, 2);
  const dst = await resolveHost(ctx, u.host);
  if (!dst) return fail(`explain: cannot resolve ${u.host}\n`, 1);
  let src: Source = sourceOf(where(ctx));
  if (from?.startsWith("node/")) src = { kind: "node", node: from.slice(5) };
  else if (from?.startsWith("pod/")) {
    const [ns, name] = from.slice(4).includes("/") ? from.slice(4).split("/") : ["default", from.slice(4)];
    const pod = ctx.cluster.store.list("pods", ns).find((p) => p.metadata.name === name) as unknown as { status?: { podIP?: string }; spec: { nodeName?: string } } | undefined;
    if (!pod?.status?.podIP) return fail(`explain: pod ${ns}/${name} has no IP\n`, 1);
    src = { kind: "pod", ip: pod.status.podIP, node: pod.spec.nodeName ?? ctx.node };
  } else if (from && isDottedQuad(from)) src = { kind: "external", ip: from };
  const r = dataplaneOf(ctx.cluster).connect(src, dst, proto === "icmp" ? 0 : u.port, { proto, trace: true, probe: true });
  if (json) return ok(JSON.stringify(r, null, 2) + "\n");
  return ok(explainText(r));
};

export const NET_COMMANDS: Record<string, NodeCommand> = {
  curl,
  wget,
  ping,
  nslookup,
  host,
  dig,
  getent,
  "iptables-save": iptablesSaveCmd,
  iptables,
  nft,
  ipvsadm,
  ipset,
  conntrack,
  dmesg,
  ip,
  explain,
};
