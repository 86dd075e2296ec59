// kubectl edit's loop as kubectl's editoptions.go runs it: an unchanged file cancels; an invalid
// save reopens the file with the reasons in its header; quitting after that stores a copy of the
// changes and gives up with kubectl's three lines; a valid save applies ("edited").
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";

/** An editor that answers each time with the next function of `rounds` applied to the file it got. */
function editor(rounds: Array<(text: string) => string | undefined>) {
  const seen: string[] = [];
  return {
    seen,
    fn: async (text: string) => {
      seen.push(text);
      const next = rounds.shift();
      return next ? next(text) : undefined;
    },
  };
}

async function session(rounds: Array<(text: string) => string | undefined>) {
  const e = editor(rounds);
  const s = new Session(Cluster.create({ seed: 7 }), { editor: e.fn });
  await s.run("kubectl create deployment web --image=nginx --replicas=3");
  return { s, seen: e.seen };
}

describe("kubectl edit", () => {
  it("an unchanged file: Edit cancelled, no changes made.", async () => {
    const { s, seen } = await session([(t) => t]);
    const r = await s.run("kubectl edit deployment web");
    // kubectl writes its cancellations to stderr (fmt.Fprintln(o.ErrOut, ...)).
    expect(r).toMatchObject({ stdout: "", stderr: "Edit cancelled, no changes made.\n", exitCode: 0 });
    expect(seen[0]).toMatch(/^# Please edit the object below\. Lines beginning with a '#' will be ignored,\n/);
  });

  it("an invalid save reopens the file with the reason; a valid one then applies", async () => {
    const { s, seen } = await session([(t) => t.replace("replicas: 3", "replicas: -1"), (t) => t.replace("replicas: -1", "replicas: 2")]);
    const r = await s.run("kubectl edit deployment web");
    expect(r.stdout).toBe("deployment.apps/web edited\n");
    expect(seen[1]).toContain('#\n# deployments "web" was not valid:\n# * spec.replicas: Invalid value: -1: must be greater than or equal to 0\n#\n');
    expect(seen[1]).toContain("replicas: -1");
    expect((await s.run("kubectl get deploy web -o jsonpath='{.spec.replicas}'")).stdout).toBe("2");
  });

  it("quitting after an invalid save stores a copy and gives up", async () => {
    const { s } = await session([(t) => t.replace("replicas: 3", "replicas: -1"), () => undefined]);
    const r = await s.run("kubectl edit deployment web");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('error: deployments.apps "web" is invalid\nA copy of your changes has been stored to "/tmp/kubectl-edit-web.yaml"\nerror: Edit cancelled, no valid changes were saved.\n');
    expect((await s.run("grep 'replicas: -1' /tmp/kubectl-edit-web.yaml")).stdout).toContain("replicas: -1");
    expect((await s.run("kubectl get deploy web -o jsonpath='{.spec.replicas}'")).stdout).toBe("3");
  });

  it("an emptied file: Edit cancelled, saved file was empty.", async () => {
    const { s } = await session([() => "# nothing\n"]);
    expect((await s.run("kubectl edit deployment web")).stderr).toBe("Edit cancelled, saved file was empty.\n");
  });
});

// Without a host's editor, kubectl runs KUBE_EDITOR, then EDITOR, then vi in the node's shell,
// as editor.go does (the texts are the real kubectl 1.33's for the same variables).
describe("kubectl edit with KUBE_EDITOR / EDITOR", () => {
  async function plain() {
    const s = new Session(Cluster.create({ seed: 7 }));
    await s.run("kubectl create configmap conf --from-literal=mode=");
    return s;
  }

  it("lab guide 8.3: KUBE_EDITOR=\"sed -i ...\" runs through the shell with the file's path", async () => {
    const s = await new Session(Cluster.create({ seed: 7 }));
    const r = await s.run(`KUBE_EDITOR="sed -i 's/mode: \\"\\"/mode: \\"ipvs\\"/'" kubectl edit cm -n kube-system kube-proxy`);
    expect(r).toMatchObject({ stdout: "configmap/kube-proxy edited\n", stderr: "", exitCode: 0 });
    expect((await s.run("kubectl get cm -n kube-system kube-proxy -o yaml | grep 'mode:'")).stdout).toBe('    mode: "ipvs"\n');
  });

  it("EDITOR when KUBE_EDITOR is unset; an exported variable reaches kubectl", async () => {
    const s = await plain();
    expect((await s.run("export EDITOR=\"sed -i 's/mode:.*/mode: x/'\"; kubectl edit cm conf")).stdout).toBe("configmap/conf edited\n");
    expect((await s.run("kubectl get cm conf -o jsonpath='{.data.mode}'")).stdout).toBe("x");
    expect((await s.run("EDITOR=true kubectl edit cm conf")).stderr).toBe("Edit cancelled, no changes made.\n");
  });

  it("editors that are not found or fail, in kubectl's words", async () => {
    const s = await plain();
    expect(await s.run("KUBE_EDITOR=nosuch kubectl edit cm conf")).toMatchObject({ stdout: "", stderr: 'error: unable to launch the editor "nosuch"\n', exitCode: 1 });
    expect(await s.run("KUBE_EDITOR='nosuch --wait' kubectl edit cm conf")).toMatchObject({ stderr: 'error: unable to launch the editor "nosuch --wait"\n', exitCode: 1 });
    expect(await s.run(`KUBE_EDITOR="sh -c 'exit 3'" kubectl edit cm conf`)).toMatchObject({ stderr: `error: there was a problem with the editor "/bin/bash -c sh -c 'exit 3'"\n`, exitCode: 1 });
  });

  it("vi with no terminal says so, as vim does, and nothing is edited", async () => {
    const s = await plain();
    const r = await s.run("kubectl edit cm conf");
    expect(r.stderr).toBe('Vim: Warning: Output is not to a terminal\nVim: Warning: Input is not from a terminal\nerror: there was a problem with the editor "vi"\n');
    expect(r.exitCode).toBe(1);
  });
});
