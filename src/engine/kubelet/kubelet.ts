// The kubelets of every node, as one controller keyed by pod. For each pod bound to a node it
// runs the pod lifecycle the way a kubelet with containerd reports it: sandbox and pod IP,
// image pulls, Created/Started, readiness (probes as data), restarts with CrashLoopBackOff,
// graceful termination, and the events of each step. Timed steps are requeues on the clock.

import { EventSpamFilter } from "./event-spam.js";
import { R } from "../api/resources.js";
import type { ConfigMap, Container, ContainerStatus, KObject, Node, Pod, Service } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import { rememberedRfc3339 } from "../clock.js";
import type { Controller, ControllerContext } from "../controllers/manager.js";
import { splitKey } from "../controllers/util.js";
import { formatIPv4, ipv4Unchecked, parseCIDR } from "../util/ip.js";
import type { StoreEvent } from "../store/store.js";
import { memoize } from "../util/memo.js";
import { evaluateCommand, isBareShell, type ScriptContext } from "./script.js";
import { containerEnv, resolvConf, type ServiceEnvSource, serviceEnvSource } from "./env.js";
import { ContainerFs } from "./fs.js";
import { ContainerMounts } from "./mounts.js";
import { probeFailure, probeSucceeds } from "./probes.js";
import { type ImageProfile, imageProfile } from "./images.js";
import { StatusParts } from "./status-parts.js";

const PODS = rkey(R.pods);
const SERVICES = rkey(R.services);
const CONFIGMAPS = rkey(R.configmaps);

/** kubelet's container restart back-off: 10 s doubling to 5 min. */
const BACKOFF_START_MS = 10_000;
/** The kubelet's PLEG relist period: how soon it sees a container exit. */
const PLEG_RELIST_MS = 1_000;
const BACKOFF_MAX_MS = 300_000;
/** The shortest time from SIGTERM to the pod object's removal. */
const KILL_LATENCY_MS = 1_000;

export const NODE_RESOLV_CONF = "nameserver 10.1.8.2\n";

/**
 * Decides, as a container starts, whether its process exits at once: `{ code, logs }` makes it
 * exit with that code after writing those lines (restarts and CrashLoopBackOff follow as for any
 * crash); undefined lets the image's own behaviour decide. kube-proxy refusing its config uses it.
 */
type ContainerStartHook = (pod: Pod, container: string) => { code: number; logs: string[] } | undefined;

export interface LogLine {
  t: number;
  line: string;
}

interface ContainerRuntime {
  name: string;
  image: string;
  profile: ImageProfile;
  /** When the container (next) starts. */
  startAt: number;
  state: "waiting" | "running" | "terminated";
  waitingReason: string;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  terminatedReason?: string;
  last?: { exitCode: number; reason: string; startedAt: number; finishedAt: number; id: string };
  restartCount: number;
  id: string;
  /** Store revision at (last) start: the services the container's environment holds. */
  envRevision: number;
  pulled: boolean;
  pullMs: number;
  /** Log lines, and blocks of an image's start-up lines (see logLines). */
  logs: (LogLine | TemplateLogBlock)[];
  /** Lines in `logs`, a block counting its lines (not saved). */
  logCount: number;
  /** Moves when `logs` changes other than by lines added at its end (not saved; see logStreams). */
  logEpoch: number;
  /** Bytes appended to the current instance's log file since it was last rotated (CRI format). */
  logBytes?: number;
  fs: ContainerFs;
  /** stdin is attached (kubectl run -it): a shell keeps running. */
  stdin: boolean;
  /** The readiness probe's current verdict (true without a probe, once running). */
  ready: boolean;
  /** When the readiness probe next decides, if a change is pending. */
  probeAt?: number;
  /** The probe run whose failure this kubelet last reported (saved with the container). */
  probedAt?: number;
  /** A running short script (script.ts): the lines it has still to print and when it exits. */
  script?: { lines: LogLine[]; exitAt: number; code: number };
}

/** The kubelet's containerLogMaxSize default. */
const CONTAINER_LOG_MAX_BYTES = 10 * 1024 * 1024;
/**
 * ServiceLab's bound on every container's current log together (a Durable Object holds 128 MB for
 * the whole cluster; 300 pods at containerLogMaxSize would be 3 GB): past it the largest log is
 * rotated, as the kubelet rotates one that passes its own size.
 */
const CLUSTER_LOG_MAX_BYTES = 32 * 1024 * 1024;
/** "2026-11-29T23:00:00.000000000Z stdout F " and the newline. */
const CRI_LINE_OVERHEAD = 41;

export interface PodRuntime {
  uid: string;
  ip: string;
  node: string;
  sandboxAt: number;
  containers: ContainerRuntime[];
  killStartedAt?: number;
  /** Conditions' last transition times, by type. */
  /**
   * Conditions' last transitions as flat (type, status, at - sandboxAt) triples in first-seen
   * order (offsets are small integers, not boxed numbers): a Map of four entry objects cost ~350
   * bytes per pod.
   */
  transitions: (string | number)[];
  /** status.podIPs (not saved: made again after a restore). */
  podIPs?: { ip: string }[];
  /**
   * The resourceVersion and clock time of the kubelet's last status write of this pod (not
   * saved): the store event of that write queues the pod again, and reconciling it at the same
   * instant would build the same status and find nothing to write.
   */
  wroteRV?: string;
  wroteAt?: number;
}

interface NodeState {
  images: Set<string>;
  /** host-local IPAM: last handed-out offset and the offsets in use. */
  last: number;
  used: Set<number>;
}

/** A deleted service stays in the environment of containers started before it went. */
interface ServiceTombstone {
  src: ServiceEnvSource;
  createdRev: number;
  deletedRev: number;
}

export class Kubelet implements Controller {
  readonly name = "kubelet";
  readonly fieldManager = "kubelet";
  private readonly pods = new Map<string, PodRuntime>();
  /** The event recorder's spam filter (per node and pod). */
  private readonly spam = new EventSpamFilter();
  /** Every container's logBytes together, or more (gone containers leave only at boundLogs; at first, unknown). */
  private logTotal = CLUSTER_LOG_MAX_BYTES + 1;
  private readonly nodes = new Map<string, NodeState>();
  /** Service uid -> revision at which it was created (for container environments). */
  private readonly serviceCreated = new Map<string, number>();
  private readonly tombstones: ServiceTombstone[] = [];
  /** Consulted in order at every container start (see ContainerStartHook). */
  readonly startHooks: ContainerStartHook[] = [];
  private changes = 0;
  /** `changes` when the state beside the pods (services seen, nodes' images and addresses) last moved. */
  private sharedAt = 0;
  /** Per pod: `changes` when its runtime last moved (set by every change to it, and at load). */
  private readonly podAt = new Map<string, number>();
  /** The last log epoch handed out (see logStreams; 0 is "as loaded"). */
  private logEpochs = 0;
  /** A node's pod CIDR, parsed once per text (each pod's address is allocated and released in it). */
  private readonly podCIDR = memoize(parseCIDR, 1024);
  /** Timestamps' texts, one string per second for the statuses stamped in it. */
  private readonly rfc3339 = rememberedRfc3339();
  /** Image profiles by reference (immutable), shared by this cluster's containers. */
  private readonly profileOf = memoize(imageProfile, 256);
  /** Status parts shared by this cluster's pods (see StatusParts). */
  readonly parts = new StatusParts();
  /** The conditions array of the last status built (see conditionList). */
  private lastConditions: unknown[] | undefined;

  constructor(private readonly ctx: ControllerContext) {
    for (const n of ctx.config.nodes) {
      const images = new Set<string>([
        "registry.k8s.io/pause:3.10",
        `registry.k8s.io/kube-proxy:${ctx.config.kubernetesVersion}`,
        "registry.k8s.io/coredns/coredns:v1.12.0",
      ]);
      if (n.controlPlane) {
        for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
          images.add(`registry.k8s.io/${c}:${ctx.config.kubernetesVersion}`);
        }
        images.add("registry.k8s.io/etcd:3.5.21-0");
      }
      this.nodes.set(n.name, { images, last: 1, used: new Set() });
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Controller

  /**
   * A counter that moves whenever the state save() returns may have changed (reconciles, logs,
   * container files), so a host can skip serializing it after a command that touched nothing.
   */
  get revision(): number {
    return this.changes;
  }

  /** Moves whenever saveShared() may have changed (a part of `revision`). */
  get sharedRevision(): number {
    return this.sharedAt;
  }

  /**
   * Each pod's runtime in the order save() lists them, with a revision that moves whenever
   * savePod() may have changed for it, so a host can keep a row per pod and write only those of
   * the pods a command touched.
   */
  podStates(): Array<{ key: string; uid: string; revision: number }> {
    const out: Array<{ key: string; uid: string; revision: number }> = [];
    for (const [key, rt] of this.pods) out.push({ key, uid: rt.uid, revision: this.podAt.get(key) ?? this.changes });
    return out;
  }

  /** The store's revision (for ContainerMounts). */
  storeRevision(): number {
    return this.ctx.store.revision();
  }

  watches(resource: string): boolean {
    return resource === PODS || resource === SERVICES;
  }

  watch(ev: StoreEvent, enqueue: (key: string) => void): void {
    if (ev.resource === PODS) {
      const pod = ev.object as Pod;
      // A flat key (not a rope): the runtime's map keeps it for the pod's lifetime.
      if (pod.spec.nodeName || ev.type === "DELETED") enqueue([pod.metadata.namespace, pod.metadata.name].join("/"));
    } else if (ev.resource === SERVICES) {
      this.sharedAt = ++this.changes;
      const svc = ev.object as Service;
      if (ev.type === "ADDED") this.serviceCreated.set(svc.metadata.uid!, ev.rv);
      if (ev.type === "DELETED") {
        const src = serviceEnvSource(ev.old as Service);
        const created = this.serviceCreated.get(svc.metadata.uid!) ?? 0;
        this.serviceCreated.delete(svc.metadata.uid!);
        if (src) this.tombstones.push({ src, createdRev: created, deletedRev: ev.rv });
      }
    }
  }

  initialKeys(): Iterable<string> {
    const keys: string[] = [];
    for (const p of this.ctx.store.iterate(PODS)) {
      if ((p as Pod).spec.nodeName) keys.push(`${p.metadata.namespace}/${p.metadata.name}`);
    }
    return keys;
  }

  reconcile(key: string): void {
    this.changes++;
    this.podAt.set(key, this.changes);
    const [ns, name] = splitKey(key);
    const pod = this.ctx.store.get(PODS, ns, name) as Pod | undefined;
    const rt = this.pods.get(key);
    if (!pod || (rt && rt.uid !== pod.metadata.uid)) {
      if (rt) this.forget(key, rt);
      if (!pod) return;
    }
    if (!pod.spec.nodeName) return;
    if (!this.nodes.has(pod.spec.nodeName)) return;
    let runtime = this.pods.get(key);
    const now = this.ctx.clock.now();
    // The echo of this kubelet's own status write, in the same instant: a fixpoint (every step
    // due at `now` ran before that write, and its timers are armed).
    if (runtime && runtime.wroteRV === pod.metadata.resourceVersion && runtime.wroteAt === now) return;
    if (!runtime) {
      if (pod.metadata.deletionTimestamp) {
        // Never started here: nothing to stop.
        this.ctx.api.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
        return;
      }
      runtime = this.createSandbox(pod);
      if (!runtime) return;
      this.pods.set(key, runtime);
      this.podAt.set(key, this.changes);
    }
    if (pod.metadata.deletionTimestamp) {
      this.terminate(pod, runtime, now);
      return;
    }
    let next = Infinity;
    for (const c of runtime.containers) {
      next = Math.min(next, this.step(pod, runtime, c, now));
    }
    this.writeStatus(pod, runtime, now);
    if (next !== Infinity) this.ctx.requeueAt(this, key, next);
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  private createSandbox(pod: Pod): PodRuntime | undefined {
    const now = this.ctx.clock.now();
    const node = this.nodes.get(pod.spec.nodeName!)!;
    const nodeObj = this.ctx.store.get(rkey(R.nodes), undefined, pod.spec.nodeName!) as Node | undefined;
    const nodeIP = nodeIPOf(nodeObj);
    const ip = pod.spec.hostNetwork ? nodeIP : this.allocateIP(pod.spec.nodeName!, node, nodeObj);
    if (!ip) {
      // The CNI's IPAM has no address left: the sandbox cannot be created and the pod waits.
      const cidr = nodeObj?.spec?.podCIDR ?? "";
      this.event(pod, "Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "${hex64(this.ctx.rng.get("runtime"))}": plugin type="flannel" failed (add): failed to delegate add: failed to allocate for range 0: no IP addresses available in range set: ${cidr}`);
      return undefined;
    }
    const rt: PodRuntime = {
      uid: pod.metadata.uid!,
      ip,
      node: pod.spec.nodeName!,
      sandboxAt: now,
      containers: new Array<ContainerRuntime>(pod.spec.containers.length),
      // Declared now, not added later: fields added to an object after it is made live in a
      // separate property array (~50 bytes per pod).
      killStartedAt: undefined,
      transitions: [],
      podIPs: [{ ip }],
      wroteRV: undefined,
      wroteAt: undefined,
    };
    for (let i = 0; i < pod.spec.containers.length; i++) {
      const c = pod.spec.containers[i];
      const profile = this.profileOf(c.image ?? "");
      const image = c.image ?? "";
      const present = node.images.has(image) && c.imagePullPolicy !== "Always";
      const pullMs = present ? 0 : this.ctx.config.imagePullMs;
      const container: ContainerRuntime = {
        name: c.name,
        image,
        profile,
        startAt: now + pullMs + this.ctx.config.containerStartMs,
        state: "waiting",
        waitingReason: "ContainerCreating",
        restartCount: 0,
        id: "",
        envRevision: 0,
        pulled: !present,
        pullMs,
        logs: [],
        logCount: 0,
        logEpoch: ++this.logEpochs,
        fs: this.containerFs(pod, c, profile, rt),
        stdin: !!(c.stdin || c.tty),
        ready: false,
      };
      rt.containers[i] = container;
      const ref = this.containerRef(c.name);
      if (present) {
        this.event(pod, "Normal", "Pulled", `Container image "${image}" already present on machine`, ref);
      } else {
        this.event(pod, "Normal", "Pulling", `Pulling image "${image}"`, ref);
        node.images.add(image);
        this.sharedAt = this.changes;
      }
    }
    return rt;
  }

  private containerRef(name: string): string {
    return `spec.containers{${name}}`;
  }

  /** Advances one container to `now`; returns when it next needs attention. */
  private step(pod: Pod, rt: PodRuntime, c: ContainerRuntime, now: number): number {
    if (c.state === "running" && c.script && rt.killStartedAt === undefined) {
      const sc = c.script;
      let i = 0;
      while (i < sc.lines.length && sc.lines[i].t <= now) i++;
      if (i) {
        this.logPlain(c, sc.lines.slice(0, i));
        sc.lines = sc.lines.slice(i);
      }
      if (sc.exitAt <= now) {
        c.script = undefined;
        return this.exited(pod, c, sc.code, sc.exitAt);
      }
      const next = Math.min(sc.exitAt, sc.lines[0]?.t ?? Infinity);
      if (c.probeAt !== undefined && c.probeAt <= now) {
        c.probeAt = undefined;
        c.ready = this.probe(pod, c);
      }
      return Math.min(next, c.probeAt ?? Infinity, this.probeRuns(pod, rt, c, now));
    }
    if (c.state === "running") {
      if (c.probeAt !== undefined && c.probeAt <= now) {
        c.probeAt = undefined;
        c.ready = this.probe(pod, c);
      }
      return Math.min(c.probeAt ?? Infinity, this.probeRuns(pod, rt, c, now));
    }
    if (c.state === "terminated") {
      // A container the restart policy keeps down stays down, however often the pod is synced.
      const policy = pod.spec.restartPolicy ?? "Always";
      if (policy === "Never" || (policy === "OnFailure" && (c.exitCode ?? 0) === 0)) return Infinity;
    }
    if (now < c.startAt) return c.startAt;
    if (c.state === "terminated") {
      // The back-off ran out: start again.
      c.last = { exitCode: c.exitCode ?? 0, reason: c.terminatedReason ?? "Completed", startedAt: c.startedAt ?? now, finishedAt: c.finishedAt ?? now, id: c.id };
      c.restartCount++;
    }
    return this.start(pod, rt, c, now);
  }

  private start(pod: Pod, rt: PodRuntime, c: ContainerRuntime, now: number): number {
    const spec = pod.spec.containers.find((x) => x.name === c.name)!;
    const ref = this.containerRef(c.name);
    if (c.pulled && c.restartCount === 0) {
      const secs = (c.pullMs / 1000).toFixed(3).replace(/\.?0+$/, "");
      this.event(pod, "Normal", "Pulled", `Successfully pulled image "${c.image}" in ${secs}s (${secs}s including waiting). Image size: ${c.profile.sizeBytes} bytes.`, ref);
    }
    c.id = hex64(this.ctx.rng.get("runtime"));
    c.envRevision = this.ctx.store.revision();
    c.startedAt = now;
    c.logBytes = 0;
    this.event(pod, "Normal", "Created", `Created container: ${c.name}`, ref);
    this.event(pod, "Normal", "Started", `Started container ${c.name}`, ref);
    const exit = this.exitOnStart(pod, spec, c);
    if (exit?.after) {
      // A short script: it runs, printing as it goes, until it exits (step).
      c.state = "running";
      c.script = { lines: exit.logs.map((line, i) => ({ t: now + (exit.at?.[i] ?? 0), line })), exitAt: now + exit.after, code: exit.code };
      const nowLines = c.script.lines.filter((l) => l.t <= now);
      this.logPlain(c, nowLines);
      c.script.lines = c.script.lines.slice(nowLines.length);
    }
    if (!exit || exit.after) {
      c.state = "running";
      if (!exit) this.log(c, now, c.profile.startLogs ?? [], rt.ip);
      const probe = spec.readinessProbe;
      const scriptAt = c.script ? Math.min(c.script.exitAt, c.script.lines[0]?.t ?? Infinity) : Infinity;
      if (!probe) {
        c.ready = true;
        return scriptAt;
      }
      // The first probe runs after initialDelaySeconds.
      c.ready = false;
      c.probedAt = undefined;
      c.probeAt = now + (probe.initialDelaySeconds ?? 0) * 1000;
      if (c.probeAt <= now) {
        c.probeAt = undefined;
        c.ready = this.probe(pod, c);
        return Math.min(scriptAt, this.probeRuns(pod, rt, c, now));
      }
      return Math.min(scriptAt, c.probeAt);
    }
    if (exit.plain) this.logPlain(c, exit.logs.map((line) => ({ t: now, line })));
    else this.log(c, now, [...exit.logs], rt.ip);
    return this.exited(pod, c, exit.code, now);
  }

  /** The container's process exited at `now` with `code`: terminated, restarted as the policy says. */
  private exited(pod: Pod, c: ContainerRuntime, code: number, now: number): number {
    const ref = this.containerRef(c.name);
    c.state = "terminated";
    c.exitCode = code;
    c.terminatedReason = code === 0 ? "Completed" : "Error";
    c.finishedAt = now;
    const policy = pod.spec.restartPolicy ?? "Always";
    if (policy === "Never" || (policy === "OnFailure" && code === 0)) return Infinity;
    c.waitingReason = "CrashLoopBackOff";
    // kuberuntime_manager's doBackOff: a container that has not been restarted yet is started
    // again at the next sync (the PLEG sees the exit within a relist); after that each restart
    // waits the back-off, 10 s doubling to 5 min, with a BackOff event.
    if (c.restartCount === 0) {
      c.startAt = now + PLEG_RELIST_MS;
      return c.startAt;
    }
    c.startAt = now + Math.min(BACKOFF_START_MS * 2 ** (c.restartCount - 1), BACKOFF_MAX_MS);
    this.event(pod, "Warning", "BackOff", `Back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`, ref);
    return c.startAt;
  }

  /** Whether the container's command exits as soon as it starts, and how. */
  private exitOnStart(pod: Pod, spec: Container, c: ContainerRuntime): ContainerExit | undefined {
    for (const hook of this.startHooks) {
      const r = hook(pod, spec.name);
      if (r) return r;
    }
    const req = c.profile.requiredEnv;
    const cmd = [...(spec.command ?? []), ...(spec.args ?? [])];
    if (req && cmd.length === 0) {
      const names = new Set((spec.env ?? []).map((e) => e.name));
      if (!req.anyOf.some((n) => names.has(n))) return { code: 1, logs: req.message };
    }
    const shellOnly = cmd.length === 0 ? c.profile.start === "shell" : isBareShell(cmd);
    if (shellOnly && !c.stdin) return { code: 0, logs: [] };
    const run = cmd.length ? evaluateCommand(cmd, this.scriptContext(pod, spec)) : undefined;
    if (run) return { code: run.code, logs: run.lines.map((l) => l.text), at: run.lines.map((l) => l.at), after: run.exitAfter, plain: true };
    if (cmd.length > 0 && /^(true|exit|echo|date|env|ls|cat|hostname)$/.test(baseName(cmd[0]))) return { code: 0, logs: [] };
    if (cmd.length > 0 && baseName(cmd[0]) === "false") return { code: 1, logs: [] };
    void pod;
    return undefined;
  }

  /** What a short script sees: the pod's hostname, the container's environment, the node's clock. */
  private scriptContext(pod: Pod, spec: Container): ScriptContext {
    const start = this.ctx.clock.now();
    return {
      hostname: pod.spec.hostname ?? pod.metadata.name ?? "",
      env: this.environment(pod, spec.name),
      date: (offset) => dateOutput(start + offset),
    };
  }

  /** The readiness probe's verdict now, from what the container's app would answer. */
  private probe(pod: Pod, c: ContainerRuntime): boolean {
    const spec = pod.spec.containers.find((x) => x.name === c.name);
    const probe = spec?.readinessProbe;
    if (!probe) return true;
    return probeSucceeds(probe, spec!, c.profile, c.fs);
  }

  /**
   * The readiness probe's periodic runs, as prober's worker ticks every periodSeconds from
   * initialDelaySeconds after the start: a run that fails records kubelet's `Unhealthy` event
   * (prober.go: "Readiness probe failed: <output>", counted on one event by the recorder). The
   * verdict itself moves by thresholds (probeAt); this only reports the runs, so it wakes the pod
   * every period only while the probe fails. Returns when the next run matters.
   */
  private probeRuns(pod: Pod, rt: PodRuntime, c: ContainerRuntime, now: number): number {
    const spec = pod.spec.containers.find((x) => x.name === c.name);
    const probe = spec?.readinessProbe;
    if (!probe || c.startedAt === undefined || rt.killStartedAt !== undefined) return Infinity;
    const period = Math.max(1, probe.periodSeconds ?? 10) * 1000;
    const first = c.startedAt + (probe.initialDelaySeconds ?? 0) * 1000;
    if (now < first) return first;
    const tick = first + Math.floor((now - first) / period) * period;
    const failure = probeFailure(probe, spec!, c.profile, c.fs, rt.ip);
    // Timers fire at their instant, so a run is reported when the clock stands on it.
    // Only a reported failure is marked: a passing run leaves no state, so a restore that
    // reconciles the pod on a tick ends in the same state as the cluster that was not restored.
    if (now === tick && failure !== undefined && c.probedAt !== tick) {
      c.probedAt = tick;
      this.event(pod, "Warning", "Unhealthy", `Readiness probe failed: ${failure}`, this.containerRef(c.name));
    }
    return failure === undefined ? Infinity : tick + period;
  }

  /**
   * A container's files changed (kubectl exec): a readiness probe that reads them decides
   * again after `threshold` periods, as consecutive probe results would.
   */
  filesChanged(pod: Pod, container: string): void {
    this.changes++;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    this.podAt.set(key, this.changes);
    const rt = this.pods.get(key);
    const c = rt?.containers.find((x) => x.name === container);
    const cur = this.ctx.store.get(PODS, pod.metadata.namespace, pod.metadata.name!) as Pod | undefined;
    const probe = cur?.spec.containers.find((x) => x.name === container)?.readinessProbe;
    if (!c || !probe || c.state !== "running" || c.probeAt !== undefined) return;
    if (this.probe(cur!, c) === c.ready) return;
    const period = (probe.periodSeconds ?? 10) * 1000;
    const threshold = c.ready ? (probe.failureThreshold ?? 3) : (probe.successThreshold ?? 1);
    const now = this.ctx.clock.now();
    c.probeAt = now + period * threshold;
    this.ctx.requeueAt(this, key, c.probeAt);
    // The runs before the verdict moves report too (a failing one records Unhealthy).
    const next = this.probeRuns(cur!, rt!, c, now);
    if (next < c.probeAt) this.ctx.requeueAt(this, key, next);
  }

  private terminate(pod: Pod, rt: PodRuntime, now: number): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (rt.killStartedAt === undefined) {
      rt.killStartedAt = now;
      for (const c of rt.containers) {
        if (c.state === "running") this.event(pod, "Normal", "Killing", `Stopping container ${c.name}`, this.containerRef(c.name));
      }
    }
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000;
    const deadline = rt.killStartedAt + grace;
    // Stopping takes the kubelet at least a sync round, even for a process that exits at once.
    let doneAt = rt.killStartedAt + Math.min(KILL_LATENCY_MS, grace);
    for (const c of rt.containers) {
      if (c.state !== "running") continue;
      const exitAt = Math.min(deadline, rt.killStartedAt + Math.max(KILL_LATENCY_MS, c.profile.stopSeconds * 1000));
      if (exitAt <= now) {
        c.state = "terminated";
        c.script = undefined;
        c.finishedAt = exitAt;
        // Killed by the grace deadline: SIGKILL (137); stopped in time: the app's clean exit.
        c.exitCode = exitAt >= deadline && c.profile.stopSeconds * 1000 > grace ? 137 : 0;
        c.terminatedReason = c.exitCode === 0 ? "Completed" : "Error";
      }
      doneAt = Math.max(doneAt, exitAt);
    }
    if (doneAt <= now) {
      this.writeStatus(pod, rt, now);
      this.ctx.api.delete(R.pods, pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
      return;
    }
    this.writeStatus(pod, rt, now);
    this.ctx.requeueAt(this, key, doneAt);
  }

  private forget(key: string, rt: PodRuntime): void {
    this.pods.delete(key);
    this.podAt.delete(key);
    const node = this.nodes.get(rt.node);
    if (node && rt.ip) {
      const off = this.ipOffset(rt.node, rt.ip);
      if (off !== undefined) node.used.delete(off);
      this.sharedAt = this.changes;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status

  private writeStatus(pod: Pod, rt: PodRuntime, now: number): void {
    const status = this.buildStatus(pod, rt, now);
    if (deepEqual(status, pod.status)) return;
    const next = { ...pod, status } as KObject;
    const stored = this.ctx.api.update(R.pods, pod.metadata.namespace, pod.metadata.name!, next, { subresource: "status" });
    rt.wroteRV = stored.metadata.resourceVersion;
    rt.wroteAt = now;
  }

  private transition(rt: PodRuntime, type: string, status: string, now: number): string {
    const t = rt.transitions;
    let i = 0;
    while (i < t.length && t[i] !== type) i += 3;
    if (i === t.length) {
      // A new type (four per pod, once): copied to an array of its exact size.
      t.push(type, status, now - rt.sandboxAt);
      rt.transitions = t.slice();
    }
    else if (t[i + 1] !== status) {
      t[i + 1] = status;
      t[i + 2] = now - rt.sandboxAt;
    }
    return this.rfc3339(rt.sandboxAt + (t[i + 2] as number));
  }

  /** A pod condition the kubelet owns, with its transition time (a method, not a closure per status). */
  private condition(rt: PodRuntime, prev: unknown, now: number, type: string, ok: boolean, reason?: string, message?: string) {
    const status = ok ? "True" : "False";
    return this.parts.condition(prev, type, status, this.transition(rt, type, status, now), ok ? undefined : reason, message);
  }

  /**
   * The five conditions as an array: the stored one when it holds exactly these (shared)
   * conditions, else the last array made when that does (pods started together share all five:
   * one array for them all), else a new one. Stored arrays are never changed.
   */
  private conditionList(prev: unknown[], c0: unknown, c1: unknown, c2: unknown, c3: unknown, c4: unknown): NonNullable<Pod["status"]>["conditions"] {
    if (prev.length === 5 && prev[0] === c0 && prev[1] === c1 && prev[2] === c2 && prev[3] === c3 && prev[4] === c4) return prev as never;
    const l = this.lastConditions;
    if (l && l[0] === c0 && l[1] === c1 && l[2] === c2 && l[3] === c3 && l[4] === c4) return l as never;
    this.lastConditions = [c0, c1, c2, c3, c4];
    return this.lastConditions as never;
  }

  private buildStatus(pod: Pod, rt: PodRuntime, now: number): Pod["status"] {
    // Arrays made at their final size: a push onto [] reserves 16 slots, and statuses are stored.
    const statuses = new Array<ContainerStatus>(rt.containers.length);
    const unready: string[] = [];
    let anyRunning = false;
    let allStarted = true;
    let allTerminated = true;
    let anyFailed = false;
    for (let i = 0; i < rt.containers.length; i++) {
      const c = rt.containers[i];
      const ready = c.state === "running" && c.ready && rt.killStartedAt === undefined;
      if (!ready) unready.push(c.name);
      if (c.state === "running") anyRunning = true;
      if (c.startedAt === undefined) allStarted = false;
      if (c.state !== "terminated") allTerminated = false;
      if (c.state === "terminated" && (c.exitCode ?? 0) !== 0) anyFailed = true;
      statuses[i] = this.containerStatus(pod, c, ready, now);
    }
    const policy = pod.spec.restartPolicy ?? "Always";
    let phase = "Pending";
    if (allTerminated && rt.containers.length && (policy === "Never" || (policy === "OnFailure" && !anyFailed) || rt.killStartedAt !== undefined)) {
      phase = anyFailed ? "Failed" : "Succeeded";
      if (rt.killStartedAt !== undefined) phase = pod.status?.phase === "Running" ? (anyFailed ? "Failed" : "Succeeded") : phase;
    } else if (allStarted && (anyRunning || rt.containers.some((c) => c.restartCount > 0 || c.waitingReason === "CrashLoopBackOff"))) {
      phase = "Running";
    }
    const podReady = unready.length === 0 && phase === "Running";
    const notReadyMsg = `containers with unready status: [${unready.join(" ")}]`;
    // The stored status's conditions, in the same order, are reused where nothing moved.
    const prev = (pod.status?.conditions ?? []) as unknown[];
    const conditions = this.conditionList(
      prev,
      this.condition(rt, prev[0], now, "PodReadyToStartContainers", rt.killStartedAt === undefined || phase === "Running" || phase === "Pending"),
      this.condition(rt, prev[1], now, "Initialized", true),
      this.condition(rt, prev[2], now, "Ready", podReady, "ContainersNotReady", notReadyMsg),
      this.condition(rt, prev[3], now, "ContainersReady", unready.length === 0 && phase === "Running", "ContainersNotReady", notReadyMsg),
      this.parts.condition(prev[4], "PodScheduled", "True", scheduledAt(pod) ?? this.rfc3339(rt.sandboxAt)),
    );
    const hostIP = nodeIPOf(this.ctx.store.get(rkey(R.nodes), undefined, rt.node) as Node | undefined);
    return {
      phase,
      conditions,
      hostIP,
      hostIPs: this.parts.hostIPsOf(hostIP),
      podIP: rt.ip,
      // One array per pod, shared by its status versions (stored objects are never changed).
      podIPs: (rt.podIPs ??= [{ ip: rt.ip }]),
      startTime: this.rfc3339(rt.sandboxAt),
      containerStatuses: statuses,
      qosClass: pod.status?.qosClass ?? "BestEffort",
    };
  }

  private containerStatus(pod: Pod, c: ContainerRuntime, ready: boolean, now: number): ContainerStatus {
    const img = this.parts.imageNames(c.image);
    const started = c.state === "running";
    const status: ContainerStatus = {
      name: c.name,
      state: {},
      ready,
      restartCount: c.restartCount,
      image: img.image,
      imageID: c.id || c.last ? img.imageID : "",
      started,
    };
    if (c.id) status.containerID = `containerd://${c.id}`;
    if (c.state === "running") {
      status.state = this.parts.runningState(c.startedAt!);
    } else if (c.state === "terminated") {
      // Between an exit and the restart the back-off delays, a container that has already been
      // restarted shows CrashLoopBackOff; otherwise it shows how it terminated.
      const backingOff = c.waitingReason === "CrashLoopBackOff" && c.startAt > now;
      if (!backingOff || c.restartCount === 0) {
        status.state = {
          terminated: {
            exitCode: c.exitCode ?? 0,
            reason: c.terminatedReason ?? "Completed",
            startedAt: this.rfc3339(c.startedAt ?? now),
            finishedAt: this.rfc3339(c.finishedAt ?? now),
            containerID: `containerd://${c.id}`,
          },
        };
      } else {
        // The kubelet's sync error, kept (reasonCache) and shown until the container starts again.
        const backoff = goSeconds(Math.round((c.startAt - (c.finishedAt ?? now)) / 1000));
        const message = `back-off ${backoff} restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
        status.state = { waiting: { reason: "CrashLoopBackOff", message } };
      }
    } else {
      status.state = this.parts.waitingState(c.waitingReason);
    }
    status.lastState = c.last
      ? { terminated: { exitCode: c.last.exitCode, reason: c.last.reason, startedAt: this.rfc3339(c.last.startedAt), finishedAt: this.rfc3339(c.last.finishedAt), containerID: `containerd://${c.last.id}` } }
      : NO_LAST_STATE;
    return status;
  }

  // ---------------------------------------------------------------------------------------------
  // IPAM (host-local: next free address after the last one handed out, .1 is the gateway)

  private allocateIP(nodeName: string, node: NodeState, nodeObj: Node | undefined): string {
    const cidr = this.podCIDR(nodeObj?.spec?.podCIDR ?? this.ctx.config.nodes.find((n) => n.name === nodeName)!.podCIDR)!;
    // Offsets 2 .. size-2: the network address, the gateway (.1) and the broadcast address are skipped.
    const first = 2;
    const lastUsable = cidr.size - 2;
    let off = node.last;
    for (let k = first; k <= lastUsable; k++) {
      off = off + 1 > lastUsable || off + 1 < first ? first : off + 1;
      if (!node.used.has(off)) {
        node.used.add(off);
        node.last = off;
        this.sharedAt = this.changes;
        return formatIPv4(cidr.base + off);
      }
    }
    return "";
  }

  private ipOffset(nodeName: string, ip: string): number | undefined {
    const cfg = this.ctx.config.nodes.find((n) => n.name === nodeName);
    const cidr = cfg && this.podCIDR(cfg.podCIDR);
    if (!cidr) return undefined;
    // An address this kubelet formatted: read in place, not split into an array.
    return ipv4Unchecked(ip) - cidr.base;
  }

  // ---------------------------------------------------------------------------------------------
  // What the terminal and the data plane read

  /** The running pod's runtime, or undefined. */
  private runtimeOf(pod: Pod): PodRuntime | undefined {
    const rt = this.pods.get(`${pod.metadata.namespace}/${pod.metadata.name}`);
    return rt && rt.uid === pod.metadata.uid ? rt : undefined;
  }

  /** The container's filesystem (undefined when the pod is not on a node yet). */
  filesystem(pod: Pod, container?: string): ContainerFs | undefined {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    return c?.fs;
  }

  /** Is the container running (exec and traffic need it)? */
  /** Whether this pod is one the kubelet runs (admitted on its node), whatever its containers do. */
  runs(pod: Pod): boolean {
    return this.runtimeOf(pod) !== undefined;
  }

  containerState(pod: Pod, container?: string): "waiting" | "running" | "terminated" | undefined {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    return c?.state;
  }

  profile(pod: Pod, container?: string): ImageProfile | undefined {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    return c?.profile;
  }

  logs(pod: Pod, container?: string, previous = false): LogLine[] | undefined {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    if (!c) return undefined;
    if (previous) return c.last ? logLines(c.logs).filter((l) => l.t <= c.last!.finishedAt) : undefined;
    return c.startedAt === undefined ? [] : logLines(c.logs).filter((l) => l.t >= c.startedAt!);
  }

  /**
   * Appends to a container's log (the app answering requests, kube-proxy's start-up lines). Past
   * the kubelet's containerLogMaxSize (10 Mi) the log file is rotated, as the kubelet's container
   * log manager does, and `kubectl logs` then reads only the new file: the current instance's
   * older lines go (a previous instance's, for --previous, stay). Without it a web pod's access
   * log grew by a line per request for as long as the cluster lived, in memory and in every save.
   */
  appendLog(pod: Pod, container: string | undefined, lines: string[]): void {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    if (!c) return;
    this.changes++;
    this.podAt.set(`${pod.metadata.namespace}/${pod.metadata.name}`, this.changes);
    const t = this.ctx.clock.now();
    let bytes = c.logBytes ?? 0;
    for (const line of lines) {
      // "<RFC 3339 nano> stdout F <line>\n", the CRI log line the kubelet's file holds.
      bytes += CRI_LINE_OVERHEAD + line.length;
      if (bytes > CONTAINER_LOG_MAX_BYTES) {
        this.rotateLog(c, t);
        bytes = CRI_LINE_OVERHEAD + line.length;
      }
      c.logs.push({ t, line });
      c.logCount++;
    }
    this.logTotal += bytes - (c.logBytes ?? 0);
    c.logBytes = bytes;
    if (this.logTotal > CLUSTER_LOG_MAX_BYTES) this.boundLogs(t);
  }

  /** The current instance's lines go (a previous instance's stay, for --previous), as the kubelet's log rotation. */
  private rotateLog(c: ContainerRuntime, now: number): void {
    const since = c.startedAt ?? now;
    c.logs = logLines(c.logs).filter((l) => l.t < since);
    c.logCount = c.logs.length;
    c.logEpoch = ++this.logEpochs;
    c.logBytes = 0;
  }

  /** CLUSTER_LOG_MAX_BYTES: the running total counts gone containers too, so it is summed again first. */
  private boundLogs(now: number): void {
    const all: ContainerRuntime[] = [];
    for (const rt of this.pods.values()) all.push(...rt.containers);
    this.logTotal = all.reduce((n, c) => n + (c.logBytes ?? 0), 0);
    all.sort((a, b) => (b.logBytes ?? 0) - (a.logBytes ?? 0));
    for (const c of all) {
      if (this.logTotal <= CLUSTER_LOG_MAX_BYTES) break;
      this.logTotal -= c.logBytes ?? 0;
      this.rotateLog(c, now);
    }
  }

  /** The container's environment, as `env` inside it prints it. */
  environment(pod: Pod, container?: string, tty = false): [string, string][] {
    const rt = this.runtimeOf(pod);
    const c = container ? rt?.containers.find((x) => x.name === container) : rt?.containers[0];
    const spec = pod.spec.containers.find((x) => x.name === (c?.name ?? container)) ?? pod.spec.containers[0];
    const profile = c?.profile ?? this.profileOf(spec.image ?? "");
    const rev = c?.envRevision ?? this.ctx.store.revision();
    const nodeIP = nodeIPOf(this.ctx.store.get(rkey(R.nodes), undefined, pod.spec.nodeName ?? "") as Node | undefined);
    return containerEnv({
      pod,
      container: spec,
      imageEnv: profile.env,
      services: this.servicesVisible(pod, rev),
      configMaps: (n) => this.ctx.store.get(CONFIGMAPS, pod.metadata.namespace, n) as ConfigMap | undefined,
      nodeIP,
      tty,
    });
  }

  private servicesVisible(pod: Pod, rev: number): ServiceEnvSource[] {
    const ns = pod.metadata.namespace!;
    const links = pod.spec.enableServiceLinks !== false;
    const out: ServiceEnvSource[] = [];
    const add = (svc: Service) => {
      const created = this.serviceCreated.get(svc.metadata.uid!) ?? 0;
      if (created > rev) return;
      const src = serviceEnvSource(svc);
      if (src) out.push(src);
    };
    for (const s of this.ctx.store.list(SERVICES, links ? ns : "default")) {
      const svc = s as Service;
      if (!links && svc.metadata.name !== "kubernetes") continue;
      if (ns !== "default" && svc.metadata.namespace === "default" && svc.metadata.name === "kubernetes") continue;
      add(svc);
    }
    if (ns !== "default") {
      const k = this.ctx.store.get(SERVICES, "default", "kubernetes") as Service | undefined;
      if (k) add(k);
    }
    for (const t of this.tombstones) {
      if (t.createdRev <= rev && t.deletedRev > rev && (t.src.namespace === ns ? links : t.src.namespace === "default" && t.src.name === "kubernetes")) {
        out.push(t.src);
      }
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * The container's filesystem. Its mounts read only the pod's spec and name, so that is all it
   * keeps: not the pod version the sandbox was made from, which would live as long as the container.
   */
  private containerFs(pod: Pod, c: Container, profile: ImageProfile, rt: PodRuntime): ContainerFs {
    return new ContainerFs(profile.files, new ContainerMounts(this, pod.metadata.name!, pod.metadata.namespace!, pod.spec, c, rt), c.workingDir || profile.workingDir);
  }

  /**
   * The kubelet's atomic-writer layout of each configMap directory volume: the data in a
   * timestamped directory `..2006_01_02_15_04_05.<random>` (os.MkdirTemp's pattern), a `..data`
   * symlink to it, and one symlink per key to `..data/<key>`. The time is the pod's sandbox's; the
   * random part is derived from the pod and the volume.
   */
  volumeLayout(pod: Pod, container: string): { dir: string; stamp: string }[] {
    const rt = this.runtimeOf(pod);
    const c = pod.spec.containers.find((x) => x.name === container);
    if (!rt || !c) return [];
    const d = new Date(rt.sandboxAt);
    const p2 = (n: number) => String(n).padStart(2, "0");
    const time = `${d.getUTCFullYear()}_${p2(d.getUTCMonth() + 1)}_${p2(d.getUTCDate())}_${p2(d.getUTCHours())}_${p2(d.getUTCMinutes())}_${p2(d.getUTCSeconds())}`;
    const out: { dir: string; stamp: string }[] = [];
    for (const vm of c.volumeMounts ?? []) {
      if (vm.subPath || !(pod.spec.volumes ?? []).find((v) => v.name === vm.name)?.configMap) continue;
      let h = 0x811c9dc5;
      for (const ch of `${rt.uid}/${vm.name}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
      out.push({ dir: vm.mountPath.replace(/\/+$/, "") || "/", stamp: `..${time}.${h}` });
    }
    return out;
  }

  /** Files the kubelet mounts into a container: resolv.conf, hosts, hostname, configMap volumes. (For ContainerMounts.) */
  mountsFor(pod: Pod, c: Container, rt: PodRuntime): Map<string, string> {
    const m = new Map<string, string>();
    m.set("/etc/resolv.conf", resolvConf(pod, { clusterDNS: this.ctx.config.dnsIP, clusterDomain: this.ctx.config.dnsDomain, nodeResolvConf: NODE_RESOLV_CONF }));
    m.set("/etc/hostname", `${pod.spec.hostname ?? pod.metadata.name}\n`);
    m.set("/etc/hosts", hostsFile(pod, rt.ip, this.ctx.config.dnsDomain));
    for (const vm of c.volumeMounts ?? []) {
      const vol = (pod.spec.volumes ?? []).find((v) => v.name === vm.name);
      const cmName = vol?.configMap?.name;
      if (!cmName) continue;
      const cm = this.ctx.store.get(CONFIGMAPS, pod.metadata.namespace, cmName) as ConfigMap | undefined;
      const data = cm?.data ?? {};
      const items = vol!.configMap!.items;
      const base = vm.mountPath.replace(/\/$/, "");
      if (vm.subPath) {
        const item = items?.find((i) => i.path === vm.subPath);
        const k = item ? item.key : vm.subPath;
        if (data[k] !== undefined) m.set(base, data[k]);
        continue;
      }
      if (items?.length) for (const it of items) { if (data[it.key] !== undefined) m.set(`${base}/${it.path}`, data[it.key]); }
      else for (const [k, v] of Object.entries(data)) m.set(`${base}/${k}`, v);
    }
    return m;
  }

  /** Lines a program printed (never templates: `{ip}` in an echo is text). */
  private logPlain(c: ContainerRuntime, lines: readonly LogLine[]): void {
    if (!lines.length) return;
    for (const l of lines) c.logs.push({ t: l.t, line: l.line });
    c.logCount += lines.length;
  }

  private log(c: ContainerRuntime, t: number, lines: string[], ip: string): void {
    if (lines.length === 0) return;
    // One block for the lines of one start (a few hundred bytes less per container than a line
    // object each), made into lines when read.
    const block = new TemplateLogBlock(t, lines, ip);
    if (c.logs.length) c.logs.push(block);
    else c.logs = [block];
    c.logCount += lines.length;
  }

  private event(pod: Pod, type: "Normal" | "Warning", reason: string, message: string, fieldPath?: string): void {
    if (!this.spam.accept(`${pod.spec.nodeName ?? ""}/${pod.metadata.uid ?? ""}`, this.ctx.clock.now())) return;
    this.ctx.api.recordEvent({
      involved: pod as KObject,
      involvedInfo: R.pods,
      type,
      reason,
      message,
      component: "kubelet",
      host: pod.spec.nodeName,
      fieldPath,
    });
  }

  /**
   * Each container's log, for a host that persists logs apart from `save({ logs: false })`: under
   * one `epoch`, lines are only ever added at the end (`count` of them so far); the epoch moves
   * when the log is rotated or the container is new. A log as load() received it is at epoch 0.
   * Keys are "namespace/pod|container".
   */
  logStreams(): Array<{ key: string; epoch: number; count: number }> {
    const out: Array<{ key: string; epoch: number; count: number }> = [];
    for (const [k, rt] of this.pods) for (const c of rt.containers) out.push({ key: `${k}|${c.name}`, epoch: c.logEpoch, count: c.logCount });
    return out;
  }

  /** Lines `from`... of a log of logStreams(), as save() writes them ([] for an unknown key). */
  logLinesFrom(key: string, from: number): LogLine[] {
    const bar = key.lastIndexOf("|");
    const c = this.pods.get(key.slice(0, bar))?.containers.find((x) => x.name === key.slice(bar + 1));
    if (!c || from >= c.logCount) return [];
    // From the end: new lines are the last ones, and a log may hold 10 Mi of old ones.
    const need = c.logCount - from;
    let i = c.logs.length;
    let n = 0;
    while (i > 0 && n < need) {
      const e = c.logs[--i];
      n += e instanceof TemplateLogBlock ? e.templates.length : 1;
    }
    return logLines(c.logs.slice(i))
      .slice(n - need)
      .map((l) => ({ t: l.t, line: l.line }));
  }

  /**
   * Runtime state that lives outside the store, for snapshots. Without `logs`, containers' logs
   * are left out (a host keeps them in rows of their own, see logStreams); `load` then needs them
   * put back as each container's `logs`.
   */
  save(opts: { logs?: boolean } = {}): KubeletState {
    return { ...this.saveShared(), pods: [...this.pods.keys()].map((k) => [k, this.savePod(k, opts)!]) };
  }

  /** save() without its pods (see sharedRevision). */
  saveShared(): Omit<KubeletState, "pods"> {
    return {
      serviceCreated: [...this.serviceCreated.entries()],
      tombstones: structuredClone(this.tombstones),
      nodes: [...this.nodes.entries()].map(([n, st]) => [n, { images: [...st.images], last: st.last, used: [...st.used] }]),
    };
  }

  /** What save() lists for pod `key` (see podStates), or undefined for a pod it does not run. */
  savePod(key: string, opts: { logs?: boolean } = {}): KubeletPodState | undefined {
    const rt = this.pods.get(key);
    if (!rt) return undefined;
    return {
      uid: rt.uid,
      ip: rt.ip,
      node: rt.node,
      sandboxAt: rt.sandboxAt,
      killStartedAt: rt.killStartedAt,
      transitions: transitionEntries(rt.transitions, rt.sandboxAt),
      containers: rt.containers.map(({ profile: _p, fs, logs, logCount: _n, logEpoch: _e, ...c }) => ({
        ...structuredClone(c),
        // As text: a template line is filled in on read.
        ...(opts.logs === false ? {} : { logs: logLines(logs).map((l) => ({ t: l.t, line: l.line })) }),
        fs: fs.save(),
      })),
    };
  }

  /** Restores what save() returned (the store must already hold the pods). */
  load(data: unknown): void {
    this.sharedAt = ++this.changes;
    this.podAt.clear();
    const st = data as KubeletState;
    this.serviceCreated.clear();
    for (const [k, v] of st.serviceCreated) this.serviceCreated.set(k, v);
    this.tombstones.length = 0;
    this.tombstones.push(...structuredClone(st.tombstones));
    for (const [n, v] of st.nodes) this.nodes.set(n, { images: new Set(v.images), last: v.last, used: new Set(v.used) });
    this.pods.clear();
    for (const [key, p] of st.pods) {
      const [ns, name] = splitKey(key);
      const pod = this.ctx.store.get(PODS, ns, name) as Pod | undefined;
      if (!pod || pod.metadata.uid !== p.uid) continue;
      const rt: PodRuntime = {
        uid: p.uid,
        ip: p.ip,
        node: p.node,
        sandboxAt: p.sandboxAt,
        killStartedAt: p.killStartedAt,
        transitions: p.transitions.flatMap(([type, v]) => [type, v.status, v.at - p.sandboxAt]),
        containers: [],
        podIPs: [{ ip: p.ip }],
        wroteRV: undefined,
        wroteAt: undefined,
      };
      for (const c of p.containers) {
        const spec = pod.spec.containers.find((x) => x.name === c.name) ?? pod.spec.containers[0];
        const profile = this.profileOf(c.image);
        const { fs: saved, logs, ...rest } = c;
        const fs = this.containerFs(pod, spec, profile, rt);
        fs.restore(saved);
        const lines = (logs ?? []).map((l) => ({ t: l.t, line: l.line }));
        rt.containers.push({ ...(structuredClone(rest) as Omit<ContainerRuntime, "profile" | "fs" | "logs" | "logCount" | "logEpoch">), logs: lines, logCount: lines.length, logEpoch: 0, profile, fs });
      }
      this.pods.set(key, rt);
      this.podAt.set(key, this.changes);
    }
  }
}

interface SavedContainer extends Omit<ContainerRuntime, "profile" | "fs" | "logs" | "logCount" | "logEpoch"> {
  fs: ReturnType<ContainerFs["save"]>;
  /** Absent when saved without logs (see save). */
  logs?: LogLine[];
}

export interface KubeletState {
  serviceCreated: [string, number][];
  tombstones: ServiceTombstone[];
  nodes: [string, { images: string[]; last: number; used: number[] }][];
  pods: [string, KubeletPodState][];
}

/** One pod's runtime as save() lists it. */
export interface KubeletPodState {
  uid: string;
  ip: string;
  node: string;
  sandboxAt: number;
  killStartedAt?: number;
  transitions: [string, { status: string; at: number }][];
  containers: SavedContainer[];
}

/** Whole seconds as Go's time.Duration prints them: 40s, 1m20s, 5m0s, 1h0m0s. */
function goSeconds(secs: number): string {
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** The `lastState` of a container that has not terminated before: one frozen `{}` for all. */
const NO_LAST_STATE = Object.freeze({}) as ContainerStatus["lastState"];

/** The saved form of a pod's transitions: [type, { status, at }] in first-seen order. */
function transitionEntries(t: (string | number)[], base: number): [string, { status: string; at: number }][] {
  const out: [string, { status: string; at: number }][] = [];
  for (let i = 0; i < t.length; i += 3) out.push([t[i] as string, { status: t[i + 1] as string, at: base + (t[i + 2] as number) }]);
  return out;
}

function nodeIPOf(node: Node | undefined): string {
  return (node?.status?.addresses ?? []).find((a) => a.type === "InternalIP")?.address ?? "";
}

function scheduledAt(pod: Pod): string | undefined {
  return (pod.status?.conditions ?? []).find((c) => c.type === "PodScheduled" && c.status === "True")?.lastTransitionTime ?? undefined;
}

function hostsFile(pod: Pod, ip: string, domain: string): string {
  const host = pod.spec.hostname ?? pod.metadata.name!;
  const fqdn = pod.spec.subdomain ? `${host}.${pod.spec.subdomain}.${pod.metadata.namespace}.svc.${domain}\t${host}` : host;
  return `# Kubernetes-managed hosts file.
127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
fe00::0\tip6-localnet
fe00::0\tip6-mcastprefix
fe00::1\tip6-allnodes
fe00::2\tip6-allrouters
${ip}\t${fqdn}
`;
}

/**
 * How a container's process ends as it starts: exit `code` after printing `logs` (image
 * templates unless `plain`), at once or, for a short script, `after` ms with each line at `at`.
 */
interface ContainerExit {
  code: number;
  logs: string[];
  at?: number[];
  after?: number;
  plain?: boolean;
}

/** `date` in a container (coreutils' and BusyBox's "%a %b %e %H:%M:%S %Z %Y"), in UTC. */
function dateOutput(ms: number): string {
  const d = new Date(ms);
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][d.getUTCDay()];
  const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  const p2 = (n: number) => String(n).padStart(2, "0");
  return `${day} ${mon} ${String(d.getUTCDate()).padStart(2, " ")} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** A container start's log lines from an image's templates, all at one time (see TemplateLogLine). */
class TemplateLogBlock {
  constructor(
    readonly t: number,
    readonly templates: readonly string[],
    readonly ip: string,
  ) {}
}

/** The lines of a container's log, blocks made into their lines. */
function logLines(logs: readonly (LogLine | TemplateLogBlock)[]): LogLine[] {
  const out: LogLine[] = [];
  for (const l of logs) {
    if (l instanceof TemplateLogBlock) for (const tpl of l.templates) out.push(new TemplateLogLine(l.t, tpl, l.ip));
    else out.push(l);
  }
  return out;
}

/**
 * A log line from an image's template (`{ip}`, `{apachetime}`...), filled in when read: every
 * container of an image logs the same few templates, and most logs are never read.
 */
class TemplateLogLine implements LogLine {
  constructor(
    readonly t: number,
    private readonly template: string,
    private readonly ip: string,
  ) {}

  get line(): string {
    const d = new Date(this.t);
    const pad = (n: number, w = 2) => String(n).padStart(w, "0");
    const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const hms = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    const vars: Record<string, string> = {
      ip: this.ip,
      apachetime: `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${hms}.${pad(d.getUTCMilliseconds(), 3)}000 ${d.getUTCFullYear()}`,
      nginxtime: `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${hms}`,
      mysqltime: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${hms}+00:00`,
    };
    return this.template.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? `{${k}}`);
  }
}

const HEX_CODES = Array.from("0123456789abcdef", (ch) => ch.charCodeAt(0));
/** A container id's character codes (reused: filled and read within one call). */
const ID_CODES = new Array<number>(64).fill(48);

function hex64(rng: { uint32(): number }): string {
  // Eight draws as zero-padded hex, made into one flat string at once (the same text as the
  // eight parts joined: `+=` would keep a rope of them per container id).
  for (let i = 0; i < 8; i++) {
    let n = rng.uint32();
    for (let j = i * 8 + 7; j >= i * 8; j--) {
      ID_CODES[j] = HEX_CODES[n & 15];
      n >>>= 4;
    }
  }
  return String.fromCharCode.apply(null, ID_CODES);
}
