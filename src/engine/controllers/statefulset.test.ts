import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { ControllerRevision, KObject, Pod, StatefulSet } from "../api/types.js";
import { hashControllerRevision, StatefulSetController, statefulSetPatch } from "./statefulset.js";
import { eventsOf, type Harness, newHarness, runPods } from "./testdata/harness.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Compares with testdata/<name>.json; writes it when missing or when UPDATE_GOLDEN is set. */
function golden(name: string, value: unknown): void {
  const file = join(here, "testdata", `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN || (!existsSync(file) && process.env.CI !== "true")) writeFileSync(file, text);
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(file, "utf8")));
}

function web(replicas = 3, extra: Record<string, unknown> = {}): KObject {
  return {
    metadata: { name: "web" },
    spec: {
      serviceName: "nginx",
      replicas,
      selector: { matchLabels: { app: "nginx" } },
      template: {
        metadata: { labels: { app: "nginx" } },
        spec: { containers: [{ name: "nginx", image: "registry.k8s.io/nginx-slim:0.24", ports: [{ containerPort: 80, name: "web" }] }] },
      },
      ...extra,
    },
  };
}

function setup(): Harness {
  return newHarness((ctx) => [new StatefulSetController(ctx)]);
}

const sts = (h: Harness, name = "web") => h.api.get(R.statefulsets, "default", name) as StatefulSet;
const live = (h: Harness) => h.pods("default").filter((p) => !p.metadata.deletionTimestamp);
const names = (h: Harness) => live(h).map((p) => p.metadata.name).sort();

/** Makes only the named pending pods ready (others stay Pending). */
const readyOnly = (...n: string[]) => (p: Pod) => n.includes(p.metadata.name!);

describe("StatefulSetController", () => {
  it("creates web-0..2 one at a time, each after its predecessor is Running and Ready", () => {
    const h = setup();
    h.api.create(R.statefulsets, "default", web());
    h.settle();
    expect(names(h)).toEqual(["web-0"]);
    runPods(h, { ready: () => false });
    expect(names(h)).toEqual(["web-0"]);
    runPods(h, { ready: readyOnly("web-0") });
    expect(names(h)).toEqual(["web-0", "web-1"]);
    runPods(h, { ready: readyOnly("web-1") });
    expect(names(h)).toEqual(["web-0", "web-1", "web-2"]);
    runPods(h);

    const set = sts(h);
    const revs = h.api.list(R.controllerrevisions, "default").items as ControllerRevision[];
    expect(revs).toHaveLength(1);
    const hash = hashControllerRevision(statefulSetPatch(set.spec.template), 0);
    expect(revs[0].metadata.name).toBe(`web-${hash}`);
    expect(revs[0].metadata.labels).toEqual({ app: "nginx", "controller-revision-hash": hash });
    const p0 = h.api.get(R.pods, "default", "web-0") as Pod;
    expect(p0.metadata.generateName).toBe("web-");
    expect(p0.metadata.labels).toEqual({
      app: "nginx",
      "apps.kubernetes.io/pod-index": "0",
      "controller-revision-hash": `web-${hash}`,
      "statefulset.kubernetes.io/pod-name": "web-0",
    });
    expect(p0.spec.hostname).toBe("web-0");
    expect(p0.spec.subdomain).toBe("nginx");
    expect(set.status).toEqual({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: `web-${hash}`,
      updateRevision: `web-${hash}`,
      collisionCount: 0,
      availableReplicas: 3,
    });
    expect(eventsOf(h, "default").map((e) => [e.reason, e.message, e.component])).toEqual([
      ["SuccessfulCreate", "create Pod web-0 in StatefulSet web successful", "statefulset-controller"],
      ["SuccessfulCreate", "create Pod web-1 in StatefulSet web successful", "statefulset-controller"],
      ["SuccessfulCreate", "create Pod web-2 in StatefulSet web successful", "statefulset-controller"],
    ]);
    golden("statefulset-web", { statefulset: set, revisions: revs, pods: h.pods("default") });
  });

  it("scales down from the highest ordinal, one pod at a time", () => {
    const h = setup();
    h.api.create(R.statefulsets, "default", web(4));
    h.settle();
    runPods(h);
    expect(names(h)).toEqual(["web-0", "web-1", "web-2", "web-3"]);
    h.api.patch(R.statefulsets, "default", "web", "merge", { spec: { replicas: 1 } });
    h.settle();
    expect(h.pods("default").filter((p) => p.metadata.deletionTimestamp).map((p) => p.metadata.name)).toEqual(["web-3"]);
    runPods(h);
    expect(names(h)).toEqual(["web-0"]);
    const deletes = eventsOf(h, "default").filter((e) => e.reason === "SuccessfulDelete").map((e) => e.message);
    expect(deletes).toEqual([
      "delete Pod web-3 in StatefulSet web successful",
      "delete Pod web-2 in StatefulSet web successful",
      "delete Pod web-1 in StatefulSet web successful",
    ]);
    expect(sts(h).status).toMatchObject({ replicas: 1, readyReplicas: 1, availableReplicas: 1 });
  });

  it("Parallel creates every pod at once; ordinals.start shifts the names", () => {
    const h = setup();
    h.api.create(R.statefulsets, "default", web(3, { podManagementPolicy: "Parallel", ordinals: { start: 5 } }));
    h.settle();
    expect(names(h)).toEqual(["web-5", "web-6", "web-7"]);
    expect((h.api.get(R.pods, "default", "web-7") as Pod).metadata.labels?.["apps.kubernetes.io/pod-index"]).toBe("7");
  });

  it("rolls from the highest ordinal down to the partition; rollout restart rolls all", () => {
    const h = setup();
    h.api.create(R.statefulsets, "default", web(3, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } }));
    h.settle();
    runPods(h);
    const rev1 = sts(h).status!.currentRevision!;
    h.api.patch(R.statefulsets, "default", "web", "strategic", { spec: { template: { spec: { containers: [{ name: "nginx", image: "registry.k8s.io/nginx-slim:0.27" }] } } } });
    h.settle();
    const rev2 = sts(h).status!.updateRevision!;
    expect(rev2).not.toBe(rev1);
    expect(h.pods("default").filter((p) => p.metadata.deletionTimestamp).map((p) => p.metadata.name)).toEqual(["web-2"]);
    runPods(h, { ready: () => false });
    // web-2 is back at the new revision but not ready: web-1 waits.
    expect((h.api.get(R.pods, "default", "web-2") as Pod).metadata.labels?.["controller-revision-hash"]).toBe(rev2);
    expect((h.api.get(R.pods, "default", "web-2") as Pod).spec.containers[0].image).toBe("registry.k8s.io/nginx-slim:0.27");
    expect(h.pods("default").filter((p) => p.metadata.deletionTimestamp)).toHaveLength(0);
    runPods(h);
    const rev = (n: string) => (h.api.get(R.pods, "default", n) as Pod).metadata.labels?.["controller-revision-hash"];
    expect([rev("web-0"), rev("web-1"), rev("web-2")]).toEqual([rev1, rev2, rev2]);
    expect(sts(h).status).toMatchObject({ currentRevision: rev1, updateRevision: rev2, currentReplicas: 1, updatedReplicas: 2 });

    // A deleted pod below the partition comes back at the current revision.
    h.api.delete(R.pods, "default", "web-0");
    runPods(h);
    expect(rev("web-0")).toBe(rev1);

    // Partition 0 finishes the rollout; then kubectl rollout restart makes a third revision.
    h.api.patch(R.statefulsets, "default", "web", "merge", { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    runPods(h);
    expect(sts(h).status).toMatchObject({ currentRevision: rev2, updateRevision: rev2, currentReplicas: 3, updatedReplicas: 3 });
    h.api.patch(R.statefulsets, "default", "web", "strategic", { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:05:00Z" } } } } });
    h.settle();
    runPods(h);
    const rev3 = sts(h).status!.updateRevision!;
    expect([rev("web-0"), rev("web-1"), rev("web-2")]).toEqual([rev3, rev3, rev3]);
    // web-2 (partition 1), web-1 and web-0 (partition 0), then all three again for the restart:
    // the recorder folds repeats into one event with a count.
    const deletes = eventsOf(h, "default").filter((e) => e.reason === "SuccessfulDelete").map((e) => [e.message, e.count]);
    expect(deletes).toEqual([
      ["delete Pod web-2 in StatefulSet web successful", 2],
      ["delete Pod web-1 in StatefulSet web successful", 2],
      ["delete Pod web-0 in StatefulSet web successful", 2],
    ]);
    const revisions = (h.api.list(R.controllerrevisions, "default").items as ControllerRevision[]).map((r) => [r.metadata.name, r.revision]);
    expect(revisions.sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      [rev1, 1],
      [rev2, 2],
      [rev3, 3],
    ]);
  });

  it("OnDelete leaves pods alone until they are deleted", () => {
    const h = setup();
    h.api.create(R.statefulsets, "default", web(2, { updateStrategy: { type: "OnDelete" } }));
    h.settle();
    runPods(h);
    h.api.patch(R.statefulsets, "default", "web", "strategic", { spec: { template: { metadata: { annotations: { x: "1" } } } } });
    runPods(h);
    expect(h.pods("default").filter((p) => p.metadata.deletionTimestamp)).toHaveLength(0);
    expect(sts(h).status).toMatchObject({ currentReplicas: 2 });
    expect(sts(h).status).not.toHaveProperty("updatedReplicas");
    h.api.delete(R.pods, "default", "web-1");
    runPods(h);
    expect(sts(h).status).toMatchObject({ currentReplicas: 1, updatedReplicas: 1 });
  });
});
