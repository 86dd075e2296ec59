// kubectl exec into a pod whose container runs no process: each case fails as the real path does —
// kubectl's own phase check, the apiserver's streamLocation (BadRequest), the kubelet's getExec
// through the SPDY upgrade ("unable to upgrade connection: ...") — and exits 1.
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";

function terminal() {
  const s = new Session(Cluster.create({ seed: 3 }));
  return (line: string) => s.run(line);
}

describe("kubectl exec into a container that is not running", () => {
  it("a completed pod: kubectl refuses before asking the server", async () => {
    const t = terminal();
    await t("kubectl run done --image=busybox --restart=Never -- true; sleep 20");
    expect((await t("kubectl get pod done")).stdout).toMatch(/ Completed /);
    const r = await t("kubectl exec done -- ls");
    expect(r).toEqual({ stdout: "", stderr: "error: cannot exec into a container in a completed pod; current phase is Succeeded\n", exitCode: 1 });
    await t("kubectl run fail --image=busybox --restart=Never -- false; sleep 20");
    expect((await t("kubectl exec -it fail -- sh")).stderr).toBe("error: cannot exec into a container in a completed pod; current phase is Failed\n");
  });

  it("a pod not scheduled: the apiserver has no node to send the request to", async () => {
    const t = terminal();
    await t("printf 'apiVersion: v1\\nkind: Pod\\nmetadata:\\n  name: nowhere\\nspec:\\n  nodeSelector:\\n    disk: ssd\\n  containers:\\n  - name: nginx\\n    image: nginx\\n' > p.yaml");
    expect((await t("kubectl apply -f p.yaml; sleep 5; kubectl get pod nowhere")).stdout).toMatch(/ Pending /);
    expect(await t("kubectl exec nowhere -- ls")).toEqual({ stdout: "", stderr: "Error from server (BadRequest): pod nowhere does not have a host assigned\n", exitCode: 1 });
  });

  it("a container not running yet, or between crashes: the kubelet finds no running container", async () => {
    const t = terminal();
    expect((await t("kubectl run web --image=nginx; kubectl get pod web")).stdout).toMatch(/ ContainerCreating /);
    expect(await t("kubectl exec web -- ls")).toEqual({ stdout: "", stderr: 'error: unable to upgrade connection: container not found ("web")\n', exitCode: 1 });
    expect((await t("sleep 20; kubectl exec web -- ls /usr/share/nginx/html")).stdout).toBe("50x.html\nindex.html\n");
    await t("kubectl run crash --image=busybox -- false; sleep 30");
    expect((await t("kubectl get pod crash")).stdout).toMatch(/ CrashLoopBackOff /);
    expect((await t("kubectl exec -it crash -- sh")).stderr).toBe('error: unable to upgrade connection: container not found ("crash")\n');
  });

  it("a container the pod does not have: the apiserver's BadRequest", async () => {
    const t = terminal();
    await t("kubectl run web --image=nginx; sleep 20");
    expect(await t("kubectl exec web -c nosuch -- ls")).toEqual({ stdout: "", stderr: "Error from server (BadRequest): container nosuch is not valid for pod web\n", exitCode: 1 });
    expect((await t("kubectl exec web -c web -- ls /usr/share/nginx/html")).stdout).toBe("50x.html\nindex.html\n");
  });
});
