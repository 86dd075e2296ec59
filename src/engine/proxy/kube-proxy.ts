// One kube-proxy per node, as the kube-proxy DaemonSet runs it on a kubeadm cluster. A node's
// kube-proxy runs while the DaemonSet's pod on that node has its container running. Each time
// that container (re)starts it reads the kube-proxy ConfigMap's config.conf, as the real process
// reads /var/lib/kube-proxy/config.conf, builds the proxier of that mode, cleans up what
// platformCleanup cleans up, syncs fully, and writes kube-proxy v1.33's start-up lines to the
// container's log. A configuration the real process refuses makes the container exit with the
// real error (kubelet start hook), so the pod goes into CrashLoopBackOff.
//
// Switching modes as on a real cluster: edit the ConfigMap, `kubectl rollout restart daemonset
// kube-proxy -n kube-system`; the new pods start the new mode. The previous mode's state stays
// on the node unless platformCleanup (cmd/kube-proxy/app/server_linux.go) removes it:
// starting nftables removes iptables and IPVS leftovers; starting iptables or IPVS removes
// nftables leftovers only. So iptables -> ipvs keeps the KUBE-SVC-/KUBE-SEP- chains (the IPVS
// proxier rewrites only its own chains), and ipvs -> iptables keeps kube-ipvs0, the virtual
// servers, the ipsets and the IPVS-only chains.

import { parse as parseYaml } from "yaml";
import type { ConfigMap, Node, Pod } from "../api/types.js";
import type { Controller, ControllerContext } from "../controllers/manager.js";
import type { Kubelet } from "../kubelet/kubelet.js";
import type { StoreEvent } from "../store/store.js";
import { type Rule, type Ruleset, type Table, BUILTIN_CHAINS } from "./iptables/model.js";
import { isServiceChainName } from "./iptables/names.js";
import { IptablesProxier, SharedServiceRecords } from "./iptables/proxier.js";
import { saveRule } from "./iptables/render.js";
import { IpvsProxier, KNOWN_SCHEDULERS } from "./ipvs/proxier.js";
import { NftablesProxier } from "./nftables/proxier.js";
import { ENDPOINTSLICES_RESOURCE, type NodeView, ProxyTracker, SERVICES_RESOURCE } from "./tracker.js";
import type { Proxier, ProxyConfig, ProxyMode, ProxyNode } from "./types.js";

const KUBE_PROXY_NAMESPACE = "kube-system";
const KUBE_PROXY_CONFIGMAP = "kube-proxy";
const KUBE_PROXY_CONTAINER = "kube-proxy";
const POD_LABEL = "k8s-app";
const POD_LABEL_VALUE = "kube-proxy";
const PODS = "pods";
const NODES = "nodes";
const CONFIGMAPS = "configmaps";

// ---------------------------------------------------------------------------------------------
// Configuration

interface KubeProxyStart {
  config: ProxyConfig;
  /** mode was "" (platformApplyDefaults logs "Using iptables proxy"). */
  blankMode: boolean;
}

/** What a start of the process amounts to: a configuration to run, or the lines it dies with. */
type StartDecision = { ok: true; start: KubeProxyStart } | { ok: false; fatal: LogSpec[] };

/** One klog line before its header: severity, source file:line, message (structured). */
interface LogSpec {
  sev: "I" | "W" | "E";
  src: string;
  msg: string;
}

const VALID_MODES = ["iptables", "ipvs", "nftables"];

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
function num(v: unknown, dflt: number): number {
  return typeof v === "number" ? v : dflt;
}
function bool(v: unknown, dflt: boolean): boolean {
  return typeof v === "boolean" ? v : dflt;
}
function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
/** "30s", "1m0s", "0s" -> seconds (Go duration, the forms kubeadm writes). */
function seconds(v: unknown): number {
  if (typeof v !== "string") return 0;
  let total = 0;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)(h|m|s|ms)/g)) {
    const n = Number(m[1]);
    total += m[2] === "h" ? n * 3600 : m[2] === "m" ? n * 60 : m[2] === "s" ? n : n / 1000;
  }
  return total;
}

/** Go's %q for the error texts. */
function q(s: string): string {
  return JSON.stringify(s);
}

/**
 * config.conf parsed, kept for its last text (only read, never changed): every node's kube-proxy
 * of a cluster reads the same text, and parsing YAML was most of a cluster's creation time.
 */
class ConfigDocs {
  private text: string | undefined = undefined;
  private doc: Record<string, unknown> = {};

  parse(text: string): Record<string, unknown> {
    if (text !== this.text) {
      const parsed: unknown = parseYaml(text);
      this.doc = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
      this.text = text;
    }
    return this.doc;
  }
}

/**
 * config.conf -> the proxier configuration kube-proxy v1.33 would run with, or the error it
 * exits with. Defaults as K/pkg/proxy/apis/config/v1alpha1/defaults.go sets them.
 */
function readKubeProxyConfig(text: string | undefined, nodeIPs: readonly string[], docs = new ConfigDocs()): StartDecision {
  let doc: Record<string, unknown>;
  try {
    doc = docs.parse(text ?? "");
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0] : String(e);
    return { ok: false, fatal: [{ sev: "E", src: "run.go:72", msg: `"command failed" err=${q(`failed complete: failed to decode: ${msg}`)}` }] };
  }
  const rawMode = str(doc.mode);
  if (rawMode !== "" && !VALID_MODES.includes(rawMode)) {
    // cmd/kube-proxy/app/validation.go validateProxyModeLinux; userspace has failed here since v1.26.
    const err = `failed validate: KubeProxyConfiguration.ProxyMode: Invalid value: ${q(rawMode)}: must be ${VALID_MODES.join(",")} or blank (blank means the best-available proxy [currently iptables])`;
    return { ok: false, fatal: [{ sev: "E", src: "run.go:72", msg: `"command failed" err=${q(err)}` }] };
  }
  const mode = (rawMode || "iptables") as ProxyMode;
  const ipt = (doc.iptables ?? {}) as Record<string, unknown>;
  const nft = (doc.nftables ?? {}) as Record<string, unknown>;
  const ipvs = (doc.ipvs ?? {}) as Record<string, unknown>;
  let nodePortAddresses = strList(doc.nodePortAddresses);
  // platformApplyDefaults: nftables defaults nodePortAddresses to the primary node IP.
  if (mode === "nftables" && nodePortAddresses.length === 0) nodePortAddresses = ["primary"];
  const config: ProxyConfig = {
    mode,
    clusterCIDR: str(doc.clusterCIDR).split(",")[0].trim(),
    masqueradeBit: num(mode === "nftables" ? nft.masqueradeBit : ipt.masqueradeBit, 14),
    masqueradeAll: bool(mode === "nftables" ? nft.masqueradeAll : ipt.masqueradeAll, false),
    localhostNodePorts: bool(ipt.localhostNodePorts, true),
    nodePortAddresses,
    ipvs: {
      scheduler: str(ipvs.scheduler),
      strictARP: bool(ipvs.strictARP, false),
      excludeCIDRs: strList(ipvs.excludeCIDRs),
      tcpTimeoutSeconds: seconds(ipvs.tcpTimeout),
      tcpFinTimeoutSeconds: seconds(ipvs.tcpFinTimeout),
      udpTimeoutSeconds: seconds(ipvs.udpTimeout),
    },
  };
  if (mode === "ipvs") {
    const scheduler = config.ipvs.scheduler || "rr";
    if (!KNOWN_SCHEDULERS.has(scheduler)) {
      // CanUseIPVSProxier adds a dummy virtual server with the scheduler; the kernel has no
      // ip_vs_<name> module and answers ENOENT. newProxyServer fails and the process exits.
      const err = "can't use the IPVS proxier: no such file or directory";
      return {
        ok: false,
        fatal: [
          ...preambleLogs(mode, false, config, nodeIPs),
          { sev: "E", src: "proxier.go:286", msg: `"Could not create dummy VS" err="no such file or directory" scheduler=${q(scheduler)}` },
          { sev: "E", src: "server.go:100", msg: `"Error running ProxyServer" err=${q(err)}` },
          { sev: "E", src: "run.go:72", msg: `"command failed" err=${q(err)}` },
        ],
      };
    }
  }
  return { ok: true, start: { config, blankMode: rawMode === "" } };
}

// ---------------------------------------------------------------------------------------------
// Start-up logs. Source positions of v1.33.1, read from a real kube-proxy v1.33.1 log in iptables
// mode (server_linux.go:63/145, server.go:715/245/254/516/518, proxier.go:243, config.go,
// shared_informer.go:350/357). "Using ipvs Proxier" and "Using nftables Proxier" follow
// "Using iptables Proxier" in createProxier by the same distance as in the source
// (+61, +122 lines); the IPVS proxier.go and server.go:100 positions are estimates.

function preambleLogs(mode: ProxyMode, blankMode: boolean, config: ProxyConfig, nodeIPs: readonly string[]): LogSpec[] {
  const out: LogSpec[] = [];
  if (blankMode) out.push({ sev: "I", src: "server_linux.go:63", msg: `"Using iptables proxy"` });
  out.push({ sev: "I", src: "server.go:715", msg: `"Successfully retrieved node IP(s)" IPs=[${nodeIPs.map(q).join(",")}]` });
  out.push({ sev: "I", src: "conntrack.go:60", msg: `"Setting nf_conntrack_max" nfConntrackMax=131072` });
  if (config.nodePortAddresses.length === 0) {
    out.push({
      sev: "E",
      src: "server.go:245",
      msg: `"Kube-proxy configuration may be incomplete or incorrect" err="nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using \`--nodeport-addresses primary\`"`,
    });
  }
  out.push({ sev: "I", src: "server.go:254", msg: `"kube-proxy running in dual-stack mode" primary ipFamily="IPv4"` });
  void mode;
  return out;
}

/** The lines a successful start writes, in order. */
function startupLogs(start: KubeProxyStart, nodeIPs: readonly string[], version: string): LogSpec[] {
  const { config } = start;
  const out = preambleLogs(config.mode, start.blankMode, config, nodeIPs);
  if (config.mode === "iptables") {
    out.push({ sev: "I", src: "server_linux.go:145", msg: `"Using iptables Proxier"` });
    if (config.localhostNodePorts && config.nodePortAddresses.length === 0) {
      out.push({
        sev: "I",
        src: "proxier.go:243",
        msg: `"Setting route_localnet=1 to allow node-ports on localhost; to change this either disable iptables.localhostNodePorts (--iptables-localhost-nodeports) or set nodePortAddresses (--nodeport-addresses) to filter loopback addresses" ipFamily="IPv4"`,
      });
    }
  } else if (config.mode === "ipvs") {
    out.push({ sev: "I", src: "server_linux.go:206", msg: `"Using ipvs Proxier"` });
    // NewDualStackProxier builds one IPVS proxier per family; each logs the default.
    if (!config.ipvs.scheduler) {
      for (let i = 0; i < 2; i++) out.push({ sev: "I", src: "proxier.go:331", msg: `"IPVS scheduler not specified, use rr by default"` });
    }
  } else {
    out.push({ sev: "I", src: "server_linux.go:267", msg: `"Using nftables Proxier"` });
  }
  out.push({ sev: "I", src: "server.go:516", msg: `"Version info" version=${q(version)}` });
  out.push({ sev: "I", src: "server.go:518", msg: `"Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""` });
  const controllers: [string, string][] = [
    ["config.go:199", "service config"],
    ["config.go:105", "endpoint slice config"],
    ["config.go:440", "serviceCIDR config"],
    ["config.go:329", "node config"],
  ];
  const starting: Record<string, string> = {
    "service config": "Starting service config controller",
    "endpoint slice config": "Starting endpoint slice config controller",
    "serviceCIDR config": "Starting serviceCIDR config controller",
    "node config": "Starting node config controller",
  };
  for (const [src, name] of controllers) {
    out.push({ sev: "I", src, msg: q(starting[name]) });
    out.push({ sev: "I", src: "shared_informer.go:350", msg: `"Waiting for caches to sync" controller=${q(name)}` });
  }
  for (const [, name] of controllers) out.push({ sev: "I", src: "shared_informer.go:357", msg: `"Caches are synced" controller=${q(name)}` });
  return out;
}

/**
 * klog's text header: `I1129 16:04:57.123456       1 file.go:NN] msg` (severity, MMDD,
 * wall time with microseconds, thread id padded to 7, source). Lines of one start are spaced by
 * fixed microsecond steps so the output is deterministic.
 */
function klogLines(specs: readonly LogSpec[], t: number): string[] {
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return specs.map((s, i) => {
    const us = t * 1000 + 140 + i * 387;
    const d = new Date(Math.floor(us / 1000));
    const micros = (d.getUTCMilliseconds() * 1000 + (us % 1000)).toString().padStart(6, "0");
    const stamp = `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${micros}`;
    return `${s.sev}${stamp}${"1".padStart(8)} ${s.src}] ${s.msg}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Per-node state

/** What a node's kube-proxy is and what earlier modes left behind on the node. */
interface NodeProxy {
  readonly node: string;
  /** The mode of the running (or last started) kube-proxy; undefined before the first start. */
  readonly mode: ProxyMode | undefined;
  readonly proxier: Proxier | undefined;
  readonly config: ProxyConfig | undefined;
  /** The kube-proxy container is running (rules are kept in sync). */
  readonly running: boolean;
  /** The iptables ruleset of the node: the current iptables-based mode's rules plus leftovers. */
  iptables(): Ruleset | undefined;
  /** IPVS state (kube-ipvs0, virtual servers, ipsets): the current proxier's or a leftover one. */
  ipvs(): IpvsProxier | undefined;
  /** The nftables table of the current nftables proxier or a leftover one. */
  nftables(): NftablesProxier | undefined;
}

class NodeProxyState implements NodeProxy {
  mode: ProxyMode | undefined;
  proxier: Proxier | undefined;
  config: ProxyConfig | undefined;
  running = false;
  /** containerID of the kube-proxy container this state was started for. */
  instance = "";
  leftIptables: Ruleset | undefined;
  leftIpvs: IpvsProxier | undefined;
  leftNftables: NftablesProxier | undefined;

  constructor(
    readonly node: string,
    readonly view: NodeView,
  ) {}

  iptables(): Ruleset | undefined {
    const p = this.proxier;
    const cur = p instanceof IptablesProxier ? p.ruleset : p instanceof IpvsProxier ? p.iptables : undefined;
    if (!cur) return this.leftIptables;
    if (!this.leftIptables) return cur;
    return mergeRulesets(cur, this.leftIptables, p instanceof IptablesProxier);
  }

  ipvs(): IpvsProxier | undefined {
    return this.proxier instanceof IpvsProxier ? this.proxier : this.leftIpvs;
  }

  nftables(): NftablesProxier | undefined {
    return this.proxier instanceof NftablesProxier ? this.proxier : this.leftNftables;
  }
}

/**
 * The node's iptables after a mode switch: chains the current mode writes replace the old
 * ones; other chains stay; jump rules in built-in chains the old mode added stay after the
 * current mode's (EnsureRule does not add a rule that exists). The iptables proxier deletes
 * stale KUBE-SVC/SVL/EXT/FW/SEP chains, so those do not survive under it.
 */
function mergeRulesets(cur: Ruleset, left: Ruleset, curIsIptablesMode: boolean): Ruleset {
  const tables: Table[] = [];
  const names = new Set([...cur.tables.map((t) => t.name), ...left.tables.map((t) => t.name)]);
  for (const t of ["mangle", "filter", "nat"] as const) {
    if (!names.has(t)) continue;
    const a = cur.tables.find((x) => x.name === t);
    const b = left.tables.find((x) => x.name === t);
    const chains = new Map(a?.chains ?? []);
    for (const [name, ch] of b?.chains ?? []) {
      if (BUILTIN_CHAINS[t].includes(name)) {
        const mine = chains.get(name);
        if (!mine) {
          chains.set(name, ch);
          continue;
        }
        const seen = new Set(mine.rules.map((r: Rule) => saveRule(name, r)));
        const extra = ch.rules.filter((r) => !seen.has(saveRule(name, r)));
        if (extra.length) chains.set(name, { ...mine, rules: [...mine.rules, ...extra] });
        continue;
      }
      if (chains.has(name)) continue;
      if (curIsIptablesMode && isServiceChainName(name)) continue;
      chains.set(name, ch);
    }
    tables.push({ name: t, chains, chainSetVersion: (a?.chainSetVersion ?? 0) * 1000 + (b?.chainSetVersion ?? 0) + chains.size * 1e9 });
  }
  return { tables };
}

// ---------------------------------------------------------------------------------------------
// The controller

/** Persisted across snapshots: what each node's kube-proxy started with. */
export interface KubeProxiesState {
  nodes: { node: string; instance: string; config: ProxyConfig }[];
}

/** The key that only merges the tracker's pending slices (no node is named ""). */
const FLUSH_KEY = "";

export class KubeProxies implements Controller {
  readonly name = "kube-proxy";
  readonly tracker = new ProxyTracker();
  private readonly states = new Map<string, NodeProxyState>();
  /** node -> kube-proxy pods on it ("ns/name" -> pod). */
  private readonly pods = new Map<string, Map<string, Pod>>();
  /** Configurations decided at container start, by containerless pod uid (the hook runs first). */
  private readonly decided = new Map<string, KubeProxyStart>();
  /** Start count, for tests. */
  starts = 0;
  /** iptables service records that do not depend on the node, shared by the nodes' proxiers. */
  private readonly sharedRecords = new SharedServiceRecords();
  private readonly configDocs = new ConfigDocs();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly kubelet: Kubelet,
  ) {
    kubelet.startHooks.push((pod, container) => this.onContainerStart(pod, container));
    this.tracker.loadAll(ctx.store.iterate(SERVICES_RESOURCE) as Iterable<never>, ctx.store.iterate(ENDPOINTSLICES_RESOURCE) as Iterable<never>);
    for (const p of ctx.store.iterate(PODS)) this.indexPod(p as Pod, false);
  }

  /** The node's kube-proxy (state exists for every configured node). */
  node(name: string): NodeProxy {
    return this.state(name);
  }

  nodeNames(): string[] {
    return this.ctx.config.nodes.map((n) => n.name);
  }

  private state(name: string): NodeProxyState {
    let st = this.states.get(name);
    if (!st) {
      st = new NodeProxyState(name, this.tracker.view(name));
      this.states.set(name, st);
    }
    return st;
  }

  private isProxyPod(pod: Pod): boolean {
    return pod.metadata.namespace === KUBE_PROXY_NAMESPACE && pod.metadata.labels?.[POD_LABEL] === POD_LABEL_VALUE;
  }

  private indexPod(pod: Pod, deleted: boolean): string | undefined {
    if (!this.isProxyPod(pod) || !pod.spec.nodeName) return undefined;
    const node = pod.spec.nodeName;
    let m = this.pods.get(node);
    if (!m) {
      m = new Map();
      this.pods.set(node, m);
    }
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (deleted) m.delete(key);
    else m.set(key, pod);
    return node;
  }

  watches(resource: string): boolean {
    // What watch reads; not Events, most of a busy cluster's writes.
    return resource === SERVICES_RESOURCE || resource === ENDPOINTSLICES_RESOURCE || resource === PODS || resource === NODES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === SERVICES_RESOURCE || ev.resource === ENDPOINTSLICES_RESOURCE) {
      if (!this.tracker.observe(ev)) return;
      // The tracker merges slices once per pass (reconcile flushes it), however many were
      // written; the flush key does it even while no kube-proxy runs.
      if (this.tracker.pending) enqueue(FLUSH_KEY);
      for (const [node, st] of this.states) if (st.running) enqueue(node);
    } else if (ev.resource === PODS) {
      const node = this.indexPod(ev.object as Pod, ev.type === "DELETED");
      if (node) enqueue(node);
    } else if (ev.resource === NODES && ev.type !== "DELETED") {
      enqueue(ev.object.metadata.name!);
    }
  }

  initialKeys(): Iterable<string> {
    return this.nodeNames();
  }

  private proxyNode(name: string): ProxyNode {
    const n = this.ctx.store.get(NODES, undefined, name) as Node | undefined;
    const cfg = this.ctx.config.nodes.find((x) => x.name === name);
    const ips = (n?.status?.addresses ?? []).filter((a) => a.type === "InternalIP").map((a) => a.address);
    return {
      name,
      ips: ips.length ? ips : cfg ? [cfg.ip] : [],
      podCIDR: n?.spec?.podCIDR ?? cfg?.podCIDR ?? "",
      zone: n?.metadata.labels?.["topology.kubernetes.io/zone"] ?? cfg?.zone ?? "",
    };
  }

  private configText(): string | undefined {
    const cm = this.ctx.store.get(CONFIGMAPS, KUBE_PROXY_NAMESPACE, KUBE_PROXY_CONFIGMAP) as ConfigMap | undefined;
    return cm?.data?.["config.conf"];
  }

  /** Kubelet start hook: the process reads its config; a refused one exits with the error. */
  private onContainerStart(pod: Pod, container: string): { code: number; logs: string[] } | undefined {
    if (!this.isProxyPod(pod) || container !== KUBE_PROXY_CONTAINER || !pod.spec.nodeName) return undefined;
    const d = readKubeProxyConfig(this.configText(), this.proxyNode(pod.spec.nodeName).ips, this.configDocs);
    if (!d.ok) return { code: 1, logs: klogLines(d.fatal, this.ctx.clock.now()) };
    this.decided.set(pod.metadata.uid!, d.start);
    return undefined;
  }

  reconcile(nodeName: string): void {
    this.tracker.flush();
    if (nodeName === FLUSH_KEY) return;
    const st = this.state(nodeName);
    const running = this.runningContainer(nodeName);
    if (!running) {
      st.running = false;
      return;
    }
    const { pod, id } = running;
    if (id !== st.instance) {
      this.start(st, pod, id);
      return;
    }
    st.running = true;
    const changed = st.view.takeChanged();
    if (changed.size && st.proxier) st.proxier.sync(st.view.state, changed);
  }

  private runningContainer(nodeName: string): { pod: Pod; id: string } | undefined {
    for (const pod of this.pods.get(nodeName)?.values() ?? []) {
      const cs = (pod.status?.containerStatuses ?? []).find((c) => c.name === KUBE_PROXY_CONTAINER);
      if (cs?.state?.running && cs.containerID) return { pod, id: cs.containerID };
    }
    return undefined;
  }

  private start(st: NodeProxyState, pod: Pod, id: string): void {
    const node = this.proxyNode(st.node);
    let start = this.decided.get(pod.metadata.uid!);
    this.decided.delete(pod.metadata.uid!);
    if (!start) {
      const d = readKubeProxyConfig(this.configText(), node.ips, this.configDocs);
      if (!d.ok) return; // the hook already made this container exit
      start = d.start;
    }
    this.install(st, node, start.config, id);
    this.kubelet.appendLog(pod, KUBE_PROXY_CONTAINER, klogLines(startupLogs(start, node.ips, this.ctx.config.kubernetesVersion), this.ctx.clock.now()));
  }

  private install(st: NodeProxyState, node: ProxyNode, config: ProxyConfig, id: string): void {
    const prev = st.proxier;
    const proxier = newProxier(node, config, this.ctx.config.serviceCIDR, this.sharedRecords);
    // platformCleanup (server_linux.go): nftables removes iptables and IPVS state; the
    // iptables-based modes remove nftables state.
    if (config.mode === "nftables") {
      st.leftIptables = undefined;
      st.leftIpvs = undefined;
      st.leftNftables = undefined;
    } else {
      st.leftNftables = undefined;
      if (prev instanceof IpvsProxier && config.mode === "iptables") {
        st.leftIpvs = prev;
        st.leftIptables = st.iptables();
      } else if (prev instanceof IptablesProxier && config.mode === "ipvs") {
        st.leftIptables = st.iptables();
      }
      // The IPVS proxier reuses the IPVS state it finds (its own sync replaces it).
      if (config.mode === "ipvs") st.leftIpvs = undefined;
    }
    if (prev instanceof NftablesProxier && config.mode === "nftables") st.leftNftables = undefined;
    st.proxier = proxier;
    st.mode = config.mode;
    st.config = config;
    st.instance = id;
    st.running = true;
    this.tracker.flush();
    st.view.takeChanged();
    proxier.sync(st.view.state);
    this.starts++;
  }

  /** Runtime state for snapshots (the proxiers are rebuilt from it and the store). */
  save(): KubeProxiesState {
    const nodes: KubeProxiesState["nodes"] = [];
    for (const [node, st] of this.states) if (st.config) nodes.push({ node, instance: st.instance, config: st.config });
    return { nodes };
  }

  load(data: KubeProxiesState | undefined): void {
    for (const n of data?.nodes ?? []) this.install(this.state(n.node), this.proxyNode(n.node), n.config, n.instance);
  }
}

function newProxier(node: ProxyNode, config: ProxyConfig, serviceCIDR: string, shared?: SharedServiceRecords): Proxier {
  switch (config.mode) {
    case "ipvs":
      return new IpvsProxier(node, config);
    case "nftables":
      return new NftablesProxier(node, config, { serviceCIDRs: [serviceCIDR] });
    default:
      return new IptablesProxier(node, config, {}, shared);
  }
}
