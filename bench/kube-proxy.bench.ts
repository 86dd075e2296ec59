// kube-proxy in a Cluster: one endpoint change at 10k Services reaching every node's proxier
// incrementally (tracker + proxier sync), and the IPVS proxier's full sync at 10k x 10.
import type { Report } from "./run.js";
import { R } from "../src/engine/api/resources.js";
import type { EndpointSlice } from "../src/engine/api/types.js";
import { Cluster } from "../src/engine/cluster.js";
import { IpvsProxier } from "../src/engine/proxy/ipvs/proxier.js";
import { ipvsadmList } from "../src/engine/proxy/ipvs/render.js";
import { TEST_NODE, generatedState, testConfig } from "../src/engine/proxy/iptables/testing.js";

const SERVICES = 10_000;
const ENDPOINTS = 10;

function ms(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function heapMB(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / (1 << 20);
}

function sliceBody(i: number, readyFirst: boolean): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `svc-${i}-abcde`, labels: { "kubernetes.io/service-name": `svc-${i}` } },
    addressType: "IPv4",
    ports: [{ name: "", port: 8080, protocol: "TCP" }],
    endpoints: Array.from({ length: ENDPOINTS }, (_, j) => ({
      addresses: [`10.${128 + (i >> 8)}.${i & 255}.${j + 1}`],
      conditions: { ready: j === 0 ? readyFirst : true },
      nodeName: ["master", "node1", "node2"][j % 3],
    })),
  } as EndpointSlice;
}

export default async function bench(report: Report): Promise<void> {
  // A cluster with 10k selectorless Services, each with one EndpointSlice of 10 endpoints.
  const c = Cluster.create();
  // Written through the apiserver without waiting in between (as a burst of API calls), then
  // the controllers and kube-proxies catch up in one settle.
  const setup = ms(() => {
    for (let i = 0; i < SERVICES; i++) {
      c.api.create(R.services, "default", { apiVersion: "v1", kind: "Service", metadata: { name: `svc-${i}` }, spec: { ports: [{ port: 80, targetPort: 8080 }] } });
      c.api.create(R.endpointslices, "default", sliceBody(i, true));
    }
    c.settle();
  });
  report(`cluster setup: ${SERVICES} services + slices, one settle`, `${(setup / 1000).toFixed(1)} s`);
  // Time spent in the kube-proxies (tracker updates happen in watch, syncs in reconcile).
  let proxyMs = 0;
  const reconcile = c.proxies.reconcile.bind(c.proxies);
  c.proxies.reconcile = (key: string) => {
    const t = performance.now();
    reconcile(key);
    proxyMs += performance.now() - t;
  };
  const times: number[] = [];
  const proxyTimes: number[] = [];
  for (let k = 0; k < 21; k++) {
    const i = (k * 997) % SERVICES;
    const body = sliceBody(i, k % 2 === 1);
    const cur = c.client.get(R.endpointslices, "default", body.metadata.name!);
    body.metadata.resourceVersion = cur.metadata.resourceVersion;
    proxyMs = 0;
    times.push(ms(() => c.client.update(R.endpointslices, "default", body.metadata.name!, body)));
    proxyTimes.push(proxyMs);
  }
  report("one endpoint flip: 3 nodes' incremental iptables syncs (median, kube-proxy part)", `${median(proxyTimes).toFixed(2)} ms`, "< 5 ms");
  report("one endpoint flip: the whole write (apiserver + controllers + kube-proxies)", `${median(times).toFixed(2)} ms`);
  const n1 = c.proxies.node("node1");
  report("node1 mode / KUBE-SERVICES nat rules", `${n1.mode} / ${n1.iptables()!.tables.find((t) => t.name === "nat")!.chains.get("KUBE-SERVICES")!.rules.length}`);

  // IPVS full sync at 10k x 10.
  const st = generatedState(SERVICES, ENDPOINTS, { distinctEndpoints: true });
  const before = heapMB();
  const p = new IpvsProxier(TEST_NODE, testConfig({ mode: "ipvs" }));
  const cold = ms(() => p.sync(st));
  report(`IPVS full sync, cold (${SERVICES} svc x ${ENDPOINTS} ep)`, `${cold.toFixed(1)} ms`);
  report("IPVS state heap after sync", `${(heapMB() - before).toFixed(1)} MB`);
  const warm = median([0, 1, 2].map(() => ms(() => p.sync(st))));
  report("IPVS full sync, same input again", `${warm.toFixed(1)} ms`);
  const key = [...st.services.keys()][1234];
  const inc = median([0, 1, 2, 3, 4].map(() => ms(() => p.sync(st, new Set([key])))));
  report("IPVS incremental sync of one service port", `${inc.toFixed(2)} ms`);
  let lines = 0;
  report("ipvsadm -Ln render", `${ms(() => (lines = ipvsadmList(p)!.split("\n").length)).toFixed(1)} ms (${lines} lines)`);
  const vs = p.virtualServer("TCP", st.services.get(key)!.clusterIP, st.services.get(key)!.port)!;
  const n = 100_000;
  const t = ms(() => {
    for (let i = 0; i < n; i++) p.schedule(vs, "10.0.0.1", 0);
  });
  report("rr schedule decisions per second", `${Math.round(n / (t / 1000)).toLocaleString("en")}`);
}
