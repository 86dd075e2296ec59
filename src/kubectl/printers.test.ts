import { describe, expect, it } from "vitest";
import { smartLabelFor } from "./describe.js";
import { humanDuration } from "./duration.js";
import { wrap } from "./explain.js";
import { executeJsonPath } from "./jsonpath.js";
import { toYaml } from "./output.js";
import { DESCRIBE_TABWRITER, TABLE_TABWRITER, TabwriterStream, tabwrite } from "./tabwriter.js";

describe("tabwriter", () => {
  it("pads columns as Go's tabwriter, leaving the last cell unpadded", () => {
    expect(tabwrite("NAME\tAGE\nkubernetes\t1d\n", TABLE_TABWRITER)).toBe("NAME         AGE\nkubernetes   1d\n");
  });
  it("a line without tabs ends the column block", () => {
    expect(tabwrite("Name:\tweb\nEvents:\n  Type\tReason\n", DESCRIBE_TABWRITER)).toBe("Name:  web\nEvents:\n  Type  Reason\n");
  });
  it("remembers column widths across flushes (RememberWidths): a column widens, never narrows", () => {
    const w = new TabwriterStream(TABLE_TABWRITER);
    expect(w.flush("NAME\tSTATUS\tAGE\nweb-1\tContainerCreating\t0s\n")).toBe("NAME    STATUS              AGE\nweb-1   ContainerCreating   0s\n");
    expect(w.flush("web-1\tRunning\t4s\n")).toBe("web-1   Running             4s\n");
    expect(w.flush("web-long-name\tRunning\t5s\n")).toBe("web-long-name   Running             5s\n");
    expect(w.flush("web-1\tRunning\t6s\n")).toBe("web-1           Running             6s\n");
  });
});

describe("HumanDuration", () => {
  it.each([
    [59_000, "59s"], [119_000, "119s"], [120_000, "2m"], [125_000, "2m5s"], [600_000, "10m"], [3 * 3600_000, "3h"],
    [3 * 3600_000 + 60_000, "3h1m"], [9 * 3600_000, "9h"], [50 * 3600_000, "2d2h"], [10 * 86400_000, "10d"], [800 * 86400_000, "2y70d"],
  ])("%i ms -> %s", (ms, want) => expect(humanDuration(ms)).toBe(want));
});

describe("jsonpath", () => {
  const list = { items: [{ metadata: { name: "a" }, status: { conditions: [{ type: "Ready", status: "True" }] } }, { metadata: { name: "b" } }] };
  it("range/end with quoted newlines", () => {
    expect(executeJsonPath('{range .items[*]}{.metadata.name}{"\\n"}{end}', list)).toBe("a\nb\n");
  });
  it("wildcards join with spaces, filters select", () => {
    expect(executeJsonPath("{.items[*].metadata.name}", list)).toBe("a b");
    expect(executeJsonPath('{.items[0].status.conditions[?(@.type=="Ready")].status}', list)).toBe("True");
  });
});

describe("yaml", () => {
  it("orders keys as go-yaml does: digit runs by value, non-letters before letters", () => {
    expect(toYaml({ k10: 1, k2: 2, k1: 3, kb: 4, "k-a": 5, ka: 6 })).toBe("k-a: 5\nk1: 3\nk2: 2\nk10: 1\nka: 6\nkb: 4\n");
  });
  it("single-quotes what only cannot be plain, double-quotes what would read as another type (go-yaml)", () => {
    expect(toYaml({ a: "x: y", b: "on", c: "#c", d: "it's", e: " lead", f: "1.0", n: "[1]" })).toBe(`a: 'x: y'\nb: "on"\nc: '#c'\nd: it's\ne: ' lead'\nf: "1.0"\n"n": '[1]'\n`);
  });
  it("leaves a float without a digit plain, as go-yaml's ParseFloat refuses it: managedFields' `.: {}`", () => {
    expect(toYaml({ "f:labels": { ".": {}, "f:app": {} }, a: ".5", b: "-.", c: ".inf" })).toBe(`a: ".5"\nb: -.\nc: ".inf"\nf:labels:\n  .: {}\n  f:app: {}\n`);
  });
  it("sorts keys, does not indent sequences, quotes what YAML 1.1 would misread", () => {
    expect(toYaml({ spec: { ports: [{ port: 80, name: "80-80" }] }, apiVersion: "v1", metadata: { creationTimestamp: null, labels: { on: "yes" } } })).toBe(
      'apiVersion: v1\nmetadata:\n  creationTimestamp: null\n  labels:\n    "on": "yes"\nspec:\n  ports:\n  - name: 80-80\n    port: 80\n',
    );
  });
});

describe("explain's word wrap (go-wordwrap)", () => {
  it("breaks at spaces within the limit, keeps long words whole and existing line breaks", () => {
    expect(wrap(10, "aaa bbb ccc ddd")).toBe("aaa bbb\nccc ddd");
    expect(wrap(5, "abcdefgh ij")).toBe("abcdefgh\nij");
    expect(wrap(20, "one\ntwo three\n")).toBe("one\ntwo three\n");
  });
});


describe("the generic describer's field labels (smartLabelFor)", () => {
  it("splits camel case, upper-cases acronyms and leaves other characters alone", () => {
    const cases: Array<[string, string]> = [
      ["apiVersion", "API Version"], ["uid", "UID"], ["podCIDRs", "Pod CIDRs"], ["leaseDurationSeconds", "Lease Duration Seconds"],
      ["holderIdentity", "Holder Identity"], ["ipv4", "ipv4"], ["kind", "Kind"], ["HTTPServer", "HTTPServer"], ["resourceURL", "Resource URL"],
    ];
    for (const [field, label] of cases) expect([field, smartLabelFor(field)]).toEqual([field, label]);
  });
});
