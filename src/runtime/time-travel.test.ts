// Time travel replays the journal from the cluster's origin: replaying every line gives back the
// live cluster exactly (objects, random streams, the terminal's files), a past line gives the
// cluster as it was then, and what cannot be replayed says why.
import { describe, expect, it } from "vitest";
import { ClusterCore, instantiate, labTemplate } from "./core.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { sessionShell } from "./terminal.js";
import { replayTo } from "./time-travel.js";

function fresh(lab: string, now: number): ClusterCore {
  const { state } = instantiate(labTemplate(lab, now, sessionShell), "c1", null, now);
  return ClusterCore.restore("c1", state, sessionShell);
}

const objects = (c: ClusterCore) => JSON.stringify(c.cluster.store.dump());

describe("time travel", () => {
  it("replaying every line gives back the live cluster, and a past line the cluster as it was", async () => {
    let now = Date.now();
    const core = fresh("clusterip-web", now);
    const lines = [
      "kubectl create service clusterip web --tcp=8080:80",
      "IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')",
      "for i in {1..30}; do curl -s $IP:8080; done | sort | uniq -c",
      "kubectl scale deployment web --replicas 5",
      "sleep 20",
      "echo note > /root/note; kubectl get pods -o name | wc -l",
    ];
    const after: string[] = [];
    for (const l of lines) {
      now += 1500;
      await core.exec(l, now, DEFAULT_LIMITS);
      after.push(objects(core));
    }
    const all = await replayTo(core, lines.length, sessionShell, DEFAULT_LIMITS);
    expect(objects(all)).toBe(objects(core));
    expect(JSON.stringify(all.cluster.snapshotMeta().rng)).toBe(JSON.stringify(core.cluster.snapshotMeta().rng));
    expect(all.journal.all.map((e) => e.stdout)).toEqual(core.journal.all.map((e) => e.stdout));
    expect((await all.exec("cat /root/note", now + 1000, DEFAULT_LIMITS)).stdout).toBe("note\n");
    const third = await replayTo(core, 3, sessionShell, DEFAULT_LIMITS);
    expect(objects(third)).toBe(after[2]);
    expect(third.cluster.store.list("pods", "default").filter((p) => p.metadata.name!.startsWith("web-"))).toHaveLength(3);
    const start = await replayTo(core, 0, sessionShell, DEFAULT_LIMITS);
    expect(start.cluster.store.get("services", "default", "web")).toBeUndefined();
  });

  it("replays the hosted editor's answers", async () => {
    let now = Date.now();
    const core = fresh("clusterip-web", now);
    core.onEdit = (e) => setTimeout(() => core.finishEdit(e.id, e.text.replace("replicas: 3", "replicas: 2")));
    const r = await core.exec("kubectl edit deployment web", (now += 1000), DEFAULT_LIMITS, { hostedEditor: true });
    expect(r.stdout).toBe("deployment.apps/web edited\n");
    const past = await replayTo(core, 1, sessionShell, DEFAULT_LIMITS);
    expect((past.cluster.store.get("deployments.apps", "default", "web") as unknown as { spec: { replicas: number } }).spec.replicas).toBe(2);
  });

  it("says why when it cannot replay", async () => {
    const core = fresh("empty", Date.now());
    await core.exec("kubectl create namespace a", Date.now(), DEFAULT_LIMITS);
    await expect(replayTo(core, 7, sessionShell, DEFAULT_LIMITS)).rejects.toThrow(/no command 7/);
    core.journal.markExternalWrite();
    await core.exec("kubectl create namespace b", Date.now(), DEFAULT_LIMITS);
    await expect(replayTo(core, 2, sessionShell, DEFAULT_LIMITS)).rejects.toThrow(/Kubernetes API/);
    expect(objects(await replayTo(core, 1, sessionShell, DEFAULT_LIMITS))).toContain('"name":"a"');
  });
});
