// The Endpoints controller of kube-controller-manager v1.33 (K/pkg/controller/endpoint/
// endpoints_controller.go): one v1 Endpoints per Service with a selector, subsets repacked as
// RepackSubsets leaves them (K/pkg/api/v1/endpoints/util.go), at most 1000 addresses.
//
// Also home of what both endpoint controllers share, as k8s.io/endpointslice/util is shared
// upstream: the Service -> Pod membership index, the trigger-time tracker, ShouldPodBeInEndpoints,
// FindPort, and the spew "%#v" printer plus hashes that decide Go's orderings.

import { memoize } from "../util/memo.js";
import { selectorFromSet, type Selector } from "../api/labels.js";
import { R } from "../api/resources.js";
import type { EndpointAddress, EndpointPort, EndpointSubset, Endpoints, KObject, Pod, Service, ServicePort } from "../api/types.js";
import { deepEqual, key as resKey } from "../apiserver/apiserver.js";
import { isIPv4 } from "../util/ip.js";
import type { Store, StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";
import { isPodReady, podCondition, splitKey } from "./util.js";

const PODS = resKey(R.pods);
const SERVICES = resKey(R.services);
const ENDPOINTS = resKey(R.endpoints);

/** v1.EndpointsLastChangeTriggerTime */
export const TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";
/** v1.EndpointsOverCapacity */
const OVER_CAPACITY_ANNOTATION = "endpoints.kubernetes.io/over-capacity";
/** v1.IsHeadlessService */
export const HEADLESS_LABEL = "service.kubernetes.io/headless";
/** maxCapacity: addresses an Endpoints object keeps at most. */
const MAX_ENDPOINTS_CAPACITY = 1000;

// ---------------------------------------------------------------------------------------------
// Shared pod/service helpers (k8s.io/endpointslice/util/controller_utils.go, utils.go)

/**
 * The Service's selector, or undefined when it selects nothing for these controllers: a nil
 * selector, and also `{}`, which etcd's protobuf round trip stores as nil.
 */
export function serviceSelector(svc: Service): Record<string, string> | undefined {
  const sel = svc.spec?.selector;
  return sel && Object.keys(sel).length ? sel : undefined;
}

export function isHeadless(svc: Service): boolean {
  const ip = svc.spec?.clusterIP;
  return ip === "None" || !ip;
}

/** ShouldPodBeInEndpoints: not terminal, has an IP, and terminating only if asked. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  if (!pod.status?.podIP && !(pod.status?.podIPs?.length)) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

/** ShouldSetHostname: spec.hostname set and spec.subdomain names the Service. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return !!pod.spec.hostname && pod.spec.subdomain === svc.metadata.name && svc.metadata.namespace === pod.metadata.namespace;
}

/**
 * isIPv4, remembered by address for one controller (never the process): both controllers ask it
 * of every selected pod's IP on every sync, and a pod's IP is one string for its lifetime.
 */
export function rememberedIsIPv4(): (ip: string) => boolean {
  return memoize(isIPv4, 16384);
}

/** The pod's IPs (status.podIPs, or podIP where podIPs was not filled in). */
export function podIPs(pod: Pod): string[] {
  const ips = pod.status?.podIPs;
  if (ips?.length) return ips.map((p) => p.ip);
  return pod.status?.podIP ? [pod.status.podIP] : [];
}

/**
 * podutil.FindPort: a numeric targetPort as is; a named one looked up (name and protocol) in the
 * containers' ports, then in restartable init containers (sidecars). undefined if not found.
 */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const tp = sp.targetPort ?? sp.port;
  if (typeof tp === "number") return tp;
  const proto = sp.protocol ?? "TCP";
  for (const c of pod.spec.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === tp && (p.protocol ?? "TCP") === proto) return p.containerPort;
  }
  for (const c of pod.spec.initContainers ?? []) {
    if ((c as { restartPolicy?: string }).restartPolicy !== "Always") continue;
    for (const p of c.ports ?? []) if (p.name === tp && (p.protocol ?? "TCP") === proto) return p.containerPort;
  }
  return undefined;
}

function sameIPs(a: Pod, b: Pod): boolean {
  // Status writes keep the pod's podIPs array (the kubelet's, shared by its versions).
  if (a.status?.podIPs === b.status?.podIPs && a.status?.podIP === b.status?.podIP) return true;
  const x = podIPs(a);
  const y = podIPs(b);
  return x.length === y.length && x.every((ip, i) => ip === y[i]);
}

const POD_CHANGED = 1;
const LABELS_CHANGED = 2;

/**
 * podEndpointsChanged, as flags: POD_CHANGED when the pod changed in a way that moves its
 * endpoint, LABELS_CHANGED when its labels (or hostname/subdomain) changed so its Service
 * memberships may have (flags, not a pair: this runs for most pod writes).
 */
function podEndpointsChanged(old: Pod, cur: Pod): number {
  const labelsChanged =
    (old.metadata.labels !== cur.metadata.labels && !deepEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {})) ||
    old.spec.hostname !== cur.spec.hostname ||
    old.spec.subdomain !== cur.spec.subdomain
      ? LABELS_CHANGED
      : 0;
  if ((old.metadata.deletionTimestamp ?? null) !== (cur.metadata.deletionTimestamp ?? null)) return POD_CHANGED | labelsChanged;
  if (old.status?.conditions !== cur.status?.conditions && isPodReady(old) !== isPodReady(cur)) return POD_CHANGED | labelsChanged;
  if (!sameIPs(old, cur)) return POD_CHANGED | labelsChanged;
  // Not upstream: a pod turning Succeeded/Failed leaves the endpoints at once here (upstream
  // catches it through the Ready flip the kubelet writes in the same status update).
  if ((old.status?.phase === "Succeeded" || old.status?.phase === "Failed") !== (cur.status?.phase === "Succeeded" || cur.status?.phase === "Failed")) {
    return POD_CHANGED | labelsChanged;
  }
  return labelsChanged;
}

interface IndexedService {
  /** "ns/name": the key the controllers sync (one string for the Service's lifetime). */
  readonly key: string;
  svc: Service;
  selector?: Selector;
  selectorSet?: Record<string, string>;
  members: Set<string>;
  /** members sorted, until they change. */
  sorted?: string[];
  /** [this entry]: what matching() returns when only this Service matches (no array per pod event). */
  readonly alone: readonly IndexedService[];
}

/**
 * Which pods each Service selects, kept up to date from store events so that a pod event costs
 * the number of Services in its namespace and a reconcile the number of selected pods.
 * Pods and Services are indexed by namespace.
 */
export class ServiceMembership {
  private readonly services = new Map<string, Map<string, IndexedService>>();
  private readonly pods = new Map<string, Map<string, Pod>>();
  /** The last event observed and the Service keys it gave (see observe). */
  private lastEvent: StoreEvent | undefined;
  private readonly lastKeys: string[] = [];

  constructor(private readonly store: Store) {
    this.rebuild();
  }

  /**
   * The one index of a store, shared by the Endpoints and EndpointSlice controllers: both follow
   * the same pods and Services with the same rules (GetServicesToUpdateOnPodChange is shared
   * upstream too), and one index costs half the memory and half the work per pod event.
   */
  static of(store: Store): ServiceMembership {
    let m = shared.get(store);
    if (!m) shared.set(store, (m = new ServiceMembership(store)));
    return m;
  }

  /** Rebuilds everything from the store (after a restore, which emits no events). */
  rebuild(): void {
    this.lastEvent = undefined;
    this.services.clear();
    this.pods.clear();
    for (const p of this.store.iterate(PODS)) this.nsPods(p.metadata.namespace!).set(p.metadata.name!, p as Pod);
    for (const s of this.store.iterate(SERVICES)) this.putService(s as Service);
  }

  private nsPods(ns: string): Map<string, Pod> {
    let m = this.pods.get(ns);
    if (!m) this.pods.set(ns, (m = new Map()));
    return m;
  }

  private nsServices(ns: string): Map<string, IndexedService> {
    let m = this.services.get(ns);
    if (!m) this.services.set(ns, (m = new Map()));
    return m;
  }

  private putService(svc: Service): void {
    const ns = svc.metadata.namespace!;
    const set = serviceSelector(svc);
    const m = this.nsServices(ns);
    const prev = m.get(svc.metadata.name!);
    if (prev && deepEqual(prev.selectorSet, set)) {
      prev.svc = svc;
      return;
    }
    const entry: IndexedService = { key: prev?.key ?? `${ns}/${svc.metadata.name}`, svc, selectorSet: set, members: new Set(), sorted: undefined, alone: [] };
    (entry.alone as IndexedService[]).push(entry);
    if (set) {
      entry.selector = selectorFromSet(set);
      for (const p of this.nsPods(ns).values()) if (entry.selector.matches(p.metadata.labels)) entry.members.add(p.metadata.name!);
    }
    m.set(svc.metadata.name!, entry);
  }

  /** The pods a Service selects, by name. */
  podsOf(namespace: string, name: string): Pod[] {
    const e = this.services.get(namespace)?.get(name);
    if (!e) return [];
    const pods = this.nsPods(namespace);
    const out: Pod[] = [];
    e.sorted ??= [...e.members].sort();
    for (const n of e.sorted) {
      const p = pods.get(n);
      if (p) out.push(p);
    }
    return out;
  }

  /** The Services of a namespace whose selector matches `labels` (each once, in index order). */
  private matching(ns: string, labels: Record<string, string> | null | undefined): readonly IndexedService[] {
    const m = this.services.get(ns);
    if (!m) return NO_SERVICES;
    let one: IndexedService | undefined;
    let out: IndexedService[] | undefined;
    for (const e of m.values()) {
      if (!e.selector?.matches(labels)) continue;
      if (out) out.push(e);
      else if (one) out = [one, e];
      else one = e;
    }
    return out ?? one?.alone ?? NO_SERVICES;
  }

  /**
   * Applies a store event and reports the Service keys to sync, as the upstream handlers do
   * (addPod/updatePod/deletePod with GetServicesToUpdateOnPodChange, onServiceUpdate/Delete).
   */
  observe(ev: StoreEvent, enqueue: (key: string) => void): void {
    // The second controller to see an event gets the keys the first one got; the index moved once.
    if (ev !== this.lastEvent) {
      this.lastEvent = ev;
      this.lastKeys.length = 0;
      this.apply(ev, this.lastKeys);
    }
    for (const k of this.lastKeys) enqueue(k);
  }

  private apply(ev: StoreEvent, out: string[]): void {
    if (ev.resource === SERVICES) {
      const svc = ev.object as Service;
      const ns = svc.metadata.namespace!;
      const prev = this.services.get(ns)?.get(svc.metadata.name!);
      if (ev.type === "DELETED") this.services.get(ns)?.delete(svc.metadata.name!);
      else this.putService(svc);
      out.push(prev?.key ?? `${ns}/${svc.metadata.name}`);
      return;
    }
    if (ev.resource !== PODS) return;
    const pod = ev.object as Pod;
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    const old = ev.old as Pod | undefined;
    if (ev.type === "DELETED") this.nsPods(ns).delete(name);
    else this.nsPods(ns).set(name, pod);

    // Most pod writes are status writes that keep the labels (shared, so identical) and do not
    // move the endpoint: memberships stay, nothing to sync.
    if (
      ev.type === "MODIFIED" &&
      old &&
      old.metadata.labels === pod.metadata.labels &&
      old.spec.hostname === pod.spec.hostname &&
      old.spec.subdomain === pod.spec.subdomain
    ) {
      if (!(podEndpointsChanged(old, pod) & POD_CHANGED)) return;
      // The same labels: the same Services select it before and after (what the general path
      // below computes twice and finds equal), and each of them syncs.
      for (const e of this.matching(ns, pod.metadata.labels)) {
        join(e, name);
        out.push(e.key);
      }
      return;
    }
    const cur = this.matching(ns, pod.metadata.labels);
    const prev = old ? this.matching(ns, old.metadata.labels) : NO_SERVICES;
    // Keep membership sets in step with the labels.
    if (ev.type === "DELETED") {
      for (const e of cur) leave(e, name);
      for (const e of cur) out.push(e.key);
      return;
    }
    for (const e of prev) if (!cur.includes(e)) leave(e, name);
    for (const e of cur) join(e, name);
    if (ev.type === "ADDED" || !old) {
      for (const e of cur) out.push(e.key);
      return;
    }
    const changed = podEndpointsChanged(old, pod);
    const podChanged = (changed & POD_CHANGED) !== 0;
    if (!changed) return;
    if (!(changed & LABELS_CHANGED)) {
      for (const e of cur) out.push(e.key);
      return;
    }
    // determineNeededServiceUpdates: the union if the pod changed too, else the symmetric difference.
    for (const e of cur) if (podChanged || !prev.includes(e)) out.push(e.key);
    for (const e of prev) if (podChanged || !cur.includes(e)) out.push(e.key);
  }

  /** Every Service key, for a first pass. */
  *serviceKeys(): IterableIterator<string> {
    for (const [ns, m] of this.services) for (const name of m.keys()) yield `${ns}/${name}`;
  }
}

const shared = new WeakMap<Store, ServiceMembership>();
const NO_SERVICES: readonly IndexedService[] = Object.freeze([]) as readonly IndexedService[];

function join(e: IndexedService, pod: string): void {
  if (!e.members.has(pod)) {
    e.members.add(pod);
    e.sorted = undefined;
  }
}

function leave(e: IndexedService, pod: string): void {
  if (e.members.delete(pod)) e.sorted = undefined;
}

/**
 * TriggerTimeTracker (k8s.io/endpointslice/util/trigger_time_tracker.go): the time to export as
 * last-change-trigger-time. A Service seen for the first time gives its creationTimestamp;
 * after that, the earliest pod Ready-condition transition (or Service creation) that is newer
 * than what the previous sync saw, or undefined (the annotation is then removed).
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { svc: number; pods: Map<string, number> }>();
  private readonly parsed = new Map<string, number>();

  private parse(s: string | null | undefined): number {
    if (!s) return NaN;
    let t = this.parsed.get(s);
    if (t === undefined) {
      if (this.parsed.size > 10_000) this.parsed.clear();
      this.parsed.set(s, (t = Date.parse(s)));
    }
    return t;
  }

  compute(svc: Service, pods: Pod[]): number | undefined {
    const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const state = this.states.get(key);
    let min: number | undefined;
    const podTimes = new Map<string, number>();
    for (const p of pods) {
      const t = this.parse(podCondition(p, "Ready")?.lastTransitionTime);
      if (Number.isNaN(t)) continue;
      podTimes.set(p.metadata.name!, t);
      const last = state?.pods.get(p.metadata.name!);
      if (last === undefined || t > last) min = min === undefined ? t : Math.min(min, t);
    }
    const svcTime = Date.parse(svc.metadata.creationTimestamp ?? "");
    const svcT = Number.isNaN(svcTime) ? 0 : svcTime;
    if (state && svcT > state.svc) min = min === undefined ? svcT : Math.min(min, svcT);
    this.states.set(key, { svc: svcT, pods: podTimes });
    if (!state) return svcT || undefined;
    return min;
  }

  delete(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}

/** time.Time.UTC().Format(time.RFC3339Nano) of a metav1.Time (whole seconds). */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, "Z").replace(/\.Z$/, "Z");
}

// ---------------------------------------------------------------------------------------------
// Go's orderings: spew "%#v" (dump.ForHash) of the API structs, then a hash.

export function spewPtr(v: string | number | undefined | null, type: string): string {
  return v === undefined || v === null ? `(*${type})<nil>` : `(*${type})${v}`;
}

/** core/v1 EndpointPort as spew prints it inside a slice (no type prefix). */
function spewCorePortBody(p: EndpointPort): string {
  return `{Name:(string)${p.name ?? ""} Port:(int32)${p.port ?? 0} Protocol:(v1.Protocol)${p.protocol ?? ""} AppProtocol:${spewPtr(p.appProtocol, "string")}}`;
}

function spewAddressBody(a: EndpointAddress): string {
  const t = a.targetRef;
  const ref = t
    ? `(*v1.ObjectReference){Kind:(string)${t.kind ?? ""} Namespace:(string)${t.namespace ?? ""} Name:(string)${t.name ?? ""} UID:(types.UID)${t.uid ?? ""} APIVersion:(string)${t.apiVersion ?? ""} ResourceVersion:(string)${t.resourceVersion ?? ""} FieldPath:(string)${t.fieldPath ?? ""}}`
    : "(*v1.ObjectReference)<nil>";
  return `{IP:(string)${a.ip} Hostname:(string)${a.hostname ?? ""} NodeName:${spewPtr(a.nodeName, "string")} TargetRef:${ref}}`;
}

function spewList<T>(items: T[] | undefined | null, type: string, body: (x: T) => string): string {
  if (!items) return `([]${type})<nil>`;
  return `([]${type})[${items.map(body).join(" ")}]`;
}

function spewSubset(s: EndpointSubset): string {
  return (
    `(v1.EndpointSubset){Addresses:${spewList(s.addresses, "v1.EndpointAddress", spewAddressBody)}` +
    ` NotReadyAddresses:${spewList(s.notReadyAddresses, "v1.EndpointAddress", spewAddressBody)}` +
    ` Ports:${spewList(s.ports, "v1.EndpointPort", spewCorePortBody)}}`
  );
}

const utf8 = new TextEncoder();

/** MD5 (RFC 1321) as lowercase hex, for RepackSubsets' orderings. */
export function md5Hex(input: string): string {
  const msg = utf8.encode(input);
  const n = ((msg.length + 8) >> 6) + 1;
  const words = new Uint32Array(n * 16);
  for (let i = 0; i < msg.length; i++) words[i >> 2] |= msg[i] << ((i % 4) * 8);
  words[msg.length >> 2] |= 0x80 << ((msg.length % 4) * 8);
  words[n * 16 - 2] = (msg.length * 8) >>> 0;
  words[n * 16 - 1] = Math.floor(msg.length / 0x20000000);
  let a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  for (let off = 0; off < words.length; off += 16) {
    let a = a0, b = b0, c = c0, d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number, g: number;
      if (i < 16) { f = (b & c) | (~b & d); g = i; }
      else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; }
      else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) % 16; }
      else { f = c ^ (b | ~d); g = (7 * i) % 16; }
      const tmp = d;
      d = c;
      c = b;
      const x = (a + f + MD5_K[i] + words[off + g]) | 0;
      b = (b + ((x << MD5_S[i]) | (x >>> (32 - MD5_S[i])))) | 0;
      a = tmp;
    }
    a0 = (a0 + a) | 0; b0 = (b0 + b) | 0; c0 = (c0 + c) | 0; d0 = (d0 + d) | 0;
  }
  let out = "";
  for (const w of [a0, b0, c0, d0]) for (let i = 0; i < 4; i++) out += ((w >>> (i * 8)) & 0xff).toString(16).padStart(2, "0");
  return out;
}
const MD5_S = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21];
const MD5_K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) | 0);

/**
 * md5Hex of short inputs, remembered for one controller: a Service's ports are hashed on every
 * sync of its Endpoints (kube-dns's three on each of a new cluster's), and their dumps repeat.
 */
function rememberedMd5(): (input: string) => string {
  const remembered = memoize(md5Hex, 1024);
  return (input) => (input.length > 512 ? md5Hex(input) : remembered(input));
}

function byHash<T>(items: T[], spew: (x: T) => string, hash: (input: string) => string): T[] {
  const keyed = items.map((x) => [hash(spew(x)), x] as const);
  keyed.sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0));
  return keyed.map((k) => k[1]);
}

/** LessEndpointAddress: by IP bytes, then targetRef UID. */
function lessAddr(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? "";
  const ub = b.targetRef?.uid ?? "";
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** One port's addresses in repackSubsets: address key -> ready. */
interface PortAddrs {
  port: EndpointPort | undefined;
  addrs: Map<string, boolean>;
}

/**
 * repackSubsets' step for one (address, port): "not ready" wins over "ready" for an address.
 */
function mapAddress(allAddrs: Map<string, EndpointAddress>, portToAddrs: Map<string, PortAddrs>, a: EndpointAddress, port: EndpointPort | undefined, ready: boolean): void {
  const ak = `${a.ip}\u0000${a.targetRef?.uid ?? ""}`;
  if (!allAddrs.has(ak)) allAddrs.set(ak, a);
  const pk = portKey(port);
  let e = portToAddrs.get(pk);
  if (!e) portToAddrs.set(pk, (e = { port, addrs: new Map() }));
  const was = e.addrs.get(ak);
  if (was === undefined || was) e.addrs.set(ak, ready);
}

function portKey(p: EndpointPort | undefined): string {
  return p ? `${p.name ?? ""}\u0000${p.port}\u0000${p.protocol ?? ""}\u0000${p.appProtocol ?? "\u0001"}` : "-1";
}

/**
 * RepackSubsets: expand to (address, port, ready) and regroup addresses that offer the same
 * ports; "not ready" wins over "ready" for one address; subsets without ports keep their
 * addresses (a sentinel port -1). Then SortSubsets: addresses by IP/UID, ports and subsets by
 * the md5 of their spew dump, as Go sorts them.
 */
export function repackSubsets(subsets: EndpointSubset[], hash: (input: string) => string = md5Hex): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  // port key -> (addrKey -> ready); insertion-ordered maps keep this deterministic.
  const portToAddrs = new Map<string, PortAddrs>();
  for (const s of subsets) {
    const ports = s.ports?.length ? s.ports : [undefined];
    for (const p of ports) {
      for (const a of s.addresses ?? []) mapAddress(allAddrs, portToAddrs, a, p, true);
      for (const a of s.notReadyAddresses ?? []) mapAddress(allAddrs, portToAddrs, a, p, false);
    }
  }
  const groups = new Map<string, { addrs: Map<string, boolean>; ports: EndpointPort[] | undefined }>();
  for (const { port, addrs } of portToAddrs.values()) {
    // With one port key there is one group: no key to build (a string per address, sorted).
    const gk = portToAddrs.size === 1 ? "" : [...addrs].map(([k, r]) => `${k}\u0000${r}`).sort().join("\u0002");
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = { addrs, ports: undefined }));
    if (port) (g.ports ??= []).push(port);
  }
  const final: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [ak, r] of g.addrs) (r ? ready : notReady).push(allAddrs.get(ak)!);
    ready.sort(lessAddr);
    notReady.sort(lessAddr);
    const s: EndpointSubset = {};
    if (ready.length) s.addresses = ready;
    if (notReady.length) s.notReadyAddresses = notReady;
    if (g.ports) s.ports = g.ports.length > 1 ? byHash(g.ports, (p) => `(v1.EndpointPort)${spewCorePortBody(p)}`, hash) : g.ports;
    final.push(s);
  }
  return final.length > 1 ? byHash(final, spewSubset, hash) : final;
}

/** truncateEndpoints: keep 1000 addresses, ready first, each subset its proportion (rounded up). */
function truncateSubsets(subsets: EndpointSubset[]): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= MAX_ENDPOINTS_CAPACITY) return false;
  let truncateReady = false;
  let max = MAX_ENDPOINTS_CAPACITY - totalReady;
  let numTotal = totalNotReady;
  if (totalReady > MAX_ENDPOINTS_CAPACITY) {
    truncateReady = true;
    max = MAX_ENDPOINTS_CAPACITY;
    numTotal = totalReady;
  }
  let canBeAdded = max;
  for (const s of subsets) {
    const inSubset = truncateReady ? (s.addresses?.length ?? 0) : (s.notReadyAddresses?.length ?? 0);
    let toBeAdded = Math.ceil((inSubset / numTotal) * max);
    if (toBeAdded > canBeAdded) toBeAdded = canBeAdded;
    if (truncateReady) {
      if (s.addresses && s.addresses.length > toBeAdded) s.addresses = s.addresses.slice(0, toBeAdded);
      delete s.notReadyAddresses;
      canBeAdded -= s.addresses?.length ?? 0;
    } else {
      if (s.notReadyAddresses && s.notReadyAddresses.length > toBeAdded) s.notReadyAddresses = s.notReadyAddresses.slice(0, toBeAdded);
      canBeAdded -= s.notReadyAddresses?.length ?? 0;
    }
    if (s.addresses && !s.addresses.length) delete s.addresses;
    if (s.notReadyAddresses && !s.notReadyAddresses.length) delete s.notReadyAddresses;
  }
  return true;
}

/**
 * Compare subsets as the controller does: targetRef.resourceVersion ignored, nil == []. Compared
 * in place (no normalized copies: a Service with 1000 endpoints compares 1000 addresses on
 * every sync).
 */
function subsetsEqual(a: EndpointSubset[] | null | undefined, b: EndpointSubset[]): boolean {
  const x = a ?? [];
  if (x.length !== b.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (!addressesEqual(x[i].addresses, b[i].addresses)) return false;
    if (!addressesEqual(x[i].notReadyAddresses, b[i].notReadyAddresses)) return false;
    if (!deepEqual(x[i].ports ?? [], b[i].ports ?? [])) return false;
  }
  return true;
}

function addressesEqual(p: EndpointAddress[] | null | undefined, q: EndpointAddress[] | null | undefined): boolean {
  const l = p ?? [];
  const m = q ?? [];
  if (l.length !== m.length) return false;
  for (let i = 0; i < l.length; i++) {
    if (l[i] !== m[i] && !sameExcept(l[i], m[i], "targetRef")) return false;
    if (!sameExcept(l[i].targetRef, m[i].targetRef, "resourceVersion")) return false;
  }
  return true;
}

/** deepEqual of two objects without key `skip` (undefined and null objects are equal: no fields). */
function sameExcept(u: object | null | undefined, v: object | null | undefined, skip: string): boolean {
  if (!u || !v) return !u && !v;
  const uo = u as Record<string, unknown>;
  const vo = v as Record<string, unknown>;
  let n = 0;
  for (const k in uo) {
    const val = uo[k];
    if (k === skip || val === undefined) continue;
    n++;
    if (!deepEqual(val, vo[k])) return false;
  }
  for (const k in vo) if (k !== skip && vo[k] !== undefined) n--;
  return n === 0;
}

/** One address's subset before repacking. */
function podSubset(epa: EndpointAddress, ready: boolean, epp: EndpointPort | undefined): EndpointSubset {
  const s: EndpointSubset = ready ? { addresses: [epa] } : { notReadyAddresses: [epa] };
  if (epp) s.ports = [epp];
  return s;
}

/** The address family the Service's Endpoints carry (its first ipFamily). */
function serviceFamily(svc: Service, pod: Pod, isIPv4Address: (ip: string) => boolean): "IPv4" | "IPv6" {
  const fam = svc.spec?.ipFamilies?.[0];
  if (fam === "IPv4" || fam === "IPv6") return fam;
  const cip = svc.spec?.clusterIP;
  if (cip && cip !== "None") return isIPv4(cip) ? "IPv4" : "IPv6";
  return !pod.status?.podIP || isIPv4Address(pod.status.podIP) ? "IPv4" : "IPv6";
}

// ---------------------------------------------------------------------------------------------

export class EndpointsController implements Controller {
  readonly name = "endpoints";
  private readonly index: ServiceMembership;
  private readonly triggers = new TriggerTimeTracker();
  private readonly isIPv4Address = rememberedIsIPv4();
  private readonly md5 = rememberedMd5();

  constructor(private readonly ctx: ControllerContext) {
    this.index = ServiceMembership.of(ctx.store);
  }

  watches(resource: string): boolean {
    return resource === PODS || resource === SERVICES || resource === ENDPOINTS;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === PODS || ev.resource === SERVICES) {
      this.index.observe(ev, enqueue);
    } else if (ev.resource === ENDPOINTS && ev.type === "DELETED") {
      // onEndpointsDelete: an Endpoints deleted under a Service comes back.
      enqueue(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`);
    }
  }

  initialKeys(): Iterable<string> {
    this.index.rebuild();
    const keys = new Set(this.index.serviceKeys());
    // checkLeftoverEndpoints: Endpoints whose Service is gone get deleted.
    for (const ep of this.ctx.store.iterate(ENDPOINTS)) {
      if (ep.metadata.annotations?.["control-plane.alpha.kubernetes.io/leader"]) continue;
      keys.add(`${ep.metadata.namespace}/${ep.metadata.name}`);
    }
    return keys;
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key) as [string, string];
    const { api, store } = this.ctx;
    const svc = store.get(SERVICES, ns, name) as Service | undefined;
    if (!svc) {
      if (store.get(ENDPOINTS, ns, name)) api.delete(R.endpoints, ns, name);
      this.triggers.delete(ns, name);
      return;
    }
    if (svc.spec?.type === "ExternalName") return;
    if (!serviceSelector(svc)) return;

    const pods = this.index.podsOf(ns, name);
    const triggerTime = this.triggers.compute(svc, pods);
    const subsets = repackSubsets(this.buildSubsets(svc, pods), this.md5);

    const current = store.get(ENDPOINTS, ns, name) as Endpoints | undefined;
    const svcLabels = svc.metadata.labels ?? {};
    if (current) {
      const cmpLabels = { ...(current.metadata.labels ?? {}) };
      delete cmpLabels[HEADLESS_LABEL];
      const count = (current.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
      const capacityOK = count > MAX_ENDPOINTS_CAPACITY ? false : !(current.metadata.annotations ?? {})[OVER_CAPACITY_ANNOTATION];
      if (subsetsEqual(current.subsets, subsets) && deepEqual(cmpLabels, svcLabels) && capacityOK) return;
    }

    const annotations: Record<string, string> = { ...(current?.metadata.annotations ?? {}) };
    if (triggerTime !== undefined) annotations[TRIGGER_TIME_ANNOTATION] = rfc3339Nano(triggerTime);
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    if (truncateSubsets(subsets)) annotations[OVER_CAPACITY_ANNOTATION] = "truncated";
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    const labels: Record<string, string> = { ...svcLabels };
    if (isHeadless(svc)) labels[HEADLESS_LABEL] = "";
    else delete labels[HEADLESS_LABEL];

    const meta: KObject["metadata"] = current ? { ...current.metadata } : { name, namespace: ns };
    if (Object.keys(labels).length) meta.labels = labels;
    else delete meta.labels;
    if (Object.keys(annotations).length) meta.annotations = annotations;
    else delete meta.annotations;
    const next: Endpoints = { metadata: meta };
    if (subsets.length) next.subsets = subsets;

    if (current) {
      // The truncated object may equal what is stored (the over-capacity case compares the
      // untruncated subsets): the apiserver would answer a no-op, so do not send it.
      if (deepEqual(next, { ...current, metadata: { ...current.metadata } })) return;
      api.update(R.endpoints, ns, name, next);
    } else {
      try {
        api.create(R.endpoints, ns, next);
      } catch (e) {
        // The namespace is terminating: creates keep failing, drop the key (as upstream).
        if ((e as { status?: { reason?: string } }).status?.reason === "Forbidden") return;
        throw e;
      }
    }
  }

  private buildSubsets(svc: Service, pods: Pod[]): EndpointSubset[] {
    const publish = !!svc.spec?.publishNotReadyAddresses;
    const ports = svc.spec?.ports ?? [];
    const subsets: EndpointSubset[] = [];
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, publish)) continue;
      const fam = serviceFamily(svc, pod, this.isIPv4Address);
      const ip = podIPs(pod).find((x) => this.isIPv4Address(x) === (fam === "IPv4"));
      if (!ip) continue;
      const epa: EndpointAddress = { ip };
      if (shouldSetHostname(pod, svc)) epa.hostname = pod.spec.hostname;
      epa.nodeName = pod.spec.nodeName ?? "";
      epa.targetRef = { kind: "Pod", namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
      const ready = publish || isPodReady(pod);
      if (!ports.length) {
        if (svc.spec?.clusterIP === "None") subsets.push(podSubset(epa, ready, undefined));
        continue;
      }
      for (const sp of ports) {
        const num = findPort(pod, sp);
        if (num === undefined) continue;
        // core/v1 EndpointPort: name is omitempty.
        const epp: EndpointPort = sp.name ? { name: sp.name, port: num, protocol: sp.protocol ?? "TCP" } : { port: num, protocol: sp.protocol ?? "TCP" };
        if (sp.appProtocol !== undefined) epp.appProtocol = sp.appProtocol;
        subsets.push(podSubset(epa, ready, epp));
      }
    }
    return subsets;
  }
}
