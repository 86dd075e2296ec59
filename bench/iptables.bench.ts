// iptables proxier at 10k services x 10 endpoints: full sync (cold and warm), incremental sync
// after one endpoint change, iptables-save render, rule counts.
import type { Report } from "./run.js";
import { IptablesProxier } from "../src/engine/proxy/iptables/proxier.js";
import { iptablesSave, restoreLines } from "../src/engine/proxy/iptables/render.js";
import { TEST_NODE, ep, generatedState, testConfig } from "../src/engine/proxy/iptables/testing.js";
import type { EndpointInfo } from "../src/engine/proxy/types.js";

const SERVICES = 10_000;
const ENDPOINTS = 10;

function heapMB(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / (1 << 20);
}

export default async function bench(report: Report): Promise<void> {
  const st = generatedState(SERVICES, ENDPOINTS, { distinctEndpoints: true });
  const before = heapMB();

  let t = performance.now();
  const p = new IptablesProxier(TEST_NODE, testConfig(), {});
  p.sync(st);
  const cold = performance.now() - t;
  const heap = heapMB() - before;
  report(`full sync, cold (${SERVICES} svc x ${ENDPOINTS} ep)`, `${cold.toFixed(1)} ms`, "< 300 ms");
  report("ruleset heap after sync", `${heap.toFixed(1)} MB`, "< 64 MB");

  t = performance.now();
  p.sync(st);
  report("full sync, warm (names memoized)", `${(performance.now() - t).toFixed(1)} ms`, "< 300 ms");

  // One endpoint of one service changes (a pod replaced): incremental sync of that service.
  const endpoints = new Map(st.endpoints);
  const key = [...st.services.keys()][SERVICES >> 1];
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const eps = endpoints.get(key)!.slice() as EndpointInfo[];
    eps[0] = ep(`10.200.${i}.1`, 8080);
    endpoints.set(key, eps);
    t = performance.now();
    p.sync({ services: st.services, endpoints }, new Set([key]));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  report("incremental sync, one endpoint changed (median of 20)", `${times[10].toFixed(2)} ms`, "< 5 ms");

  t = performance.now();
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
