// Lines of kubectl and literal words skip the interpreter (Session.runPlainKubectl). Two terminals
// on two identical clusters run the same lines, one through bash and one directly: every output,
// exit code, terminal state and the clusters themselves must stay the same.
import { describe, expect, it } from "vitest";
import { Cluster } from "../engine/cluster.js";
import { Session } from "./session.js";

const LINES = [
  "kubectl get svc",
  "kubectl get pods -A -o wide",
  "kubectl create deployment web --image=nginx --replicas=2",
  "kubectl expose deployment web --port=80 --target-port=80",
  "kubectl get deploy,rs,svc -o wide",
  "kubectl get endpointslices -l kubernetes.io/service-name=web",
  "kubectl scale deployment web --replicas=3",
  "kubectl describe svc web",
  "kubectl get pods --sort-by=.metadata.name -o name",
  "kubectl get svc web -o jsonpath=.spec.ports",
  "kubectl get nosuchthing",
  "kubectl get svc nosuch",
  "kubectl delete svc nosuch",
  "kubectl create configmap cm1 --from-literal=a=b",
  "kubectl create configmap cm1 --from-literal=a=b",
  "kubectl config set-context --current --namespace=kube-system",
  "kubectl get pods",
  "kubectl config set-context --current --namespace=default",
  "kubectl   get   svc   ",
  "kubectl",
  "kubectl version --client",
  "kubectl get svc -o yaml",
  "kubectl rollout restart deployment/web",
  "kubectl rollout status deployment/web",
  "kubectl get pods -o custom-columns=NAME:.metadata.name,IP:.status.podIP",
  "kubectl delete deployment web",
  "kubectl get all",
];

async function transcript(plainKubectl: boolean, lines: string[], opts: { outputCap?: number } = {}) {
  const cluster = Cluster.create({ seed: 11 });
  const s = new Session(cluster, { plainKubectl, ...opts });
  const out: unknown[] = [];
  for (const line of lines) {
    const r = await s.run(line);
    out.push({ line, ...r, revision: s.revision(), prompt: s.prompt });
  }
  return { out, state: JSON.stringify(cluster.snapshot()), saved: JSON.stringify(s.save()) };
}

describe("plain kubectl lines", () => {
  it("print, exit and change the cluster as through bash", async () => {
    const direct = await transcript(true, LINES);
    const bash = await transcript(false, LINES);
    expect(direct.out).toEqual(bash.out);
    expect(direct.state).toBe(bash.state);
    expect(direct.saved).toBe(bash.saved);
  });

  it("keep the shell's variables, directory and a worker's missing kubeconfig", async () => {
    const lines = ["export KUBECONFIG=/nowhere", "kubectl get svc", "unset KUBECONFIG", "cd /tmp", "kubectl get svc -o name", "ssh node1", "kubectl get pods", "kubectl version --client", "exit", "kubectl get svc -o name"];
    const direct = await transcript(true, lines);
    const bash = await transcript(false, lines);
    expect(direct.out).toEqual(bash.out);
    expect((direct.out[1] as { stderr: string }).stderr).toContain("localhost:8080 was refused");
    expect(direct.saved).toBe(bash.saved);
  });

  it("see the kubeconfig removed, moved and restored between lines", async () => {
    const lines = ["kubectl get svc -o name", "mv ~/.kube/config /tmp/kc", "kubectl get svc -o name", "export KUBECONFIG=/tmp/kc", "kubectl get svc -o name", "unset KUBECONFIG", "kubectl get svc -o name", "cp /tmp/kc ~/.kube/config", "kubectl get svc -o name", "rm ~/.kube/config", "kubectl get svc -o name"];
    const direct = await transcript(true, lines);
    const bash = await transcript(false, lines);
    expect(direct.out).toEqual(bash.out);
    const errs = direct.out.map((o) => (o as { stderr: string }).stderr.includes("localhost:8080 was refused"));
    expect(errs).toEqual([false, false, true, false, false, false, true, false, false, false, true]);
  });

  it("hit bash's output limit the same way", async () => {
    const lines = ["kubectl get pods -A -o yaml", "kubectl get svc -o name"];
    const direct = await transcript(true, lines, { outputCap: 200 });
    const bash = await transcript(false, lines, { outputCap: 200 });
    expect(direct.out).toEqual(bash.out);
    expect((direct.out[0] as { exitCode: number }).exitCode).toBe(126);
  });

  it("leave anything bash would expand to bash", async () => {
    const s = new Session(Cluster.create({ seed: 11 }));
    expect((await s.run("kubectl get svc -o jsonpath='{.items[*].metadata.name}'")).stdout).toBe("kubernetes");
    expect((await s.run("NS=kube-system; kubectl get svc -n $NS -o name")).stdout).toBe("service/kube-dns\n");
    expect((await s.run("kubectl get svc -o name # a comment")).stdout).toBe("service/kubernetes\n");
    expect((await s.run("kubectl get svc -o name > /tmp/x; cat /tmp/x")).stdout).toBe("service/kubernetes\n");
  });
});
