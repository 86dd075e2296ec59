// MetalLB (metallb/metallb v0.14: controller/service.go, internal/allocator/allocator.go,
// speaker/layer2) as one controller: the controller part assigns Services of type LoadBalancer
// an address from the IPAddressPools, the speaker part elects the node that answers ARP for it
// (layer 2 mode) as the speakers' memberlist election does. It does nothing until an
// IPAddressPool exists, so a cluster without MetalLB keeps EXTERNAL-IP <pending>.
//
// The allocation state is kept in memory, as MetalLB keeps it, and rebuilt from the Services'
// status on the first reconcile (after a restore) before anything new is allocated. Work per
// store event is proportional to the change: a Service event converges that Service; a freed
// address retries only the Services still waiting; a pool change re-converges the LoadBalancers.

import { labelSelectorAsSelector, type LabelSelectorLike, type Selector } from "../api/labels.js";
import { R } from "../api/resources.js";
import { isStatusError } from "../api/status.js";
import type { EndpointSlice, IPAddressPool, KObject, L2Advertisement, Node, Pod, Service } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { formatIPv4, parseCIDR, parseIPv4, parseIPv6 } from "../util/ip.js";
import type { StoreEvent } from "../store/store.js";
import { sha256 } from "../util/hash.js";
import type { Controller, ControllerContext } from "./manager.js";
import { isPodReady, splitKey } from "./util.js";

const SERVICES = rkey(R.services);
const POOLS = rkey(R.ipaddresspools);
const L2ADVS = rkey(R.l2advertisements);
const NODES = rkey(R.nodes);
const PODS = rkey(R.pods);
const SLICES = rkey(R.endpointslices);
const NAMESPACES = rkey(R.namespaces);

const ANNOTATION_ADDRESS_POOL = "metallb.io/address-pool";
const ANNOTATION_LOADBALANCER_IPS = "metallb.io/loadBalancerIPs";
const ANNOTATION_IP_ALLOCATED_FROM_POOL = "metallb.io/ip-allocated-from-pool";
const ANNOTATION_ALLOW_SHARED_IP = "metallb.io/allow-shared-ip";
const DEPRECATED_ADDRESS_POOL = "metallb.universe.tf/address-pool";
const DEPRECATED_LOADBALANCER_IPS = "metallb.universe.tf/loadBalancerIPs";
const DEPRECATED_IP_ALLOCATED_FROM_POOL = "metallb.universe.tf/ip-allocated-from-pool";
const DEPRECATED_ALLOW_SHARED_IP = "metallb.universe.tf/allow-shared-ip";
/** Nodes with this label never announce (the speaker's --ignore-exclude-lb is off by default). */
const EXCLUDE_LB_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";
const CONTROLLER_COMPONENT = "metallb-controller";
const SPEAKER_COMPONENT = "metallb-speaker";

type Family = "ipv4" | "ipv6" | "dual" | "unknown";

interface Range {
  start: number;
  end: number;
}

interface Pool {
  name: string;
  namespace: string;
  autoAssign: boolean;
  avoidBuggyIPs: boolean;
  /** IPv4 blocks in spec order; allocation scans each from its first address. */
  v4: Range[];
  /** IPv6 blocks: only counted (the cluster's Services are IPv4). */
  v6Count: number;
  labels: Record<string, string>;
  serviceAllocation?: { priority: number; namespaces: Set<string>; serviceSelectors: Selector[] };
}

interface Alloc {
  pool: string;
  ips: string[];
  ports: string[];
  sharing: string;
  backend: string;
}

/** Go's %q of a []net.IP: `["10.1.8.40"]`. */
function quoteIPs(ips: readonly string[]): string {
  return `[${ips.map((ip) => JSON.stringify(ip)).join(" ")}]`;
}

function familyOf(ip: string): Family {
  if (parseIPv4(ip) !== undefined) return "ipv4";
  return parseIPv6(ip) ? "ipv6" : "unknown";
}

function familyOfAll(ips: readonly string[]): Family {
  const fams = new Set(ips.map(familyOf));
  if (fams.has("unknown") || fams.size === 0) return "unknown";
  return fams.size === 2 ? "dual" : [...fams][0];
}

function serviceFamily(svc: Service): Family {
  const ips = (svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : svc.spec?.clusterIP ? [svc.spec.clusterIP] : []).filter((ip) => ip !== "None");
  if (ips.length === 0) return "unknown";
  return familyOfAll(ips);
}

function annotation(svc: KObject, stable: string, deprecated: string): string {
  const a = svc.metadata.annotations ?? {};
  if (stable in a) return a[stable];
  if (deprecated in a) return a[deprecated];
  return "";
}

/** getDesiredLbIPs: [ips, family] or an error text. */
function desiredIPs(svc: Service): { ips: string[]; family: Family } | string {
  const ann = annotation(svc, ANNOTATION_LOADBALANCER_IPS, DEPRECATED_LOADBALANCER_IPS);
  const spec = svc.spec?.loadBalancerIP ?? "";
  if (!ann && !spec) return { ips: [], family: "unknown" };
  if (ann && spec) return `service can not have both ${ANNOTATION_LOADBALANCER_IPS} and svc.Spec.LoadBalancerIP`;
  if (ann) {
    const ips: string[] = [];
    for (const part of ann.split(",")) {
      const ip = part.trim();
      if (familyOf(ip) === "unknown") return `invalid ${ANNOTATION_LOADBALANCER_IPS}: ${JSON.stringify(ann)}`;
      ips.push(ip);
    }
    const family = familyOfAll(ips);
    if (ips.length > 2 || (ips.length === 2 && family !== "dual")) return `invalid ${ANNOTATION_LOADBALANCER_IPS}: ${JSON.stringify(ann)}`;
    return { ips, family };
  }
  if (familyOf(spec) === "unknown") return `invalid spec.loadBalancerIP ${JSON.stringify(spec)}`;
  return { ips: [spec], family: familyOf(spec) };
}

const buggy = (ip: number) => (ip & 255) === 0 || (ip & 255) === 255;

function v6ToBig(groups: number[]): bigint {
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** config.Pool from an IPAddressPool (the webhook has already refused malformed addresses). */
function parsePool(p: IPAddressPool, namespaces: KObject[]): Pool {
  const pool: Pool = {
    name: p.metadata.name!,
    namespace: p.metadata.namespace!,
    autoAssign: p.spec.autoAssign ?? true,
    avoidBuggyIPs: p.spec.avoidBuggyIPs ?? false,
    v4: [],
    v6Count: 0,
    labels: p.metadata.labels ?? {},
  };
  let v6 = 0n;
  for (const raw of p.spec.addresses ?? []) {
    const a = raw.trim();
    const dash = a.indexOf("-");
    if (dash >= 0) {
      const s = a.slice(0, dash).trim();
      const e = a.slice(dash + 1).trim();
      const si = parseIPv4(s);
      const ei = parseIPv4(e);
      if (si !== undefined && ei !== undefined && si <= ei) pool.v4.push({ start: si, end: ei });
      const s6 = parseIPv6(s);
      const e6 = parseIPv6(e);
      if (s6 && e6) v6 += v6ToBig(e6) - v6ToBig(s6) + 1n;
      continue;
    }
    const c = parseCIDR(a);
    if (c) {
      pool.v4.push({ start: c.base, end: c.base + c.size - 1 });
      continue;
    }
    const m = /^(.*)\/(\d+)$/.exec(a);
    if (m && parseIPv6(m[1])) v6 += 1n << BigInt(128 - Number(m[2]));
  }
  // poolCount: an enormous IPv6 block counts as MaxInt64.
  pool.v6Count = v6 >= 1n << 62n ? Number.MAX_SAFE_INTEGER : Number(v6);
  const sa = p.spec.serviceAllocation;
  if (sa) {
    const nsSet = new Set(sa.namespaces ?? []);
    for (const sel of sa.namespaceSelectors ?? []) {
      const s = safeSelector(sel);
      if (!s) continue;
      for (const ns of namespaces) if (s.matches(ns.metadata.labels ?? {})) nsSet.add(ns.metadata.name!);
    }
    pool.serviceAllocation = {
      priority: sa.priority ?? 0,
      namespaces: nsSet,
      serviceSelectors: (sa.serviceSelectors ?? []).map(safeSelector).filter((s): s is Selector => !!s),
    };
  }
  return pool;
}

function safeSelector(s: LabelSelectorLike | null | undefined): Selector | undefined {
  try {
    return labelSelectorAsSelector(s);
  } catch {
    return undefined;
  }
}

function poolCounts(pool: Pool): number {
  let total = 0;
  for (const r of pool.v4) {
    let size = r.end - r.start + 1;
    if (pool.avoidBuggyIPs) {
      for (let b = (r.start & ~255) >>> 0; b <= r.end; b += 256) {
        if (b >= r.start) size--;
        if (b + 255 <= r.end && b + 255 >= r.start) size--;
      }
    }
    total += size;
  }
  return total;
}

export class MetalLBController implements Controller {
  readonly name = "metallb";
  // MetalLB's controller binary is `controller`: controller-runtime's default user agent.
  readonly fieldManager = "controller";
  /** A loadBalancerClass MetalLB was started with (--lb-class); unset: Services without a class. */
  loadBalancerClass: string | undefined = undefined;

  private initialized = false;
  private pools = new Map<string, Pool>();
  private readonly allocated = new Map<string, Alloc>();
  private readonly sharingKeyForIP = new Map<string, { sharing: string; backend: string }>();
  private readonly portsInUse = new Map<string, Map<string, string>>();
  private readonly servicesOnIP = new Map<string, Set<string>>();
  private readonly poolIPsInUse = new Map<string, Map<string, number>>();
  /** Services whose last allocation failed: retried when an address is freed. */
  private readonly pending = new Set<string>();
  /** Bumped whenever an address stops being used: waiting Services are then retried. */
  private freed = 0;
  /** The node announcing each Service (speaker side). */
  private readonly announced = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext) {}

  /** The node whose speaker announces the Service "namespace/name" (layer 2), for the data plane. */
  announcingNode(serviceKey: string): string | undefined {
    return this.announced.get(serviceKey);
  }

  // ---------------------------------------------------------------------------------------------
  // Watch

  watches(resource: string): boolean {
    return resource === POOLS || resource === L2ADVS || resource === SERVICES || resource === SLICES || resource === NODES || resource === PODS || resource === NAMESPACES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    switch (ev.resource) {
      case POOLS:
        enqueue("config");
        return;
      case L2ADVS:
        enqueue("announce-all");
        return;
      case SERVICES: {
        const k = `${ev.object.metadata.namespace}/${ev.object.metadata.name}`;
        if (isLB(ev.object) || isLB(ev.old) || this.allocated.has(k) || this.pending.has(k)) enqueue(`svc:${k}`);
        return;
      }
      case SLICES: {
        const svc = ev.object.metadata.labels?.["kubernetes.io/service-name"];
        const k = svc && `${ev.object.metadata.namespace}/${svc}`;
        if (k && this.allocated.has(k)) enqueue(`announce:${k}`);
        return;
      }
      case NODES: {
        const o = ev.old as Node | undefined;
        const n = ev.object as Node;
        if (ev.type === "MODIFIED" && o && deepEqual(o.metadata.labels, n.metadata.labels) && nodeReady(o) === nodeReady(n)) return;
        if (this.allocated.size) enqueue("announce-all");
        return;
      }
      case PODS: {
        if ((isSpeaker(ev.object) || isSpeaker(ev.old)) && this.allocated.size) enqueue("announce-all");
        return;
      }
      case NAMESPACES:
        if (ev.type !== "MODIFIED" || !deepEqual(ev.old?.metadata.labels, ev.object.metadata.labels)) {
          if ([...this.pools.values()].some((p) => p.serviceAllocation)) enqueue("config");
        }
        return;
    }
  }

  initialKeys(): Iterable<string> {
    return ["config"];
  }

  reconcile(key: string): void {
    this.ensureInit();
    if (key === "config") return this.reloadConfig();
    if (key === "announce-all") {
      const speakers = this.usableSpeakers();
      for (const k of [...this.allocated.keys()].sort()) this.announce(k, speakers);
      return;
    }
    if (key.startsWith("pool:")) return this.writePoolStatus(key.slice(5));
    if (key.startsWith("announce:")) return this.announce(key.slice(9));
    if (key.startsWith("svc:")) return this.syncService(key.slice(4));
  }

  private requeue(key: string): void {
    this.ctx.requeueAt(this, key, this.ctx.clock.now());
  }

  private services(): Service[] {
    return this.ctx.store.list(SERVICES) as Service[];
  }

  private ours(svc: Service): boolean {
    const cls = svc.spec?.loadBalancerClass;
    return this.loadBalancerClass === undefined ? !cls : cls === this.loadBalancerClass;
  }

  /**
   * The first reconcile after start or restore: read the pools, take back the addresses Services
   * already hold (before anything new is handed out), and note who announces them, silently.
   */
  private ensureInit(): void {
    if (this.initialized) return;
    this.initialized = true;
    this.pools = this.readPools();
    if (this.pools.size === 0) return;
    for (const svc of this.services()) {
      if (svc.spec?.type !== "LoadBalancer" || !this.ours(svc)) continue;
      const ips = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter((ip): ip is string => !!ip);
      if (ips.length) this.assign(nsKey(svc), svc, ips);
    }
    const speakers = this.usableSpeakers();
    for (const k of [...this.allocated.keys()].sort()) {
      const node = this.electNode(k, speakers);
      if (node) this.announced.set(k, node);
    }
    for (const svc of this.services()) if (svc.spec?.type === "LoadBalancer" || this.hasPoolAnnotation(svc)) this.requeue(`svc:${nsKey(svc)}`);
  }

  private hasPoolAnnotation(svc: KObject): boolean {
    const a = svc.metadata.annotations ?? {};
    return ANNOTATION_IP_ALLOCATED_FROM_POOL in a || DEPRECATED_IP_ALLOCATED_FROM_POOL in a;
  }

  private readPools(): Map<string, Pool> {
    const namespaces = this.ctx.store.list(NAMESPACES);
    const out = new Map<string, Pool>();
    const objs = (this.ctx.store.list(POOLS) as IPAddressPool[]).filter((p) => !p.metadata.deletionTimestamp);
    objs.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    for (const p of objs) if (!out.has(p.metadata.name!)) out.set(p.metadata.name!, parsePool(p, namespaces));
    return out;
  }

  /** SetPools: allocations outside every pool are dropped; the LoadBalancers converge again. */
  private reloadConfig(): void {
    const next = this.readPools();
    const changed = !deepEqual(poolsShape(next), poolsShape(this.pools));
    this.pools = next;
    for (const [k, a] of [...this.allocated]) {
      const pool = this.poolFor(a.ips);
      if (!pool) this.unassign(k);
      else if (pool.name !== a.pool) this.record(k, { ...a, pool: pool.name });
    }
    for (const p of next.values()) this.requeue(`pool:${p.namespace}/${p.name}`);
    if (!changed) return;
    for (const svc of this.services()) {
      if (svc.spec?.type === "LoadBalancer" || this.allocated.has(nsKey(svc)) || this.hasPoolAnnotation(svc)) this.requeue(`svc:${nsKey(svc)}`);
    }
    this.requeue("announce-all");
  }

  // ---------------------------------------------------------------------------------------------
  // Controller: convergeBalancer

  private syncService(k: string): void {
    const [ns, name] = splitKey(k);
    const svc = this.ctx.store.get(SERVICES, ns, name) as Service | undefined;
    if (!svc) {
      // deleteBalancer: the address goes back to the pool; waiting Services may now fit.
      this.pending.delete(k);
      this.announced.delete(k);
      if (this.allocated.has(k)) this.releaseAndRetry(k);
      return;
    }
    if (svc.spec?.type === "LoadBalancer" && !this.ours(svc)) return;
    if (this.pools.size === 0 && !this.hasPoolAnnotation(svc) && !this.allocated.has(k)) return;
    const freedBefore = this.freed;
    const work = { ips: [] as string[], annotations: { ...(svc.metadata.annotations ?? {}) } };
    const ok = this.converge(k, svc, work);
    if (ok) this.pending.delete(k);
    else if (svc.spec?.type === "LoadBalancer" && this.pools.size > 0) this.pending.add(k);
    else this.pending.delete(k);
    this.writeService(svc, work);
    // MetalLB reprocesses every Service when one loses its allocation; here any freed address
    // retries the Services still waiting (a changed requested IP frees one too).
    if (this.freed !== freedBefore) this.retryPending();
    this.announce(k);
  }

  private clear(k: string, work: { ips: string[]; annotations: Record<string, string> }): void {
    this.unassign(k);
    delete work.annotations[ANNOTATION_IP_ALLOCATED_FROM_POOL];
    delete work.annotations[DEPRECATED_IP_ALLOCATED_FROM_POOL];
    work.ips = [];
  }

  private event(svc: Service, component: string, type: "Normal" | "Warning", reason: string, message: string): void {
    this.ctx.api.recordEvent({ involved: svc as KObject, involvedInfo: R.services, type, reason, message, component });
  }

  /** convergeBalancer: true when the Service ends up with its addresses (or needs none). */
  private converge(k: string, svc: Service, work: { ips: string[]; annotations: Record<string, string> }): boolean {
    if (svc.spec?.type !== "LoadBalancer") {
      this.clear(k, work);
      return true;
    }
    if (this.pools.size === 0) {
      this.clear(k, work);
      return false;
    }
    const svcFamily = serviceFamily(svc);
    if (svcFamily === "unknown") {
      this.clear(k, work);
      return false;
    }
    let lbIPs = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter((ip): ip is string => !!ip);
    if (lbIPs.length === 0) this.clear(k, work);
    else if (familyOfAll(lbIPs) !== svcFamily) {
      this.clear(k, work);
      lbIPs = [];
    }
    if (lbIPs.length) {
      const err = this.assign(k, svc, lbIPs);
      if (err) {
        this.event(svc, CONTROLLER_COMPONENT, "Normal", "ClearAssignment", `current IP for ${JSON.stringify(k)} not allowed by config, will attempt for new IP assignment: ${err}`);
        this.clear(k, work);
        lbIPs = [];
      }
      const desiredPool = annotation(svc, ANNOTATION_ADDRESS_POOL, DEPRECATED_ADDRESS_POOL);
      if (lbIPs.length && desiredPool && this.allocated.get(k)?.pool !== desiredPool) {
        this.clear(k, work);
        lbIPs = [];
      }
      const desired = desiredIPs(svc);
      if (typeof desired === "string") {
        this.event(svc, CONTROLLER_COMPONENT, "Warning", "LoadBalancerFailed", `invalid requested loadbalancer IPs: ${desired}`);
        work.ips = lbIPs;
        return false;
      }
      if (desired.ips.length && !sameIPs(lbIPs, desired.ips)) {
        this.clear(k, work);
        lbIPs = [];
      }
    }
    if (lbIPs.length === 0) {
      const res = this.allocateIPs(k, svc, svcFamily);
      if (typeof res === "string") {
        this.event(svc, CONTROLLER_COMPONENT, "Warning", "AllocationFailed", `Failed to allocate IP for ${JSON.stringify(k)}: ${res}`);
        return false;
      }
      lbIPs = res;
      this.event(svc, CONTROLLER_COMPONENT, "Normal", "IPAllocated", `Assigned IP ${quoteIPs(lbIPs)}`);
    }
    work.ips = lbIPs;
    work.annotations[ANNOTATION_IP_ALLOCATED_FROM_POOL] = this.allocated.get(k)!.pool;
    delete work.annotations[DEPRECATED_IP_ALLOCATED_FROM_POOL];
    return true;
  }

  private allocateIPs(k: string, svc: Service, family: Family): string[] | string {
    const desired = desiredIPs(svc);
    if (typeof desired === "string") return desired;
    const desiredPool = annotation(svc, ANNOTATION_ADDRESS_POOL, DEPRECATED_ADDRESS_POOL);
    if (desired.ips.length) {
      if (family !== desired.family) return `requested loadBalancer IP(s) ${quoteIPs(desired.ips)} does not match the ipFamily of the service`;
      const err = this.assign(k, svc, desired.ips);
      if (err) return err;
      if (desiredPool && this.allocated.get(k)?.pool !== desiredPool) {
        this.unassign(k);
        return `requested loadBalancer IP(s) ${quoteIPs(desired.ips)} is not compatible with requested address pool ${desiredPool}`;
      }
      return desired.ips;
    }
    if (desiredPool) return this.allocateFromPool(k, svc, family, desiredPool);
    return this.allocate(k, svc, family);
  }

  /** Writes what converge decided: the annotation through the main resource, the addresses through status. */
  private writeService(svc: Service, work: { ips: string[]; annotations: Record<string, string> }): void {
    const ns = svc.metadata.namespace!;
    const name = svc.metadata.name!;
    try {
      const before = svc.metadata.annotations ?? {};
      if (!deepEqual(before, work.annotations)) {
        const patch: Record<string, string | null> = {};
        for (const key of [ANNOTATION_IP_ALLOCATED_FROM_POOL, DEPRECATED_IP_ALLOCATED_FROM_POOL]) {
          if (before[key] !== work.annotations[key]) patch[key] = work.annotations[key] ?? null;
        }
        // An emptied map is dropped, as Go's omitempty drops it from the stored object.
        const annotations = Object.keys(work.annotations).length ? patch : null;
        this.ctx.api.patch(R.services, ns, name, "merge", { metadata: { annotations } });
      }
      const fresh = this.ctx.store.get(SERVICES, ns, name) as Service;
      // The apiserver defaults ipMode to VIP for LoadBalancer ingress (LoadBalancerIPMode, 1.30+).
      const loadBalancer = work.ips.length ? { ingress: work.ips.map((ip) => ({ ip, ipMode: "VIP" })) } : {};
      if (!deepEqual(fresh.status?.loadBalancer ?? {}, loadBalancer)) {
        this.ctx.api.update(R.services, ns, name, { ...fresh, status: { ...(fresh.status ?? {}), loadBalancer } }, { subresource: "status" });
      }
    } catch (e) {
      if (!isStatusError(e)) throw e;
      // The Service changed or went away meanwhile: its own event converges it again.
    }
  }

  private releaseAndRetry(k: string): void {
    const before = this.freed;
    this.unassign(k);
    if (this.freed !== before) this.retryPending();
  }

  private retryPending(): void {
    for (const p of [...this.pending].sort()) this.requeue(`svc:${p}`);
  }

  // ---------------------------------------------------------------------------------------------
  // Allocator

  private poolFor(ips: readonly string[]): Pool | undefined {
    for (const p of this.pools.values()) {
      let n = 0;
      for (const ip of ips) {
        const v = parseIPv4(ip);
        if (v === undefined) continue;
        if (p.avoidBuggyIPs && buggy(v)) continue;
        if (p.v4.some((r) => v >= r.start && v <= r.end)) n++;
      }
      if (n === ips.length) return p;
    }
    return undefined;
  }

  private compatible(p: Pool, svc: Service): boolean {
    const sa = p.serviceAllocation;
    if (!sa) return true;
    if (sa.namespaces.size > 0 && !sa.namespaces.has(svc.metadata.namespace!)) return false;
    if (sa.serviceSelectors.length > 0) return sa.serviceSelectors.some((s) => s.matches(svc.metadata.labels ?? {}));
    return true;
  }

  private keysOf(svc: Service): { ports: string[]; sharing: string; backend: string } {
    const a = svc.metadata.annotations ?? {};
    const sharing = ANNOTATION_ALLOW_SHARED_IP in a ? a[ANNOTATION_ALLOW_SHARED_IP] : (a[DEPRECATED_ALLOW_SHARED_IP] ?? "");
    const backend =
      svc.spec?.externalTrafficPolicy === "Local"
        ? Object.entries(svc.spec?.selector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .sort()
            .join(",")
        : "";
    return { ports: (svc.spec?.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`), sharing, backend };
  }

  private checkSharing(k: string, ip: string, ports: string[], sk: { sharing: string; backend: string }): string | undefined {
    const existing = this.sharingKeyForIP.get(ip);
    if (!existing) return undefined;
    if (sharingError(existing, sk)) {
      const others = [...(this.servicesOnIP.get(ip) ?? [])].filter((s) => s !== k);
      if (others.length) return `can't change sharing key for ${JSON.stringify(k)}, address also in use by ${others.join(",")}`;
    }
    const inUse = this.portsInUse.get(ip);
    for (const port of ports) {
      const cur = inUse?.get(port);
      if (cur !== undefined && cur !== k) return `port ${port} is already in use on ${JSON.stringify(ip)}`;
    }
    return undefined;
  }

  /** Allocator.Assign: an error text, or undefined once the addresses are the Service's. */
  private assign(k: string, svc: Service, ips: string[]): string | undefined {
    const pool = this.poolFor(ips);
    if (!pool) return `${quoteIPs(ips)} is not allowed in config`;
    if (!this.compatible(pool, svc)) return `pool ${pool.name} not compatible for ip assignment`;
    if (ips.length > 2) return `more than two addresses ${quoteIPs(ips)}`;
    if (ips.length === 2 && familyOf(ips[0]) === familyOf(ips[1])) return `${JSON.stringify(ips[0])} ${JSON.stringify(ips[1])} has the same family`;
    const { ports, sharing, backend } = this.keysOf(svc);
    for (const ip of ips) {
      const err = this.checkSharing(k, ip, ports, { sharing, backend });
      if (err) return err;
    }
    this.record(k, { pool: pool.name, ips: [...ips], ports, sharing, backend });
    return undefined;
  }

  private record(k: string, a: Alloc): void {
    this.unassign(k);
    this.allocated.set(k, a);
    for (const ip of a.ips) {
      this.sharingKeyForIP.set(ip, { sharing: a.sharing, backend: a.backend });
      let ports = this.portsInUse.get(ip);
      if (!ports) this.portsInUse.set(ip, (ports = new Map()));
      for (const p of a.ports) ports.set(p, k);
      let svcs = this.servicesOnIP.get(ip);
      if (!svcs) this.servicesOnIP.set(ip, (svcs = new Set()));
      svcs.add(k);
      let used = this.poolIPsInUse.get(a.pool);
      if (!used) this.poolIPsInUse.set(a.pool, (used = new Map()));
      used.set(ip, (used.get(ip) ?? 0) + 1);
    }
    this.poolChanged(a.pool);
  }

  private unassign(k: string): void {
    const a = this.allocated.get(k);
    if (!a) return;
    this.allocated.delete(k);
    for (const ip of a.ips) {
      const ports = this.portsInUse.get(ip);
      for (const p of a.ports) if (ports?.get(p) === k) ports.delete(p);
      this.servicesOnIP.get(ip)?.delete(k);
      if (!this.servicesOnIP.get(ip)?.size) {
        this.servicesOnIP.delete(ip);
        this.freed++;
      }
      if (!ports?.size) {
        this.portsInUse.delete(ip);
        this.sharingKeyForIP.delete(ip);
      }
      const used = this.poolIPsInUse.get(a.pool);
      if (used) {
        const n = (used.get(ip) ?? 1) - 1;
        if (n <= 0) used.delete(ip);
        else used.set(ip, n);
      }
    }
    this.poolChanged(a.pool);
  }

  private poolChanged(name: string): void {
    const p = this.pools.get(name);
    if (p) this.requeue(`pool:${p.namespace}/${p.name}`);
  }

  /** getIPFromCIDR over each IPv4 block: the lowest address this Service may take. */
  private freeIPv4(pool: Pool, k: string, svc: Service): string | undefined {
    const { ports, sharing, backend } = this.keysOf(svc);
    for (const r of pool.v4) {
      for (let v = r.start; v <= r.end; v++) {
        if (pool.avoidBuggyIPs && buggy(v)) continue;
        const ip = formatIPv4(v);
        if (this.checkSharing(k, ip, ports, { sharing, backend })) continue;
        return ip;
      }
    }
    return undefined;
  }

  private allocateFromPool(k: string, svc: Service, family: Family, poolName: string): string[] | string {
    const existing = this.allocated.get(k);
    if (existing) {
      const err = this.assign(k, svc, existing.ips);
      return err ?? existing.ips;
    }
    const pool = this.pools.get(poolName);
    if (!pool) return `unknown pool ${JSON.stringify(poolName)}`;
    const ip = family === "ipv4" ? this.freeIPv4(pool, k, svc) : undefined;
    if (!ip) return `no available IPs in pool ${poolName} for ${family} IPFamily`;
    return this.assign(k, svc, [ip]) ?? [ip];
  }

  /** sortPools: priority 1 first, unset (0) last; name order among equals. */
  private pinnedPools(svc: Service): Pool[] {
    const out: Pool[] = [];
    for (const p of this.pools.values()) {
      const sa = p.serviceAllocation;
      if (!sa || !p.autoAssign || !this.compatible(p, svc)) continue;
      if (sa.namespaces.has(svc.metadata.namespace!)) out.push(p);
      if (sa.serviceSelectors.length) out.push(p);
    }
    const rank = (p: Pool) => (p.serviceAllocation!.priority > 0 ? p.serviceAllocation!.priority : Infinity);
    return out.sort((a, b) => rank(a) - rank(b));
  }

  private allocate(k: string, svc: Service, family: Family): string[] | string {
    const existing = this.allocated.get(k);
    if (existing) {
      const err = this.assign(k, svc, existing.ips);
      return err ?? existing.ips;
    }
    const fromPools = (pools: Pool[]): string[] | undefined => {
      if (family !== "ipv4") return undefined;
      for (const p of pools) {
        const ip = this.freeIPv4(p, k, svc);
        if (!ip) continue;
        return this.assign(k, svc, [ip]) ? undefined : [ip];
      }
      return undefined;
    };
    const pinned = fromPools(this.pinnedPools(svc));
    if (pinned) return pinned;
    const all = fromPools([...this.pools.values()].filter((p) => p.autoAssign && !p.serviceAllocation));
    return all ?? "no available IPs";
  }

  // ---------------------------------------------------------------------------------------------
  // Pool status (assignedIPv4, availableIPv4, ...)

  private writePoolStatus(k: string): void {
    const [ns, name] = splitKey(k);
    const obj = this.ctx.store.get(POOLS, ns, name) as IPAddressPool | undefined;
    const pool = this.pools.get(name);
    if (!obj || !pool || pool.namespace !== ns) return;
    const used = [...(this.poolIPsInUse.get(name)?.keys() ?? [])];
    const v4 = used.filter((ip) => familyOf(ip) === "ipv4").length;
    const v6 = used.length - v4;
    const status = { assignedIPv4: v4, assignedIPv6: v6, availableIPv4: poolCounts(pool) - v4, availableIPv6: pool.v6Count - v6 };
    if (deepEqual(obj.status ?? {}, status)) return;
    try {
      this.ctx.api.update(R.ipaddresspools, ns, name, { ...obj, status }, { subresource: "status" });
    } catch (e) {
      if (!isStatusError(e)) throw e;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Speaker (layer 2)

  /** The node that wins the layer 2 election for Service `k`, or undefined if none may announce it. */
  private electNode(k: string, speakers?: Set<string>): string | undefined {
    const [ns, name] = splitKey(k);
    const svc = this.ctx.store.get(SERVICES, ns, name) as Service | undefined;
    const alloc = this.allocated.get(k);
    if (!svc || !alloc || svc.spec?.type !== "LoadBalancer") return undefined;
    const pool = this.pools.get(alloc.pool);
    if (!pool) return undefined;
    const advs = (this.ctx.store.list(L2ADVS) as L2Advertisement[]).filter((a) => advertises(a, pool, svc));
    if (!advs.length) return undefined;
    // activeEndpointExists: a ready endpoint (no condition counts as ready).
    const slices = (this.ctx.store.list(SLICES, ns) as EndpointSlice[]).filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === name);
    const readyNodes = new Set<string>();
    let active = false;
    for (const s of slices) {
      for (const ep of s.endpoints ?? []) {
        if (ep.conditions?.ready === false) continue;
        active = true;
        if (ep.nodeName) readyNodes.add(ep.nodeName);
      }
    }
    if (!active) return undefined;
    speakers ??= this.usableSpeakers();
    let nodes = (this.ctx.store.list(NODES) as Node[])
      .filter((n) => speakers.has(n.metadata.name!) && !(EXCLUDE_LB_LABEL in (n.metadata.labels ?? {})))
      .filter((n) => advs.some((a) => nodeSelected(a, n)))
      .map((n) => n.metadata.name!);
    if (svc.spec?.externalTrafficPolicy === "Local") nodes = nodes.filter((n) => readyNodes.has(n));
    if (!nodes.length) return undefined;
    const ip = alloc.ips[0];
    const keyed = nodes.map((n) => ({ n, h: sha256(`${n}#${ip}`) }));
    keyed.sort((a, b) => compareBytes(a.h, b.h));
    return keyed[0].n;
  }

  /** Nodes with a running, ready speaker; with no speaker pods at all, every Ready node. */
  private usableSpeakers(): Set<string> {
    const out = new Set<string>();
    let any = false;
    for (const p of this.ctx.store.iterate(PODS) as IterableIterator<Pod>) {
      if (p.metadata.labels?.component !== "speaker" || p.metadata.labels?.app !== "metallb") continue;
      any = true;
      if (p.spec.nodeName && p.status?.phase === "Running" && isPodReady(p) && !p.metadata.deletionTimestamp) out.add(p.spec.nodeName);
    }
    if (!any) for (const n of this.ctx.store.iterate(NODES) as IterableIterator<Node>) if (nodeReady(n)) out.add(n.metadata.name!);
    return out;
  }

  private announce(k: string, speakers?: Set<string>): void {
    const node = this.electNode(k, speakers);
    if (!node) {
      this.announced.delete(k);
      return;
    }
    if (this.announced.get(k) === node) return;
    this.announced.set(k, node);
    const [ns, name] = splitKey(k);
    const svc = this.ctx.store.get(SERVICES, ns, name) as Service;
    this.event(svc, SPEAKER_COMPONENT, "Normal", "nodeAssigned", `announcing from node ${JSON.stringify(node)} with protocol "layer2"`);
  }
}

function nsKey(o: KObject): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}

function nodeReady(n: Node): boolean {
  const c = (n.status?.conditions ?? []).find((x) => x.type === "Ready");
  return !c || c.status === "True";
}

function sameIPs(a: string[], b: string[]): boolean {
  return deepEqual([...a].sort(), [...b].sort());
}

function sharingError(existing: { sharing: string; backend: string }, next: { sharing: string; backend: string }): boolean {
  return !existing.sharing || !next.sharing || existing.sharing !== next.sharing || existing.backend !== next.backend;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** An L2Advertisement covers a pool by name, by pool selector, or (with neither) every pool. */
function advertises(a: L2Advertisement, pool: Pool, svc: Service): boolean {
  if (a.metadata.deletionTimestamp) return false;
  const names = a.spec?.ipAddressPools ?? [];
  const sels = a.spec?.ipAddressPoolSelectors ?? [];
  const coversPool =
    (names.length === 0 && sels.length === 0) || names.includes(pool.name) || sels.some((s) => safeSelector(s)?.matches(pool.labels) ?? false);
  if (!coversPool) return false;
  const svcSels = a.spec?.serviceSelectors ?? [];
  return svcSels.length === 0 || svcSels.some((s) => safeSelector(s)?.matches(svc.metadata.labels ?? {}) ?? false);
}

function nodeSelected(a: L2Advertisement, n: Node): boolean {
  const sels = a.spec?.nodeSelectors ?? [];
  return sels.length === 0 || sels.some((s) => safeSelector(s)?.matches(n.metadata.labels ?? {}) ?? false);
}

/** What of the pool config matters for re-converging Services. */
function poolsShape(pools: Map<string, Pool>): unknown {
  return [...pools.values()].map((p) => ({
    ...p,
    serviceAllocation: p.serviceAllocation && { priority: p.serviceAllocation.priority, namespaces: [...p.serviceAllocation.namespaces].sort(), selectors: p.serviceAllocation.serviceSelectors.map((s) => s.toString()) },
  }));
}

function isLB(s?: KObject): boolean {
  return (s as Service | undefined)?.spec?.type === "LoadBalancer";
}

function isSpeaker(p?: KObject): boolean {
  return p?.metadata.labels?.component === "speaker" && p.metadata.labels?.app === "metallb";
}
