// A bare cluster for the endpoint controllers' tests: store, clock, Rng, apiserver and a
// ControllerManager running only the controllers under test (no scheduler, no kubelet: pod
// status is written by the test, as a kubelet would).

import { ApiServer } from "../../apiserver/apiserver.js";
import { R } from "../../api/resources.js";
import type { KObject, Pod } from "../../api/types.js";
import { ManualClock, rfc3339 } from "../../clock.js";
import { type ClusterConfig, clusterConfig } from "../../config.js";
import { RandomStreams } from "../../rng.js";
import { Store, type StoreEvent } from "../../store/store.js";
import { type Controller, type ControllerContext, ControllerManager } from "../manager.js";

interface Harness {
  store: Store;
  clock: ManualClock;
  api: ApiServer;
  manager: ControllerManager;
  events: StoreEvent[];
  ctx: ControllerContext;
  /** Store events of one resource since the last reset. */
  writes(resource: string): StoreEvent[];
  node(name: string, opts?: { zone?: string; cpu?: string; controlPlane?: boolean }): void;
  service(name: string, spec: Record<string, unknown>, meta?: Record<string, unknown>): KObject;
  pod(name: string, opts?: PodOpts): Pod;
  setStatus(name: string, status: { ip?: string; ready?: boolean; phase?: string }, ns?: string): void;
  settle(): void;
}

interface PodOpts {
  ns?: string;
  labels?: Record<string, string>;
  node?: string;
  ip?: string;
  ready?: boolean;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  hostname?: string;
  subdomain?: string;
  /** Settle after each write (default true). */
  settle?: boolean;
}

export function harness(make: (ctx: ControllerContext) => Controller[], cfg: Partial<ClusterConfig> = {}): Harness {
  const config = clusterConfig({ freeze: true, ...cfg });
  const clock = new ManualClock(config.startTime);
  const rng = new RandomStreams(config.seed);
  const store = new Store({ freeze: true });
  const api = new ApiServer(store, clock, rng, { serviceCIDR: config.serviceCIDR, nodePortRange: config.nodePortRange });
  const manager = new ControllerManager(store, clock);
  const ctx: ControllerContext = { api, store, clock, rng, config, requeueAt: (c, k, at) => manager.requeueAt(c, k, at), takeToken: (c) => manager.rateLimits.take(c.name, clock.now()) };
  for (const c of make(ctx)) manager.add(c);
  let events: StoreEvent[] = [];
  store.subscribe((e) => events.push(e));
  api.create(R.namespaces, undefined, { metadata: { name: "default" } });
  manager.settle();

  const h: Harness = {
    store,
    clock,
    api,
    manager,
    get events() {
      return events;
    },
    set events(v) {
      events = v;
    },
    ctx,
    writes: (resource) => events.filter((e) => e.resource === resource),
    node(name, opts = {}) {
      const labels: Record<string, string> = { "kubernetes.io/hostname": name };
      if (opts.zone) labels["topology.kubernetes.io/zone"] = opts.zone;
      if (opts.controlPlane) labels["node-role.kubernetes.io/control-plane"] = "";
      api.create(R.nodes, undefined, { metadata: { name, labels } });
      const now = rfc3339(clock.now());
      api.update(
        R.nodes,
        undefined,
        name,
        {
          ...api.peek(R.nodes, undefined, name),
          status: {
            allocatable: { cpu: opts.cpu ?? "2", memory: "3867476Ki", pods: "110" },
            conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: now, lastTransitionTime: now, reason: "KubeletReady", message: "kubelet is posting ready status" }],
          },
        },
        { subresource: "status" },
      );
      manager.settle();
    },
    service(name, spec, meta = {}) {
      const s = api.create(R.services, "default", { metadata: { name, ...meta }, spec });
      manager.settle();
      return s;
    },
    pod(name, opts = {}) {
      const ns = opts.ns ?? "default";
      const spec: Record<string, unknown> = {
        containers: [{ name: "app", image: "nginx", ...(opts.ports ? { ports: opts.ports } : {}) }],
        nodeName: opts.node ?? "node1",
      };
      if (opts.hostname) spec.hostname = opts.hostname;
      if (opts.subdomain) spec.subdomain = opts.subdomain;
      const p = api.create(R.pods, ns, { metadata: { name, labels: opts.labels ?? { app: "web" } }, spec }) as Pod;
      if (opts.settle !== false) manager.settle();
      if (opts.ip) {
        h.setStatus(name, { ip: opts.ip, ready: opts.ready ?? true }, ns);
        if (opts.settle !== false) manager.settle();
      }
      return p;
    },
    setStatus(name, st, ns = "default") {
      const cur = api.peek(R.pods, ns, name) as Pod;
      const now = rfc3339(clock.now());
      const ready = st.ready ?? true;
      const old = (cur.status?.conditions ?? []).find((c) => c.type === "Ready");
      const ip = st.ip ?? cur.status?.podIP;
      api.update(
        R.pods,
        ns,
        name,
        {
          ...cur,
          status: {
            ...cur.status,
            phase: st.phase ?? "Running",
            conditions: [
              {
                type: "Ready",
                status: ready ? "True" : "False",
                lastProbeTime: null,
                lastTransitionTime: old && (old.status === "True") === ready ? old.lastTransitionTime : now,
              },
            ],
            ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
          },
        },
        { subresource: "status" },
      );
    },
    settle: () => manager.settle(),
  };
  return h;
}
