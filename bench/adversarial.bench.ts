// Issue 18's figures on the Node server with the real terminal: the time to refuse
// `kubectl scale --replicas=2147483647` (HTTP exec round trip), peak RSS over the adversarial
// suite's worst cases (test/platform/adversarial.test.ts), and a bystander cluster's
// `kubectl get svc` (p50/p99) idle and while another cluster runs each of the longest lines.
// Figures on a shared 2-core machine are noisy: read them against the idle row.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNodeServer } from "../src/runtime/node-server.js";
import { sessionShell } from "../src/runtime/terminal.js";
import type { Report } from "./run.js";

const ADMIN = "bench-admin";

export default async function (report: Report) {
  const dir = mkdtempSync(join(tmpdir(), "servicelab-bench-adv-"));
  const s = await startNodeServer({ port: 0, dataDir: dir, allowAnonymous: true, adminKey: ADMIN, idleMs: 3_600_000, shell: sessionShell });
  const url = `http://127.0.0.1:${s.port}`;
  const cluster = async () => (await (await fetch(`${url}/v1/clusters`, { method: "POST" })).json()) as { id: string; token: string };
  const ex = async (c: { id: string; token: string }, command: string) => {
    const t = performance.now();
    const r = await fetch(`${url}/v1/clusters/${c.id}/exec`, { method: "POST", headers: { authorization: `Bearer ${c.token}` }, body: JSON.stringify({ command }) });
    const body = (await r.json()) as { stdout?: string; stderr?: string; message?: string };
    return { status: r.status, ms: performance.now() - t, ...body };
  };
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const fresh = async () => {
      const c = await cluster();
      await ex(c, "kubectl create deployment d --image=nginx");
      await ex(c, "kubectl get pods");
      return c;
    };
    // The first scale builds the ReplicaSet controller's client burst (30 pods); the rest come at
    // 20 a second on the cluster clock until podsPerCluster (300, system pods included).
    const times: number[] = [];
    const atLimit: number[] = [];
    const invalid: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await fresh();
      times.push((await ex(c, "kubectl scale deploy d --replicas=2147483647")).ms);
      atLimit.push((await ex(c, "kubectl scale deploy d --replicas=2147483646")).ms);
      invalid.push((await ex(c, "kubectl scale deploy d --replicas=99999999999")).ms);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    report("kubectl scale --replicas=2147483647, first (builds the burst of 30 pods)", `${med(times).toFixed(1)} ms`, "< 50 ms");
    report("kubectl scale --replicas=2147483647, again at once", `${med(atLimit).toFixed(1)} ms`, "< 50 ms");
    report("kubectl scale --replicas=99999999999 (the apiserver's 422)", `${med(invalid).toFixed(1)} ms`);

    // The suite's worst cases, one cluster, peak RSS over all of them.
    const victim = await fresh();
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const worst = [
      "kubectl scale deploy d --replicas=2147483647",
      "for i in $(seq 1 3000); do printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: cm-%d\\n---\\n' $i; done > /tmp/many.yaml",
      "kubectl apply -f /tmp/many.yaml > /dev/null",
      "kubectl delete cm --all > /dev/null",
      "while true; do :; done",
      "while true; do echo x; done | head -3",
      "for i in $(seq 1 20000); do echo 0123456789012345678901234567890123456789; done | wc -l",
      "echo a | sed ':a;s/^/x/;ba'",
      "awk 'BEGIN { while (1) {} }'",
      ":(){ :|:& };:",
      "printf '%*s' 2000000 x",
      "printf '%*s' 500000 x > /tmp/big1",
      "printf '%*s' 600000 x > /tmp/big2",
      "mkdir /tmp/d && cd /tmp/d && touch f{1..5000} 2>/dev/null; cd; rm -rf /tmp/d /tmp/big*",
      `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: deep\\ndata:\\n  a: ${deep}\\n' > /tmp/deep.yaml; kubectl apply -f /tmp/deep.yaml`,
      "x=aaaaaaaaaaaaaaaa; for i in $(seq 1 30); do x=$x$x; done",
    ];
    for (const w of worst) {
      const r = await ex(victim, w);
      const what = r.status !== 200 ? `${r.status}` : (r.stderr ?? "").split("\n")[0].slice(0, 40);
      report(`  ${w.length > 56 ? w.slice(0, 53) + "..." : w}`, `${r.ms.toFixed(0)} ms`, what || undefined);
    }
    report("peak server RSS over the suite's worst cases", `${(peak / 2 ** 20).toFixed(0)} MB`, "< 1 GB");

    // A bystander's kubectl get svc, idle and while the victim runs each of the longest lines.
    const bystander = await cluster();
    await ex(bystander, "kubectl get svc");
    const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) idle.push((await ex(bystander, "kubectl get svc")).ms);
    report("bystander kubectl get svc, nothing else running: p50 / p99", `${pct(idle, 0.5).toFixed(0)} / ${pct(idle, 0.99).toFixed(0)} ms`);
    let worstP99 = 0;
    for (const w of ["while true; do :; done", "kubectl apply -f /tmp/many.yaml > /dev/null", "awk 'BEGIN { while (1) {} }'", "echo a | sed ':a;s/^/x/;ba'"]) {
      const lat: number[] = [];
      let done = false;
      const busy = ex(victim, w).then(() => (done = true));
      while (!done) lat.push((await ex(bystander, "kubectl get svc")).ms);
      await busy;
      if (w.startsWith("kubectl apply")) await ex(victim, "kubectl delete cm --all > /dev/null");
      worstP99 = Math.max(worstP99, pct(lat, 0.99));
      report(`bystander p50 / p99 during ${w.length > 34 ? w.slice(0, 31) + "..." : w} (${lat.length} requests)`, `${pct(lat, 0.5).toFixed(0)} / ${pct(lat, 0.99).toFixed(0)} ms`);
    }
    report("bystander kubectl get svc p99, worst of the above", `${worstP99.toFixed(0)} ms`, "< 100 ms");
  } finally {
    clearInterval(sampler);
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
