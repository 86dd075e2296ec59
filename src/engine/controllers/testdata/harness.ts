// Test support for the daemonset, statefulset and metallb controller tests: a store, clock, Rng,
// apiserver and manager with only the controllers under test, nodes as kubeadm registers them,
// and a stand-in for the scheduler and kubelets that a test drives step by step.

import { ApiServer } from "../../apiserver/apiserver.js";
import { R } from "../../api/resources.js";
import type { KObject, Pod } from "../../api/types.js";
import { ManualClock, rfc3339 } from "../../clock.js";
import { clusterConfig, type ClusterConfig } from "../../config.js";
import { RandomStreams } from "../../rng.js";
import { Store } from "../../store/store.js";
import { targetNodeName } from "../daemonset.js";
import { type Controller, type ControllerContext, ControllerManager } from "../manager.js";

export interface Harness {
  config: ClusterConfig;
  clock: ManualClock;
  store: Store;
  api: ApiServer;
  manager: ControllerManager;
  ctx: ControllerContext;
  /** Runs the controllers to quiescence. */
  settle(): void;
  /** Moves the clock forward, firing timed requeues. */
  advance(ms: number): void;
  pods(ns?: string): Pod[];
  events(ns?: string): KObject[];
  /** Pod IPs handed out by runPods so far. */
  podSeq: number;
}

export function newHarness(make: (ctx: ControllerContext) => Controller[], partial: Partial<ClusterConfig> = {}): Harness {
  const config = clusterConfig({ seed: 42, freeze: true, ...partial });
  const clock = new ManualClock(config.startTime);
  const rng = new RandomStreams(config.seed);
  const store = new Store({ freeze: true });
  const api = new ApiServer(store, clock, rng, { serviceCIDR: config.serviceCIDR, nodePortRange: config.nodePortRange });
  api.crds.add("ipaddresspools.metallb.io");
  api.crds.add("l2advertisements.metallb.io");
  const manager = new ControllerManager(store, clock);
  const ctx: ControllerContext = { api, store, clock, rng, config, requeueAt: (c, k, at) => manager.requeueAt(c, k, at), takeToken: (c) => manager.rateLimits.take(c.name, clock.now()) };
  for (const ns of ["default", "kube-system", "metallb-system"]) api.create(R.namespaces, undefined, { metadata: { name: ns } });
  for (const n of config.nodes) addNode(api, clock, n.name, n.ip, !!n.controlPlane);
  for (const c of make(ctx)) manager.add(c);
  manager.resyncAll();
  manager.settle();
  return {
    config,
    clock,
    store,
    api,
    manager,
    ctx,
    settle: () => manager.settle(),
    advance: (ms) => manager.advanceTo(clock.now() + ms),
    pods: (ns) => api.list(R.pods, ns).items as Pod[],
    events: (ns) => api.list(R.events, ns).items,
    podSeq: 0,
  };
}

export function addNode(api: ApiServer, clock: ManualClock, name: string, ip: string, controlPlane = false, extraLabels: Record<string, string> = {}): void {
  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "kubernetes.io/hostname": name,
    "kubernetes.io/os": "linux",
    ...extraLabels,
  };
  if (controlPlane) {
    labels["node-role.kubernetes.io/control-plane"] = "";
    labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
  }
  api.create(R.nodes, undefined, {
    metadata: { name, labels },
    spec: controlPlane ? { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {},
  });
  const now = rfc3339(clock.now());
  api.update(
    R.nodes,
    undefined,
    name,
    {
      ...api.peek(R.nodes, undefined, name),
      status: {
        conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: now, lastTransitionTime: now, reason: "KubeletReady", message: "kubelet is posting ready status" }],
        addresses: [
          { type: "InternalIP", address: ip },
          { type: "Hostname", address: name },
        ],
      },
    },
    { subresource: "status" },
  );
}


/**
 * The scheduler and kubelets in one step: binds pending pods (DaemonSet pods to their pinned
 * node, others to `defaultNode`), marks bound pods Running and Ready (unless `ready` says no),
 * and removes pods whose graceful deletion has begun. Settles after each write.
 */
export function runPods(h: Harness, opts: { ready?: (p: Pod) => boolean; defaultNode?: string; finishDeletes?: boolean } = {}): void {
  for (let round = 0; round < 1000; round++) {
    h.settle();
    let wrote = false;
    for (const p of h.pods()) {
      const ns = p.metadata.namespace!;
      const name = p.metadata.name!;
      if (p.metadata.deletionTimestamp) {
        if (opts.finishDeletes ?? true) {
          h.api.removeNow(R.pods, p);
          wrote = true;
        }
      } else if (!p.spec.nodeName) {
        h.api.bind(ns, name, targetNodeName(p) ?? opts.defaultNode ?? "node1");
        wrote = true;
      } else if (p.status?.phase === "Pending" && (opts.ready?.(p) ?? true)) {
        const now = rfc3339(h.clock.now());
        h.api.update(
          R.pods,
          ns,
          name,
          {
            ...p,
            status: {
              ...p.status,
              phase: "Running",
              podIP: `10.244.1.${10 + h.podSeq++}`,
              startTime: now,
              conditions: [
                { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: now },
                { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: now },
                { type: "ContainersReady", status: "True", lastProbeTime: null, lastTransitionTime: now },
                { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now },
              ],
            },
          },
          { subresource: "status" },
        );
        wrote = true;
      }
      if (wrote) break;
    }
    if (!wrote) return;
  }
}

/** Events in the order they were first recorded, reduced to what describe prints. */
export function eventsOf(h: Harness, ns?: string): { reason: string; message: string; type: string; component: string; object: string; count: number }[] {
  const seq = (e: KObject) => BigInt(`0x${e.metadata.name!.slice(e.metadata.name!.lastIndexOf(".") + 1)}`);
  const sorted = [...h.events(ns)].sort((a, b) => (seq(a) < seq(b) ? -1 : seq(a) > seq(b) ? 1 : 0));
  return sorted.map((e) => {
    const ev = e as KObject & { reason: string; message: string; type: string; source: { component: string }; involvedObject: { kind: string; name: string }; count: number };
    return { reason: ev.reason, message: ev.message, type: ev.type, component: ev.source.component, object: `${ev.involvedObject.kind}/${ev.involvedObject.name}`, count: ev.count };
  });
}
