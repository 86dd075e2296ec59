// What the Service REST storage does around a write (K/pkg/registry/core/service/storage/alloc.go
// and strategy.go): drop fields a type change leaves behind, carry allocated values over on
// update, allocate cluster IPs and node ports, and release them after a delete. Every
// allocation returns an undo, so that a write that fails later leaves nothing allocated.

import { invalid, type FieldError } from "../api/status.js";
import type { Service, ServicePort } from "../api/types.js";
import type { Rng } from "../rng.js";
import { AllocationError, type ClusterIPAllocator, type NodePortAllocator } from "./allocators.js";

type Undo = () => void;

function needsClusterIP(svc: Service): boolean {
  return (svc.spec?.type ?? "ClusterIP") !== "ExternalName";
}

function needsNodePorts(svc: Service): boolean {
  const t = svc.spec?.type;
  return t === "NodePort" || (t === "LoadBalancer" && svc.spec?.allocateLoadBalancerNodePorts !== false);
}

function needsHealthCheckNodePort(svc: Service): boolean {
  return svc.spec?.type === "LoadBalancer" && svc.spec?.externalTrafficPolicy === "Local";
}

/** Types that take traffic from outside (externalTrafficPolicy applies). */
function isExternal(svc: Service): boolean {
  const t = svc.spec?.type;
  return t === "NodePort" || t === "LoadBalancer" || (t === "ClusterIP" && (svc.spec?.externalIPs?.length ?? 0) > 0);
}

function isHeadless(svc: Service): boolean {
  return svc.spec?.clusterIP === "None";
}

export class ServiceAllocations {
  constructor(
    readonly ips: ClusterIPAllocator,
    readonly ports: NodePortAllocator,
    private readonly rng: Rng,
  ) {}

  /** Marks a stored Service's addresses and ports as used (state rebuilt from storage). */
  restore(svc: Service): void {
    for (const ip of svc.spec?.clusterIPs ?? []) if (ip !== "None" && ip) this.ips.restore(ip);
    for (const p of svc.spec?.ports ?? []) if (p.nodePort) this.ports.restore(p.nodePort);
    if (svc.spec?.healthCheckNodePort) this.ports.restore(svc.spec.healthCheckNodePort);
  }

  release(svc: Service): void {
    for (const ip of svc.spec?.clusterIPs ?? []) if (ip !== "None" && ip) this.ips.release(ip);
    for (const p of svc.spec?.ports ?? []) if (p.nodePort) this.ports.release(p.nodePort);
    if (svc.spec?.healthCheckNodePort) this.ports.release(svc.spec.healthCheckNodePort);
  }

  /** Allocates for a new Service (mutating it). Throws a 422/500 StatusError. */
  create(svc: Service, name: string): Undo {
    const undos: Undo[] = [];
    try {
      this.allocateClusterIP(svc, undefined, undos);
      this.allocateNodePorts(svc, undefined, undos);
      this.allocateHealthCheck(svc, undefined, undos);
    } catch (e) {
      for (const u of undos.reverse()) u();
      throw wrap(e, name);
    }
    return () => undos.reverse().forEach((u) => u());
  }

  /**
   * Before validation of an update: drop type-dependent fields the user left unchanged when the
   * type changes, and carry allocated values the update omitted (patchAllocatedValues).
   */
  prepareUpdate(svc: Service, old: Service): void {
    const spec = (svc.spec ??= {});
    const oldSpec = old.spec ?? {};
    // dropTypeDependentFields
    if (needsClusterIP(old) && !needsClusterIP(svc) && sameList(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
    }
    if (needsNodePorts(old) && !needsNodePorts(svc)) {
      for (const p of spec.ports ?? []) {
        const o = findPort(oldSpec.ports, p);
        if (o && o.nodePort === p.nodePort) delete p.nodePort;
      }
    }
    if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(svc) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) {
      delete spec.healthCheckNodePort;
    }
    if (isExternal(old) && !isExternal(svc) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) {
      delete spec.externalTrafficPolicy;
    }
    if (oldSpec.type === "LoadBalancer" && spec.type !== "LoadBalancer") {
      if (spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
      if (spec.loadBalancerClass === oldSpec.loadBalancerClass) delete spec.loadBalancerClass;
    }
    // patchAllocatedValues
    if (needsClusterIP(old) && needsClusterIP(svc)) {
      if (!spec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
      if (!spec.clusterIPs?.length && spec.clusterIP === oldSpec.clusterIP) spec.clusterIPs = oldSpec.clusterIPs;
    }
    if (needsNodePorts(old) && needsNodePorts(svc)) {
      // By port name, as storage.go maps them ("the user may have changed other properties of
      // the port"): kubectl apply replacing port 8080 by 80 keeps the node port. A node port
      // the old and new ports both name stays where it is.
      const usedBy = (ports: ServicePort[] | null | undefined) => new Set((ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
      const newUsed = usedBy(spec.ports);
      const used = new Set([...usedBy(oldSpec.ports)].filter((n) => newUsed.has(n)));
      const byName = new Map<string, number>();
      for (const o of oldSpec.ports ?? []) byName.set(o.name ?? "", o.nodePort ?? 0);
      for (const p of spec.ports ?? []) {
        if (p.nodePort) continue;
        const n = byName.get(p.name ?? "") ?? 0;
        if (n && !used.has(n)) p.nodePort = n;
      }
    }
    if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && !spec.healthCheckNodePort) {
      spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
    }
  }

  /** Allocates what an update adds. Returns [undo, commit]: commit releases what it dropped. */
  update(svc: Service, old: Service, name: string): [Undo, () => void] {
    const undos: Undo[] = [];
    try {
      this.allocateClusterIP(svc, old, undos);
      this.allocateNodePorts(svc, old, undos);
      this.allocateHealthCheck(svc, old, undos);
    } catch (e) {
      for (const u of undos.reverse()) u();
      throw wrap(e, name);
    }
    const commit = () => {
      const keepIPs = new Set(svc.spec?.clusterIPs ?? []);
      for (const ip of old.spec?.clusterIPs ?? []) if (ip && ip !== "None" && !keepIPs.has(ip)) this.ips.release(ip);
      const keepPorts = new Set<number>((svc.spec?.ports ?? []).map((p) => p.nodePort ?? 0));
      if (svc.spec?.healthCheckNodePort) keepPorts.add(svc.spec.healthCheckNodePort);
      for (const p of old.spec?.ports ?? []) if (p.nodePort && !keepPorts.has(p.nodePort)) this.ports.release(p.nodePort);
      const hc = old.spec?.healthCheckNodePort;
      if (hc && !keepPorts.has(hc)) this.ports.release(hc);
    };
    return [() => undos.reverse().forEach((u) => u()), commit];
  }

  private allocateClusterIP(svc: Service, old: Service | undefined, undos: Undo[]): void {
    const spec = (svc.spec ??= {});
    if (!needsClusterIP(svc)) return;
    if (isHeadless(svc)) {
      spec.clusterIPs = ["None"];
      return;
    }
    const have = new Set(old?.spec?.clusterIPs ?? []);
    const requested = spec.clusterIPs?.length ? spec.clusterIPs[0] : spec.clusterIP;
    if (requested && have.has(requested)) {
      spec.clusterIP = requested;
      spec.clusterIPs = [requested];
      return;
    }
    let ip: string;
    if (requested) {
      this.ips.allocate(requested);
      ip = requested;
    } else {
      ip = this.ips.allocateNext(this.rng);
    }
    undos.push(() => this.ips.release(ip));
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }

  private allocateNodePorts(svc: Service, old: Service | undefined, undos: Undo[]): void {
    if (!needsNodePorts(svc)) return;
    const have = new Set<number>((old?.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n > 0));
    const ports = svc.spec?.ports ?? [];
    // Ports the user asked for first, then dynamic ones, so a dynamic pick never steals a request.
    const seen = new Map<number, string>();
    ports.forEach((p, i) => {
      if (!p.nodePort || have.has(p.nodePort)) return;
      const proto = p.protocol ?? "TCP";
      // The same node port may serve one port number over two protocols (K8s allows TCP+UDP pairs).
      if (seen.has(p.nodePort) && seen.get(p.nodePort) !== proto) return;
      this.ports.allocate(p.nodePort, `spec.ports[${i}].nodePort`);
      const n = p.nodePort;
      seen.set(n, proto);
      undos.push(() => this.ports.release(n));
    });
    for (const p of ports) {
      if (p.nodePort) continue;
      const n = this.ports.allocateNext(this.rng);
      undos.push(() => this.ports.release(n));
      p.nodePort = n;
    }
  }

  private allocateHealthCheck(svc: Service, old: Service | undefined, undos: Undo[]): void {
    if (!needsHealthCheckNodePort(svc)) return;
    const spec = svc.spec!;
    if (spec.healthCheckNodePort && spec.healthCheckNodePort === old?.spec?.healthCheckNodePort) return;
    let n: number;
    if (spec.healthCheckNodePort) {
      this.ports.allocate(spec.healthCheckNodePort, "spec.healthCheckNodePort");
      n = spec.healthCheckNodePort;
    } else {
      n = this.ports.allocateNext(this.rng);
    }
    undos.push(() => this.ports.release(n));
    spec.healthCheckNodePort = n;
  }
}

function findPort(list: ServicePort[] | null | undefined, p: ServicePort): ServicePort | undefined {
  return (list ?? []).find((o) => o.port === p.port && (o.protocol ?? "TCP") === (p.protocol ?? "TCP"));
}

function sameList(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function wrap(e: unknown, name: string): unknown {
  if (e instanceof AllocationError) return invalid("Service", "", name, [e.fieldError as FieldError]);
  return e;
}
