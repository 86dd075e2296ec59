// nftables proxier at 10k services x 10 endpoints: full sync, incremental sync, rendering.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Report } from "./run.ts";
import type { EndpointInfo, ServicePortInfo } from "../src/engine/proxy/types.js";
import { servicePortKey } from "../src/engine/proxy/types.js";
import { NftablesProxier } from "../src/engine/proxy/nftables/proxier.js";
import { listTableLines, transactionLines } from "../src/engine/proxy/nftables/render.js";
import { TEST_CONFIG, TEST_NODE, ep, svcPort } from "../src/engine/proxy/nftables/fixtures.test-helpers.js";

const SERVICES = 10_000;
const ENDPOINTS = 10;

function service(i: number, generation: number): [ServicePortInfo, EndpointInfo[]] {
  const b = (i >> 8) & 255;
  const c = i & 255;
  const svc = svcPort(`ns${i % 50}`, `svc${i}`, {
    clusterIP: `10.${96 + (i >> 16)}.${b}.${c}`,
    nodePort: i % 10 === 0 ? 30000 + (i % 2768) : 0,
    stickyMaxAgeSeconds: i % 20 === 0 ? 10800 : 0,
  });
  const eps: EndpointInfo[] = [];
  for (let k = 0; k < ENDPOINTS; k++) {
    eps.push(ep(`10.${(k + generation) % 200}.${b}.${c}`, 8080, { nodeName: k % 3 === 0 ? "test-node" : `node-${k}` }));
  }
  return [svc, eps];
}

// A full GC before each heap reading, without needing `node --expose-gc`.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapMB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export default async (report: Report) => {
  const services = new Map<string, ServicePortInfo>();
  const endpoints = new Map<string, EndpointInfo[]>();
  for (let i = 0; i < SERVICES; i++) {
    const [svc, eps] = service(i, 0);
    const k = servicePortKey(svc.name);
    services.set(k, svc);
    endpoints.set(k, eps);
  }
  const heap0 = heapMB();
  const p = new NftablesProxier(TEST_NODE, { ...TEST_CONFIG, nodePortAddresses: [] });
  let t = performance.now();
  p.sync({ services, endpoints });
  const fullMs = performance.now() - t;
  const heap1 = heapMB();
  report(`full sync ${SERVICES} services x ${ENDPOINTS} endpoints`, `${fullMs.toFixed(0)} ms`);
  report("ruleset heap (after full sync)", `${(heap1 - heap0).toFixed(1)} MB`);
  report("chains / sets in table", `${p.table.chains.size} / ${p.table.sets.size}`);

  // Incremental: 100 service ports get new endpoints.
  const changed = new Set<string>();
  for (let i = 0; i < SERVICES; i += SERVICES / 100) {
    const [svc, eps] = service(i, 1);
    const k = servicePortKey(svc.name);
    endpoints.set(k, eps);
    changed.add(k);
  }
  t = performance.now();
  p.sync({ services, endpoints }, changed);
  report("incremental sync, 100 changed service ports", `${(performance.now() - t).toFixed(1)} ms`);
  const one = new Set([servicePortKey(service(7, 0)[0].name)]);
  endpoints.set([...one][0]!, service(7, 2)[1]);
  t = performance.now();
  p.sync({ services, endpoints }, one);
  report("incremental sync, 1 changed service port", `${(performance.now() - t).toFixed(2)} ms`);

  t = performance.now();
  let lines = 0;
  let bytes = 0;
  for (const l of listTableLines(p.table)) {
    lines++;
    bytes += l.length + 1;
  }
  report("render nft list table (streamed)", `${(performance.now() - t).toFixed(0)} ms`);
  report("  lines / MB", `${lines} / ${(bytes / 2 ** 20).toFixed(1)}`);
  t = performance.now();
  lines = 0;
  for (const _ of transactionLines(p)) lines++;
  report("render transaction form (streamed)", `${(performance.now() - t).toFixed(0)} ms`);
  report("heap after renders (bench inputs no longer referenced)", `${(heapMB() - heap0).toFixed(1)} MB`);
  if (p.table.chains.size === 0) throw new Error("unreachable: keeps the proxier alive for the heap figure");
};
