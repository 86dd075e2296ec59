// @kubernetes/client-node (the JavaScript client the VS Code Kubernetes extension is built on)
// with the kubeconfig the Node server hands out, unchanged: a tenant's cluster over the TLS
// port, verified with the installation's CA. Lists pods, creates and reads a Service, watches,
// and execs through the WebSocket stream (client-node speaks v4.channel.k8s.io).
import { Writable } from "node:stream";
import { CoreV1Api, Exec, KubeConfig, type V1Pod, type V1Status, Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "./harness.js";

const ADMIN = "client-node-e2e-admin";
let srv: TestServer;
let kc: KubeConfig;

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

describe("@kubernetes/client-node through the served kubeconfig", () => {
  beforeAll(async () => {
    srv = await TestServer.start("client-node", { SERVICELAB_ADMIN_KEY: ADMIN });
    const key = (await srv.post("/v1/tenants", ADMIN, { name: "client-node" })).apiKey as string;
    kc = new KubeConfig();
    kc.loadFromString((await srv.cluster("client-node", key)).text);
  }, 120_000);

  afterAll(() => srv?.stop());

  it("lists pods, creates and reads a Service", { timeout: 60_000 }, async () => {
    const api = kc.makeApiClient(CoreV1Api);
    const pods = await api.listNamespacedPod({ namespace: "kube-system" });
    expect(pods.items.map((p) => p.metadata?.name)).toContain("etcd-master");
    const created = await api.createNamespacedService({
      namespace: "default",
      body: { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] } },
    });
    expect(created.spec?.clusterIP).toMatch(/^10\.(9[6-9]|1[01]\d)\.\d+\.\d+$/);
    const read = await api.readNamespacedService({ name: "web", namespace: "default" });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    expect(read.spec?.ports?.[0]).toMatchObject({ port: 80, targetPort: 8080, protocol: "TCP" });
    await expect(api.readNamespacedService({ name: "nosuch", namespace: "default" })).rejects.toMatchObject({ code: 404 });
  });

  it("watches pods: a new pod is ADDED, then MODIFIED as it starts", { timeout: 60_000 }, async () => {
    const events: Array<{ type: string; pod: V1Pod }> = [];
    const w = new Watch(kc);
    const ctl = await w.watch("/api/v1/namespaces/default/pods", {}, (type, pod: V1Pod) => events.push({ type, pod }), () => undefined);
    await kc.makeApiClient(CoreV1Api).createNamespacedPod({ namespace: "default", body: { metadata: { name: "watched" }, spec: { containers: [{ name: "app", image: "nginx" }] } } });
    for (let i = 0; i < 100 && !events.some((e) => e.pod.metadata?.name === "watched" && e.pod.status?.phase === "Running"); i++) await new Promise((r) => setTimeout(r, 200));
    ctl.abort();
    const mine = events.filter((e) => e.pod.metadata?.name === "watched");
    expect(mine[0]?.type).toBe("ADDED");
    expect(mine.some((e) => e.type === "MODIFIED" && e.pod.status?.phase === "Running")).toBe(true);
  });

  it("execs in a pod over the v4 WebSocket stream: output and the exit Status", { timeout: 60_000 }, async () => {
    const exec = new Exec(kc);
    const run = (command: string[]) =>
      new Promise<{ out: string; err: string; status: V1Status }>((res, rej) => {
        const out = sink();
        const err = sink();
        exec.exec("default", "watched", "app", command, out.stream, err.stream, null, false, (status) => res({ out: out.text(), err: err.text(), status })).catch(rej);
      });
    const ok = await run(["sh", "-c", "hostname; echo warn >&2"]);
    expect(ok).toEqual({ out: "watched\n", err: "warn\n", status: { metadata: {}, status: "Success" } });
    const bad = await run(["sh", "-c", "exit 7"]);
    expect(bad.status).toMatchObject({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "7" }] } });
  });
});
