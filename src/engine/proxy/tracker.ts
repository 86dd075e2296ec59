// The one change tracker of every kube-proxy in a cluster: Services and EndpointSlices become
// ServicePortInfo and EndpointInfo lists (K/pkg/proxy/servicechangetracker.go, serviceport.go,
// endpointslicecache.go), with the set of service-port keys that changed since each node last
// synced, so proxiers sync incrementally.
//
// One tracker serves all nodes: everything is node-independent except EndpointInfo.isLocal.
// An endpoint therefore exists in two shapes (isLocal false, shared by every other node, and
// isLocal true for its own node), and a node's list for a port is the shared list unless it
// holds one of the node's own endpoints. IPv4 only, like one family's proxier.

import type { EndpointSlice, Service } from "../api/types.js";
import { parseIPv4Sloppy } from "../util/ip.js";
import type { StoreEvent } from "../store/store.js";
import type { EndpointInfo, Protocol, ProxyState, ServicePortInfo } from "./types.js";
import { endpointString, sameEndpoint, sameEndpointList, sameServicePort, servicePortKey } from "./types.js";

export const SERVICES_RESOURCE = "services";
export const ENDPOINTSLICES_RESOURCE = "endpointslices.discovery.k8s.io";
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** sessionAffinityConfig.clientIP.timeoutSeconds default (v1.DefaultClientIPServiceAffinitySeconds). */
const DEFAULT_STICKY_SECONDS = 10800;

const NONE: readonly EndpointInfo[] = Object.freeze([]);

/** ShouldSkipService: headless, ExternalName and cluster-IP-less services are not proxied. */
function shouldSkipService(svc: Service): boolean {
  const spec = svc.spec ?? {};
  if (spec.type === "ExternalName") return true;
  const cip = spec.clusterIP ?? "";
  return cip === "" || cip === "None";
}

function isV4(ip: string): boolean {
  return parseIPv4Sloppy(ip) !== undefined;
}

/** The service's ports as kube-proxy's newBaseServiceInfo sees them (IPv4 family). */
function servicePortInfos(svc: Service): ServicePortInfo[] {
  if (shouldSkipService(svc)) return [];
  const spec = svc.spec ?? {};
  const clusterIP = [spec.clusterIP ?? "", ...(spec.clusterIPs ?? [])].find((ip) => isV4(ip));
  if (clusterIP === undefined) return [];
  const type = spec.type ?? "ClusterIP";
  const externalIPs = (spec.externalIPs ?? []).filter(isV4);
  const externallyAccessible = type === "NodePort" || type === "LoadBalancer" || externalIPs.length > 0;
  const externalPolicyLocal = externallyAccessible && spec.externalTrafficPolicy === "Local";
  const internalPolicyLocal = spec.internalTrafficPolicy === "Local";
  const sticky =
    spec.sessionAffinity === "ClientIP" ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_STICKY_SECONDS) : 0;
  // Only LoadBalancer services use their ingress IPs; ipMode Proxy means the LB itself proxies.
  const lbVIPs: string[] = [];
  if (type === "LoadBalancer") {
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
      if (ing.ip && isV4(ing.ip) && (ing.ipMode === undefined || ing.ipMode === "VIP")) lbVIPs.push(ing.ip);
    }
  }
  const sourceRanges = type === "LoadBalancer" ? (spec.loadBalancerSourceRanges ?? []).map((s) => s.trim()).filter((s) => isV4(s.split("/")[0])) : [];
  const healthCheckNodePort = type === "LoadBalancer" && externalPolicyLocal ? (spec.healthCheckNodePort ?? 0) : 0;
  const annotations = svc.metadata.annotations ?? {};
  const topologyMode = annotations["service.kubernetes.io/topology-mode"] ?? annotations["service.kubernetes.io/topology-aware-hints"] ?? "";
  const hintsEnabled =
    (topologyMode !== "" && topologyMode !== "disabled" && topologyMode !== "Disabled") || spec.trafficDistribution === "PreferClose";
  const out: ServicePortInfo[] = [];
  for (const p of spec.ports ?? []) {
    const protocol = (p.protocol ?? "TCP") as Protocol;
    out.push({
      name: { namespace: svc.metadata.namespace ?? "default", name: svc.metadata.name!, port: p.name ?? "", protocol },
      clusterIP,
      port: p.port,
      protocol,
      nodePort: type === "NodePort" || type === "LoadBalancer" ? (p.nodePort ?? 0) : 0,
      externalIPs,
      loadBalancerVIPs: lbVIPs,
      loadBalancerSourceRanges: sourceRanges,
      healthCheckNodePort,
      externalPolicyLocal,
      internalPolicyLocal,
      stickyMaxAgeSeconds: sticky,
      hintsEnabled,
    });
  }
  return out;
}

function byName(x: EndpointSlice, y: EndpointSlice): number {
  return x.metadata.name! < y.metadata.name! ? -1 : x.metadata.name! > y.metadata.name! ? 1 : 0;
}

/** One port key's endpoints in one slice: de-duplicated, sorted by "IP:port" (`strs[i]` is `infos[i]`'s). */
interface SlicePort {
  strs: string[];
  infos: EndpointInfo[];
}

/** One slice as the cache holds it: its endpoints per service-port key, in the slice's port order. */
interface ParsedSlice {
  slice: EndpointSlice;
  ports: Map<string, SlicePort>;
}

/**
 * One slice's contribution to EndpointSlice merging. Endpoints equal to those of `prev` (the
 * previous parse of the same slice) are that parse's objects, so unchanged endpoints keep
 * their identity across writes (cheap comparisons, shared isLocal variants).
 */
function parseSlice(slice: EndpointSlice, prev: ParsedSlice | undefined): ParsedSlice {
  const ports = new Map<string, SlicePort>();
  if (slice.addressType !== "IPv4") return { slice, ports };
  const svcName = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  if (!svcName) return { slice, ports };
  const ns = slice.metadata.namespace ?? "default";
  const sets = new Map<string, Map<string, EndpointInfo>>();
  for (const port of slice.ports ?? []) {
    // kube-proxy ignores ports with a nil name or a nil/zero port number.
    if (port.name === null || port.name === undefined || !port.port) continue;
    const protocol = (port.protocol ?? "TCP") as Protocol;
    const key = servicePortKey({ namespace: ns, name: svcName, port: port.name, protocol });
    let set = sets.get(key);
    if (!set) sets.set(key, (set = new Map()));
    for (const ep of slice.endpoints ?? []) {
      const ip = ep.addresses[0];
      if (ip === undefined || !isV4(ip)) continue;
      const c = ep.conditions ?? {};
      const ready = c.ready === undefined || c.ready === null || c.ready;
      const info: EndpointInfo = {
        ip,
        port: port.port,
        ready,
        serving: c.serving === undefined || c.serving === null ? ready : c.serving,
        terminating: c.terminating === true,
        nodeName: ep.nodeName ?? "",
        zone: ep.zone ?? "",
        zoneHints: (ep.hints?.forZones ?? []).map((z) => z.name),
        nodeHints: (ep.hints?.forNodes ?? []).map((n) => n.name),
        isLocal: false,
      };
      const s = endpointString(info);
      const had = set.get(s);
      if (!had || (had.nodeName === "" && info.nodeName !== "")) set.set(s, info);
    }
  }
  for (const [key, set] of sets) {
    const strs = [...set.keys()].sort();
    const old = prev?.ports.get(key);
    let oi = 0;
    const infos = strs.map((s) => {
      const info = set.get(s)!;
      if (old) {
        // Both sorted: walk the previous parse alongside.
        while (oi < old.strs.length && old.strs[oi] < s) oi++;
        if (oi < old.strs.length && old.strs[oi] === s && sameEndpoint(old.infos[oi], info)) return old.infos[oi];
      }
      return info;
    });
    ports.set(key, { strs, infos });
  }
  return { slice, ports };
}

/**
 * Slices (in name order) merged per port key: an endpoint ("IP:port") seen twice keeps its first
 * sighting unless a later one carries a nodeName the first lacked. The per-slice lists are
 * sorted, so this is a k-way merge; a key only one slice has is that slice's list.
 */
function mergeParsed(sorted: readonly ParsedSlice[]): Map<string, EndpointInfo[]> {
  const lists = new Map<string, SlicePort[]>();
  for (const p of sorted) {
    for (const [key, sp] of p.ports) {
      const l = lists.get(key);
      if (l) l.push(sp);
      else lists.set(key, [sp]);
    }
  }
  const out = new Map<string, EndpointInfo[]>();
  for (const [key, ls] of lists) {
    if (ls.length === 1) {
      out.set(key, ls[0].infos);
      continue;
    }
    const idx = new Array<number>(ls.length).fill(0);
    const merged: EndpointInfo[] = [];
    for (;;) {
      let best = -1;
      let bs = "";
      for (let j = 0; j < ls.length; j++) {
        const i = idx[j];
        if (i >= ls[j].strs.length) continue;
        const s = ls[j].strs[i];
        if (best < 0 || s < bs) {
          best = j;
          bs = s;
        }
      }
      if (best < 0) break;
      let w: EndpointInfo | undefined;
      for (let j = best; j < ls.length; j++) {
        const i = idx[j];
        if (i >= ls[j].strs.length || ls[j].strs[i] !== bs) continue;
        const info = ls[j].infos[i];
        if (!w || (w.nodeName === "" && info.nodeName !== "")) w = info;
        idx[j] = i + 1;
      }
      merged.push(w!);
    }
    out.set(key, merged);
  }
  return out;
}

/** One node's view: services shared, endpoint lists with this node's isLocal, changes since its last sync. */
export class NodeView {
  /**
   * Per port key, the list with isLocal for this node, made on first read from the shared list
   * it was made of; absent when equal to the shared list.
   */
  private readonly own = new Map<string, { shared: readonly EndpointInfo[]; list: readonly EndpointInfo[] }>();
  private pending = new Set<string>();
  readonly state: ProxyState;

  constructor(
    readonly nodeName: string,
    private readonly tracker: ProxyTracker,
  ) {
    const self = this;
    const endpoints = {
      get size() {
        return tracker.endpointLists.size;
      },
      get(key: string) {
        return self.list(key);
      },
      has(key: string) {
        return tracker.endpointLists.has(key);
      },
      forEach(cb: (v: readonly EndpointInfo[], k: string, m: unknown) => void, thisArg?: unknown) {
        for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
      },
      *entries() {
        for (const k of tracker.endpointLists.keys()) yield [k, self.list(k)!] as [string, readonly EndpointInfo[]];
      },
      keys() {
        return tracker.endpointLists.keys();
      },
      *values() {
        for (const [, v] of this.entries()) yield v;
      },
      [Symbol.iterator]() {
        return this.entries();
      },
    };
    this.state = {
      services: tracker.services,
      endpoints: endpoints as unknown as ReadonlyMap<string, readonly EndpointInfo[]>,
      nodeIndependentEndpoints: tracker.endpointLists,
    };
  }

  /** The endpoint list of `key` as this node sees it (isLocal on its own endpoints). */
  private list(key: string): readonly EndpointInfo[] | undefined {
    const shared = this.tracker.endpointLists.get(key);
    if (!shared) return undefined;
    const c = this.own.get(key);
    if (c && c.shared === shared) return c.list;
    const at = this.tracker.localIndices(shared, this.nodeName);
    if (!at) {
      if (c) this.own.delete(key);
      return shared;
    }
    const local = shared.slice();
    for (const i of at) local[i] = this.tracker.localVariant(shared[i]);
    this.own.set(key, { shared, list: local });
    return local;
  }

  /** Called by the tracker when the shared list of `key` changed or went away. */
  refresh(key: string): void {
    this.own.delete(key);
  }

  markChanged(key: string): void {
    this.pending.add(key);
  }

  /** The keys changed since the last call (the next sync's `changed`), and forget them. */
  takeChanged(): Set<string> {
    const out = this.pending;
    this.pending = new Set();
    return out;
  }

  /** Pending changes without taking them. */
  get changedCount(): number {
    return this.pending.size;
  }
}

/**
 * Services + EndpointSlices -> ProxyState, fed with store events. Keys are servicePortKey(spn).
 */
export class ProxyTracker {
  readonly services = new Map<string, ServicePortInfo>();
  readonly endpointLists = new Map<string, readonly EndpointInfo[]>();
  /** service "ns/name" -> its port keys in services / endpointLists. */
  private readonly serviceKeys = new Map<string, string[]>();
  private readonly endpointKeys = new Map<string, string[]>();
  /** service "ns/name" -> its slices (parsed) by slice name. */
  private readonly slices = new Map<string, Map<string, ParsedSlice>>();
  /** slice "ns/name" -> the service it was filed under (for label changes and deletes). */
  private readonly sliceOwner = new Map<string, string>();
  private readonly localVariants = new WeakMap<EndpointInfo, EndpointInfo>();
  private readonly views = new Map<string, NodeView>();
  /** Per shared endpoint list, the indices of each node's endpoints (made on first use). */
  private readonly byNode = new WeakMap<readonly EndpointInfo[], Map<string, number[]>>();
  /** Services ("ns/name") whose slices changed since the last flush, in the order first seen. */
  private readonly dirty = new Set<string>();

  /** The view of node `name` (created on first use; changes accumulate from then on). */
  view(name: string): NodeView {
    let v = this.views.get(name);
    if (!v) {
      v = new NodeView(name, this);
      this.views.set(name, v);
    }
    return v;
  }

  /** Where `list` holds endpoints of node `node`, or undefined if nowhere. */
  localIndices(list: readonly EndpointInfo[], node: string): readonly number[] | undefined {
    let m = this.byNode.get(list);
    if (!m) {
      m = new Map();
      for (let i = 0; i < list.length; i++) {
        const n = list[i].nodeName;
        const at = m.get(n);
        if (at) at.push(i);
        else m.set(n, [i]);
      }
      this.byNode.set(list, m);
    }
    return m.get(node);
  }

  localVariant(ep: EndpointInfo): EndpointInfo {
    let v = this.localVariants.get(ep);
    if (!v) {
      v = { ...ep, isLocal: true };
      this.localVariants.set(ep, v);
    }
    return v;
  }

  /** Feed one store event; returns the service-port keys it changed. */
  onEvent(ev: StoreEvent): string[] {
    const changed = this.apply(ev);
    if (this.dirty.size) changed.push(...this.flush());
    return changed;
  }

  /**
   * Feed one store event, deferring the merge of a service's slices to the next `flush()`:
   * kube-proxy syncs at most once per minSyncPeriod, so the slices the EndpointSlice controller
   * writes in one pass (ten for a 1000-endpoint service) are merged once, not once per slice.
   * Returns whether anything may have changed (a slice write that is its previous version's
   * object changes nothing).
   */
  observe(ev: StoreEvent): boolean {
    const dirty = this.dirty.size;
    return this.apply(ev).length > 0 || this.dirty.size > dirty;
  }

  /** Whether slices observed since the last flush wait to be merged. */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /** Merges the slices of every service observed since the last flush; returns the keys changed. */
  flush(): string[] {
    if (this.dirty.size === 0) return [];
    const owners = [...this.dirty];
    this.dirty.clear();
    const changed: string[] = [];
    for (const owner of owners) changed.push(...this.recomputeEndpoints(owner));
    return changed;
  }

  /** Applies an event: services at once (their changed keys), slices noted in `dirty`. */
  private apply(ev: StoreEvent): string[] {
    if (ev.resource === SERVICES_RESOURCE) {
      const svc = ev.object as Service;
      const id = `${svc.metadata.namespace}/${svc.metadata.name}`;
      return this.setService(id, ev.type === "DELETED" ? undefined : svc);
    }
    if (ev.resource === ENDPOINTSLICES_RESOURCE) {
      const slice = ev.object as EndpointSlice;
      const sliceId = `${slice.metadata.namespace}/${slice.metadata.name}`;
      const prevOwner = this.sliceOwner.get(sliceId);
      const label = slice.metadata.labels?.[SERVICE_NAME_LABEL];
      const owner = ev.type === "DELETED" || !label ? undefined : `${slice.metadata.namespace}/${label}`;
      if (prevOwner !== undefined && prevOwner !== owner) {
        this.slices.get(prevOwner)?.delete(slice.metadata.name!);
        this.sliceOwner.delete(sliceId);
        this.dirty.add(prevOwner);
      }
      if (owner !== undefined) {
        let m = this.slices.get(owner);
        if (!m) {
          m = new Map();
          this.slices.set(owner, m);
        }
        const prev = m.get(slice.metadata.name!);
        if (prev?.slice === slice) return [];
        m.set(slice.metadata.name!, parseSlice(slice, prev));
        this.sliceOwner.set(sliceId, owner);
        this.dirty.add(owner);
      }
    }
    return [];
  }

  /** Load everything from scratch (start, restore). */
  loadAll(services: Iterable<Service>, slices: Iterable<EndpointSlice>): void {
    for (const s of services) this.setService(`${s.metadata.namespace}/${s.metadata.name}`, s);
    for (const sl of slices) {
      this.onEvent({ type: "ADDED", resource: ENDPOINTSLICES_RESOURCE, object: sl, rv: 0 });
    }
  }

  private setService(id: string, svc: Service | undefined): string[] {
    const next = svc ? servicePortInfos(svc) : [];
    const oldKeys = this.serviceKeys.get(id) ?? [];
    const newKeys: string[] = [];
    const changed: string[] = [];
    for (const info of next) {
      const key = servicePortKey(info.name);
      newKeys.push(key);
      const prev = this.services.get(key);
      if (prev && sameServicePort(prev, info)) continue;
      this.services.set(key, info);
      changed.push(key);
    }
    for (const key of oldKeys) {
      if (newKeys.includes(key)) continue;
      this.services.delete(key);
      changed.push(key);
    }
    if (newKeys.length) this.serviceKeys.set(id, newKeys);
    else this.serviceKeys.delete(id);
    for (const key of changed) for (const v of this.views.values()) v.markChanged(key);
    return changed;
  }

  private recomputeEndpoints(owner: string): string[] {
    const m = this.slices.get(owner);
    const merged = m && m.size ? mergeParsed(m.size === 1 ? [...m.values()] : [...m.values()].sort((x, y) => byName(x.slice, y.slice))) : new Map<string, EndpointInfo[]>();
    if (m && m.size === 0) this.slices.delete(owner);
    const oldKeys = this.endpointKeys.get(owner) ?? [];
    const changed: string[] = [];
    for (const [key, list] of merged) {
      const prev = this.endpointLists.get(key);
      if (prev && (prev === list || sameEndpointList(prev, list))) continue;
      this.endpointLists.set(key, list.length ? list : NONE);
      changed.push(key);
    }
    for (const key of oldKeys) {
      if (merged.has(key)) continue;
      this.endpointLists.delete(key);
      changed.push(key);
    }
    if (merged.size) this.endpointKeys.set(owner, [...merged.keys()]);
    else this.endpointKeys.delete(owner);
    for (const key of changed) {
      for (const v of this.views.values()) {
        v.refresh(key);
        v.markChanged(key);
      }
    }
    return changed;
  }
}
