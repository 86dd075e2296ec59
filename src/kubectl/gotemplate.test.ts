// Go text/template semantics; the expected texts are what kubectl 1.33 (Go 1.24) prints.
import { describe, expect, it } from "vitest";
import { executeGoTemplate, GoTemplateError, GoTemplateExecError, parseGoTemplate, sprintf } from "./gotemplate.js";
import { GoTemplatePrinter, KUBECTL_TEMPLATE_FUNCS } from "./output.js";

const svc = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", labels: { app: "web", "app.kubernetes.io/name": "web" }, creationTimestamp: null },
  spec: { ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }, { name: "https", port: 443, protocol: "TCP", targetPort: 8443 }], empty: [], none: {}, zero: 0, half: 0.5, s: "" },
};

const run = (t: string, data: unknown = svc, missingKeyError = false) => executeGoTemplate(parseGoTemplate(t, KUBECTL_TEMPLATE_FUNCS), data, { missingKeyError });
const execError = (t: string, missingKeyError = false) => {
  try {
    run(t, svc, missingKeyError);
  } catch (e) {
    if (e instanceof GoTemplateExecError) return e.message;
    throw e;
  }
  throw new Error("no error");
};
const parseError = (t: string) => {
  try {
    parseGoTemplate(t, KUBECTL_TEMPLATE_FUNCS);
  } catch (e) {
    if (e instanceof GoTemplateError) return e.message;
    throw e;
  }
  throw new Error("no error");
};

describe("printing values as fmt's %v", () => {
  it("maps with sorted keys, slices with spaces, integral JSON numbers as int64, nil inside as <nil>, missing as <no value>", () => {
    expect(run("{{.spec.ports}}")).toBe("[map[name:http port:80 protocol:TCP targetPort:8080] map[name:https port:443 protocol:TCP targetPort:8443]]");
    expect(run("{{.metadata}}")).toBe("map[creationTimestamp:<nil> labels:map[app:web app.kubernetes.io/name:web] name:web]");
    expect(run("{{.metadata.creationTimestamp}} {{.nope}} {{.nope.deeper}} {{.spec.half}} {{.spec.empty}} {{.spec.none}}")).toBe("<no value> <no value> <no value> 0.5 [] map[]");
    expect(run("{{1e6}} {{1000000}} {{100000.0}} {{0.0001}} {{0.00001}} {{1.5e300}}")).toBe("1e+06 1000000 100000 0.0001 1e-05 1.5e+300");
  });
});

describe("truth", () => {
  it("empty maps, slices and strings, zero numbers, nil and missing values are false", () => {
    const t = (x: string) => run(`{{if ${x}}}T{{else}}F{{end}}`);
    expect([".spec.empty", ".spec.none", ".spec.s", ".spec.zero", ".metadata.creationTimestamp", ".nope", "0", "0.0", "false", '""'].map(t).join("")).toBe("FFFFFFFFFF");
    expect([".spec.ports", ".metadata", ".kind", ".spec.half", "1", "true", '" "'].map(t).join("")).toBe("TTTTTTT");
    expect(run("{{and 1 0 2}} {{or 0 \"\" \"x\"}} {{or 0 .spec.empty}} {{not .spec.none}} {{and .kind .metadata.name}}")).toBe("0 x [] true web");
  });
  it("and/or stop at the deciding argument: later ones are not evaluated", () => {
    expect(run("{{or 1 (index .spec.ports 9)}} {{and 0 (index .spec.ports 9)}}")).toBe("1 0");
  });
});

describe("comparison", () => {
  it("eq takes several arguments and is true if the first equals any; ints of any size compare", () => {
    expect(run('{{eq .kind "Pod" "Service"}} {{eq .kind "Pod" "Node"}} {{eq (index .spec.ports 0).port 80}} {{ne .kind "x"}} {{eq .nope "x"}}')).toBe("true false true true false");
    expect(run('{{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1 2}} {{lt .spec.half 1.0}}')).toBe("true true true false true");
  });
  it("mixed kinds are an error", () => {
    expect(execError('{{eq 1 "a"}}')).toBe('template: output:1:2: executing "output" at <eq 1 "a">: error calling eq: incompatible types for comparison');
    expect(execError("{{lt .nope 1}}")).toBe('template: output:1:2: executing "output" at <lt .nope 1>: error calling lt: invalid type for comparison');
    expect(execError("{{eq 1 1.0}}")).toBe('template: output:1:2: executing "output" at <eq 1 1.0>: error calling eq: incompatible types for comparison');
  });
});

describe("printf", () => {
  it("verbs, widths, precision and fmt's complaints", () => {
    expect(run('{{printf "%d|%s|%v|%q|%5s|%-5s|%05d|%x|%.2f|%T|%T" (index .spec.ports 0).port .kind .spec.ports .metadata.name .kind "ab" 42 255 3.14159 .spec.zero 1}}')).toBe(
      '80|Service|[map[name:http port:80 protocol:TCP targetPort:8080] map[name:https port:443 protocol:TCP targetPort:8443]]|"web"|Service|ab   |00042|ff|3.14|int64|int',
    );
    expect(sprintf("%d %s", ["x", 1])).toBe("%!d(string=x) %!s(int64=1)");
    expect(run('{{printf "%d %d" 1}}|{{printf "%d" 1 "x"}}|{{printf "%v %s" .nope .nope}}')).toBe("1 %!d(MISSING)|1%!(EXTRA string=x)|<nil> %!s(<nil>)");
    expect(run('{{printf "%s" .metadata.labels}} {{printf "%.0f %.0f" 2.5 3.5}} {{printf "%+d %x" 5 "hi"}}')).toBe("map[app:web app.kubernetes.io/name:web] 2 4 +5 6869");
  });
  it("print adds a space only between two operands that are not strings; println always; html escapes <no value>", () => {
    expect(run('{{print "a" 1 2 "b" true}}|{{println 1 "a"}}|{{print .nope}}|{{html .nope}}')).toBe("a1 2btrue|1 a\n|<nil>|&lt;no value&gt;");
  });
});

describe("variables and scope", () => {
  it("range declares the index and the element; assignment reaches the outer variable", () => {
    expect(run("{{range $i, $p := .spec.ports}}{{$i}}={{$p.name}} {{end}}")).toBe("0=http 1=https ");
    expect(run("{{range $k, $v := .metadata.labels}}{{$k}}:{{$v}};{{end}}")).toBe("app:web;app.kubernetes.io/name:web;");
    expect(run("{{$x := 1}}{{range .spec.ports}}{{$x = .port}}{{end}}{{$x}}")).toBe("443");
    expect(run("{{$x := .kind}}{{range .spec.ports}}{{$x := .name}}{{$x}}{{end}} {{$x}}")).toBe("httphttps Service");
    expect(run("{{range .spec.ports}}{{$.kind}}/{{.name}} {{end}}")).toBe("Service/http Service/https ");
  });
  it("a variable declared inside a block does not outlive it", () => {
    expect(parseError("{{range .spec.ports}}{{$y := .name}}{{end}}{{$y}}")).toBe('template: output:1: undefined variable "$y"');
  });
  it("range over an empty or missing value runs else; range over an int counts; break and continue", () => {
    expect(run("{{range .spec.empty}}x{{else}}empty{{end}} {{range .nope}}x{{else}}none{{end}} {{range 3}}{{.}}{{end}}")).toBe("empty none 012");
    expect(run("{{range .spec.ports}}{{if eq .port 80}}{{continue}}{{end}}{{.name}}{{end}} {{range .spec.ports}}{{.name}}{{break}}{{end}}")).toBe("https http");
    expect(execError("{{range .kind}}{{end}}")).toBe('template: output:1:8: executing "output" at <.kind>: range can\'t iterate over Service');
  });
  it("with sets dot; else if / else with chain", () => {
    expect(run("{{with .spec.ports}}{{len .}}{{end}} {{with .nope}}x{{else with .kind}}{{.}}{{end}}")).toBe("2 Service");
    expect(run('{{if eq .kind "Pod"}}pod{{else if eq .kind "Service"}}svc{{else}}other{{end}}')).toBe("svc");
  });
});

describe("trim markers, comments, literals, pipelines", () => {
  it("{{- and -}} eat the spaces and newlines beside them; a comment prints nothing", () => {
    expect(run("a  {{- /* c */ -}}  b\n  {{- .kind -}}\n  c {{ 3 -}} d")).toBe("abServicec 3d");
    expect(run("{{-3}} {{- 4}}")).toBe("-34");
  });
  it("literals and pipelines", () => {
    expect(run('{{"a\\tb"}}|{{`raw\\n`}}|{{0x10}} {{\'a\'}} {{1_000}} {{true}}|{{.kind | printf "%s!"}}|{{"x" | printf "%s-%s" "y"}}|{{(index .spec.ports 1).name}}')).toBe("a\tb|raw\\n|16 97 1000 true|Service!|y-x|https");
    expect(run('{{index .metadata.labels "app.kubernetes.io/name"}} {{index .spec.ports 1 "port"}} {{slice .kind 1 3}} {{len .kind}} {{js "a\'<"}} {{urlquery "a b&c"}}')).toBe("web 443 er 7 a\\'\\u003C a+b%26c");
  });
});

describe("errors", () => {
  it("parse errors read as Go's", () => {
    expect(parseError("{{.metadata.name}")).toBe("template: output:1: bad character U+007D '}'");
    expect(parseError("{{.metadata.name }")).toBe('template: output:1: unexpected "}" in operand');
    expect(parseError("{{if .x}}")).toBe("template: output:1: unexpected EOF");
    expect(parseError("{{end}}")).toBe("template: output:1: unexpected {{end}}");
    expect(parseError("{{upper .kind}}")).toBe('template: output:1: function "upper" not defined');
    expect(parseError("{{break}}")).toBe("template: output:1: {{break}} outside {{range}}");
    expect(parseError("a\n{{.x | 3}}")).toBe("template: output:2: non executable command in pipeline stage 2");
  });
  it("missingkey=error names the key at the field's place (a chain's place is its last field)", () => {
    expect(execError("{{.foo}}", true)).toBe('template: output:1:2: executing "output" at <.foo>: map has no entry for key "foo"');
    expect(execError("{{.metadata.foo}}", true)).toBe('template: output:1:11: executing "output" at <.metadata.foo>: map has no entry for key "foo"');
    expect(execError("{{.kind.foo}}")).toBe('template: output:1:7: executing "output" at <.kind.foo>: can\'t evaluate field foo in type interface {}');
    expect(execError("{{index .spec.ports 5}}")).toBe('template: output:1:2: executing "output" at <index .spec.ports 5>: error calling index: index out of range: 5');
  });
  it("kubectl's printer: parse error wording, and an execution error after the partial output with a debugging block", () => {
    expect(() => new GoTemplatePrinter("{{.a}")).toThrow("error parsing template {{.a}, template: output:1: bad character U+007D '}'");
    const r = new GoTemplatePrinter("x{{.foo}}", false).print({ kind: "A", n: 1, z: null });
    expect(r.error).toBe('error executing template "x{{.foo}}": template: output:1:3: executing "output" at <.foo>: map has no entry for key "foo"');
    expect(r.out).toBe(
      'xError executing template: template: output:1:3: executing "output" at <.foo>: map has no entry for key "foo". Printing more information for debugging the template:\n' +
        '\ttemplate was:\n\t\tx{{.foo}}\n\traw data was:\n\t\t{"kind":"A","n":1,"z":null}\n\tobject given to template engine was:\n\t\tmap[kind:A n:1 z:<nil>]\n\n',
    );
  });
  it("base64decode and exists", () => {
    const p = new GoTemplatePrinter('{{base64decode .a}} {{exists . "a"}} {{exists . "nope"}} {{exists .l 1}} {{exists .l 2}}');
    expect(p.print({ a: "czNjcjN0", l: [1, 2] }).out).toBe("s3cr3t true false true false");
    expect(new GoTemplatePrinter("{{base64decode .a}}").print({ a: "YWJjZA" }).error).toContain("error calling base64decode: base64 decode failed: illegal base64 data at input byte 4");
  });
});
