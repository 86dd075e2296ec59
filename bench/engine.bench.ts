// Engine benchmarks (issue 2): cluster creation, scaling, EndpointSlice churn, memory.
import { R } from "../src/engine/api/resources.js";
import type { Deployment, Pod } from "../src/engine/api/types.js";
import { Cluster } from "../src/engine/cluster.js";
import type { NodeConfig } from "../src/engine/config.js";
import { isPodReady } from "../src/engine/controllers/util.js";
import { deploymentBody } from "../src/engine/testing.js";
import type { Report } from "./run.js";

const gc = (globalThis as { gc?: () => void }).gc;

/** A control-plane node and `n` workers, each with its own /24 of 10.244.0.0/16. */
function workers(n: number): NodeConfig[] {
  const nodes: NodeConfig[] = [{ name: "master", ip: "10.1.8.30", podCIDR: "10.244.0.0/24", controlPlane: true }];
  for (let i = 1; i <= n; i++) nodes.push({ name: `node${i}`, ip: `10.1.${8 + Math.floor((30 + i) / 250)}.${(30 + i) % 250}`, podCIDR: `10.244.${i}.0/24` });
  return nodes;
}

function heapMB(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** An httpd Deployment of no pods with a readiness probe on the index page, and its Service. */
function createWeb(c: Cluster, name: string): void {
  // The probe lets a lab make one pod unready by removing the page.
  const body = deploymentBody(name, "httpd", 0) as Deployment;
  body.spec.template.spec.containers[0].readinessProbe = { httpGet: { path: "/index.html", port: 80 }, periodSeconds: 1, failureThreshold: 1 };
  c.client.create(R.deployments, "default", body);
  c.client.create(R.services, "default", { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }] } });
}

/** One pod's readiness flip: the probe fails once the page is gone, one period later. */
function flip(c: Cluster, pod: Pod): void {
  c.kubelet.filesystem(pod)!.remove("/usr/local/apache2/htdocs/index.html");
  c.advance(1_000);
}

/**
 * An unmeasured round of the measured one's shape (JIT warm-up): 0 -> 1000 pods with the probe,
 * one flip, 1000 -> 0. Warm-up rounds without the probe and the flip left V8's code for pods
 * that have neither, and the measured round paid for deoptimizing and compiling again.
 */
function scaleRound(c: Cluster): void {
  createWeb(c, "warm");
  c.client.patch(R.deployments, "default", "warm", "merge", { spec: { replicas: 1000 } });
  c.runUntilIdle(60_000);
  flip(c, (c.client.list(R.pods, "default").items as Pod[])[500]);
  c.client.patch(R.deployments, "default", "warm", "merge", { spec: { replicas: 0 } });
  c.runUntilIdle(120_000);
}

export default function engineBench(report: Report): void {
  // CPU time of this process (user + system): wall time is meaningless on a shared machine.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // 1. A default cluster. The process's first one pays for compiling the engine (printed); the
  // figure is a warm process's, as a server's: V8 is still optimizing the path over the first
  // ~20 creations, so the 30 measured follow 30 unmeasured.
  const [, first] = time(() => Cluster.create({ seed: 100 }));
  report("create a default cluster, first in the process (cold JIT)", `${first.toFixed(1)} ms`);
  for (let i = 0; i < 30; i++) Cluster.create({ seed: i });
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < 30; i++) {
    const c0 = cpu();
    times.push(time(() => Cluster.create({ seed: i }))[1]);
    cpus.push(cpu() - c0);
  }
  report("create a default cluster (median of 30)", `${median(times).toFixed(2)} ms (${median(cpus).toFixed(2)} ms CPU)`, "< 5 ms");

  // 2. Scale 0 -> 1000 -> 0, counting EndpointSlice writes. A node holds 110 pods, as a real
  // kubelet's default max-pods: 1000 pods need ten workers. Warm, as the creation above: four
  // unmeasured rounds of the same shape first (see scaleRound), so the figures are not the JIT
  // compiler's. V8 finishes optimizing the controllers' paths over several rounds: TurboFan
  // compiled ~130, ~70, ~30, ~14 and ~5 functions in the first five rounds of one process
  // (--trace-opt), on its background threads, which took up to 250 ms of CPU from a measured
  // third round on a 2-core machine.
  for (let i = 0; i < 4; i++) scaleRound(Cluster.create({ seed: 2 + i, nodes: workers(10) }));
  gc?.();
  const c = Cluster.create({ seed: 1, nodes: workers(10) });
  createWeb(c, "web");
  let sliceWrites = 0;
  const unsub = c.store.subscribe((ev) => {
    if (ev.resource === "endpointslices.discovery.k8s.io") sliceWrites++;
  });
  let podWrites = 0;
  const unsubPods = c.store.subscribe((ev) => {
    if (ev.resource === "pods") podWrites++;
  });
  const cpu0 = cpu();
  const [, up] = time(() => {
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 1000 } });
    c.runUntilIdle(60_000);
  });
  const ready = (c.client.list(R.pods, "default").items as Pod[]).filter(isPodReady).length;
  const slices = c.client.list(R.endpointslices, "default", { labelSelector: "kubernetes.io/service-name=web" }).items.length;
  const cpuUp = cpu() - cpu0;
  report("scale a Deployment 0 -> 1000 pods, all Running and Ready", `${up.toFixed(1)} ms (${cpuUp.toFixed(0)} ms CPU)`, "< 200 ms (both ways)");
  report("  ready pods / EndpointSlices / slice writes", `${ready} / ${slices} / ${sliceWrites}`);

  // 3. One readiness flip at 1000 endpoints.
  const pods = c.client.list(R.pods, "default").items as Pod[];
  const victim = pods[500];
  sliceWrites = 0;
  const cpuFlip0 = cpu();
  const [, flipMs] = time(() => flip(c, victim));
  report("one readiness flip at 1000 endpoints: slices rewritten", `${sliceWrites}`, "exactly 1");
  report("  time", `${flipMs.toFixed(2)} ms (${(cpu() - cpuFlip0).toFixed(1)} ms CPU)`);

  sliceWrites = 0;
  const cpuDown0 = cpu();
  const [, down] = time(() => {
    c.client.patch(R.deployments, "default", "web", "merge", { spec: { replicas: 0 } });
    c.runUntilIdle(120_000);
  });
  const cpuDown = cpu() - cpuDown0;
  report("scale back 1000 -> 0 pods, all gone", `${down.toFixed(1)} ms (${cpuDown.toFixed(0)} ms CPU)`);
  report("  pods left / slice writes", `${c.client.list(R.pods, "default").items.length} / ${sliceWrites}`);
  report("  0 -> 1000 -> 0 total (up + down, without the flip)", `${(up + down).toFixed(1)} ms (${(cpuUp + cpuDown).toFixed(0)} ms CPU)`, "< 200 ms");
  report("  pod writes per pod (up and down)", `${(podWrites / 1000).toFixed(1)}`);
  unsub();
  unsubPods();

  // 4. Memory.
  const base = heapMB();
  const idle: Cluster[] = [];
  for (let i = 0; i < 20; i++) idle.push(Cluster.create({ seed: i }));
  const per = (heapMB() - base) / idle.length;
  report("memory of an idle default cluster (20 clusters, per cluster)", `${per.toFixed(2)} MB`, "< 2 MB");
  idle.length = 0;

  const base2 = heapMB();
  const big = Cluster.create({ seed: 9, nodes: workers(100) });
  const [, build] = time(() => {
    for (let i = 0; i < 1000; i++) {
      big.api.create(R.deployments, "default", deploymentBody(`app${i}`, "httpd", 10));
      big.api.create(R.services, "default", { metadata: { name: `app${i}` }, spec: { selector: { app: `app${i}` }, ports: [{ port: 80 }] } });
    }
    big.settle();
    // The ReplicaSet controller's client makes 20 pods a second after its burst of 30 (see
    // client-rate-limit.ts): 10000 pods take ~500 s of the cluster's clock.
    big.runUntilIdle(600_000);
  });
  const bigMB = heapMB() - base2;
  report("1000 Services x 10 pods: build time", `${(build / 1000).toFixed(2)} s`);
  report("1000 Services x 10 pods: heap", `${bigMB.toFixed(1)} MB`, "< 64 MB");
  report("  pods running", `${big.store.count("pods")}`);
  report("  events stored", `${big.store.count("events")}`);
  // Where the heap goes: each of the 101 nodes' kube-proxy holds a full ruleset (as on a real
  // cluster). Measured by dropping the proxiers (the cluster is not used afterwards).
  const beforeDrop = heapMB();
  const states = (big.proxies as unknown as { states: Map<string, { proxier?: unknown; leftIptables?: unknown }> }).states;
  for (const st of states.values()) {
    st.proxier = undefined;
    st.leftIptables = undefined;
  }
  report("  of which kube-proxy rulesets (101 nodes)", `${(beforeDrop - heapMB()).toFixed(1)} MB`);
}
