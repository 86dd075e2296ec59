// A virtual cluster: storage, the apiserver, the controllers and kubelets, driven by one clock
// and one Rng. Pure and deterministic: the same config and the same calls give the same state.

import { withOwnWrites } from "./apiserver/own-writes.js";
import {
  ApiServer,
  type DeleteOptions,
  type Quota,
  type ListOptions,
  type ListResult,
  type PatchType,
  type WriteOptions,
} from "./apiserver/apiserver.js";
import type { ResourceInfo } from "./api/resources.js";
import type { KObject } from "./api/types.js";
import { bootstrap, FAKE_CA } from "./bootstrap.js";
import { ManualClock } from "./clock.js";
import { type ClusterConfig, clusterConfig } from "./config.js";
import { ClusterRoleAggregationController } from "./controllers/clusterrole-aggregation.js";
import { DaemonSetController } from "./controllers/daemonset.js";
import { DeploymentController } from "./controllers/deployment.js";
import { EndpointsController } from "./controllers/endpoints.js";
import { EndpointSliceController } from "./controllers/endpointslice.js";
import { GarbageCollector } from "./controllers/gc.js";
import { CronJobController } from "./controllers/cronjob.js";
import { JobController } from "./controllers/job.js";
import { TTLAfterFinishedController } from "./controllers/ttl-after-finished.js";
import { type Controller, type ControllerContext, ControllerManager } from "./controllers/manager.js";
import { MetalLBController } from "./controllers/metallb.js";
import { NodeLifecycleController } from "./controllers/nodelifecycle.js";
import { NamespaceController } from "./controllers/namespace.js";
import { ReplicaSetController, REPLICATION_CONTROLLERS } from "./controllers/replicaset.js";
import { PersistentVolumeController } from "./controllers/persistentvolume.js";
import { ServiceAccountController } from "./controllers/serviceaccount.js";
import { RootCAPublisher } from "./controllers/rootca-publisher.js";
import { StatefulSetController } from "./controllers/statefulset.js";
import { Kubelet } from "./kubelet/kubelet.js";
import { KubeProxies, type KubeProxiesState } from "./proxy/kube-proxy.js";
import { Scheduler } from "./kubelet/scheduler.js";
import { RandomStreams, type RngState } from "./rng.js";
import { Store } from "./store/store.js";

/** Everything a cluster is, as JSON: what a host persists and a share link forks. */
export interface ClusterSnapshot {
  version: 1;
  config: ClusterConfig;
  clock: number;
  /** Every random stream's state (see RandomStreams). */
  rng: Record<string, RngState>;
  revision: number;
  objects: Record<string, KObject[]>;
  crds: string[];
  kubelet: unknown;
  eventSeq: number;
  /** Pending timed requeues, in firing order. */
  timers?: [number, string, string][];
  /** Controllers' client token buckets not full (see ClientRateLimits): [controller, ms, at]. */
  clientRateLimits?: [string, number, number][];
  /** What each node's kube-proxy started with (absent in snapshots older than kube-proxy). */
  proxies?: KubeProxiesState;
  /**
   * The host's limits when it last set them (absent when it never did): restored before the
   * controllers' first pass, so that a ReplicaSet asking for 2^31-1 pods is held to them then too.
   */
  quota?: Quota;
}

/**
 * The apiserver as a client sees it: every write is followed by the controllers running to
 * quiescence, as if the client had waited for the cluster to react.
 */
class Client {
  constructor(private readonly cluster: Cluster) {}
  private get api(): ApiServer {
    return this.cluster.api;
  }
  get(info: ResourceInfo, ns: string | undefined, name: string): KObject {
    return this.api.get(info, ns, name);
  }
  list(info: ResourceInfo, ns: string | undefined, opts?: ListOptions): ListResult {
    return this.api.list(info, ns, opts);
  }
  create(info: ResourceInfo, ns: string | undefined, body: unknown, opts?: WriteOptions): KObject {
    return this.cluster.settleAfter(() => this.api.create(info, ns, body, opts));
  }
  update(info: ResourceInfo, ns: string | undefined, name: string, body: unknown, opts?: WriteOptions): KObject {
    return this.cluster.settleAfter(() => this.api.update(info, ns, name, body, opts));
  }
  patch(info: ResourceInfo, ns: string | undefined, name: string, type: PatchType, body: unknown, opts?: WriteOptions): KObject {
    return this.cluster.settleAfter(() => this.api.patch(info, ns, name, type, body, opts));
  }
  delete(info: ResourceInfo, ns: string | undefined, name: string, opts?: DeleteOptions): KObject {
    return this.cluster.settleAfter(() => this.api.delete(info, ns, name, opts));
  }
}

export class Cluster {
  readonly config: ClusterConfig;
  readonly clock: ManualClock;
  readonly rng: RandomStreams;
  readonly store: Store;
  readonly api: ApiServer;
  readonly manager: ControllerManager;
  readonly client: Client;
  readonly kubelet: Kubelet;
  readonly scheduler: Scheduler;
  readonly controllers: Controller[];
  /** One kube-proxy per node: `proxies.node(name)` -> { mode, proxier, config, ... }. */
  readonly proxies: KubeProxies;

  constructor(partial: Partial<ClusterConfig> = {}, snapshot?: ClusterSnapshot, adoptObjects = false) {
    this.config = clusterConfig(snapshot?.config ?? partial);
    this.clock = new ManualClock(snapshot?.clock ?? this.config.startTime);
    this.rng = new RandomStreams(this.config.seed, snapshot?.rng ?? {});
    this.store = new Store({ freeze: this.config.freeze });
    this.api = new ApiServer(this.store, this.clock, this.rng, {
      serviceCIDR: this.config.serviceCIDR,
      nodePortRange: this.config.nodePortRange,
    });
    if (snapshot) {
      // Storage first: controllers index what exists when they are built.
      this.store.load(adoptObjects ? snapshot.objects : structuredClone(snapshot.objects), snapshot.revision);
      this.api.loaded();
      for (const c of snapshot.crds) this.api.crds.add(c);
      this.api.restoreAllocations();
      this.api.eventSeq = snapshot.eventSeq;
      if (snapshot.quota) this.api.quota = { pods: snapshot.quota.pods, objects: snapshot.quota.objects };
    }
    this.manager = new ControllerManager(this.store, this.clock);
    this.manager.trustScope = this.api;
    this.api.paranoid = this.config.freeze;
    const ctx: ControllerContext = {
      api: this.api,
      store: this.store,
      clock: this.clock,
      rng: this.rng,
      config: this.config,
      requeueAt: (c, k, at) => this.manager.requeueAt(c, k, at),
      takeToken: (c) => this.manager.rateLimits.take(c.name, this.clock.now()),
    };
    this.scheduler = new Scheduler(ctx);
    this.kubelet = new Kubelet(ctx);
    this.proxies = new KubeProxies(ctx, this.kubelet);
    this.controllers = [
      new NamespaceController(ctx),
      new NodeLifecycleController(ctx),
      new ServiceAccountController(ctx),
      new RootCAPublisher(ctx, FAKE_CA),
      new ClusterRoleAggregationController(ctx),
      new GarbageCollector(ctx),
      new DeploymentController(ctx),
      new ReplicaSetController(ctx),
      new ReplicaSetController(ctx, REPLICATION_CONTROLLERS),
      new DaemonSetController(ctx),
      new StatefulSetController(ctx),
      new CronJobController(ctx),
      new JobController(ctx),
      new TTLAfterFinishedController(ctx),
      new PersistentVolumeController(ctx),
      this.scheduler,
      this.kubelet,
      new EndpointsController(ctx),
      new EndpointSliceController(ctx),
      this.proxies,
      new MetalLBController(ctx),
    ];
    for (const c of this.controllers) this.manager.add(c);
    this.client = new Client(this);
    if (snapshot) {
      this.kubelet.load(snapshot.kubelet);
      this.proxies.load(snapshot.proxies);
      // Saved timers keep their order; then every controller looks at everything once, which
      // re-derives any timer a snapshot without them lacks (idempotent when nothing changed).
      this.manager.loadTimers(snapshot.timers ?? []);
      this.manager.rateLimits.load(snapshot.clientRateLimits ?? []);
      this.manager.resyncAll();
      this.manager.settle();
    }
  }

  /** The whole cluster as JSON-serializable data. */
  snapshot(): ClusterSnapshot {
    // Objects as clients read them: the cluster's own writes settled into managedFields.
    const objects = Object.fromEntries(Object.entries(this.store.dump()).map(([r, objs]) => [r, objs.map(withOwnWrites)]));
    return { ...this.snapshotMeta(), config: this.config, objects, kubelet: this.kubelet.save() };
  }

  /**
   * The snapshot without objects, config and kubelet state: small enough for a host to write
   * with every acknowledged write, next to the object rows it persists separately.
   */
  snapshotMeta(): Omit<ClusterSnapshot, "objects" | "config" | "kubelet"> {
    return {
      version: 1,
      clock: this.clock.now(),
      rng: this.rng.state(),
      revision: this.store.revision(),
      crds: [...this.api.crds].sort(),
      eventSeq: this.api.eventSeq,
      timers: this.manager.saveTimers(),
      clientRateLimits: this.manager.rateLimits.save(this.clock.now()),
      proxies: this.proxies.save(),
      ...(this.api.quota ? { quota: this.api.quota } : {}),
    };
  }

  /**
   * The host's limits on what this cluster holds, admitted at every create from now on (see
   * Quota); a host sets them before each command, from the tenant's limits.
   */
  setQuota(quota: Quota | undefined): void {
    const was = this.api.quota;
    if (was && quota && was.pods === quota.pods && was.objects === quota.objects) return;
    this.api.quota = quota ? { pods: quota.pods, objects: quota.objects } : undefined;
  }

  /**
   * A cluster continuing exactly where `snapshot` left off. The snapshot's objects are copied,
   * unless `adoptObjects` says the caller made them for this cluster alone (decoded from rows)
   * and will not touch them again: the copy is an eighth of a restore.
   */
  static restore(snapshot: ClusterSnapshot, opts: { adoptObjects?: boolean } = {}): Cluster {
    if (snapshot.version !== 1) throw new Error(`unsupported cluster snapshot version ${String(snapshot.version)}`);
    return new Cluster({}, snapshot, opts.adoptObjects);
  }

  /** A fresh cluster as kubeadm leaves it, settled, with every system pod running. */
  static create(partial: Partial<ClusterConfig> = {}): Cluster {
    const c = new Cluster(partial);
    bootstrap(c);
    c.settle();
    // kubeadm's cluster has been up for a while when a student logs in: let system pods start.
    c.advance(0);
    c.runUntilIdle(60_000);
    return c;
  }

  settle(): void {
    this.manager.settle();
  }

  settleAfter<T>(fn: () => T): T {
    try {
      return fn();
    } finally {
      this.manager.settle();
    }
  }

  now(): number {
    return this.clock.now();
  }

  /** Moves the cluster's clock forward by `ms`, firing what falls due. */
  advance(ms: number): void {
    this.manager.advanceTo(this.clock.now() + Math.max(0, ms));
  }

  /** Moves the clock to `ms` if that is later (the host calls this with the wall clock). */
  advanceTo(ms: number): void {
    if (ms > this.clock.now()) this.manager.advanceTo(ms);
    else this.manager.settle();
  }

  /**
   * Advances the clock timer by timer until nothing is scheduled within `maxMs` from now,
   * e.g. until every pod has started. Returns the time advanced.
   */
  runUntilIdle(maxMs: number): number {
    const start = this.clock.now();
    const limit = start + maxMs;
    for (;;) {
      const next = this.manager.nextTimer();
      if (next === undefined || next > limit) break;
      this.manager.advanceTo(next);
    }
    return this.clock.now() - start;
  }
}
