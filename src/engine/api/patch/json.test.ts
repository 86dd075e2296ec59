import { describe, expect, it } from "vitest";
import { goAtoi, goJsonSyntaxError, goQuote, goV, parseGoJson } from "./json.js";

describe("goJsonSyntaxError (encoding/json scanner wording)", () => {
  const cases: [string, string | null][] = [
    ['{"a":1}', null],
    ["null", null],
    [" [1, 2.5e-3, true, false, null, \"x\\u00e9\"] ", null],
    ["", "unexpected end of JSON input"],
    ["{", "unexpected end of JSON input"],
    ['{"spec":', "unexpected end of JSON input"],
    ["{spec:1}", "invalid character 's' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["{} {}", "invalid character '{' after top-level value"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["nulx", "invalid character 'x' in literal null (expecting 'l')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["-a", "invalid character 'a' in numeric literal"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["01", "invalid character '1' after top-level value"],
    ['"a\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12G4"', "invalid character 'G' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"abc', "unexpected end of JSON input"],
  ];
  it.each(cases)("%j", (text, want) => {
    expect(goJsonSyntaxError(text)).toBe(want);
  });

  it("parses valid documents", () => {
    expect(parseGoJson('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
  });

  it("keeps __proto__ as data", () => {
    const r = parseGoJson('{"__proto__":{"x":1}}');
    expect(r.ok && Object.keys(r.value as object)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(r.ok ? r.value : null)).toBe(Object.prototype);
  });
});

describe("Go formatting", () => {
  it("prints %v of maps with sorted keys, slices with spaces, nil as <nil>", () => {
    expect(goV({ name: "web", image: "nginx", ports: [{ containerPort: 80 }], x: null })).toBe(
      "map[image:nginx name:web ports:[map[containerPort:80]] x:<nil>]",
    );
    expect(goV(1.5)).toBe("1.5");
    expect(goV(1e21)).toBe("1e+21");
    expect(goV(0.00001)).toBe("1e-05");
  });
  it("quotes like strconv.Quote", () => {
    expect(goQuote('a"b\n')).toBe('"a\\"b\\n"');
    expect(goQuote("\x01")).toBe('"\\x01"');
  });
  it("parses like strconv.Atoi", () => {
    expect(goAtoi("+3")).toMatchObject({ ok: true, value: 3 });
    expect(goAtoi("-1")).toMatchObject({ ok: true, value: -1 });
    expect(goAtoi("-")).toEqual({ ok: false, message: 'strconv.Atoi: parsing "-": invalid syntax' });
    expect(goAtoi("99999999999999999999")).toEqual({
      ok: false,
      message: 'strconv.Atoi: parsing "99999999999999999999": value out of range',
    });
  });
});
