// kubectl apply/create/delete/replace -f of a file with several documents, one of them broken,
// as kubectl's resource builder visits them (ContinueOnError): a document that does not parse
// ends its file — the objects before it are used, the ones after it are not read — while an
// object the server refuses fails alone. Checked against the real kubectl 1.33 (apply, create,
// delete, replace) in test/kubeapi/kubectl.e2e.test.ts ("second-doc.yaml").
import { describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { Session } from "../session.js";

const svc = (name: string, port: string | number = 80) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  ports:\n  - port: ${port}\n`;
const broken = "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n   x: 1\n";
const PARSE = "error: error parsing f.yaml: error converting YAML to JSON: yaml: line 5: mapping values are not allowed in this context\n";

async function terminal(file: string) {
  const s = new Session(Cluster.create({ seed: 5 }));
  await s.run(`cat > f.yaml <<'EOF_YAML'\n${file}EOF_YAML`);
  return (line: string) => s.run(line);
}

describe("a file whose second document is broken", () => {
  const file = `${svc("one")}---\n${broken}---\n${svc("three")}`;

  it("apply: the documents before it are applied, the error follows, nothing after it", async () => {
    const t = await terminal(file);
    expect(await t("kubectl apply -f f.yaml")).toEqual({ stdout: "service/one created\n", stderr: PARSE, exitCode: 1 });
    expect((await t("kubectl get svc -o name")).stdout).toBe("service/kubernetes\nservice/one\n");
  });

  it("create, replace and delete use the objects read before it the same way", async () => {
    const t = await terminal(file);
    expect(await t("kubectl create -f f.yaml")).toEqual({ stdout: "service/one created\n", stderr: PARSE, exitCode: 1 });
    // Two errors: kubectl prints them as an aggregate, one a line, without "error: ".
    expect(await t("kubectl create -f f.yaml")).toEqual({ stdout: "", stderr: 'Error from server (AlreadyExists): error when creating "f.yaml": services "one" already exists\n' + PARSE.replace(/^error: /, ""), exitCode: 1 });
    expect(await t("kubectl replace -f f.yaml")).toEqual({ stdout: "service/one replaced\n", stderr: PARSE, exitCode: 1 });
    expect(await t("kubectl delete -f f.yaml")).toEqual({ stdout: 'service "one" deleted\n', stderr: PARSE, exitCode: 1 });
    expect((await t("kubectl get svc -o name")).stdout).toBe("service/kubernetes\n");
  });

  it("a broken first document: nothing is applied; another file still is", async () => {
    const t = await terminal(`${broken}---\n${svc("two")}`);
    expect(await t("kubectl apply -f f.yaml")).toEqual({ stdout: "", stderr: PARSE, exitCode: 1 });
    await t(`cat > g.yaml <<'EOF_YAML'\n${svc("other")}EOF_YAML`);
    expect(await t("kubectl apply -f f.yaml -f g.yaml")).toEqual({ stdout: "service/other created\n", stderr: PARSE, exitCode: 1 });
  });
});

describe("a document that parses but the server refuses", () => {
  it("fails alone: the others are applied", async () => {
    const t = await terminal(`${svc("one")}---\n${svc("bad").replace("spec:\n", "spec:\n  type: Bogus\n")}---\n${svc("three")}`);
    const r = await t("kubectl apply -f f.yaml");
    expect(r.stdout).toBe("service/one created\nservice/three created\n");
    expect(r.stderr).toMatch(/^The Service "bad" is invalid: spec\.type: Unsupported value: "Bogus": supported values: /);
    expect(r.exitCode).toBe(1);
  });
});

describe("a file with no objects", () => {
  it("as kubectl 1.33: create and apply refuse, delete finds nothing, replace does nothing", async () => {
    const t = await terminal("");
    expect(await t("kubectl create -f f.yaml")).toEqual({ stdout: "", stderr: "error: no objects passed to create\n", exitCode: 1 });
    expect(await t("kubectl apply -f f.yaml")).toEqual({ stdout: "", stderr: "error: no objects passed to apply\n", exitCode: 1 });
    expect(await t("kubectl delete -f f.yaml")).toEqual({ stdout: "", stderr: "No resources found\n", exitCode: 0 });
    expect(await t("kubectl replace -f f.yaml")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});
