// `kubectl get pods` through the terminal with 1000 pods in the namespace (target < 20 ms).
import { R } from "../src/engine/api/resources.js";
import { Cluster } from "../src/engine/cluster.js";
import { Session } from "../src/shell/session.js";
import type { Report } from "./run.js";

export default async function (report: Report): Promise<void> {
  // Without just-bash's defense-in-depth first: its box stays process-wide once a session enabled it.
  await curlLoop(report, false);
  await curlLoop(report);
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

/** The lab guide's load-balancing check through the terminal: 100 curls piped to sort | uniq -c (target < 30 ms). */
export async function curlLoop(report: Report, defenseInDepth = true): Promise<void> {
  const c = Cluster.create({ seed: 1 });
  const s = new Session(c, { defenseInDepth });
  await s.run("kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3 && kubectl create service clusterip web --tcp=8080:80 && sleep 20");
  await s.run(`for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do kubectl exec $pod -- bash -c "echo $pod > htdocs/index.html"; done`);
  await s.run("IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')");
  const line = "for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c";
  let out = "";
  for (let i = 0; i < 3; i++) out = (await s.run(line)).stdout; // warm-up
  const n = 30;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) out = (await s.run(line)).stdout;
  const ms = (performance.now() - t0) / n;
  const total = [...out.matchAll(/^\s*(\d+) /gm)].reduce((a, m) => a + Number(m[1]), 0);
  report(`100-curl loop | sort | uniq -c (${total} requests${defenseInDepth ? "" : ", no defense-in-depth"}), per run`, `${ms.toFixed(1)} ms`, "< 30 ms");
}
