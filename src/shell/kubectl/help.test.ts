// -h / --help print kubectl 1.33's help for the command named, and run nothing: every command
// path the terminal runs has its text, aliases included, and `kubectl help <command>` agrees.
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";
import { helpText } from "./help-texts.js";

/** Command lines the terminal runs, and the help text each one's -h prints. */
const PATHS: [string, string][] = [
  ["get pods", "get"],
  ["rollout", "rollout"],
  ["set", "set"],
  ["config", "config"],
  ["set foo", "set"],
  ["rollout -n kube-system", "rollout"],
  ["describe svc", "describe"],
  ["create", "create"],
  ["create configmap x", "create configmap"],
  ["create cm x", "create configmap"],
  ["create deployment web --image=nginx", "create deployment"],
  ["create deploy web", "create deployment"],
  ["create namespace x", "create namespace"],
  ["create service clusterip x --tcp=80:80", "create service clusterip"],
  ["create svc nodeport x", "create service nodeport"],
  ["create service loadbalancer x", "create service loadbalancer"],
  ["create service externalname x", "create service externalname"],
  ["run x --image=nginx", "run"],
  ["expose deploy web --port=80", "expose"],
  ["apply -f x.yaml", "apply"],
  ["delete deploy web", "delete"],
  ["scale deploy web --replicas=3", "scale"],
  ["patch svc x -p {}", "patch"],
  ["label pods x a=b", "label"],
  ["annotate pods x a=b", "annotate"],
  ["edit svc x", "edit"],
  ["set image deploy/web nginx=nginx:1", "set image"],
  ["rollout restart deploy/web", "rollout restart"],
  ["rollout status deploy/web", "rollout status"],
  ["rollout history deploy/web", "rollout history"],
  ["rollout undo deploy/web", "rollout undo"],
  ["rollout pause deploy/web", "rollout pause"],
  ["rollout resume deploy/web", "rollout resume"],
  ["wait --for=condition=Ready pod/x", "wait"],
  ["config view", "config view"],
  ["config current-context", "config current-context"],
  ["config get-contexts", "config get-contexts"],
  ["config set-context --current --namespace=x", "config set-context"],
  ["config use kubernetes-admin@kubernetes", "config use-context"],
  ["exec x", "exec"],
  ["logs x", "logs"],
  ["api-resources", "api-resources"],
  ["api-versions", "api-versions"],
  ["autoscale deploy web --max=3", "autoscale"],
  ["explain svc", "explain"],
  ["version", "version"],
  ["top pods", "top pod"],
  ["top", "top"],
  ["cluster-info", "cluster-info"],
  ["cordon node1", "cordon"],
  ["port-forward svc/x 8080:80", "port-forward"],
];

describe("kubectl -h", () => {
  it.each(PATHS)("kubectl %s -h prints the help of kubectl %s", async (line, path) => {
    const s = new Session(Cluster.create({ seed: 5 }));
    const text = helpText(path);
    expect(text).toMatch(/\S/);
    for (const flag of ["-h", "--help"]) expect(await s.run(`kubectl ${line} ${flag}`)).toEqual({ stdout: text, stderr: "", exitCode: 0 });
    expect(await s.run(`kubectl help ${line.split(" ").filter((w) => !w.includes("=") && !w.startsWith("-")).join(" ")}`)).toMatchObject({ stdout: text, exitCode: 0 });
  });

  it("runs nothing: a Deployment asked for delete's help is still there", async () => {
    const s = new Session(Cluster.create({ seed: 5 }));
    expect((await s.run("kubectl create deployment web --image=nginx")).exitCode).toBe(0);
    expect((await s.run("kubectl delete deployment web --help")).stdout).toBe(helpText("delete"));
    expect((await s.run("kubectl scale deployment web --replicas=5 -h")).stdout).toBe(helpText("scale"));
    expect((await s.run("kubectl get deployment web -o jsonpath={.spec.replicas}")).stdout).toBe("1");
  });

  it("a flag error comes first, as cobra parses flags before it looks at --help; -h=false runs", async () => {
    const s = new Session(Cluster.create({ seed: 5 }));
    expect(await s.run("kubectl get --bogus -h")).toEqual({ stdout: "", stderr: "error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n", exitCode: 1 });
    expect((await s.run("kubectl get ns default -h=false -o name")).stdout).toBe("namespace/default\n");
    expect(await s.run("kubectl exec x -- ls -h")).not.toMatchObject({ stdout: helpText("exec") });
  });

  it("kubectl help with an unknown topic, and kubectl options", async () => {
    const s = new Session(Cluster.create({ seed: 5 }));
    const r = await s.run("kubectl help nope");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^Unknown help topic \[`nope`\]\n\n\nBasic Commands \(Beginner\):\n/);
    expect((await s.run("kubectl options")).stdout).toMatch(/^The following options can be passed to any command:\n/);
    expect(await s.run("kubectl options --help")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});
