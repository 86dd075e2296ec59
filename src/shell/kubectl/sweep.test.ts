// What a sweep of command lines against the real kubectl 1.33 turned up (kubectl.e2e.test.ts
// compares the same lines with it): tables per run of one kind for TYPE/NAME arguments, the pod
// `logs deploy/x` reads and says it read, patch's --patch-file, and errors kubectl writes bare.
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";
import { terminal } from "./testing.js";

const HEAD = "NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n";

describe("kubectl, as the real one answered", () => {
  it("get TYPE/NAME...: one table per run of one kind, the kind column only for several kinds", async () => {
    const s = new Session(Cluster.create({ seed: 7 }));
    const r = await s.run("kubectl get svc/kubernetes svc/kubernetes");
    expect(r.stdout.replace(/\d+s$/gm, "<age>")).toBe(HEAD + "kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   <age>\n".repeat(2));
    const mixed = (await s.run("kubectl -n kube-system get svc/kube-dns deploy/coredns svc/kube-dns")).stdout.split("\n\n");
    expect(mixed.map((t) => t.split("\n")[1].split(/\s+/)[0])).toEqual(["service/kube-dns", "deployment.apps/coredns", "service/kube-dns"]);
  });

  it("logs deploy/x names the pod it read when the selector matched several", async () => {
    const s = new Session(Cluster.create({ seed: 7 }));
    await s.run("kubectl create deployment two --image=httpd --replicas=2 && kubectl rollout status deployment/two");
    const r = await s.run("kubectl logs deployment/two --tail=1");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^Found 2 pods, using pod\/two-[a-z0-9]+-[a-z0-9]{5}\n$/);
    const pods = (await s.run("kubectl get pods -l app=two -o name")).stdout;
    expect(pods).toContain(r.stderr.slice(r.stderr.indexOf("pod/"), -1));
  });

  it("patch --patch-file reads the node's file; --patch and --patch-file exclude each other", async () => {
    const s = new Session(Cluster.create({ seed: 7 }));
    await s.run(`echo '{"metadata":{"labels":{"from":"file"}}}' > /tmp/p.json`);
    expect((await s.run("kubectl patch svc kubernetes --patch-file /tmp/p.json")).stdout).toBe("service/kubernetes patched\n");
    expect((await s.run("kubectl get svc kubernetes -o jsonpath={.metadata.labels.from}")).stdout).toBe("file");
    expect((await s.run("kubectl patch svc kubernetes --patch-file=/tmp/none.json")).stderr).toBe("error: unable to read patch file: open /tmp/none.json: no such file or directory\n");
    expect((await s.run("kubectl patch svc kubernetes -p {} --patch-file /tmp/p.json")).stderr).toBe("error: cannot specify --patch and --patch-file together\n");
    expect((await s.run("kubectl patch svc kubernetes")).stderr).toBe("error: must specify --patch or --patch-file containing the contents of the patch\n");
  });

  it("explain of an unknown type and get without one are written without the error prefix kubectl adds elsewhere", async () => {
    const s = new Session(Cluster.create({ seed: 7 }));
    expect((await s.run("kubectl explain foo")).stderr).toBe('the server doesn\'t have a resource type "foo"\n');
    expect((await s.run("kubectl get -o yaml")).stderr).toMatch(/^You must specify the type of resource to get\. .*\n\nerror: Required resource not specified\.\n/);
    expect((await s.run("kubectl version --short")).stderr).toBe("error: unknown flag: --short\nSee 'kubectl version --help' for usage.\n");
  });

  it("cordon / uncordon patch the node once, then say it already is; a usage error without a node", async () => {
    const run = terminal(7);
    expect(await run("kubectl cordon node1")).toBe("node/node1 cordoned\n");
    expect(await run("kubectl cordon node1")).toBe("node/node1 already cordoned\n");
    expect(await run("kubectl get node node1 --no-headers")).toMatch(/^node1 +Ready,SchedulingDisabled /);
    expect(await run("kubectl uncordon node1 --dry-run=server")).toBe("node/node1 uncordoned (server dry run)\n");
    expect(await run("kubectl uncordon node1")).toBe("node/node1 uncordoned\n");
    expect(await run("kubectl uncordon node1")).toBe("node/node1 already uncordoned\n");
    expect(await run("kubectl cordon")).toBe("error: USAGE: cordon NODE [flags]\nSee 'kubectl cordon -h' for help and examples\n");
  });

  it("get --raw: the apiserver's bytes (objects compact with a newline, /version indented), its Status as kubectl prints it", async () => {
    const run = terminal(7);
    const svc = await run("kubectl get --raw /api/v1/namespaces/default/services/kubernetes");
    expect(svc).toMatch(/^\{"apiVersion":"v1","kind":"Service",.*\}\n$/s);
    expect(JSON.parse(svc).spec.clusterIP).toBe("10.96.0.1");
    expect(await run("kubectl get --raw /version")).toMatch(/^\{\n {2}"major": "1",\n {2}"minor": "33",\n[\s\S]*\n\}$/);
    expect(await run("kubectl get --raw /healthz")).toBe("ok");
    expect(await run("kubectl get --raw /api/v1/namespaces/default/services/nope")).toBe('Error from server (NotFound): services "nope" not found\n');
    expect(await run("kubectl get svc --raw /api")).toBe("error: arguments may not be passed when --raw is specified\n");
    expect(await run("kubectl get --raw /api -o yaml")).toBe("error: --raw and --output are mutually exclusive\n");
    expect(await run("kubectl get --raw api")).toBe('error: --raw must be a valid URL path: parse "api": invalid URI for request\n');
  });
});
