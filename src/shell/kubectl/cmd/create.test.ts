// kubectl's command line as cobra parses it, and create's generators, against golden transcripts
// recorded from the real kubectl 1.33 (`--dry-run=client` and flag errors need no server:
// test/kubeapi/create.e2e.test.ts runs the real kubectl again and checks the same file).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Cluster } from "../../../engine/cluster.js";
import { Session } from "../../session.js";
import { readGolden } from "./golden.js";

const GOLDEN = fileURLToPath(new URL("testdata/create.golden.txt", import.meta.url));

describe("kubectl create and global flags, as the real kubectl 1.33 prints them", () => {
  const s = new Session(Cluster.create({ seed: 1 }));
  for (const c of readGolden(GOLDEN)) {
    it(c.line, async () => {
      const r = await s.run(c.line);
      expect({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }).toEqual({ stdout: c.stdout, stderr: c.stderr, exitCode: c.exitCode });
    });
  }
});

describe("create's subcommands", () => {
  it("runs what a student meets, and says plainly what ServiceLab does not run", async () => {
    const s = new Session(Cluster.create({ seed: 1 }));
    expect((await s.run("kubectl create secret generic db --from-literal=password=s3cret")).stdout).toBe("secret/db created\n");
    expect((await s.run("kubectl get secret db -o jsonpath='{.data.password}'")).stdout).toBe("czNjcmV0");
    expect((await s.run("kubectl -n kube-system create sa robot")).stdout).toBe("serviceaccount/robot created\n");
    expect((await s.run("kubectl get sa robot -n kube-system -o name")).stdout).toBe("serviceaccount/robot\n");
    for (const sub of ["secret tls t --cert=c --key=k"]) {
      const r = await s.run(`kubectl create ${sub}`);
      expect(r.stderr, sub).toMatch(/^error: "kubectl create [a-z ]+" is not available in ServiceLab's kubectl\n$/);
      expect(r.exitCode).toBe(1);
    }
  });

  it("keeps a deployment's command after --, and names a --tcp port without a target by its number", async () => {
    const s = new Session(Cluster.create({ seed: 1 }));
    expect((await s.run("kubectl -n default create deployment sleeper --image=busybox -- sleep 3600")).stdout).toBe("deployment.apps/sleeper created\n");
    expect((await s.run("kubectl get deploy sleeper -o jsonpath='{.spec.template.spec.containers[0].command}'")).stdout).toBe('["sleep","3600"]');
    expect((await s.run("kubectl -n default create service clusterip sleeper --tcp=80")).stdout).toBe("service/sleeper created\n");
    expect((await s.run("kubectl get svc sleeper -o jsonpath='{.spec.ports[0].name}'")).stdout).toBe("80");
  });

  it("accepts the global flags before the verb and before nested subcommands", async () => {
    const s = new Session(Cluster.create({ seed: 1 }));
    expect((await s.run("kubectl -v 6 --request-timeout=5s --context kubernetes-admin@kubernetes get ns default -o name")).stdout).toBe("namespace/default\n");
    expect((await s.run("kubectl --namespace=kube-system --kubeconfig /root/.kube/config rollout status ds/kube-proxy")).stdout).toContain("successfully rolled out");
    expect((await s.run("kubectl --kubeconfig=/nope get pods")).stderr).toBe("error: stat /nope: no such file or directory\n");
  });
});
