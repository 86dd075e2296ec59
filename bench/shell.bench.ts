// `kubectl get pods` through the terminal with 1000 pods in the namespace (target < 20 ms).
import { R } from "../src/engine/api/resources.js";
import { Cluster } from "../src/engine/cluster.js";
import { Session } from "../src/shell/session.js";
import type { Report } from "./run.js";

export default async function (report: Report): Promise<void> {
  const c = Cluster.create();
  for (let i = 0; i < 1000; i++) {
    c.api.create(R.pods, "default", { metadata: { name: `p-${String(i).padStart(4, "0")}`, labels: { app: "bench" } }, spec: { containers: [{ name: "c", image: "hub.laoma.cloud/library/httpd:2.4.58" }] } });
  }
  c.settle();
  c.runUntilIdle(60_000);
  const s = new Session(c);
  await s.run("kubectl get pods");
  const n = 20;
  const t0 = performance.now();
  let lines = 0;
  for (let i = 0; i < n; i++) lines = (await s.run("kubectl get pods")).stdout.split("\n").length - 1;
  report(`kubectl get pods, 1000 pods (${lines} lines), per run`, `${((performance.now() - t0) / n).toFixed(1)} ms`, "< 20 ms");
  const t1 = performance.now();
  for (let i = 0; i < n; i++) await s.run("kubectl get pods -o wide | grep -c Running");
  report("kubectl get pods -o wide | grep -c Running, per run", `${((performance.now() - t1) / n).toFixed(1)} ms`);
}
