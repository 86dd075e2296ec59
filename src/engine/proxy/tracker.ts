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
import { parseIPv4Sloppy } from "../net/ip.js";
import type { StoreEvent } from "../store/store.js";
import type { EndpointInfo, Protocol, ProxyState, ServicePortInfo } from "./types.js";
import { endpointString, servicePortKey } from "./types.js";

export const SERVICES_RESOURCE = "services";
export const ENDPOINTSLICES_RESOURCE = "endpointslices.discovery.k8s.io";
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** sessionAffinityConfig.clientIP.timeoutSeconds default (v1.DefaultClientIPServiceAffinitySeconds). */
const DEFAULT_STICKY_SECONDS = 10800;

const NONE: readonly EndpointInfo[] = Object.freeze([]);

/** ShouldSkipService: headless, ExternalName and cluster-IP-less services are not proxied. */
export function shouldSkipService(svc: Service): boolean {
  const spec = svc.spec ?? {};
  if (spec.type === "ExternalName") return true;
  const cip = spec.clusterIP ?? "";
  return cip === "" || cip === "None";
}

function isV4(ip: string): boolean {
  return parseIPv4Sloppy(ip) !== undefined;
}

/** The service's ports as kube-proxy's newBaseServiceInfo sees them (IPv4 family). */
export function servicePortInfos(svc: Service): ServicePortInfo[] {
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

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function sameServicePort(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.protocol === b.protocol &&
    a.nodePort === b.nodePort &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
    a.hintsEnabled === b.hintsEnabled &&
    a.name.port === b.name.port &&
    sameStrings(a.externalIPs, b.externalIPs) &&
    sameStrings(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
    sameStrings(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges)
  );
}

function sameEndpoint(a: EndpointInfo, b: EndpointInfo): boolean {
  return (
    a.ip === b.ip &&
    a.port === b.port &&
    a.ready === b.ready &&
    a.serving === b.serving &&
    a.terminating === b.terminating &&
    a.nodeName === b.nodeName &&
    a.zone === b.zone &&
    sameStrings(a.zoneHints, b.zoneHints) &&
    sameStrings(a.nodeHints, b.nodeHints)
  );
}

function sameEndpointList(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameEndpoint(a[i], b[i])) return false;
  return true;
}

/**
 * EndpointSliceCache.endpointInfoByServicePort: the slices of one service merged per port.
 * Slices are read in name order; an endpoint ("IP:port") seen twice keeps its first sighting
 * unless a later one is on this node (kube-proxy favours isLocal) — node-independent here, so a
 * later sighting only wins when it carries a nodeName the first lacked. Lists are sorted by
 * "IP:port" as getEndpointsMap sorts them (byEndpoint).
 */
export function mergeSlices(slices: readonly EndpointSlice[]): Map<string, EndpointInfo[]> {
  const sorted = [...slices].sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : x.metadata.name! > y.metadata.name! ? 1 : 0));
  const byPort = new Map<string, { spn: { ns: string; name: string; port: string; protocol: Protocol }; set: Map<string, EndpointInfo> }>();
  for (const slice of sorted) {
    if (slice.addressType !== "IPv4") continue;
    const svcName = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svcName) continue;
    const ns = slice.metadata.namespace ?? "default";
    for (const port of slice.ports ?? []) {
      // kube-proxy ignores ports with a nil name or a nil/zero port number.
      if (port.name === null || port.name === undefined || !port.port) continue;
      const protocol = (port.protocol ?? "TCP") as Protocol;
      const key = servicePortKey({ namespace: ns, name: svcName, port: port.name, protocol });
      let entry = byPort.get(key);
      if (!entry) {
        entry = { spn: { ns, name: svcName, port: port.name, protocol }, set: new Map() };
        byPort.set(key, entry);
      }
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
        const prev = entry.set.get(s);
        if (!prev || (prev.nodeName === "" && info.nodeName !== "")) entry.set.set(s, info);
      }
    }
  }
  const out = new Map<string, EndpointInfo[]>();
  for (const [key, { set }] of byPort) {
    const list = [...set.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    out.set(key, list);
  }
  return out;
}

/** One node's view: services shared, endpoint lists with this node's isLocal, changes since its last sync. */
export class NodeView {
  /** Per port key, the list with isLocal for this node; absent when equal to the shared list. */
  private readonly own = new Map<string, readonly EndpointInfo[]>();
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
        return self.own.get(key) ?? tracker.endpointLists.get(key);
      },
      has(key: string) {
        return tracker.endpointLists.has(key);
      },
      forEach(cb: (v: readonly EndpointInfo[], k: string, m: unknown) => void, thisArg?: unknown) {
        for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
      },
      *entries() {
        for (const k of tracker.endpointLists.keys()) yield [k, self.own.get(k) ?? tracker.endpointLists.get(k)!] as [string, readonly EndpointInfo[]];
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
    this.state = { services: tracker.services, endpoints: endpoints as unknown as ReadonlyMap<string, readonly EndpointInfo[]> };
    for (const key of tracker.endpointLists.keys()) this.refresh(key);
  }

  /** Called by the tracker when the shared list of `key` changed. */
  refresh(key: string): void {
    const shared = this.tracker.endpointLists.get(key);
    this.own.delete(key);
    if (!shared) return;
    let local: EndpointInfo[] | undefined;
    for (let i = 0; i < shared.length; i++) {
      const ep = shared[i];
      if (ep.nodeName !== this.nodeName) continue;
      local ??= shared.slice();
      local[i] = this.tracker.localVariant(ep);
    }
    if (local) this.own.set(key, local);
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
  /** service "ns/name" -> its slices by slice name. */
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  /** slice "ns/name" -> the service it was filed under (for label changes and deletes). */
  private readonly sliceOwner = new Map<string, string>();
  private readonly localVariants = new WeakMap<EndpointInfo, EndpointInfo>();
  private readonly views = new Map<string, NodeView>();

  /** The view of node `name` (created on first use; changes accumulate from then on). */
  view(name: string): NodeView {
    let v = this.views.get(name);
    if (!v) {
      v = new NodeView(name, this);
      this.views.set(name, v);
    }
    return v;
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
    if (ev.resource === SERVICES_RESOURCE) {
      const svc = ev.object as Service;
      const id = `${svc.metadata.namespace}/${svc.metadata.name}`;
      return this.setService(id, ev.type === "DELETED" ? undefined : svc);
    }
    if (ev.resource === ENDPOINTSLICES_RESOURCE) {
      const slice = ev.object as EndpointSlice;
      const sliceId = `${slice.metadata.namespace}/${slice.metadata.name}`;
      const changed: string[] = [];
      const prevOwner = this.sliceOwner.get(sliceId);
      const label = slice.metadata.labels?.[SERVICE_NAME_LABEL];
      const owner = ev.type === "DELETED" || !label ? undefined : `${slice.metadata.namespace}/${label}`;
      if (prevOwner !== undefined && prevOwner !== owner) {
        this.slices.get(prevOwner)?.delete(slice.metadata.name!);
        this.sliceOwner.delete(sliceId);
        changed.push(...this.recomputeEndpoints(prevOwner));
      }
      if (owner !== undefined) {
        let m = this.slices.get(owner);
        if (!m) {
          m = new Map();
          this.slices.set(owner, m);
        }
        m.set(slice.metadata.name!, slice);
        this.sliceOwner.set(sliceId, owner);
        changed.push(...this.recomputeEndpoints(owner));
      }
      return changed;
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
    const merged = m && m.size ? mergeSlices([...m.values()]) : new Map<string, EndpointInfo[]>();
    if (m && m.size === 0) this.slices.delete(owner);
    const oldKeys = this.endpointKeys.get(owner) ?? [];
    const changed: string[] = [];
    for (const [key, list] of merged) {
      const prev = this.endpointLists.get(key);
      if (prev && sameEndpointList(prev, list)) continue;
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
