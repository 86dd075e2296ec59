// The kinds of kubectl's default prune list that a kubeadm cluster serves (k8s.io/kubectl
// pkg/util/prune): the REAL kubectl 1.33 against the Node server, compared with the terminal's
// kubectl for the same command, ages masked (as kubectl.e2e.test.ts). Without kubectl: skipped,
// or failed when CI=true.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL, type Out, requireTools, run, type TestCluster, TestServer } from "./harness.js";

const have = requireTools("the real-kubectl prune-kinds test", KUBECTL);

let srv: TestServer;
let cl: TestCluster;

const kubectl = (args: string[]): Promise<Out> => run(KUBECTL, args, { env: srv.kubectlEnv(cl), timeout: 60_000 });
const terminal = (command: string): Promise<Out> => srv.terminal(cl, command);
const ages = (s: string) => s.replace(/\b\d+(?:d\d*h?|h\d*m?|m\d*s?|s)\b */g, "<age> ");

function commandLine(args: string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);
  return ["kubectl", ...args].map(quote).join(" ");
}

async function same(args: string[]): Promise<Out> {
  const real = await kubectl(args);
  const term = await terminal(commandLine(args));
  expect({ stdout: ages(real.stdout), stderr: real.stderr, code: real.code }).toEqual({ stdout: ages(term.stdout), stderr: term.stderr, code: term.code });
  return real;
}

function manifest(name: string, text: string): string {
  const file = join(srv.dir, name);
  writeFileSync(file, text);
  return file;
}

describe.skipIf(!have)("real kubectl: the default prune list's kinds", () => {
  beforeAll(async () => {
    srv = await TestServer.start("prune");
    cl = await srv.cluster("prune");
  }, 90_000);

  afterAll(() => srv?.stop());

  it("api-resources (served discovery) lists what the terminal's api-resources lists", { timeout: 120_000 }, async () => {
    const r = await same(["api-resources"]);
    expect(r.stdout).toMatch(/^replicationcontrollers +rc +v1 +true +ReplicationController$/m);
    await same(["api-resources", "--api-group="]);
  });

  it("ReplicationController: apply, get -o wide, describe, scale, expose, get all, delete", { timeout: 120_000 }, async () => {
    const file = manifest(
      "rc.yaml",
      "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: nginx\nspec:\n  replicas: 2\n  template:\n    metadata:\n      labels: {app: nginx}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx\n        ports:\n        - containerPort: 80\n",
    );
    expect(await kubectl(["apply", "-f", file])).toMatchObject({ stdout: "replicationcontroller/nginx created\n", code: 0 });
    await new Promise((res) => setTimeout(res, 5000));
    await same(["get", "rc", "-o", "wide"]);
    await same(["describe", "rc", "nginx"]);
    expect(await kubectl(["scale", "rc", "nginx", "--replicas=3"])).toMatchObject({ stdout: "replicationcontroller/nginx scaled\n", code: 0 });
    expect((await kubectl(["get", "rc", "nginx", "-o", "jsonpath={.spec.replicas}"])).stdout).toBe("3");
    expect(await kubectl(["expose", "rc", "nginx", "--port=80"])).toMatchObject({ stdout: "service/nginx exposed\n", code: 0 });
    await new Promise((res) => setTimeout(res, 3000));
    await same(["get", "all"]);
    expect(await kubectl(["delete", "rc", "nginx"])).toMatchObject({ stdout: 'replicationcontroller "nginx" deleted\n', code: 0 });
  });

  it("PersistentVolume and PersistentVolumeClaim: static binding, get, describe, a Pending claim", { timeout: 120_000 }, async () => {
    const file = manifest(
      "pv.yaml",
      "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv1\nspec:\n  capacity: {storage: 2Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /mnt/pv1}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: waiting\nspec:\n  accessModes: [ReadWriteMany]\n  resources: {requests: {storage: 1Gi}}\n",
    );
    expect(await kubectl(["apply", "-f", file])).toMatchObject({ stdout: "persistentvolume/pv1 created\npersistentvolumeclaim/data created\npersistentvolumeclaim/waiting created\n", code: 0 });
    await new Promise((res) => setTimeout(res, 2000));
    expect((await same(["get", "pv", "-o", "wide"])).stdout).toMatch(/^pv1 +2Gi +RWO +Retain +Bound +default\/data /m);
    expect((await same(["get", "pvc"])).stdout).toMatch(/^waiting +Pending /m);
    await same(["describe", "pv", "pv1"]);
    await same(["describe", "pvc", "data"]);
    const r = await same(["describe", "pvc", "waiting"]);
    expect(r.stdout).toContain("no persistent volumes available for this claim and no storage class is set");
    expect(await kubectl(["delete", "pvc", "data", "waiting"])).toMatchObject({ code: 0 });
    await same(["get", "pv"]);
  });

  it("Ingress and IngressClass: create ingress, get, describe (no controller: no address)", { timeout: 120_000 }, async () => {
    expect(await kubectl(["create", "deployment", "web", "--image=nginx"])).toMatchObject({ code: 0 });
    expect(await kubectl(["expose", "deployment", "web", "--port=80"])).toMatchObject({ code: 0 });
    const r = await kubectl(["create", "ingress", "web", "--rule=web.example.com/*=web:80,tls=web-tls", "--rule=web.example.com/api=api:http"]);
    expect(r).toEqual({ stdout: "ingress.networking.k8s.io/web created\n", stderr: "", code: 0 });
    // describe shows the backend's endpoints: wait for the pod to be ready (a fixed 3 s sleep was
    // too short for the cluster's clock under CI's load).
    expect(await kubectl(["rollout", "status", "deployment", "web", "--timeout=60s"])).toMatchObject({ code: 0 });
    expect((await same(["get", "ingress", "-o", "wide"])).stdout).toMatch(/^web +<none> +web\.example\.com +80, 443 /m);
    await same(["describe", "ingress", "web"]);
    await same(["get", "ingressclass"]);
    await same(["api-resources", "--api-group=networking.k8s.io"]);
  });
});
