// Every active namespace has kube-root-ca.crt: made in a new namespace, made again when deleted,
// put back when edited, and left alone in a namespace being deleted.
import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { ConfigMap } from "../api/types.js";
import { FAKE_CA } from "../bootstrap.js";
import { Cluster } from "../cluster.js";
import { ROOT_CA_CONFIGMAP } from "./rootca-publisher.js";

const rootCA = (c: Cluster, ns: string) => c.store.get("configmaps", ns, ROOT_CA_CONFIGMAP) as ConfigMap | undefined;

describe("root CA publisher", () => {
  it("publishes the CA in every namespace and keeps it as it was", () => {
    const c = Cluster.create({ seed: 3 });
    c.client.create(R.namespaces, undefined, { metadata: { name: "team" } });
    const cm = rootCA(c, "team")!;
    expect(cm.data).toEqual({ "ca.crt": FAKE_CA });
    expect(cm.metadata.annotations?.["kubernetes.io/description"]).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
    expect(rootCA(c, "default")!.metadata.annotations).toEqual(cm.metadata.annotations);

    c.client.patch(R.configmaps, "team", ROOT_CA_CONFIGMAP, "merge", { data: { "ca.crt": "mine", extra: "x" }, metadata: { labels: { kept: "yes" } } });
    expect(rootCA(c, "team")!.data).toEqual({ "ca.crt": FAKE_CA });
    expect(rootCA(c, "team")!.metadata.labels).toEqual({ kept: "yes" });

    c.client.delete(R.configmaps, "team", ROOT_CA_CONFIGMAP);
    expect(rootCA(c, "team")?.data).toEqual({ "ca.crt": FAKE_CA });
  });

  it("does not publish into a namespace being deleted", () => {
    const c = Cluster.create({ seed: 3 });
    c.client.create(R.namespaces, undefined, { metadata: { name: "gone" } });
    c.client.create(R.pods, "gone", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    c.advance(10_000);
    c.client.delete(R.namespaces, undefined, "gone");
    c.advance(60_000);
    expect(c.store.get("namespaces", undefined, "gone")).toBeUndefined();
    expect(rootCA(c, "gone")).toBeUndefined();
  });
});
