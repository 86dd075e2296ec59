// The DNS tools, all through the one resolver (engine/dns/resolver.ts): BIND 9.18's dig, host
// and nslookup on the node (they ask the server they are given, else resolv.conf's first
// nameserver, and never read /etc/hosts), BusyBox 1.36's nslookup in pods (one query per search
// domain for a dotless name, A then AAAA, each reply printed as it comes), and glibc's getent.
import { fqdn, type Question, type Reply, type RR, type RRType, wireSize } from "../../engine/dns/message.js";
import { DnsSocket, type Exchange, getaddrinfo, parseResolvConf, type ResolvConf, searchNames } from "../../engine/dns/resolver.js";
import type { NodeCommand, NodeCommandContext, NodeCommandResult } from "../node-commands.js";
import { resolveName, resolverFiles, sourceOfCtx } from "./resolve.js";

const ok = (stdout: string, stderr = ""): NodeCommandResult => ({ stdout, stderr, exitCode: 0 });
const fail = (stdout: string, exitCode: number, stderr = ""): NodeCommandResult => ({ stdout, stderr, exitCode });

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const TYPES: RRType[] = ["A", "AAAA", "CNAME", "PTR", "SRV", "TXT", "SOA", "NS", "MX", "ANY"];
const DIG_VERSION = "9.18.28";

function reverseName(ip: string): string {
  return `${ip.split(".").reverse().join(".")}.in-addr.arpa.`;
}

const bare = (n: string) => (n === "." ? "." : n.replace(/\.$/, ""));

async function resolvConfOf(ctx: NodeCommandContext): Promise<ResolvConf> {
  return parseResolvConf((await resolverFiles(ctx)).resolvConf);
}

/** A server named on the command line: an address, or a name resolved as getaddrinfo does. */
async function serverAddress(ctx: NodeCommandContext, s: string): Promise<string | undefined> {
  if (IPV4.test(s)) return s;
  const r = await resolveName(ctx, s);
  return r.ok ? r.addresses[0] : undefined;
}

// ---- dig ------------------------------------------------------------------------------------

/** BIND's master-file columns: tabs up to the column when short of it, else one space. */
function toColumn(line: string, col: number): string {
  let c = 0;
  for (const ch of line) c = ch === "\t" ? (c + 8) & ~7 : c + 1;
  if (c >= col) return " ";
  let out = "";
  while (c < col) {
    out += "\t";
    c = (c + 8) & ~7;
  }
  return out;
}

function rrLine(rr: RR): string {
  let l = rr.name;
  l += toColumn(l, 24) + rr.ttl;
  l += toColumn(l, 32) + "IN";
  l += toColumn(l, 40) + rr.type;
  l += toColumn(l, 48) + rr.data;
  return l;
}

function questionLine(q: Question): string {
  let l = `;${q.name}`;
  l += toColumn(l, 32) + "IN";
  l += toColumn(l, 40) + q.type;
  return l;
}

function digWhen(t: number): string {
  const d = new Date(t);
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p = (n: number) => String(n).padStart(2, "0");
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

function flags(r: Reply): string {
  return ["qr", r.aa ? "aa" : "", "rd", r.ra ? "ra" : ""].filter(Boolean).join(" ");
}

/** A query that got no reply, in the words of BIND 9.18's tools (dig, host, nslookup). */
function commsErrors(server: string, error: "timeout" | "refused", tries: number): string {
  return `;; communications error to ${server}#53: ${error === "timeout" ? "timed out" : "connection refused"}\n`.repeat(tries);
}

export const dig: NodeCommand = async (args, ctx) => {
  let name: string | undefined;
  let type: RRType | undefined;
  let serverArg: string | undefined;
  let short = false;
  let search = false;
  let show = { cmd: true, comments: true, question: true, answer: true, authority: true, additional: true, stats: true };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith("@")) serverArg = a.slice(1);
    else if (a === "-x" && args[i + 1]) (type = "PTR"), (name = reverseName(args[++i]));
    else if (a === "-t" && args[i + 1]) type = args[++i].toUpperCase() as RRType;
    else if (a === "-p" || a === "-c" || a === "-q") i++;
    else if (a.startsWith("+")) {
      const o = a.slice(1).toLowerCase();
      const on = !o.startsWith("no");
      const k = on ? o : o.slice(2);
      if (k === "short") short = on;
      else if (k === "search") search = on;
      else if (k === "all") show = { cmd: on, comments: on, question: on, answer: on, authority: on, additional: on, stats: on };
      else if (k in show) show[k as keyof typeof show] = on;
    } else if (a.startsWith("-")) continue;
    else if (TYPES.includes(a.toUpperCase() as RRType) && name !== undefined && type === undefined) type = a.toUpperCase() as RRType;
    else if (a.toUpperCase() === "IN" && name !== undefined) continue;
    else if (name === undefined) name = a;
    else if (TYPES.includes(a.toUpperCase() as RRType)) type = a.toUpperCase() as RRType;
  }
  // dig with no name asks for the root's NS records.
  const qtype: RRType = type ?? (name === undefined ? "NS" : "A");
  const qname = name === undefined ? "." : name;
  const rc = await resolvConfOf(ctx);
  let server = rc.nameservers[0];
  if (serverArg !== undefined) {
    const s = await serverAddress(ctx, serverArg);
    if (!s) return fail("", 10, `dig: couldn't get address for '${serverArg}': not found\n`);
    server = s;
  }
  const head = `\n; <<>> DiG ${DIG_VERSION} <<>> ${args.join(" ")}\n${serverArg !== undefined ? "; (1 server found)\n" : ""};; global options: +cmd\n`;
  const sock = new DnsSocket(ctx.cluster, sourceOfCtx(ctx), server);
  const names = search ? searchNames(qname, rc) : [fqdn(qname)];
  let x: Exchange | undefined;
  let q: Question = { name: names[0], type: qtype };
  for (const n of names) {
    q = { name: n, type: qtype };
    x = sock.query(q);
    if (!x.ok || x.reply.rcode !== "NXDOMAIN") break;
  }
  if (!x || !x.ok) {
    const errs = commsErrors(server, x?.ok === false ? x.error : "timeout", 3);
    return fail(short ? errs : `${errs}${head};; no servers could be reached\n\n`, 9);
  }
  const r = x.reply;
  if (short) return ok(r.answer.map((rr) => `${rr.data}\n`).join(""));
  // dig sends an 8-byte client cookie; CoreDNS echoes it, the lab's dnsmasq ignores it.
  const rng = ctx.cluster.rng.get("dns");
  const cookie = x.server === "coredns" ? Array.from({ length: 8 }, () => rng.int(256).toString(16).padStart(2, "0")).join("") : undefined;
  let out = show.cmd ? head : "";
  if (show.comments) {
    out += ";; Got answer:\n";
    if (q.name.endsWith(".local.")) out += ";; WARNING: .local is reserved for Multicast DNS\n;; You are currently testing what happens when an mDNS query is leaked to DNS\n";
    out += `;; ->>HEADER<<- opcode: QUERY, status: ${r.rcode}, id: ${x.id}\n`;
    out += `;; flags: ${flags(r)}; QUERY: 1, ANSWER: ${r.answer.length}, AUTHORITY: ${r.authority.length}, ADDITIONAL: ${r.additional.length + 1}\n`;
    if (!r.ra) out += ";; WARNING: recursion requested but not available\n";
    out += `\n;; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 1232\n${cookie ? `; COOKIE: ${cookie} (echoed)\n` : ""}`;
  }
  if (show.question) out += `${show.comments ? ";; QUESTION SECTION:\n" : ""}${questionLine(q)}\n`;
  const section = (title: string, rrs: RR[], on: boolean) => {
    if (!on || !rrs.length) return;
    if (show.comments) out += `\n;; ${title} SECTION:\n`;
    out += rrs.map((rr) => `${rrLine(rr)}\n`).join("");
  };
  section("ANSWER", r.answer, show.answer);
  section("AUTHORITY", r.authority, show.authority);
  section("ADDITIONAL", r.additional, show.additional);
  if (show.stats) {
    const size = wireSize(q, r, { udp: 1232, cookie });
    out += `\n;; Query time: ${x.ms} msec\n;; SERVER: ${server}#53(${server}) (UDP)\n;; WHEN: ${digWhen(ctx.cluster.now())}\n;; MSG SIZE  rcvd: ${size}\n\n`;
  } else if (show.comments) out += "\n";
  return ok(out);
};

// ---- host -----------------------------------------------------------------------------------

/** One record as `host` prints it. */
function hostLine(rr: RR): string {
  const owner = bare(rr.name);
  switch (rr.type) {
    case "A":
      return `${owner} has address ${rr.data}`;
    case "AAAA":
      return `${owner} has IPv6 address ${rr.data}`;
    case "CNAME":
      return `${owner} is an alias for ${rr.data}`;
    case "PTR":
      return `${owner} domain name pointer ${rr.data}`;
    case "SRV":
      return `${owner} has SRV record ${rr.data}`;
    case "TXT":
      return `${owner} descriptive text ${rr.data}`;
    case "MX":
      return `${owner} mail is handled by ${rr.data}`;
    case "NS":
      return `${owner} name server ${rr.data}`;
    case "SOA":
      return `${owner} has SOA record ${rr.data}`;
    default:
      return `${owner} has ${rr.type} record ${rr.data}`;
  }
}

export const host: NodeCommand = async (args, ctx) => {
  let type: RRType | undefined;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-t" && args[i + 1]) type = args[++i].toUpperCase() as RRType;
    else if (a === "-a") type = "ANY";
    else if (a === "-W" || a === "-R" || a === "-N" || a === "-c" || a === "-m") i++;
    else if (a.startsWith("-")) continue;
    else words.push(a);
  }
  const [name, serverArg] = words;
  if (!name) return fail("", 1, "Usage: host [-aCdilrTvVw] [-c class] [-N ndots] [-t type] [-W time]\n            [-R number] [-m flag] [-p port] hostname [server]\n");
  const rc = await resolvConfOf(ctx);
  let server = rc.nameservers[0];
  let out = "";
  if (serverArg !== undefined) {
    const s = await serverAddress(ctx, serverArg);
    if (!s) return fail("", 1, `host: couldn't get address for '${serverArg}': not found\n`);
    server = s;
    out += `Using domain server:\nName: ${serverArg}\nAddress: ${s}#53\nAliases: \n\n`;
  }
  const sock = new DnsSocket(ctx.cluster, sourceOfCtx(ctx), server);
  const reverse = IPV4.test(name);
  const names = reverse ? [reverseName(name)] : searchNames(name, rc);
  const first = type ?? (reverse ? "PTR" : "A");
  let found: { name: string; reply: Reply } | undefined;
  let last: Exchange | undefined;
  for (const n of names) {
    last = sock.query({ name: n, type: first });
    if (!last.ok) return fail(`${out}${commsErrors(server, last.error, 2)};; no servers could be reached\n`, 1);
    if (last.reply.rcode !== "NXDOMAIN") {
      found = { name: n, reply: last.reply };
      break;
    }
  }
  if (!found) return fail(`${out}Host ${reverse ? names[0] : name} not found: 3(NXDOMAIN)\n`, 1);
  if (found.reply.rcode !== "NOERROR") return fail(`${out}Host ${name} not found: ${found.reply.rcode === "SERVFAIL" ? "2(SERVFAIL)" : `5(${found.reply.rcode})`}\n`, 1);
  const replies = [found.reply];
  // Without -t, host asks A, then AAAA and MX for the same name.
  if (!type && !reverse) {
    for (const t of ["AAAA", "MX"] as const) {
      const x = sock.query({ name: found.name, type: t });
      if (x.ok) replies.push(x.reply);
    }
  }
  const seen = new Set<string>();
  for (const r of replies) {
    for (const rr of r.answer) {
      const l = hostLine(rr);
      if (!seen.has(l)) seen.add(l), (out += `${l}\n`);
    }
  }
  if (type && !found.reply.answer.length) out += `${bare(found.name)} has no ${type} record\n`;
  return ok(out);
};

// ---- nslookup -------------------------------------------------------------------------------

/** One record as BIND's nslookup prints it (owner without its dot, targets with theirs). */
function bindLine(rr: RR): string {
  const owner = bare(rr.name);
  switch (rr.type) {
    case "A":
    case "AAAA":
      return `Name:\t${owner}\nAddress: ${rr.data}\n`;
    case "CNAME":
      return `${owner}\tcanonical name = ${rr.data}\n`;
    case "PTR":
      return `${owner}\tname = ${rr.data}\n`;
    case "SRV":
      return `${owner}\tservice = ${rr.data}\n`;
    case "TXT":
      return `${owner}\ttext = ${rr.data}\n\n`;
    case "MX":
      return `${owner}\tmail exchanger = ${rr.data}\n`;
    case "NS":
      return `${owner}\tnameserver = ${rr.data}\n`;
    case "SOA":
      return soaLines(rr, (n) => bare(n));
    default:
      return "";
  }
}

function soaLines(rr: RR, name: (n: string) => string): string {
  const [m, r, ...nums] = rr.data.split(" ");
  const labels = ["serial", "refresh", "retry", "expire", "minimum"];
  return `${bare(rr.name)}\n\torigin = ${name(m)}\n\tmail addr = ${name(r)}\n${nums.map((v, i) => `\t${labels[i]} = ${v}\n`).join("")}`;
}

/** One record as BusyBox prints it: names come out of dn_expand without their final dot. */
function busyboxLine(rr: RR): string {
  const owner = bare(rr.name);
  switch (rr.type) {
    case "A":
    case "AAAA":
      return `Name:\t${owner}\nAddress: ${rr.data}\n`;
    case "CNAME":
      return `${owner}\tcanonical name = ${bare(rr.data)}\n`;
    case "PTR":
      return `${owner}\tname = ${bare(rr.data)}\n`;
    case "NS":
      return `${owner}\tnameserver = ${bare(rr.data)}\n`;
    case "SRV": {
      const [p, w, port, t] = rr.data.split(" ");
      return `${owner}\tservice = ${p} ${w} ${port} ${bare(t)}\n`;
    }
    case "MX": {
      const [pref, t] = rr.data.split(" ");
      return `${owner}\tmail exchanger = ${pref} ${bare(t)}\n`;
    }
    case "TXT":
      return `${owner}\ttext = ${rr.data}\n`;
    case "SOA":
      return soaLines(rr, bare);
    default:
      return "";
  }
}

function parseNslookupArgs(args: string[]): { types: RRType[]; words: string[]; bad?: string } {
  const types: RRType[] = [];
  const words: string[] = [];
  for (const a of args) {
    if (!a.startsWith("-") || a === "-") {
      words.push(a);
      continue;
    }
    const [k, v] = a.slice(1).split("=", 2);
    if (["type", "querytype", "query", "q", "ty"].includes(k.toLowerCase())) {
      const t = (v ?? "").toUpperCase() as RRType;
      if (!TYPES.includes(t)) return { types, words, bad: v ?? "" };
      if (!types.includes(t)) types.push(t);
    }
  }
  return { types, words };
}

export const nslookup: NodeCommand = async (args, ctx) => (ctx.pod ? busyboxNslookup(args, ctx) : bindNslookup(args, ctx));

async function bindNslookup(args: string[], ctx: NodeCommandContext): Promise<NodeCommandResult> {
  const { types, words, bad } = parseNslookupArgs(args);
  if (bad !== undefined) return fail(`unknown query type: ${bad}\n`, 1);
  const [name, serverArg] = words;
  if (!name) return fail("", 1, "Usage: nslookup [-opt ...] host server   # just look up 'host' using 'server'\n");
  const rc = await resolvConfOf(ctx);
  let server = rc.nameservers[0];
  if (serverArg !== undefined) {
    const s = await serverAddress(ctx, serverArg);
    if (!s) return fail(`;; couldn't get address for '${serverArg}': not found\n`, 1);
    server = s;
  }
  const sock = new DnsSocket(ctx.cluster, sourceOfCtx(ctx), server);
  const reverse = IPV4.test(name) && (!types.length || types.includes("PTR"));
  const names = reverse ? [reverseName(name)] : searchNames(name, rc);
  const asked: RRType[] = reverse ? ["PTR"] : types.length ? types : ["A", "AAAA"];
  const head = `Server:\t\t${server}\nAddress:\t${server}#53\n\n`;
  let hit: { name: string; reply: Reply } | undefined;
  for (const n of names) {
    const x = sock.query({ name: n, type: asked[0] });
    if (!x.ok) return fail(`${commsErrors(server, x.error, 3)};; no servers could be reached\n\n`, 1);
    if (x.reply.rcode !== "NXDOMAIN") {
      hit = { name: n, reply: x.reply };
      break;
    }
  }
  if (!hit) return fail(`${head}** server can't find ${reverse ? bare(names[0]) : name}: NXDOMAIN\n\n`, 1);
  if (hit.reply.rcode !== "NOERROR") return fail(`${head}** server can't find ${name}: ${hit.reply.rcode}\n\n`, 1);
  const replies = [hit.reply];
  for (const t of asked.slice(1)) {
    const x = sock.query({ name: hit.name, type: t });
    if (x.ok) replies.push(x.reply);
  }
  let body = "";
  const seen = new Set<string>();
  for (const r of replies) for (const rr of r.answer) {
    const l = bindLine(rr);
    if (!seen.has(l)) seen.add(l), (body += l);
  }
  if (!body) return ok(`${head}*** Can't find ${name}: No answer\n\n`);
  return ok(`${head}${replies.some((r) => !r.aa) ? "Non-authoritative answer:\n" : ""}${body}\n`);
}

async function busyboxNslookup(args: string[], ctx: NodeCommandContext): Promise<NodeCommandResult> {
  const { types, words, bad } = parseNslookupArgs(args);
  if (bad !== undefined) return fail("", 1, `nslookup: invalid query type "${bad}"\n`);
  const [name, serverArg] = words;
  if (!name || words.length > 2) return fail("", 1, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n\nQuery DNS about HOST\n\nQUERY_TYPE: soa,ns,a,aaaa,cname,mx,txt,ptr,srv,any\n");
  const rc = await resolvConfOf(ctx);
  let server = rc.nameservers[0];
  if (serverArg !== undefined) {
    const s = await serverAddress(ctx, serverArg);
    if (!s) return fail("", 1, `nslookup: bad address '${serverArg}'\n`);
    server = s;
  }
  // add_query_with_search: a name without a dot under each search domain (never as is), else as is.
  const withSearch = (t: RRType): Question[] =>
    t === "PTR" || !rc.search.length || name.includes(".") ? [{ name: fqdn(name), type: t }] : rc.search.map((d) => ({ name: `${name}.${d}.`, type: t }));
  const queries: Question[] = [];
  if (!types.length && IPV4.test(name)) queries.push({ name: reverseName(name), type: "PTR" });
  else for (const t of types.length ? types : (["A", "AAAA"] as RRType[])) queries.push(...withSearch(t));
  const sock = new DnsSocket(ctx.cluster, sourceOfCtx(ctx), server);
  let out = "";
  let exitCode = 0;
  for (const q of queries) {
    const x = sock.query(q);
    if (!x.ok) return fail(";; connection timed out; no servers could be reached\n\n", 1);
    if (!out) out = `Server:\t\t${serverArg ?? server}\nAddress:\t${server}:53\n\n`;
    if (x.reply.rcode !== "NOERROR") {
      out += `** server can't find ${bare(q.name)}: ${x.reply.rcode}\n`;
      exitCode = 1;
    } else {
      if (!x.reply.aa) out += "Non-authoritative answer:\n";
      out += x.reply.answer.map(busyboxLine).join("");
    }
    out += "\n";
  }
  return { stdout: out, stderr: "", exitCode };
}

// ---- getent ---------------------------------------------------------------------------------

/** glibc's getent for the hosts databases (files, then dns, as nsswitch.conf orders them). */
export const getent: NodeCommand = async (args, ctx) => {
  const usage = "Try `getent --help' or `getent --usage' for more information.\n";
  const [db, ...keys] = args.filter((a) => !a.startsWith("-"));
  if (!db) return fail("", 1, `getent: wrong number of arguments\n${usage}`);
  if (!["hosts", "ahosts", "ahostsv4"].includes(db)) return fail("", 1, `Unknown database: ${db}\n${usage}`);
  if (!keys.length) {
    const hosts = (await resolverFiles(ctx)).hosts;
    return ok(hosts.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#") && IPV4.test(l.trim().split(/\s+/)[0])).map((l) => {
      const [a, ...n] = l.trim().split(/\s+/);
      return `${a.padEnd(15)} ${n.join(" ")}\n`;
    }).join(""));
  }
  const files = await resolverFiles(ctx);
  let out = "";
  let exitCode = 0;
  for (const k of keys) {
    const r = getaddrinfo(ctx.cluster, sourceOfCtx(ctx), k, files);
    if (!r.ok) {
      exitCode = 2;
      continue;
    }
    if (db === "hosts") for (const a of r.addresses) out += `${a.padEnd(15)} ${r.canonical}\n`;
    else for (const [i, a] of r.addresses.entries()) out += `${a.padEnd(15)} STREAM ${i === 0 ? r.canonical : ""}\n${a.padEnd(15)} DGRAM  \n${a.padEnd(15)} RAW    \n`;
  }
  return { stdout: out, stderr: "", exitCode };
};
