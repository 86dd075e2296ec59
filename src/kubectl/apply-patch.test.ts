// kubectl apply's three-way patch. The expected patches are the real kubectl 1.33's request
// bodies for the same inputs (`kubectl apply -v=9`); test/kubeapi/apply.e2e.test.ts compares
// them with the real kubectl on every run where it is installed.
import { describe, expect, it } from "vitest";
import { PATCH_META } from "../engine/api/patch/meta.js";
import { strategicMergePatch } from "../engine/api/patch/strategic.js";
import type { JsonObject } from "../engine/api/patch/json.js";
import { kubectlApplyPatch, lastAppliedOf, threeWayJsonMergePatch, threeWayStrategicPatch, withLastApplied } from "./apply-patch.js";
import { goCompactJson } from "./output.js";

const service = (type: string, port: number): JsonObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { creationTimestamp: null, labels: { app: "web" }, name: "web" },
  spec: { ports: [{ port, protocol: "TCP", targetPort: 80 }], selector: { app: "web" }, type },
  status: { loadBalancer: {} },
});

describe("kubectl apply's patch", () => {
  it("the annotation: the file's object with its namespace and annotations: {}, keys sorted, HTML escaped, a newline", () => {
    expect(lastAppliedOf({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c" }, data: { c: "<&>" } }, "default")).toBe(
      '{"apiVersion":"v1","data":{"c":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c","namespace":"default"}}\n',
    );
  });

  it("lab guide 5.2 -> 5.3: port 8080 deleted by merge key, 80 added, the order set", () => {
    const np = withLastApplied(service("NodePort", 8080), "default");
    const live = structuredClone(np) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    Object.assign(live.metadata, { creationTimestamp: "2026-12-01T22:16:01Z", namespace: "default", resourceVersion: "147", uid: "3ebac0c8-60c6-4fc3-9961-4a6a29504f7f" });
    Object.assign(live.spec, { clusterIP: "10.99.50.206", clusterIPs: ["10.99.50.206"], externalTrafficPolicy: "Cluster", internalTrafficPolicy: "Cluster", ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack", sessionAffinity: "None" });
    live.spec.ports[0].nodePort = 31676;
    const lb = withLastApplied(service("LoadBalancer", 80), "default");
    const { type, patch } = kubectlApplyPatch({ kind: "Service" }, live, lb);
    expect(type).toBe("strategic");
    // The real kubectl's body, byte for byte.
    const annotation = JSON.stringify(lastAppliedOf(service("LoadBalancer", 80), "default"));
    expect(goCompactJson(patch)).toBe(
      `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":${annotation}},"creationTimestamp":null},"spec":{"$setElementOrder/ports":[{"port":80}],"ports":[{"port":80,"protocol":"TCP","targetPort":80},{"$patch":"delete","port":8080}],"type":"LoadBalancer"}}`,
    );
    const after = strategicMergePatch(live, patch, PATCH_META.Service) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(after.spec.ports).toEqual([{ port: 80, protocol: "TCP", targetPort: 80 }]);
    // Applied again: only the file's creationTimestamp: null differs from the live object ("configured").
    expect(kubectlApplyPatch({ kind: "Service" }, { ...after, metadata: { ...after.metadata, creationTimestamp: "2026-12-01T22:16:01Z" } }, lb).patch).toEqual({ metadata: { creationTimestamp: null } });
  });

  it("containers by name, env by name, ports by containerPort, volumes with $retainKeys; a dropped field is null", () => {
    const c = (env: JsonObject[], extra: JsonObject = {}) => ({ spec: { template: { spec: { containers: [{ name: "api", image: "nginx", env, ...extra }], volumes: [{ name: "conf", configMap: { name: "a" } }] } } } });
    const original = c([{ name: "A", value: "1" }, { name: "B", value: "2" }], { args: ["x"] });
    const current = structuredClone(original) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    current.spec.template.spec.containers[0].terminationMessagePath = "/dev/termination-log";
    const modified = c([{ name: "C", value: "3" }, { name: "A", value: "1" }]);
    (modified.spec.template.spec.volumes[0] as JsonObject).configMap = { name: "b" };
    expect(threeWayStrategicPatch(original, modified, current, PATCH_META.Deployment)).toEqual({
      spec: {
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "api" }],
            "$setElementOrder/volumes": [{ name: "conf" }],
            containers: [{ "$setElementOrder/env": [{ name: "C" }, { name: "A" }], args: null, env: [{ name: "C", value: "3" }, { $patch: "delete", name: "B" }], name: "api" }],
            volumes: [{ $retainKeys: ["configMap", "name"], configMap: { name: "b" }, name: "conf" }],
          },
        },
      },
    });
  });

  it("a merging list of strings: $deleteFromPrimitiveList and $setElementOrder", () => {
    const o = { metadata: { finalizers: ["a", "b"] } };
    const m = { metadata: { finalizers: ["c", "b"] } };
    expect(threeWayStrategicPatch(o, m, o, PATCH_META.ConfigMap)).toEqual({ metadata: { "$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["c", "b"], finalizers: ["c"] } });
  });

  it("custom resources: a JSON merge patch, three-way (only what the last apply set is deleted)", () => {
    const original = { spec: { addresses: ["10.1.8.40-10.1.8.80"], autoAssign: false, avoidBuggyIPs: true } };
    const current = { spec: { ...original.spec, serviceAllocation: { priority: 1 } }, status: {} };
    const modified = { spec: { addresses: ["10.1.8.40-10.1.8.60"], autoAssign: true } };
    expect(threeWayJsonMergePatch(original, modified, current)).toEqual({ spec: { addresses: ["10.1.8.40-10.1.8.60"], autoAssign: true, avoidBuggyIPs: null } });
  });
});
