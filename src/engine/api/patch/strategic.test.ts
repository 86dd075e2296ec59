import { describe, expect, it } from "vitest";
import { PATCH_META, lookupField } from "./meta.js";
import { strategicMergePatch } from "./strategic.js";
import { deepFreeze, statusOf } from "./testutil.js";

const DEP = PATCH_META.Deployment;
const POD = PATCH_META.Pod;
const SVC = PATCH_META.Service;

const deployment = () =>
  deepFreeze({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web-28",
      labels: { app: "web" },
      finalizers: ["a.example/x", "b.example/y"],
      ownerReferences: [{ apiVersion: "v1", kind: "Thing", name: "t", uid: "u1" }],
    },
    spec: {
      replicas: 10,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web", track: "stable" } },
        spec: {
          containers: [
            {
              name: "nginx",
              image: "hub.laoma.cloud/library/nginx:1.28",
              imagePullPolicy: "IfNotPresent",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
              volumeMounts: [{ name: "webcontent", mountPath: "/usr/share/nginx/html" }],
            },
            { name: "sidecar", image: "busybox" },
          ],
          volumes: [{ name: "webcontent", configMap: { name: "web" } }],
          tolerations: [{ key: "k1", operator: "Exists" }],
        },
      },
    },
  });

const service = () =>
  deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", labels: { app: "web" } },
    spec: {
      type: "ClusterIP",
      clusterIP: "10.111.90.183",
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 80 }],
      sessionAffinity: "None",
    },
  });

const tmpl = (o: any) => o.spec.template.spec;
const c0 = (o: any) => tmpl(o).containers[0];

describe("strategicMergePatch: what kubectl users type", () => {
  it("kubectl patch svc web -p '{\"spec\":{\"sessionAffinity\":\"ClientIP\"}}'", () => {
    const out = strategicMergePatch(service(), { spec: { sessionAffinity: "ClientIP" } }, SVC) as any;
    expect(out.spec).toEqual({ ...service().spec, sessionAffinity: "ClientIP" });
  });

  it("changes a service to NodePort, merging the port by its port number", () => {
    const out = strategicMergePatch(service(), { spec: { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] } }, SVC) as any;
    expect(out.spec.type).toBe("NodePort");
    expect(out.spec.ports).toEqual([{ name: "http", port: 80, protocol: "TCP", targetPort: 80, nodePort: 30080 }]);
  });

  it("adds a second service port: without $setElementOrder a new item goes first (mergeSortedSlice)", () => {
    const out = strategicMergePatch(service(), { spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] } }, SVC) as any;
    expect(out.spec.ports.map((p: any) => p.port)).toEqual([443, 80]);
  });

  it("sets the image of a container by name, leaving the others alone", () => {
    const patch = { spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(c0(out)).toEqual({ ...c0(deployment()), image: "nginx:1.29" });
    expect(tmpl(out).containers[1]).toEqual({ name: "sidecar", image: "busybox" });
  });

  it("adds, replaces and deletes an env var by name", () => {
    const env = (e: unknown[]) => ({ spec: { template: { spec: { containers: [{ name: "nginx", env: e }] } } } });
    const added = strategicMergePatch(deployment(), env([{ name: "C", value: "3" }]), DEP) as any;
    // upstream puts patch items that the live list lacks ahead of the live items
    expect(c0(added).env).toEqual([
      { name: "C", value: "3" },
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ]);
    const ordered = strategicMergePatch(
      deployment(),
      { spec: { template: { spec: { containers: [{ name: "nginx", "$setElementOrder/env": [{ name: "A" }, { name: "B" }, { name: "C" }], env: [{ name: "C", value: "3" }] }] } } } },
      DEP,
    ) as any;
    expect(c0(ordered).env.map((e: any) => e.name)).toEqual(["A", "B", "C"]);
    const replaced = strategicMergePatch(deployment(), env([{ name: "A", value: "one" }]), DEP) as any;
    expect(c0(replaced).env).toEqual([
      { name: "A", value: "one" },
      { name: "B", value: "2" },
    ]);
    const deleted = strategicMergePatch(deployment(), env([{ name: "A", $patch: "delete" }]), DEP) as any;
    expect(c0(deleted).env).toEqual([{ name: "B", value: "2" }]);
  });

  it("an env var with valueFrom replacing value: null drops the key", () => {
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [{ name: "nginx", env: [{ name: "B", value: null, valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }] }],
          },
        },
      },
    };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(c0(out).env[1]).toEqual({ name: "B", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } });
  });

  it("$patch: delete removes a container by name", () => {
    const patch = { spec: { template: { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(tmpl(out).containers.map((c: any) => c.name)).toEqual(["nginx"]);
  });

  it("$patch: replace on a list replaces it wholesale", () => {
    const patch = { spec: { template: { spec: { containers: [{ name: "only", image: "x" }, { $patch: "replace" }] } } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(tmpl(out).containers).toEqual([{ name: "only", image: "x" }]);
  });

  it("$patch: replace / delete on a map", () => {
    const replaced = strategicMergePatch(
      deployment(),
      { spec: { template: { metadata: { labels: { app: "x", $patch: "replace" } } } } },
      DEP,
    ) as any;
    expect(replaced.spec.template.metadata.labels).toEqual({ app: "x" });
    const emptied = strategicMergePatch(deployment(), { metadata: { labels: { $patch: "delete" } } }, DEP) as any;
    expect(emptied.metadata.labels).toEqual({});
  });

  it("lists without a merge strategy are replaced (tolerations)", () => {
    const out = strategicMergePatch(
      deployment(),
      { spec: { template: { spec: { tolerations: [{ key: "k2", operator: "Exists" }] } } } },
      DEP,
    ) as any;
    expect(tmpl(out).tolerations).toEqual([{ key: "k2", operator: "Exists" }]);
    expect(lookupField(DEP, "spec.template.spec.tolerations").strategies).toEqual([]);
  });

  it("ports merge on containerPort, volumeMounts on mountPath, volumes on name", () => {
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: "nginx",
                ports: [{ containerPort: 80, name: "http" }, { containerPort: 443 }],
                volumeMounts: [{ mountPath: "/usr/share/nginx/html", readOnly: true }],
              },
            ],
            volumes: [{ name: "webcontent", configMap: { name: "web", items: [{ key: "index29.html", path: "index.html" }] } }],
          },
        },
      },
    };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(c0(out).ports).toEqual([{ containerPort: 80, protocol: "TCP", name: "http" }, { containerPort: 443 }]);
    expect(c0(out).volumeMounts).toEqual([{ name: "webcontent", mountPath: "/usr/share/nginx/html", readOnly: true }]);
    expect(tmpl(out).volumes[0].configMap.items).toHaveLength(1);
  });

  it("kubectl rollout restart's patch adds a template annotation", () => {
    const patch = { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2025-05-01T00:00:00Z" } } } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(out.spec.template.metadata).toEqual({
      labels: { app: "web", track: "stable" },
      annotations: { "kubectl.kubernetes.io/restartedAt": "2025-05-01T00:00:00Z" },
    });
  });

  it("null deletes a key; null for a missing key is dropped", () => {
    const out = strategicMergePatch(service(), { spec: { clusterIP: null, nope: null }, metadata: { labels: { app: null } } }, SVC) as any;
    expect("clusterIP" in out.spec).toBe(false);
    expect("nope" in out.spec).toBe(false);
    expect(out.metadata.labels).toEqual({});
  });

  it("a new subtree loses its nulls and directives", () => {
    const out = strategicMergePatch(service(), { spec: { externalTrafficPolicy: "Local", x: { a: null, b: { $patch: "delete" }, c: 1 } } }, SVC) as any;
    expect(out.spec.x).toEqual({ c: 1 });
  });
});

describe("strategicMergePatch: primitive lists and parallel directives", () => {
  it("finalizers merge as a set", () => {
    const out = strategicMergePatch(deployment(), { metadata: { finalizers: ["b.example/y", "c.example/z"] } }, DEP) as any;
    expect(out.metadata.finalizers).toEqual(["a.example/x", "b.example/y", "c.example/z"]);
  });

  it("$deleteFromPrimitiveList/finalizers removes entries", () => {
    const out = strategicMergePatch(deployment(), { metadata: { "$deleteFromPrimitiveList/finalizers": ["a.example/x"] } }, DEP) as any;
    expect(out.metadata.finalizers).toEqual(["b.example/y"]);
  });

  it("a malformed $deleteFromPrimitiveList key is a 400", () => {
    expect(statusOf(() => strategicMergePatch(deployment(), { metadata: { $deleteFromPrimitiveList: ["x"] } }, DEP))).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: "invalid patch format of primitive list",
    });
  });

  it("ownerReferences merge by uid", () => {
    const out = strategicMergePatch(
      deployment(),
      { metadata: { ownerReferences: [{ uid: "u2", kind: "Other", name: "o", apiVersion: "v1" }, { uid: "u1", controller: true }] } },
      DEP,
    ) as any;
    expect(out.metadata.ownerReferences.map((r: any) => [r.uid, r.controller ?? false])).toEqual([
      ["u2", false],
      ["u1", true],
    ]);
  });
});

describe("strategicMergePatch: $setElementOrder and $retainKeys", () => {
  it("$setElementOrder reorders a merged list", () => {
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: "nginx",
                "$setElementOrder/env": [{ name: "C" }, { name: "B" }, { name: "A" }],
                env: [{ name: "C", value: "3" }],
              },
            ],
          },
        },
      },
    };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(c0(out).env).toEqual([
      { name: "C", value: "3" },
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
  });

  it("$setElementOrder on containers keeps server-only items in their place", () => {
    const patch = {
      spec: {
        template: {
          spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "nginx" }] },
        },
      },
    };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(tmpl(out).containers.map((c: any) => c.name)).toEqual(["sidecar", "nginx"]);
  });

  it("$setElementOrder on a primitive list", () => {
    const out = strategicMergePatch(
      deployment(),
      { metadata: { "$setElementOrder/finalizers": ["b.example/y", "a.example/x"] } },
      DEP,
    ) as any;
    expect(out.metadata.finalizers).toEqual(["b.example/y", "a.example/x"]);
  });

  it("a patch list that contradicts $setElementOrder is refused (500, library text)", () => {
    const patch = { metadata: { "$setElementOrder/finalizers": ["a.example/x"], finalizers: ["z"] } };
    expect(statusOf(() => strategicMergePatch(deployment(), patch, DEP))).toMatchObject({
      code: 500,
      reason: "",
      message: "The order in patch list:\n[z]\n doesn't match $setElementOrder list:\n[a.example/x]\n",
    });
  });

  it("$setElementOrder that is not a list", () => {
    expect(statusOf(() => strategicMergePatch(deployment(), { metadata: { "$setElementOrder/finalizers": "x" } }, DEP))).toMatchObject({
      code: 500,
      message: "expected a []interface {}, but received a string",
    });
  });

  it("$retainKeys clears the keys it does not name (Deployment strategy → Recreate)", () => {
    const patch = { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(out.spec.strategy).toEqual({ type: "Recreate" });
  });

  it("$retainKeys must name every key of the patch", () => {
    const patch = { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: { maxSurge: 1 } } } };
    expect(statusOf(() => strategicMergePatch(deployment(), patch, DEP))).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: "invalid patch format of retainKeys",
    });
  });
});

describe("strategicMergePatch: errors", () => {
  it("a list element without its merge key", () => {
    const patch = { spec: { template: { spec: { containers: [{ image: "nginx:1.29" }] } } } };
    expect(statusOf(() => strategicMergePatch(deployment(), patch, DEP))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "map: map[image:nginx:1.29] does not contain declared merge key: name",
      reason: "",
      code: 500,
    });
  });

  it("$patch: delete without the merge key", () => {
    const patch = { spec: { template: { spec: { containers: [{ $patch: "delete" }] } } } };
    expect(statusOf(() => strategicMergePatch(deployment(), patch, DEP)).message).toBe(
      "map: map[$patch:delete] does not contain declared merge key: name",
    );
  });

  it("$patch: merge is refused in lists and maps", () => {
    const inList = { spec: { template: { spec: { containers: [{ name: "nginx", $patch: "merge" }] } } } };
    expect(statusOf(() => strategicMergePatch(deployment(), inList, DEP)).message).toBe(
      "merging lists cannot yet be specified in the patch",
    );
    const inMap = { metadata: { labels: { $patch: "merge", x: "1" } } };
    expect(statusOf(() => strategicMergePatch(deployment(), inMap, DEP)).message).toBe(
      "unknown patch type: merge in map: map[$patch:merge x:1]",
    );
  });

  it("mixed element types in a merging list", () => {
    const patch = { metadata: { finalizers: [1] } };
    expect(statusOf(() => strategicMergePatch(deployment(), patch, DEP)).message).toBe(
      "list element types are not identical: [[a.example/x b.example/y] [1]]",
    );
  });

  it("lists of lists are a 422", () => {
    const s = statusOf(() => strategicMergePatch({ metadata: { finalizers: [["a"]] } }, { metadata: { finalizers: [["b"]] } }, DEP));
    expect(s).toMatchObject({ code: 422, reason: "Invalid", detail: "lists of lists are not supported" });
  });
});

describe("strategicMergePatch: purity", () => {
  it("never mutates deep-frozen original or patch", () => {
    const patch = deepFreeze({
      metadata: { finalizers: ["n"], "$deleteFromPrimitiveList/finalizers": ["a.example/x"], labels: { app: null } },
      spec: {
        strategy: { $retainKeys: ["type"], type: "Recreate" },
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "sidecar" }, { name: "nginx" }],
            containers: [{ name: "nginx", env: [{ name: "A", $patch: "delete" }, { name: "Z", value: null }] }],
          },
        },
      },
    });
    const d = deployment();
    const before = JSON.stringify(d);
    expect(() => strategicMergePatch(d, patch, DEP)).not.toThrow();
    expect(JSON.stringify(d)).toBe(before);
  });

  it("the result shares no objects with the inputs", () => {
    const patch = { spec: { template: { spec: { hostAliases: [{ ip: "1.2.3.4", hostnames: ["a"] }] } } } };
    const out = strategicMergePatch(deployment(), patch, DEP) as any;
    expect(tmpl(out).hostAliases).not.toBe(patch.spec.template.spec.hostAliases);
    expect(tmpl(out).hostAliases).toEqual([{ ip: "1.2.3.4", hostnames: ["a"] }]);
  });
});

describe("PATCH_META table", () => {
  it("has the struct-tag keys of core/v1 and apps/v1", () => {
    expect(lookupField(POD, "spec.containers")).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(lookupField(POD, "spec.initContainers")).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(lookupField(POD, "spec.containers[].ports")).toEqual({ strategies: ["merge"], mergeKey: "containerPort" });
    expect(lookupField(POD, "spec.containers[].env")).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(lookupField(POD, "spec.containers[].volumeMounts")).toEqual({ strategies: ["merge"], mergeKey: "mountPath" });
    expect(lookupField(POD, "spec.volumes")).toEqual({ strategies: ["merge", "retainKeys"], mergeKey: "name" });
    expect(lookupField(POD, "spec.imagePullSecrets")).toEqual({ strategies: ["merge"], mergeKey: "name" });
    expect(lookupField(POD, "spec.hostAliases")).toEqual({ strategies: ["merge"], mergeKey: "ip" });
    expect(lookupField(POD, "metadata.finalizers")).toEqual({ strategies: ["merge"] });
    expect(lookupField(POD, "metadata.ownerReferences")).toEqual({ strategies: ["merge"], mergeKey: "uid" });
    expect(lookupField(SVC, "spec.ports")).toEqual({ strategies: ["merge"], mergeKey: "port" });
    expect(lookupField(PATCH_META.Node, "status.addresses")).toEqual({ strategies: ["merge"], mergeKey: "type" });
    expect(lookupField(PATCH_META.Endpoints, "subsets").strategies).toEqual([]);
    expect(lookupField(PATCH_META.EndpointSlice, "endpoints").strategies).toEqual([]);
    for (const k of ["Deployment", "ReplicaSet", "DaemonSet", "StatefulSet"]) {
      expect(lookupField(PATCH_META[k], "spec.template.spec.containers[].env")).toEqual({ strategies: ["merge"], mergeKey: "name" });
    }
  });
});
