import { describe, expect, it } from "vitest";
import { formatLabels, labelSelectorAsSelector, parseSelector, selectorFromSet } from "./labels";

const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("labels.Parse", () => {
  // Good strings of TestSelectorParse: String() equals the input with spaces removed.
  it.each([
    "x=a,y=b,z=c",
    "",
    "x!=a,y=b",
    "x=",
    "x= ",
    "x=,z= ",
    "x= ,z= ",
    "!x",
    "x>1",
    "x>1,z<5",
  ])("round-trips %j", (s) => {
    expect(parseSelector(s).toString()).toBe(s.replace(/ /g, ""));
  });

  it.each(["x=a||y=b", "x==a==b", "!x=a", "x<a"])("rejects %j", (s) => {
    expect(() => parseSelector(s)).toThrow();
  });

  it("is deterministic and canonical (sorted by key, values sorted)", () => {
    expect(parseSelector("x=a,a=x").toString()).toBe(parseSelector("a=x,x=a").toString());
    expect(parseSelector("env in (prod, dev),app==web").toString()).toBe("app==web,env in (dev,prod)");
    expect(parseSelector("env notin (a)").toString()).toBe("env notin (a)");
  });

  it("matches as TestSelectorMatches", () => {
    const m = (s: string, l: Record<string, string>) => parseSelector(s).matches(l);
    expect(m("", { x: "y" })).toBe(true);
    expect(m("x=y", { x: "y" })).toBe(true);
    expect(m("x=y,z=w", { x: "y", z: "w" })).toBe(true);
    expect(m("x!=y,z!=w", { x: "z", z: "a" })).toBe(true);
    expect(m("notin=in", { notin: "in" })).toBe(true);
    expect(m("x", { x: "z" })).toBe(true);
    expect(m("!x", { y: "z" })).toBe(true);
    expect(m("x>1", { x: "2" })).toBe(true);
    expect(m("x<1", { x: "0" })).toBe(true);
    expect(m("x=z", {})).toBe(false);
    expect(m("x=y", { x: "z" })).toBe(false);
    expect(m("x!=y,z!=w", { x: "z", z: "w" })).toBe(false);
    expect(m("x", { y: "z" })).toBe(false);
    expect(m("!x", { x: "z" })).toBe(false);
    expect(m("x>1", { x: "0" })).toBe(false);
    expect(m("x<1", { x: "2" })).toBe(false);
    expect(m("env in (a,b)", { env: "b" })).toBe(true);
    expect(m("env notin (a)", {})).toBe(true);
  });

  it("words its errors as apimachinery", () => {
    expect(err(() => parseSelector("a b"))).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    expect(err(() => parseSelector("x<a"))).toBe(
      "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
    );
    expect(err(() => parseSelector("app=-x"))).toBe(
      "unable to parse requirement: values[0][app]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
    expect(err(() => parseSelector("-app=x"))).toBe(
      "unable to parse requirement: <nil>: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    expect(err(() => parseSelector("env in a"))).toBe("unable to parse requirement: found 'a' expected: '('");
    expect(err(() => parseSelector("x=a,"))).toBe("found '', expected: identifier after ','");
    expect(err(() => parseSelector(",x"))).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(err(() => parseSelector("x=a b"))).toBe("found 'b', expected: ',' or 'end of string'");
  });
});

describe("SelectorFromSet and LabelSelectorAsSelector", () => {
  it("SelectorFromSet", () => {
    const s = selectorFromSet({ b: "2", a: "1" });
    expect(s.toString()).toBe("a=1,b=2");
    expect(s.matches({ a: "1", b: "2", c: "3" })).toBe(true);
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(formatLabels({ b: "2", a: "1" })).toBe("a=1,b=2");
    expect(formatLabels({})).toBe("<none>");
  });
  it("converts matchLabels and matchExpressions", () => {
    const s = labelSelectorAsSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["fe", "be"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "env", operator: "Exists" },
        { key: "zone", operator: "NotIn", values: ["z1"] },
      ],
    });
    expect(s.toString()).toBe("app=web,!canary,env,tier in (be,fe),zone notin (z1)");
    expect(s.matches({ app: "web", tier: "fe", env: "x" })).toBe(true);
    expect(s.matches({ app: "web", tier: "fe", env: "x", canary: "1" })).toBe(false);
    expect(labelSelectorAsSelector(null).matches({})).toBe(false);
    expect(labelSelectorAsSelector({}).matches({ a: "b" })).toBe(true);
  });
  it("reports bad selectors", () => {
    expect(err(() => labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "Foo" }] }))).toBe('"Foo" is not a valid label selector operator');
    expect(err(() => labelSelectorAsSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }))).toBe(
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
  });
});
