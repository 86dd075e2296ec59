// The Kubernetes API for real clients: the pass rate of the test/cmd behaviours transcribed in
// test/kubeapi/testcmd-cases.ts (real kubectl 1.33/1.27 against a ServiceLab server), the
// `kubectl get pods` round trip as kubectl itself times it (-v=6: request to response, so
// kubectl's own start is not counted), and listing 1000 pods as a Table (serveKube in process:
// the engine's list and the table printer, without HTTP).
import { performance } from "node:perf_hooks";
import type { Report } from "./run.js";
import { R } from "../src/engine/api/resources.js";
import { Cluster } from "../src/engine/cluster.js";
import type { NodeConfig } from "../src/engine/config.js";
import { deploymentBody } from "../src/engine/testing.js";
import { serveKube } from "../src/kubeapi/serve.js";
import { CASES } from "../test/kubeapi/testcmd-cases.js";
import { haveKubectl, startHarness } from "../test/kubeapi/harness.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function workers(n: number): NodeConfig[] {
  const nodes: NodeConfig[] = [{ name: "master", ip: "10.1.8.30", podCIDR: "10.244.0.0/24", controlPlane: true }];
  for (let i = 1; i <= n; i++) nodes.push({ name: `node${i}`, ip: `10.1.8.${30 + i}`, podCIDR: `10.244.${i}.0/24` });
  return nodes;
}

export default async function (report: Report) {
  // 1. Listing 1000 pods as a Table.
  const c = Cluster.create({ seed: 1, nodes: workers(10) });
  c.client.create(R.deployments, "default", deploymentBody("web", "nginx", 1000));
  c.runUntilIdle(60_000);
  const all = { method: "GET", path: "/api/v1/namespaces/default/pods", query: {}, accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", prefix: "" };
  const pods = JSON.parse(serveKube(c, all).body) as { rows: unknown[] };
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    serveKube(c, all);
    times.push(performance.now() - t0);
  }
  report(`list ${pods.rows.length} pods as a Table (serveKube, median of 20)`, `${median(times).toFixed(1)} ms`);

  if (!haveKubectl) {
    report("test/cmd served assertions", "skipped: no /usr/bin/kubectl");
    return;
  }
  const h = await startHarness();
  try {
    // 2. The test/cmd pass rate.
    let passed = 0;
    const failures: string[] = [];
    for (const [i, tc] of CASES.entries()) {
      const ns = `bench-${i}`;
      try {
        await h.kubectl(["create", "namespace", ns]);
        await tc.run(h.kubectl, ns);
        passed++;
      } catch (e) {
        failures.push(`${tc.name}: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    report("test/cmd served assertions passed (real kubectl)", `${passed}/${CASES.length} (${((100 * passed) / CASES.length).toFixed(0)}%)`, "100%");
    for (const f of failures) console.log(`    FAILED ${f}`);

    // 3. kubectl get pods, as kubectl times the request (its own start excluded).
    await h.kubectl(["create", "deployment", "rt", "--image=nginx", "--replicas=3"]);
    await h.kubectl(["get", "pods"]); // discovery cached
    const rts: number[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await h.kubectl(["get", "pods", "-v=6"]);
      // klog's text form (older kubectl) or its structured form (1.33: "Response" ... milliseconds=N).
      const m = /GET https:\/\/\S+\/api\/v1\/namespaces\/default\/pods\?limit=500 200 OK in (\d+) milliseconds/.exec(r.stderr) ?? /verb="GET" url="https:\/\/[^"]+\/api\/v1\/namespaces\/default\/pods\?limit=500"[^\n]*status="200 OK"[^\n]*milliseconds=(\d+)/.exec(r.stderr);
      if (m) rts.push(Number(m[1]));
    }
    report(`kubectl get pods round trip (kubectl -v=6, median of ${rts.length})`, rts.length ? `${median(rts)} ms` : "not measured", "< 30 ms");
  } finally {
    await h.stop();
  }
}
