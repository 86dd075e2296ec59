// kubectl replace and kubectl set env: outputs as kubectl 1.33 printed them for the same commands
// against a ServiceLab cluster (/k8s).
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";

async function run(s: Session, line: string) {
  const r = await s.run(line);
  return r.stdout + r.stderr;
}

describe("kubectl replace", () => {
  it("-f FILE, --force (deleted, then replaced), -f - with a stale resourceVersion, and no -f", async () => {
    const s = new Session(Cluster.create({ seed: 3 }));
    await s.run("kubectl create cm e1 --from-literal=a=1");
    await s.run("kubectl get cm e1 -o yaml > e1.yaml");
    expect(await run(s, "kubectl replace -f e1.yaml")).toBe("configmap/e1 replaced\n");
    expect(await run(s, "kubectl replace --force -f e1.yaml")).toBe('configmap "e1" deleted\nconfigmap/e1 replaced\n');
    expect(await run(s, "cat e1.yaml | kubectl replace -f -")).toBe(
      'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "e1": the object has been modified; please apply your changes to the latest version and try again\n',
    );
    expect(await run(s, "kubectl replace")).toBe("error: must specify one of -f and -k\n");
    expect(await run(s, "kubectl replace -f nosuch.yaml")).toBe('error: the path "nosuch.yaml" does not exist\n');
  });
});

describe("kubectl set env", () => {
  it("KEY=VAL, KEY-, --list; nothing printed when nothing changes", async () => {
    const s = new Session(Cluster.create({ seed: 3 }));
    await s.run("kubectl create deployment web --image=httpd");
    expect(await run(s, "kubectl set env deployment/web KEY=VAL B=2")).toBe("deployment.apps/web env updated\n");
    expect(await run(s, "kubectl set env deployment/web --list")).toBe("# Deployment web, container httpd\nKEY=VAL\nB=2\n");
    expect(await run(s, "kubectl set env deployment/web KEY-")).toBe("deployment.apps/web env updated\n");
    expect(await run(s, "kubectl set env deployment/web B=2")).toBe("");
    expect(await run(s, "kubectl get deploy web -o jsonpath='{.spec.template.spec.containers[0].env}'")).toBe('[{"name":"B","value":"2"}]');
  });
});
