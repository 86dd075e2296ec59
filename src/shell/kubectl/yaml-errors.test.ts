// go-yaml's first problem per document, as the real kubectl 1.33 reports each of these files
// (the same files are compared with the real kubectl in test/kubeapi/kubectl.e2e.test.ts).
import { describe, expect, it } from "vitest";
import { goYamlProblem, yamlDocuments } from "./yaml-errors.js";

const head = "apiVersion: v1\nkind: Service\nmetadata:\n";
const cases: [string, string, string | undefined][] = [
  ["a tab in the indentation", `${head}\tname: a\n`, "yaml: line 4: found character that cannot start any token"],
  ["an unclosed double quote", `${head}  name: "a\nspec:\n  ports:\n  - port: 80\n`, "yaml: line 8: found unexpected end of stream"],
  ["an unclosed single quote", `${head}  name: 'a\nspec:\n  type: ClusterIP\n`, "yaml: line 7: found unexpected end of stream"],
  ["a value with a colon", `${head}  name: a: b\n`, "yaml: line 4: mapping values are not allowed in this context"],
  ["a key indented deeper than its siblings", `${head}  name: a\n   labels:\n    x: y\n`, "yaml: line 5: mapping values are not allowed in this context"],
  ["a key between two indents (parser: 0-based line)", `${head}  name: a\nspec:\n  ports:\n  - port: 80\n   targetPort: 80\n`, "yaml: line 7: did not find expected key"],
  ["a shallower key", `${head}    name: a\n  labels:\n    x: y\n`, "yaml: line 4: did not find expected key"],
  ["text after a quoted value", `${head}  name: "a"b\n`, "yaml: line 3: did not find expected key"],
  ["an unclosed flow mapping", `${head}  name: a\nspec:\n  selector: {app: web\n  ports:\n  - port: 80\n`, "yaml: line 6: did not find expected ',' or '}'"],
  ["a key after an empty value at the same indent is a sibling", `${head}  name: a\n  labels:\n  app: x\n`, undefined],
  ["a block scalar", `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: |\n    a: b\n     c\n`, undefined],
];

describe("go-yaml's problems", () => {
  for (const [what, text, want] of cases) it(what, () => expect(goYamlProblem(text)).toBe(want));

  it("documents split at --- lines, line numbers counted within each", () => {
    const docs = yamlDocuments(`${head}  name: a\n---\n${head}  name: b\n   x: 1\n`);
    expect(docs).toHaveLength(2);
    expect(goYamlProblem(docs[1])).toBe("yaml: line 5: mapping values are not allowed in this context");
  });
});
