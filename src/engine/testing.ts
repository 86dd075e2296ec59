// Helpers for tests and benchmarks that drive a Cluster the way the lab guide does.

import { R } from "./api/resources.js";
import type { Deployment, KObject, Pod } from "./api/types.js";
import { Cluster } from "./cluster.js";
import type { ClusterConfig } from "./config.js";

export function testCluster(partial: Partial<ClusterConfig> = {}): Cluster {
  return Cluster.create({ freeze: true, ...partial });
}

/** `kubectl create deployment NAME --image=IMAGE --replicas=N` as the apiserver receives it. */
export function deploymentBody(name: string, image: string, replicas = 1, labels: Record<string, string> = { app: name }): KObject {
  const container = image.split("/").pop()!.split(":")[0].split("@")[0];
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: container, image }] } },
    },
  };
}

export function podsOf(c: Cluster, ns: string, selector?: string): Pod[] {
  return c.client.list(R.pods, ns, selector ? { labelSelector: selector } : {}).items as Pod[];
}

export function deployment(c: Cluster, ns: string, name: string): Deployment {
  return c.client.get(R.deployments, ns, name) as Deployment;
}

/** Advances the clock until the deployment's rollout is complete (as `kubectl rollout status`). */
export function waitRollout(c: Cluster, ns: string, name: string, maxMs = 600_000): void {
  const deadline = c.now() + maxMs;
  for (;;) {
    const d = deployment(c, ns, name);
    const want = d.spec.replicas ?? 1;
    const st = d.status ?? {};
    if (
      (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
      (st.updatedReplicas ?? 0) === want &&
      (st.replicas ?? 0) === want &&
      (st.availableReplicas ?? 0) === want
    ) {
      return;
    }
    const next = c.manager.nextTimer();
    if (next === undefined || next > deadline) throw new Error(`rollout of ${ns}/${name} did not finish: ${JSON.stringify(st)}`);
    c.advanceTo(next);
  }
}
