// The real kubectl against the Node server (in process, its Kubernetes API's TLS port, the served
// kubeconfig): `kubectl get pods` round trip without kubectl's own start, read two ways —
// kubectl -v=6's own request timings, and the wall time of `get pods` less that of
// `kubectl version --client` (the same binary starting and exiting) — and listing 1000 pods as
// a Table (kubectl get pods), then `kubectl exec` through the WebSocket stream.
// kubectl 1.33 is run directly (the /usr/bin/kubectl dispatcher adds a process and a /version).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Report } from "./run.js";
import { startNodeServer } from "../src/runtime/node-server.js";
import { sessionShell } from "../src/runtime/terminal.js";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";
const ADMIN = "bench-admin";
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(1)} ms`;

export default async function (report: Report) {
  if (!existsSync(KUBECTL)) {
    report("kubectl benchmarks skipped", `${KUBECTL} missing`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "servicelab-bench-kubectl-"));
  const s = await startNodeServer({ port: 0, kubePort: 0, dataDir: dir, allowAnonymous: true, adminKey: ADMIN, idleMs: 3_600_000, shell: sessionShell });
  const url = `http://127.0.0.1:${s.port}`;
  const post = async (path: string, body: unknown, token?: string) => (await (await fetch(url + path, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {}, body: JSON.stringify(body) })).json()) as any;
  const big = { requestsPerSecond: 1e9, burst: 1e9, podsPerCluster: 2000, objectsPerCluster: 10_000 };
  const key: string = (await post("/v1/tenants", { name: "bench", limits: big }, ADMIN)).apiKey;
  const c = await post("/v1/clusters", {}, key);
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, await (await fetch(`${url}/v1/clusters/${c.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.token}` } })).text());
  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: join(dir, "home") };
  // Asynchronous: the server answering kubectl runs on this event loop.
  const kubectl = (args: string[]) =>
    new Promise<{ out: string; err: string; ms: number }>((res, rej) => {
      const t0 = performance.now();
      execFile(KUBECTL, args, { env, encoding: "utf8", maxBuffer: 64 << 20 }, (e, out, err) => (e ? rej(new Error(`kubectl ${args.join(" ")}: ${err}`)) : res({ out, err, ms: performance.now() - t0 })));
    });
  /** The sum of kubectl -v=6's response lines' times (1.33: `"Response" ... milliseconds=N`): its time on the wire. */
  const wire = (err: string) => [...err.matchAll(/(?: in (\d+) milliseconds|"Response".* milliseconds=(\d+))/g)].reduce((a, m) => a + Number(m[1] ?? m[2]), 0);

  // Discovery is cached under $HOME/.kube/cache after the first call, as on a user's machine.
  await kubectl(["get", "pods"]);
  const N = 15;
  const client: number[] = [];
  const full: number[] = [];
  const onWire: number[] = [];
  for (let i = 0; i < N; i++) {
    client.push((await kubectl(["version", "--client"])).ms);
    full.push((await kubectl(["get", "pods", "-A"])).ms);
    onWire.push(wire((await kubectl(["get", "pods", "-A", "-v=6"])).err));
  }
  report("kubectl get pods -A: requests' time (kubectl -v=6), median", ms(med(onWire)), "< 30 ms");
  report("kubectl get pods -A: wall less `kubectl version --client`, median", ms(med(full) - med(client)), "< 30 ms");
  report("  kubectl version --client (kubectl's own start), median", ms(med(client)));

  // 1000 pods (a Deployment's; past the nodes' 110 pods each the rest stay Pending, as on
  // kubeadm), listed as kubectl lists them: a Table.
  await kubectl(["create", "deployment", "many", "--image=nginx", "--replicas=1000"]);
  await kubectl(["get", "pods"]);
  const table: number[] = [];
  const tableWire: number[] = [];
  let rows = 0;
  for (let i = 0; i < 7; i++) {
    const r = await kubectl(["get", "pods"]);
    rows = r.out.trim().split("\n").length - 1;
    table.push(r.ms);
    tableWire.push(wire((await kubectl(["get", "pods", "-v=6"])).err));
  }
  report(`kubectl get pods, ${rows} pods as a Table: requests' time, median`, ms(med(tableWire)));
  report(`kubectl get pods, ${rows} pods: wall less kubectl's start, median`, ms(med(table) - med(client)));

  // kubectl exec over the WebSocket stream (v5.channel.k8s.io).
  const pod = (await kubectl(["get", "pods", "--field-selector=status.phase=Running", "-o", "jsonpath={.items[0].metadata.name}"])).out;
  const ex: number[] = [];
  for (let i = 0; i < 7; i++) ex.push((await kubectl(["exec", pod, "--", "hostname"])).ms);
  report("kubectl exec pod -- hostname: wall less kubectl's start, median", ms(med(ex) - med(client)));
  report("(figures are noisy: the machine is shared)", "");
  await s.close();
}
