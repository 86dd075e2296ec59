// Flags before a subcommand: cobra finds `restart` in `kubectl -n kube-system rollout restart ds x`
// and `configmap` in `kubectl create -n ns configmap x`, wherever the flags are.
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";
import { terminal } from "./testing.js";

describe("kubectl subcommands after flags", () => {
  it("rollout, create, set and config take the namespace given before them", async () => {
    const run = terminal(3);
    expect(await run("kubectl -n kube-system rollout restart ds kube-proxy")).toBe("daemonset.apps/kube-proxy restarted\n");
    expect(await run("kubectl -n kube-system rollout history daemonset kube-proxy")).toMatch(/^daemonset\.apps\/kube-proxy \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n/);
    expect(await run("kubectl -n kube-system create configmap one --from-literal=a=b")).toBe("configmap/one created\n");
    expect(await run("kubectl create -n kube-system configmap two --from-literal=a=b")).toBe("configmap/two created\n");
    expect(await run("kubectl --namespace kube-system get cm one two -o name")).toBe("configmap/one\nconfigmap/two\n");
    expect(await run("kubectl -n kube-system create deployment web --image=nginx")).toBe("deployment.apps/web created\n");
    expect(await run("kubectl -n kube-system set image deployment/web nginx=nginx:1.27")).toBe("deployment.apps/web image updated\n");
    expect(await run("kubectl --kubeconfig /etc/kubernetes/admin.conf config current-context")).toBe("kubernetes-admin@kubernetes\n");
  });

  it("rollout pause and resume patch spec.paused once, then fail as kubectl does; a DaemonSet cannot pause", async () => {
    const s = new Session(Cluster.create({ seed: 3 }));
    const run = async (line: string) => {
      const r = await s.run(line);
      return { out: `${r.stdout}${r.stderr}`, code: r.exitCode };
    };
    await run("kubectl create deployment paws --image=httpd");
    expect(await run("kubectl rollout pause deployment/paws")).toEqual({ out: "deployment.apps/paws paused\n", code: 0 });
    expect(await run("kubectl get deploy paws -o jsonpath={.spec.paused}")).toEqual({ out: "true", code: 0 });
    expect(await run("kubectl rollout pause deployment/paws")).toEqual({ out: 'error: deployments.apps "paws" is already paused\n', code: 1 });
    expect(await run("kubectl rollout resume deployment paws")).toEqual({ out: "deployment.apps/paws resumed\n", code: 0 });
    expect(await run("kubectl get deploy paws -o jsonpath={.spec.paused}")).toEqual({ out: "", code: 0 });
    expect(await run("kubectl rollout resume deployment/paws")).toEqual({ out: 'error: deployments.apps "paws" is not paused\n', code: 1 });
    expect(await run("kubectl -n kube-system rollout pause ds/kube-proxy")).toEqual({ out: 'error: daemonsets.apps "kube-proxy" pausing is not supported\n', code: 1 });
  });
});
