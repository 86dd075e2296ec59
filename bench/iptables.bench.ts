// iptables proxier at 10k services x 10 endpoints: full sync (cold and warm), incremental sync
// after one endpoint change, iptables-save render, rule counts.
import type { Report } from "./run.js";
import { IptablesProxier } from "../src/engine/proxy/iptables/proxier.js";
import { iptablesSave, restoreLines } from "../src/engine/proxy/iptables/render.js";
import { TEST_NODE, ep, generatedState, testConfig } from "../src/engine/proxy/iptables/testing.js";
import type { EndpointInfo } from "../src/engine/proxy/types.js";

const SERVICES = 10_000;
const ENDPOINTS = 10;

/** Wall and CPU milliseconds of fn (the CPU figure is steadier on a shared machine). */
function timed(fn: () => void): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1000 };
}
const fmt = (x: { wall: number; cpu: number }) => `${x.wall.toFixed(1)} ms (cpu ${x.cpu.toFixed(0)})`;

function heapMB(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / (1 << 20);
}

export default async function bench(report: Report): Promise<void> {
  const st = generatedState(SERVICES, ENDPOINTS, { distinctEndpoints: true });
  const before = heapMB();

  const p = new IptablesProxier(TEST_NODE, testConfig(), {});
  const cold = timed(() => p.sync(st));
  const heap = heapMB() - before;
  report(`full sync, cold (${SERVICES} svc x ${ENDPOINTS} ep)`, fmt(cold), "< 300 ms");
  report("ruleset heap after sync", `${heap.toFixed(1)} MB`, "< 64 MB");

  const rebuilds = [0, 1, 2].map(() => {
    p.invalidate();
    return timed(() => p.sync(st));
  });
  report("full sync, forced rebuild of every chain (best of 3)", fmt(rebuilds.sort((a, b) => a.wall - b.wall)[0]), "< 300 ms");
  report("full sync, unchanged inputs (records kept)", fmt(timed(() => p.sync(st))), "< 300 ms");

  // One endpoint of one service changes (a pod replaced): incremental sync of that service.
  const endpoints = new Map(st.endpoints);
  const key = [...st.services.keys()][SERVICES >> 1];
  const times: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < 20; i++) {
    const eps = endpoints.get(key)!.slice() as EndpointInfo[];
    eps[0] = ep(`10.200.${i}.1`, 8080);
    endpoints.set(key, eps);
    times.push(timed(() => p.sync({ services: st.services, endpoints }, new Set([key]))));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  report(
    "incremental sync, one endpoint changed (median of 20)",
    `${median(times.map((t) => t.wall)).toFixed(2)} ms (cpu ${median(times.map((t) => t.cpu)).toFixed(2)})`,
    "< 5 ms",
  );

  let t = performance.now();
  let lines = 0;
  let bytes = 0;
  for (const l of iptablesSave(p.ruleset, { date: "Sun Nov 29 16:04:57 2026" }).lines) {
    lines++;
    bytes += l.length + 1;
  }
  report("iptables-save render (streamed)", `${(performance.now() - t).toFixed(1)} ms`);
  report("iptables-save size", `${lines} lines, ${(bytes / (1 << 20)).toFixed(1)} MB`);

  t = performance.now();
  let rl = 0;
  for (const _ of restoreLines(p.ruleset)) rl++;
  report("restore-input render (test-sorted)", `${(performance.now() - t).toFixed(1)} ms (${rl} lines)`);

  const counts = p.ruleCounts();
  report("rules (kube-proxy count)", `filter ${counts.filter}, nat ${counts.nat}`);
}
