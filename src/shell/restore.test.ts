// A cluster saved and restored at any point of a lab continues exactly as the one that was not:
// the same objects, revisions, events, kubelet and kube-proxy state at the end. A host restores
// clusters on every wake and restart, so anything kept in memory that a restore does not give
// back (a correlator's index, a status field that depends on when it was built) shows up here.
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { Session, type SessionState } from "./session.js";

const LINES = [
  "kubectl create deployment web --image=httpd --replicas=3",
  "kubectl expose deployment web --port=80",
  "sleep 20",
  "kubectl run db --image=mysql",
  "kubectl scale deployment web --replicas=5",
  "sleep 30",
  "for i in 1 2 3 4 5; do curl -s $(kubectl get svc web -o jsonpath='{.spec.clusterIP}') >/dev/null; done",
  "kubectl rollout restart deployment web",
  "sleep 40",
  `kubectl -n kube-system get cm kube-proxy -o yaml | sed 's/mode: ""/mode: "ipvs"/' | kubectl apply -f - && kubectl -n kube-system rollout restart ds kube-proxy`,
  "sleep 60",
  `kubectl patch svc web -p '{"spec":{"type":"NodePort"}}'`,
  "kubectl scale deployment web --replicas=2",
  "sleep 120",
  "kubectl delete pod db",
  "sleep 30",
];

async function run(restoreAt?: number): Promise<{ state: string; outputs: string[] }> {
  let cluster = Cluster.create({ seed: 9 });
  let session = new Session(cluster);
  const outputs: string[] = [];
  for (let i = 0; i < LINES.length; i++) {
    if (i === restoreAt) {
      const snapshot = JSON.parse(JSON.stringify(cluster.snapshot()));
      const terminal = JSON.parse(JSON.stringify(session.save())) as SessionState;
      cluster = Cluster.restore(snapshot);
      session = new Session(cluster, { state: terminal });
    }
    const r = await session.run(LINES[i]);
    outputs.push(`${r.exitCode} ${r.stdout}${r.stderr}`);
  }
  return { state: JSON.stringify(cluster.snapshot()), outputs };
}

describe("a restored cluster", () => {
  it("continues a lab exactly as the cluster it was saved from", async () => {
    const straight = await run();
    // A crash-looping pod backing off, a rollout, a proxy mode switch, a long wait.
    for (const at of [6, 9, 11, 14]) {
      const restored = await run(at);
      expect(restored.outputs, `restored before line ${at}`).toEqual(straight.outputs);
      expect(restored.state, `restored before line ${at}`).toBe(straight.state);
    }
  }, 120_000);
});
