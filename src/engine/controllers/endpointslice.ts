// The EndpointSlice controller of kube-controller-manager v1.33 (K/pkg/controller/endpointslice,
// staging/src/k8s.io/endpointslice reconciler.go, utils.go, topologycache/, trafficdist/).
// The reconciler keeps churn low: existing slices are updated in place, endpoints that did not
// change stay where they are, new endpoints go first into slices already being written, then
// into the unchanged slice that ends up closest to full, and only then into new slices;
// emptied slices are deleted or, when a new one is needed, recycled.
//
// Go picks from maps at random where this code needs an order: here sets keep insertion order
// (pods by name, slices by name) so a cluster replays byte for byte.

import { milliValue, quantity } from "../api/quantity.js";
import { R } from "../api/resources.js";
import type { Endpoint, EndpointSlice, EndpointSlicePort, KObject, Node, Pod, Service } from "../api/types.js";
import { deepEqual, key as resKey } from "../apiserver/apiserver.js";
import { isIPv4 } from "../util/ip.js";
import { memoize } from "../util/memo.js";
import type { StoreEvent } from "../store/store.js";
import {
  findPort,
  HEADLESS_LABEL,
  isHeadless,
  rememberedIsIPv4,
  podIPs,
  rfc3339Nano,
  serviceSelector,
  ServiceMembership,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  spewPtr,
  TRIGGER_TIME_ANNOTATION,
  TriggerTimeTracker,
} from "./endpoints.js";
import type { Controller, ControllerContext } from "./manager.js";
import { controllerRef, isPodReady, splitKey } from "./util.js";

const PODS = resKey(R.pods);
const SERVICES = resKey(R.services);
const NODES = resKey(R.nodes);
const SLICES = resKey(R.endpointslices);

const LABEL_SERVICE_NAME = "kubernetes.io/service-name";
const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
const CONTROLLER_NAME = "endpointslice-controller.k8s.io";
const ANNOTATION_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";
const ANNOTATION_TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints";
const LABEL_ZONE = "topology.kubernetes.io/zone";
/** The event source of the controller's recorder. */
const COMPONENT = "endpoint-slice-controller";
/** endpointSliceChangeMinSyncDelay: a slice changed by someone else is synced again after 1s. */
const SLICE_CHANGE_DELAY_MS = 1000;
/** maxRetries and the per-item backoff (1s doubling, at most 1000s). */
const MAX_RETRIES = 15;

type AddressType = "IPv4" | "IPv6";

// ---------------------------------------------------------------------------------------------
// Hashing as Go does it, where it decides an order.

const FNV128_PRIME = 0x0000000001000000000000000000013bn;
const FNV128_OFFSET = 0x6c62272e07bb014262b821756295c58dn;
const MASK128 = (1n << 128n) - 1n;
const utf8 = new TextEncoder();

/** hash/fnv New128a as hex (deepHashObjectToString). */
export function fnv128aHex(s: string): string {
  let h = FNV128_OFFSET;
  for (const b of utf8.encode(s)) h = ((h ^ BigInt(b)) * FNV128_PRIME) & MASK128;
  return h.toString(16).padStart(32, "0");
}

/** dump.ForHash of a discovery/v1 EndpointPort. */
function spewSlicePort(p: EndpointSlicePort): string {
  return `(v1.EndpointPort){Name:${spewPtr(p.name, "string")} Protocol:${spewPtr(p.protocol, "v1.Protocol")} Port:${spewPtr(p.port, "int32")} AppProtocol:${spewPtr(p.appProtocol, "string")}}`;
}

/**
 * NewPortMapKey: the key groups slices by port set. Upstream sorts the ports in place by
 * their hash while building it, which is why a slice's ports come out in hash order. `hash` is
 * the controller's memo of fnv128aHex (few distinct ports exist; it saves a BigInt FNV per pod
 * per sync).
 */
function portMapKey(ports: EndpointSlicePort[], hash: (spew: string) => string): { key: string; sorted: EndpointSlicePort[] } {
  if (ports.length === 0) return { key: "", sorted: ports };
  if (ports.length === 1) return { key: hash(spewSlicePort(ports[0])), sorted: ports };
  const keyed = ports.map((p) => [hash(spewSlicePort(p)), p] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { key: keyed.map((k) => k[0]).join(","), sorted: keyed.map((k) => k[1]) };
}

/** hashEndpoint: addresses, hostname and the target's namespace/name identify an endpoint. */
function endpointKey(ep: Endpoint): string {
  const addrs = ep.addresses.length === 1 ? ep.addresses[0] : [...ep.addresses].sort().join(",");
  return `${addrs}|${ep.hostname ?? ""}|${ep.targetRef?.namespace ?? ""}/${ep.targetRef?.name ?? ""}`;
}

/** EndpointsEqualBeyondHash: node, zone, conditions, targetRef (resourceVersion ignored). */
function endpointsEqualBeyondHash(a: Endpoint, b: Endpoint): boolean {
  if ((a.nodeName ?? null) !== (b.nodeName ?? null)) return false;
  if ((a.zone ?? null) !== (b.zone ?? null)) return false;
  const ca = a.conditions ?? {};
  const cb = b.conditions ?? {};
  if ((ca.ready ?? null) !== (cb.ready ?? null) || (ca.serving ?? null) !== (cb.serving ?? null) || (ca.terminating ?? null) !== (cb.terminating ?? null)) {
    return false;
  }
  const ra = a.targetRef;
  const rb = b.targetRef;
  if (!ra || !rb) return !ra === !rb;
  return (
    ra.kind === rb.kind && ra.namespace === rb.namespace && ra.name === rb.name && ra.uid === rb.uid &&
    ra.apiVersion === rb.apiVersion && ra.fieldPath === rb.fieldPath
  );
}

function endpointReady(ep: Endpoint): boolean {
  return ep.conditions?.ready === true;
}

/** A slice being built: a working copy whose endpoints may be appended to. */
interface WorkSlice {
  name?: string;
  obj: EndpointSlice;
  endpoints: Endpoint[];
}

function work(s: EndpointSlice): WorkSlice {
  return { name: s.metadata.name, obj: s, endpoints: [...(s.endpoints ?? [])] };
}

// ---------------------------------------------------------------------------------------------
// Topology hints: topologycache (annotation topology-mode Auto) and trafficdist (PreferClose).

/** overloadThreshold: the most overload any endpoint should see. */
const OVERLOAD_THRESHOLD = 0.2;

const MSG = {
  noZone: "One or more endpoints do not have a zone specified",
  noAllocated: "No hints allocated for zones",
  enabled: "Topology Aware Hints has been enabled",
  disabled: "Topology Aware Hints has been disabled",
  insufficientNodeInfo: "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes",
  oneZone: "Nodes only ready in one zone",
  fewEndpoints: "Insufficient number of endpoints",
  minExceeds: "Unable to allocate minimum required endpoints to each zone without exceeding overload threshold",
};

interface HintEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

interface Allocation {
  minimum: number;
  maximum: number;
  desired: number;
}

/** A node's allocatable CPU in millicores (Quantity.MilliValue; 0 when missing or malformed). */
function cpuMillis(q: string | undefined): number {
  return milliValue(quantity(q));
}

function withAddressType(s: string, at: AddressType): string {
  return `${s}, addressType: ${at}`;
}

class TopologyCache {
  /** Zone -> share of the allocatable CPU of ready, non-control-plane nodes; undefined if insufficient. */
  cpuRatiosByZone: Map<string, number> | undefined;
  private readonly endpointsByService = new Map<string, Map<AddressType, Map<string, number>>>();
  private readonly hintsPopulated = new Set<string>();

  /** SetNodes. Zones are kept sorted so map walks are deterministic. */
  setNodes(nodes: Node[]): void {
    const cpuByZone = new Map<string, number>();
    let total = 0;
    let sufficient = true;
    for (const n of nodes) {
      const labels = n.metadata.labels ?? {};
      if ("node-role.kubernetes.io/control-plane" in labels || "node-role.kubernetes.io/master" in labels) continue;
      const ready = (n.status?.conditions ?? []).find((c) => c.type === "Ready")?.status === "True";
      if (!ready) continue;
      const cpu = cpuMillis(n.status?.allocatable?.cpu);
      const zone = labels[LABEL_ZONE];
      if (!zone || cpu === 0) {
        cpuByZone.clear();
        sufficient = false;
        break;
      }
      total += cpu;
      cpuByZone.set(zone, (cpuByZone.get(zone) ?? 0) + cpu);
    }
    if (total === 0 || !sufficient || cpuByZone.size < 2) {
      this.cpuRatiosByZone = undefined;
      return;
    }
    this.cpuRatiosByZone = new Map([...cpuByZone.keys()].sort().map((z) => [z, cpuByZone.get(z)! / total]));
  }

  hasPopulatedHints(svcKey: string): boolean {
    return this.hintsPopulated.has(svcKey);
  }

  removeHints(svcKey: string, at: AddressType): void {
    const m = this.endpointsByService.get(svcKey);
    m?.delete(at);
    if (!m?.size) this.endpointsByService.delete(svcKey);
    this.hintsPopulated.delete(svcKey);
  }

  private setHints(svcKey: string, at: AddressType, byZone: Map<string, number>): void {
    let m = this.endpointsByService.get(svcKey);
    if (!m) this.endpointsByService.set(svcKey, (m = new Map()));
    m.set(at, byZone);
    this.hintsPopulated.add(svcKey);
  }

  /** GetOverloadedServices */
  overloadedServices(): string[] {
    const out: string[] = [];
    for (const [svcKey, byType] of this.endpointsByService) {
      for (const ezi of byType.values()) {
        if (serviceOverloaded(ezi, this.cpuRatiosByZone)) {
          out.push(svcKey);
          break;
        }
      }
    }
    return out;
  }

  private allocations(numEndpoints: number): [Map<string, Allocation> | undefined, HintEvent | undefined] {
    const ratios = this.cpuRatiosByZone;
    const warn = (message: string): [undefined, HintEvent] => [undefined, { type: "Warning", reason: "TopologyAwareHintsDisabled", message }];
    if (!ratios) return warn(MSG.insufficientNodeInfo);
    if (ratios.size < 2) return warn(MSG.oneZone);
    if (ratios.size > numEndpoints) return warn(`${MSG.fewEndpoints} (${numEndpoints} endpoints, ${ratios.size} zones)`);
    let remaining = numEndpoints;
    let minTotal = 0;
    const out = new Map<string, Allocation>();
    for (const [zone, ratio] of ratios) {
      const desired = ratio * numEndpoints;
      const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)));
      out.set(zone, { minimum, maximum: 0, desired: Math.max(desired, minimum) });
      minTotal += minimum;
      remaining -= minimum;
      if (remaining < 0) return warn(`${MSG.minExceeds} (${numEndpoints} endpoints, ${ratios.size} zones)`);
    }
    for (const a of out.values()) a.maximum = a.minimum + numEndpoints - minTotal;
    return [out, undefined];
  }

  /** AddHints: same-zone hints, then endpoints moved from zones with too many to zones with too few. */
  addHints(svcKey: string, at: AddressType, si: SliceInfo): HintEvent[] {
    const events: HintEvent[] = [];
    let total = 0;
    for (const s of [...si.toCreate, ...si.toUpdate]) total += s.endpoints.filter(endpointReady).length;
    for (const s of si.unchanged) total += (s.endpoints ?? []).filter(endpointReady).length;
    const [allocations, allocEvent] = this.allocations(total);
    if (!allocations) {
      events.push({ ...allocEvent!, message: withAddressType(allocEvent!.message, at) });
      this.removeHints(svcKey, at);
      removeHintsFromSlices(si);
      return events;
    }
    // getAllocatedHintsByZone: unchanged slices whose hints no longer fit are rewritten.
    const allocated = new Map<string, number>();
    const stillUnchanged: EndpointSlice[] = [];
    for (const s of si.unchanged) {
      const byZone = hintsByZone(s, allocated, allocations);
      if (!byZone) si.toUpdate.push(work(s));
      else {
        stillUnchanged.push(s);
        for (const [z, n] of byZone) allocated.set(z, (allocated.get(z) ?? 0) + n);
      }
    }
    si.unchanged = stillUnchanged;
    const slices = [...si.toCreate, ...si.toUpdate];
    for (const s of slices) {
      for (let i = 0; i < s.endpoints.length; i++) {
        const ep = s.endpoints[i];
        if (!endpointReady(ep)) continue;
        if (!ep.zone) {
          events.push({ type: "Warning", reason: "TopologyAwareHintsDisabled", message: withAddressType(MSG.noZone, at) });
          this.removeHints(svcKey, at);
          removeHintsFromSlices(si);
          return events;
        }
        allocated.set(ep.zone, (allocated.get(ep.zone) ?? 0) + 1);
        s.endpoints[i] = { ...ep, hints: { forZones: [{ name: ep.zone }] } };
      }
    }
    const [giving, receiving] = givingAndReceiving(allocations, allocated);
    const redistributions = redistributeHints(slices, giving, receiving);
    for (const [z, d] of redistributions) allocated.set(z, (allocated.get(z) ?? 0) + d);
    if (allocated.size === 0) {
      events.push({ type: "Warning", reason: "TopologyAwareHintsDisabled", message: withAddressType(MSG.noAllocated, at) });
      this.removeHints(svcKey, at);
      removeHintsFromSlices(si);
      return events;
    }
    const wasEnabled = this.hasPopulatedHints(svcKey);
    this.setHints(svcKey, at, allocated);
    if (!wasEnabled) events.push({ type: "Normal", reason: "TopologyAwareHintsEnabled", message: withAddressType(MSG.enabled, at) });
    return events;
  }
}

interface SliceInfo {
  toCreate: WorkSlice[];
  toUpdate: WorkSlice[];
  unchanged: EndpointSlice[];
}

function serviceOverloaded(ezi: Map<string, number>, ratios: Map<string, number> | undefined): boolean {
  if (ezi.size === 0) return false;
  if (!ratios || ratios.size === 0) return true;
  let total = 0;
  for (const n of ezi.values()) total += n;
  for (const [zone, ratio] of ratios) {
    const have = ezi.get(zone);
    if (have === undefined) return true;
    if (have < Math.ceil(total * ratio * (1 / (1 + OVERLOAD_THRESHOLD)))) return true;
  }
  return false;
}

/** getHintsByZone: undefined when the slice's hints are missing or no longer fit. */
function hintsByZone(s: EndpointSlice, allocated: Map<string, number>, allocations: Map<string, Allocation>): Map<string, number> | undefined {
  const out = new Map<string, number>();
  for (const ep of s.endpoints ?? []) {
    if (!endpointReady(ep)) continue;
    const fz = ep.hints?.forZones;
    if (!fz?.length) return undefined;
    for (const z of fz) {
      if (!allocations.has(z.name)) return undefined;
      out.set(z.name, (out.get(z.name) ?? 0) + 1);
    }
  }
  for (const [z, n] of out) {
    const a = allocations.get(z);
    if (!a || n + (allocated.get(z) ?? 0) > a.maximum) return undefined;
  }
  return out;
}

function getMost(m: Map<string, number>): [string, number] {
  let zone = "";
  let num = 0;
  for (const [z, n] of m) if (n > num) [zone, num] = [z, n];
  return [zone, num];
}

function givingAndReceiving(allocations: Map<string, Allocation>, allocated: Map<string, number>): [Map<string, number>, Map<string, number>] {
  const givingDesired = new Map<string, number>();
  const receivingDesired = new Map<string, number>();
  for (const [zone, a] of allocations) {
    const have = allocated.get(zone) ?? 0;
    if (have > a.desired) givingDesired.set(zone, have - a.desired);
    else if (have < a.desired) receivingDesired.set(zone, a.desired - have);
  }
  const giving = new Map<string, number>();
  const receiving = new Map<string, number>();
  for (;;) {
    const [gz, ng] = getMost(givingDesired);
    const [rz, nr] = getMost(receivingDesired);
    if (gz === "" || rz === "" || (ng < 1 && nr < 1) || ng < 0.5 || nr < 0.5) break;
    giving.set(gz, (giving.get(gz) ?? 0) + 1);
    givingDesired.set(gz, ng - 1);
    receiving.set(rz, (receiving.get(rz) ?? 0) + 1);
    receivingDesired.set(rz, nr - 1);
  }
  return [giving, receiving];
}

function redistributeHints(slices: WorkSlice[], giving: Map<string, number>, receiving: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of slices) {
    for (let i = 0; i < s.endpoints.length; i++) {
      const ep = s.endpoints[i];
      if (!endpointReady(ep)) continue;
      if (giving.size === 0 || receiving.size === 0) return out;
      if (!ep.zone) continue;
      const gz = ep.zone;
      const toGive = giving.get(gz);
      if (!toGive) continue;
      for (const [rz, toReceive] of receiving) {
        if (toReceive <= 0) continue;
        s.endpoints[i] = { ...ep, hints: { forZones: [{ name: rz }] } };
        if (toGive === 1) giving.delete(gz);
        else giving.set(gz, toGive - 1);
        if (toReceive === 1) receiving.delete(rz);
        else receiving.set(rz, toReceive - 1);
        out.set(rz, (out.get(rz) ?? 0) + 1);
        out.set(gz, (out.get(gz) ?? 0) - 1);
        break;
      }
    }
  }
  return out;
}

function stripHints(ep: Endpoint): Endpoint {
  if (ep.hints === undefined) return ep;
  const { hints: _h, ...rest } = ep;
  return rest;
}

/** RemoveHintsFromSlices: no hints on slices being written; unchanged slices with hints are rewritten. */
function removeHintsFromSlices(si: SliceInfo): void {
  for (const s of [...si.toCreate, ...si.toUpdate]) s.endpoints = s.endpoints.map(stripHints);
  const still: EndpointSlice[] = [];
  for (const s of si.unchanged) {
    if ((s.endpoints ?? []).some((e) => e.hints !== undefined && e.hints !== null)) {
      const w = work(s);
      w.endpoints = w.endpoints.map(stripHints);
      si.toUpdate.push(w);
    } else still.push(s);
  }
  si.unchanged = still;
}

/** trafficdist.ReconcileHints for PreferClose (1.33: zone hints only; node hints need PreferSameNode, alpha). */
function preferCloseNeedsUpdate(s: EndpointSlice): boolean {
  for (const ep of s.endpoints ?? []) {
    if (!endpointReady(ep)) continue;
    if (ep.zone) {
      const fz = ep.hints?.forZones;
      if (!fz || fz.length !== 1 || fz[0].name !== ep.zone) return true;
    } else if (ep.hints?.forZones?.length) return true;
    if (ep.hints?.forNodes?.length) return true;
  }
  return false;
}

function preferCloseUpdate(s: WorkSlice): void {
  s.endpoints = s.endpoints.map((ep) => {
    if (!endpointReady(ep)) return ep;
    const base = stripHints(ep);
    return ep.zone ? { ...base, hints: { forZones: [{ name: ep.zone }] } } : base;
  });
}

function hintsEnabled(annotations: Record<string, string> | null | undefined): boolean {
  const a = annotations ?? {};
  const v = ANNOTATION_TOPOLOGY_AWARE_HINTS in a ? a[ANNOTATION_TOPOLOGY_AWARE_HINTS] : a[ANNOTATION_TOPOLOGY_MODE];
  return v === "Auto" || v === "auto";
}

// ---------------------------------------------------------------------------------------------

/** Existing slices neither updated nor deleted. */
function unchangedSlices(existing: EndpointSlice[], upd: WorkSlice[], del: EndpointSlice[]): EndpointSlice[] {
  const changed = new Set([...upd.map((s) => s.name), ...del.map((s) => s.metadata.name)]);
  return existing.filter((s) => !changed.has(s.metadata.name));
}

/** Takes one endpoint (the first) out of `desired`. */
function popAny(desired: Map<string, Endpoint>): Endpoint {
  const [k, ep] = desired.entries().next().value as [string, Endpoint];
  desired.delete(k);
  return ep;
}

function nodeReady(x: Node | undefined): boolean {
  return (x?.status?.conditions ?? []).find((c) => c.type === "Ready")?.status === "True";
}

/** The labels this controller sets on a slice itself. */
function reservedLabel(k: string): boolean {
  return k === LABEL_SERVICE_NAME || k === LABEL_MANAGED_BY || k === HEADLESS_LABEL;
}

/** setEndpointSliceLabels: Service labels minus the reserved ones, plus the controller's. */
function sliceLabels(current: Record<string, string> | null | undefined, svc: Service): [Record<string, string>, boolean] {
  const ep: Record<string, string> = {};
  for (const [k, v] of Object.entries(current ?? {})) if (!reservedLabel(k)) ep[k] = v;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) if (!reservedLabel(k)) out[k] = v;
  const changed = !deepEqual(ep, out);
  if (isHeadless(svc)) out[HEADLESS_LABEL] = "";
  out[LABEL_SERVICE_NAME] = svc.metadata.name!;
  out[LABEL_MANAGED_BY] = CONTROLLER_NAME;
  return [out, changed];
}

function ownedBy(s: EndpointSlice, svc: Service): boolean {
  return (s.metadata.ownerReferences ?? []).some((o) => o.uid === svc.metadata.uid && o.kind === "Service" && o.apiVersion === "v1");
}

function addressTypesForService(svc: Service): AddressType[] {
  const out: AddressType[] = [];
  for (const f of svc.spec?.ipFamilies ?? []) if ((f === "IPv4" || f === "IPv6") && !out.includes(f)) out.push(f);
  if (out.length) return out;
  const cip = svc.spec?.clusterIP;
  if (cip && cip !== "None") return [isIPv4(cip) ? "IPv4" : "IPv6"];
  return ["IPv4", "IPv6"];
}

class SyncError extends Error {}

export class EndpointSliceController implements Controller {
  readonly name = "endpointslice";
  private readonly index: ServiceMembership;
  private readonly triggers = new TriggerTimeTracker();
  readonly topology = new TopologyCache();
  /** Service key -> its slices managed by this controller, by name. */
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  private readonly retries = new Map<string, number>();
  private readonly isIPv4Address = rememberedIsIPv4();
  /** Port hashes by dump.ForHash text (see portMapKey). */
  readonly portHashes = memoize(fnv128aHex, 10_000);
  private nodesDirty = true;
  /** True while this controller's own writes go through: their events are not news to it. */
  private writing = false;

  constructor(private readonly ctx: ControllerContext) {
    this.index = ServiceMembership.of(ctx.store);
    this.rebuildSlices();
  }

  private get max(): number {
    return this.ctx.config.maxEndpointsPerSlice || 100;
  }

  private rebuildSlices(): void {
    this.slices.clear();
    for (const s of this.ctx.store.iterate(SLICES)) this.indexSlice(s as EndpointSlice, true);
  }

  private sliceService(s: EndpointSlice): string | undefined {
    const l = s.metadata.labels ?? {};
    if (l[LABEL_MANAGED_BY] !== CONTROLLER_NAME || !l[LABEL_SERVICE_NAME]) return undefined;
    return `${s.metadata.namespace}/${l[LABEL_SERVICE_NAME]}`;
  }

  private indexSlice(s: EndpointSlice, present: boolean): void {
    const svcKey = this.sliceService(s);
    if (!svcKey) return;
    let m = this.slices.get(svcKey);
    if (present) {
      if (!m) this.slices.set(svcKey, (m = new Map()));
      m.set(s.metadata.name!, s);
    } else {
      m?.delete(s.metadata.name!);
      if (m && !m.size) this.slices.delete(svcKey);
    }
  }

  watches(resource: string): boolean {
    return resource === PODS || resource === SERVICES || resource === SLICES || resource === NODES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    switch (ev.resource) {
      case PODS:
      case SERVICES:
        this.index.observe(ev, enqueue);
        return;
      case SLICES: {
        const s = ev.object as EndpointSlice;
        const old = ev.old as EndpointSlice | undefined;
        if (old) this.indexSlice(old, false);
        this.indexSlice(s, ev.type !== "DELETED");
        if (this.writing) return;
        // Someone else changed a slice this controller manages: sync its Service after 1s.
        const now = this.ctx.clock.now();
        for (const k of new Set([s, old].filter((x): x is EndpointSlice => !!x).map((x) => this.sliceService(x)))) {
          if (k) this.ctx.requeueAt(this, k, now + SLICE_CHANGE_DELAY_MS);
        }
        return;
      }
      case NODES: {
        const n = ev.object as Node;
        const o = ev.old as Node | undefined;
        if (ev.type === "MODIFIED" && nodeReady(o) === nodeReady(n) && o?.metadata.labels?.[LABEL_ZONE] === n.metadata.labels?.[LABEL_ZONE] &&
          o?.status?.allocatable?.cpu === n.status?.allocatable?.cpu) {
          return;
        }
        this.nodesDirty = true;
        // checkNodeTopologyDistribution: Services whose hints became overloaded are synced.
        this.refreshNodes();
        for (const k of this.topology.overloadedServices()) enqueue(k);
        return;
      }
    }
  }

  private refreshNodes(): void {
    if (!this.nodesDirty) return;
    this.nodesDirty = false;
    this.topology.setNodes([...this.ctx.store.iterate(NODES)] as Node[]);
  }

  initialKeys(): Iterable<string> {
    this.index.rebuild();
    this.rebuildSlices();
    this.nodesDirty = true;
    return [...this.index.serviceKeys()];
  }

  reconcile(key: string): void {
    const [ns, name] = splitKey(key) as [string, string];
    const svc = this.ctx.store.get(SERVICES, ns, name) as Service | undefined;
    if (!svc) {
      // The garbage collector deletes the slices through their ownerReferences.
      this.triggers.delete(ns, name);
      this.retries.delete(key);
      return;
    }
    if (svc.spec?.type === "ExternalName" || !serviceSelector(svc)) return;
    this.refreshNodes();
    const pods = this.index.podsOf(ns, name);
    const existing = [...(this.slices.get(key)?.values() ?? [])]
      .filter((s) => !s.metadata.deletionTimestamp)
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    const trigger = this.triggers.compute(svc, pods);
    try {
      this.reconcileService(svc, pods, existing, trigger);
      this.retries.delete(key);
    } catch (e) {
      if (!(e instanceof SyncError)) throw e;
      const n = (this.retries.get(key) ?? 0) + 1;
      if (n > MAX_RETRIES) {
        this.retries.delete(key);
        return;
      }
      this.retries.set(key, n);
      this.ctx.requeueAt(this, key, this.ctx.clock.now() + Math.min(1000 * 2 ** (n - 1), 1_000_000));
    }
  }

  private reconcileService(svc: Service, pods: Pod[], existing: EndpointSlice[], trigger: number | undefined): void {
    const supported = addressTypesForService(svc);
    const toDelete: EndpointSlice[] = [];
    const byType = new Map<AddressType, EndpointSlice[]>();
    const svcKey = `${svc.metadata.namespace}/${svc.metadata.name}`;
    for (const s of existing) {
      const at = s.addressType as AddressType;
      if (!supported.includes(at)) {
        this.topology.removeHints(svcKey, at);
        toDelete.push(s);
        continue;
      }
      let l = byType.get(at);
      if (!l) byType.set(at, (l = []));
      l.push(s);
    }
    const errors: string[] = [];
    for (const at of supported) errors.push(...this.reconcileByAddressType(svc, pods, byType.get(at) ?? [], trigger, at));
    for (const s of toDelete) this.deleteSlice(s);
    if (errors.length) throw new SyncError(errors.join("; "));
  }

  private reconcileByAddressType(svc: Service, pods: Pod[], existing: EndpointSlice[], trigger: number | undefined, at: AddressType): string[] {
    const errors: string[] = [];
    const svcKey = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const existingByPortMap = new Map<string, EndpointSlice[]>();
    let toDelete: EndpointSlice[] = [];
    for (const s of existing) {
      if (!ownedBy(s, svc)) {
        toDelete.push(s);
        continue;
      }
      const k = portMapKey(s.ports ?? [], this.portHashes).key;
      let l = existingByPortMap.get(k);
      if (!l) existingByPortMap.set(k, (l = []));
      l.push(s);
    }

    const desiredPorts = new Map<string, EndpointSlicePort[]>();
    const desired = new Map<string, Map<string, Endpoint>>();
    const publish = !!svc.spec?.publishNotReadyAddresses;
    // Numeric target ports resolve the same for every pod: compute them once.
    const samePorts = (svc.spec?.ports ?? []).every((p) => typeof (p.targetPort ?? p.port) === "number");
    let shared: { key: string; sorted: EndpointSlicePort[] } | undefined;
    const nodes = new Map<string, Node | undefined>();
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const { key: pk, sorted } = samePorts ? (shared ??= portMapKey(this.endpointPorts(svc, pod), this.portHashes)) : portMapKey(this.endpointPorts(svc, pod), this.portHashes);
      if (!desired.has(pk)) {
        desired.set(pk, new Map());
        desiredPorts.set(pk, sorted);
      }
      const nodeName = pod.spec.nodeName ?? "";
      let node = nodes.get(nodeName);
      if (!nodes.has(nodeName)) nodes.set(nodeName, (node = this.ctx.store.get(NODES, undefined, nodeName) as Node | undefined));
      if (!node && !publish) {
        errors.push(`skipping Pod ${pod.metadata.name} for Service ${svcKey}: Node ${pod.spec.nodeName ?? ""} Not Found`);
        continue;
      }
      const ep = this.podToEndpoint(pod, node, svc, at);
      if (ep.addresses.length) desired.get(pk)!.set(endpointKey(ep), ep);
    }

    let toCreate: WorkSlice[] = [];
    let toUpdate: WorkSlice[] = [];
    for (const [pk, eps] of desired) {
      const r = this.reconcileByPortMapping(svc, existingByPortMap.get(pk) ?? [], eps, desiredPorts.get(pk)!, at);
      toCreate.push(...r.create);
      toUpdate.push(...r.update);
      toDelete.push(...r.remove);
    }
    for (const [pk, slices] of existingByPortMap) if (!desired.has(pk)) toDelete.push(...slices);

    // When no slice would exist, a placeholder without endpoints and ports stands in.
    if (existing.length === toDelete.length && toCreate.length < 1) {
      const placeholder = this.newSlice(svc, [], at);
      if (toDelete.length === 1 && this.isPlaceholderOf(toDelete[0], placeholder)) toDelete = [];
      else toCreate.push(placeholder);
    }

    const si: SliceInfo = { toCreate, toUpdate, unchanged: unchangedSlices(existing, toUpdate, toDelete) };
    const events: { type: "Normal" | "Warning"; reason: string; message: string }[] = [];
    const annotationHints = hintsEnabled(svc.metadata.annotations);
    const canUseTrafficDistribution = svc.spec?.trafficDistribution === "PreferClose" && !annotationHints;
    if (annotationHints) {
      events.push(...this.topology.addHints(svcKey, at, si));
    } else {
      if (this.topology.hasPopulatedHints(svcKey)) {
        events.push({ type: "Warning", reason: "TopologyAwareHintsDisabled", message: withAddressType(MSG.disabled, at) });
      }
      this.topology.removeHints(svcKey, at);
      if (!canUseTrafficDistribution) removeHintsFromSlices(si);
    }
    toCreate = si.toCreate;
    toUpdate = si.toUpdate;
    if (canUseTrafficDistribution) {
      for (const s of unchangedSlices(existing, toUpdate, toDelete)) if (preferCloseNeedsUpdate(s)) toUpdate.push(work(s));
      for (const s of [...toCreate, ...toUpdate]) preferCloseUpdate(s);
    }

    this.finalize(svc, toCreate, toUpdate, toDelete, trigger);
    for (const e of events) {
      this.ctx.api.recordEvent({ involved: svc, involvedInfo: R.services, type: e.type, reason: e.reason, message: e.message, component: COMPONENT });
    }
    return errors;
  }

  private reconcileByPortMapping(
    svc: Service,
    existing: EndpointSlice[],
    desired: Map<string, Endpoint>,
    ports: EndpointSlicePort[],
    at: AddressType,
  ): { create: WorkSlice[]; update: WorkSlice[]; remove: EndpointSlice[] } {
    const max = this.max;
    const byName = new Map<string, WorkSlice>();
    const originals = new Map<string, EndpointSlice>();
    const unchanged = new Set<string>();
    const toUpdate = new Set<string>();
    const toDelete = new Set<string>();

    // 1. Drop endpoints no longer wanted, refresh the ones that changed.
    for (const s of existing) {
      const name = s.metadata.name!;
      originals.set(name, s);
      const kept: Endpoint[] = [];
      let updated = false;
      for (const ep of s.endpoints ?? []) {
        const k = endpointKey(ep);
        const got = desired.get(k);
        if (!got) continue;
        kept.push(got);
        if (!endpointsEqualBeyondHash(got, ep)) updated = true;
        desired.delete(k);
      }
      const [labels, labelsChanged] = sliceLabels(s.metadata.labels, svc);
      const count = s.endpoints?.length ?? 0;
      if (updated || count !== kept.length) {
        if (kept.length === 0) toDelete.add(name);
        else {
          const w = work(s);
          w.endpoints = kept;
          w.obj = { ...s, metadata: { ...s.metadata, labels } };
          byName.set(name, w);
          toUpdate.add(name);
        }
      } else if (labelsChanged) {
        const w = work(s);
        w.obj = { ...s, metadata: { ...s.metadata, labels } };
        byName.set(name, w);
        toUpdate.add(name);
      } else {
        unchanged.add(name);
      }
    }


    // 2. Fill the slices already being updated, fullest first.
    if (desired.size > 0 && toUpdate.size > 0) {
      const list = [...toUpdate].map((n) => byName.get(n)!).sort((a, b) => b.endpoints.length - a.endpoints.length);
      for (const w of list) while (desired.size > 0 && w.endpoints.length < max) w.endpoints.push(popAny(desired));
    }

    // 3. The rest into the unchanged slice closest to full, else into new slices.
    const create: WorkSlice[] = [];
    while (desired.size > 0) {
      let fill: WorkSlice | undefined;
      if (desired.size < max && unchanged.size > 0) {
        const found = sliceToFill([...unchanged].map((n) => originals.get(n)!), desired.size, max);
        if (found) {
          fill = work(found);
          byName.set(fill.name!, fill);
        }
      }
      fill ??= this.newSlice(svc, ports, at);
      while (desired.size > 0 && fill.endpoints.length < max) fill.endpoints.push(popAny(desired));
      if (fill.name) {
        toUpdate.add(fill.name);
        unchanged.delete(fill.name);
      } else create.push(fill);
    }
    return {
      create,
      update: [...toUpdate].map((n) => byName.get(n)!),
      remove: [...toDelete].map((n) => originals.get(n)!),
    };
  }

  private endpointPorts(svc: Service, pod: Pod): EndpointSlicePort[] {
    const ports = svc.spec?.ports ?? [];
    if (!ports.length && svc.spec?.clusterIP === "None") return [];
    const out: EndpointSlicePort[] = [];
    for (const sp of ports) {
      const num = findPort(pod, sp);
      if (num === undefined) continue;
      const p: EndpointSlicePort = { name: sp.name ?? "", protocol: sp.protocol ?? "TCP", port: num };
      if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
      out.push(p);
    }
    return out;
  }

  /** podToEndpoint */
  private podToEndpoint(pod: Pod, node: Node | undefined, svc: Service, at: AddressType): Endpoint {
    const serving = isPodReady(pod);
    const terminating = !!pod.metadata.deletionTimestamp;
    // "ready" is never true for a terminating pod unless publishNotReadyAddresses is set.
    const ready = !!svc.spec?.publishNotReadyAddresses || (serving && !terminating);
    const ep: Endpoint = {
      addresses: podIPs(pod).filter((ip) => this.isIPv4Address(ip) === (at === "IPv4")),
      conditions: { ready, serving, terminating },
    };
    if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec.hostname;
    ep.targetRef = { kind: "Pod", namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
    if (pod.spec.nodeName) ep.nodeName = pod.spec.nodeName;
    const zone = node?.metadata.labels?.[LABEL_ZONE];
    if (zone) ep.zone = zone;
    return ep;
  }

  /** newEndpointSlice */
  private newSlice(svc: Service, ports: EndpointSlicePort[], at: AddressType): WorkSlice {
    const [labels] = sliceLabels({}, svc);
    const obj: EndpointSlice = {
      metadata: {
        generateName: `${svc.metadata.name}-`,
        namespace: svc.metadata.namespace,
        labels,
        ownerReferences: [controllerRef(svc as KObject, R.services)],
      },
      addressType: at,
      endpoints: [],
      ports,
    };
    return { obj, endpoints: [] };
  }

  /** placeholderSliceCompare: namespace, labels, owners, address type; no endpoints, no ports. */
  private isPlaceholderOf(s: EndpointSlice, p: WorkSlice): boolean {
    return (
      s.metadata.namespace === p.obj.metadata.namespace &&
      deepEqual(s.metadata.labels ?? {}, p.obj.metadata.labels ?? {}) &&
      deepEqual(s.metadata.ownerReferences ?? [], p.obj.metadata.ownerReferences ?? []) &&
      s.addressType === p.obj.addressType &&
      !(s.endpoints?.length) &&
      !(s.ports?.length)
    );
  }

  /** The object to write: endpoints and ports as etcd's protobuf round trip returns them (null when empty). */
  private body(w: WorkSlice, trigger: number | undefined): EndpointSlice {
    const annotations: Record<string, string> = { ...(w.obj.metadata.annotations ?? {}) };
    if (trigger !== undefined) annotations[TRIGGER_TIME_ANNOTATION] = rfc3339Nano(trigger);
    else delete annotations[TRIGGER_TIME_ANNOTATION];
    const metadata = { ...w.obj.metadata };
    if (w.name) metadata.name = w.name;
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
    return {
      metadata,
      addressType: w.obj.addressType,
      endpoints: w.endpoints.length ? w.endpoints : null,
      ports: w.obj.ports?.length ? w.obj.ports : null,
    };
  }

  private finalize(svc: Service, toCreate: WorkSlice[], toUpdate: WorkSlice[], toDelete: EndpointSlice[], trigger: number | undefined): void {
    // Creates become updates of slices that would otherwise be deleted.
    for (let i = 0; i < toDelete.length && toCreate.length; ) {
      const del = toDelete[i];
      const w = toCreate[toCreate.length - 1];
      if (del.addressType === w.obj.addressType && ownedBy(del, svc)) {
        w.name = del.metadata.name;
        w.obj = { ...w.obj, metadata: { ...w.obj.metadata, name: del.metadata.name } };
        toCreate.pop();
        toUpdate.push(w);
        toDelete.splice(i, 1);
      } else i++;
    }
    const ns = svc.metadata.namespace!;
    const { api } = this.ctx;
    this.writing = true;
    try {
      // No new slices for a Service being deleted (the garbage collector is removing them).
      if (!svc.metadata.deletionTimestamp) {
        for (const w of toCreate) {
          try {
            api.create(R.endpointslices, ns, this.body(w, trigger));
          } catch (e) {
            if ((e as { status?: { reason?: string } }).status?.reason === "Forbidden") return;
            throw e;
          }
        }
      }
      for (const w of toUpdate) api.update(R.endpointslices, ns, w.name!, this.body(w, trigger));
    } finally {
      this.writing = false;
    }
    for (const s of toDelete) this.deleteSlice(s);
  }

  private deleteSlice(s: EndpointSlice): void {
    const ns = s.metadata.namespace!;
    if (!this.ctx.store.get(SLICES, ns, s.metadata.name!)) return;
    this.writing = true;
    try {
      this.ctx.api.delete(R.endpointslices, ns, s.metadata.name!);
    } finally {
      this.writing = false;
    }
  }
}

/** getSliceToFill: the slice that is closest to full once `n` endpoints are added. */
function sliceToFill(slices: EndpointSlice[], n: number, max: number): EndpointSlice | undefined {
  let closestDiff = max;
  let closest: EndpointSlice | undefined;
  for (const s of slices) {
    const diff = max - (n + (s.endpoints?.length ?? 0));
    if (diff >= 0 && diff < closestDiff) {
      closestDiff = diff;
      closest = s;
      if (diff === 0) return s;
    }
  }
  return closest;
}
