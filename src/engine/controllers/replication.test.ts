import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { KObject, ReplicationController } from "../api/types.js";
import { isStatusError } from "../api/status.js";
import { ReplicaSetController, REPLICATION_CONTROLLERS } from "./replicaset.js";
import { eventsOf, type Harness, newHarness, runPods } from "./testdata/harness.js";

function rc(replicas = 3, extra: Record<string, unknown> = {}): KObject {
  return {
    metadata: { name: "nginx" },
    spec: {
      replicas,
      template: { metadata: { labels: { app: "nginx" } }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
      ...extra,
    },
  };
}

const setup = (): Harness => newHarness((ctx) => [new ReplicaSetController(ctx, REPLICATION_CONTROLLERS)]);
const get = (h: Harness) => h.api.get(R.replicationcontrollers, "default", "nginx") as ReplicationController;
const live = (h: Harness) => h.pods("default").filter((p) => !p.metadata.deletionTimestamp);

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isStatusError(e)) return e.message;
    throw e;
  }
  return "";
}

describe("replication manager (the ReplicaSet controller over ReplicationControllers)", () => {
  it("defaults the selector, labels and replicas from the template as the apiserver does", () => {
    const h = setup();
    h.api.create(R.replicationcontrollers, "default", { metadata: { name: "nginx" }, spec: { template: (rc().spec as { template: unknown }).template } } as KObject);
    const o = get(h);
    expect(o.spec?.selector).toEqual({ app: "nginx" });
    expect(o.metadata.labels).toEqual({ app: "nginx" });
    expect(o.spec?.replicas).toBe(1);
    expect(o.metadata.generation).toBe(1);
  });

  it("creates the pods, owned by the RC, with replication-controller's events and status", () => {
    const h = setup();
    h.api.create(R.replicationcontrollers, "default", rc());
    runPods(h);
    const pods = live(h);
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.generateName).toBe("nginx-");
      expect(p.metadata.ownerReferences).toEqual([
        { apiVersion: "v1", kind: "ReplicationController", name: "nginx", uid: get(h).metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    const evs = eventsOf(h, "default").filter((e) => e.object === "ReplicationController/nginx");
    expect(evs.map((e) => [e.type, e.reason, e.component])).toEqual(Array(3).fill(["Normal", "SuccessfulCreate", "replication-controller"]));
    expect(evs.map((e) => e.message).sort()).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
    expect(get(h).status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
  });

  it("scales down with SuccessfulDelete and adopts matching orphans by its equality selector", () => {
    const h = setup();
    h.api.create(R.pods, "default", { metadata: { name: "orphan", labels: { app: "nginx", extra: "x" } }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    h.api.create(R.pods, "default", { metadata: { name: "other", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    h.api.create(R.replicationcontrollers, "default", rc(2));
    runPods(h);
    const owned = live(h).filter((p) => p.metadata.ownerReferences?.[0]?.kind === "ReplicationController");
    expect(owned.map((p) => p.metadata.name)).toContain("orphan");
    expect(owned).toHaveLength(2);
    h.api.patch(R.replicationcontrollers, "default", "nginx", "merge", { spec: { replicas: 0 } });
    runPods(h, { finishDeletes: true });
    expect(live(h).map((p) => p.metadata.name)).toEqual(["other"]);
    expect(eventsOf(h, "default").filter((e) => e.reason === "SuccessfulDelete")).toHaveLength(2);
  });

  it("validates with the apiserver's messages", () => {
    const h = setup();
    expect(refusal(() => h.api.create(R.replicationcontrollers, "default", { metadata: { name: "x" }, spec: {} } as KObject))).toBe(
      'ReplicationController "x" is invalid: [spec.selector: Required value, spec.template: Required value]',
    );
    expect(refusal(() => h.api.create(R.replicationcontrollers, "default", rc(1, { selector: { app: "web" } })))).toBe(
      'ReplicationController "nginx" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"nginx"}: `selector` does not match template `labels`',
    );
    expect(refusal(() => h.api.create(R.replicationcontrollers, "default", rc(-1)))).toBe(
      'ReplicationController "nginx" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });
});
