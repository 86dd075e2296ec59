import { describe, expect, it } from "vitest";
import { type PodLike, add, cmp, formatQuantity, milliValue, parseQuantity, podResources, quantity, value } from "./quantity.js";

const canon = (s: string) => formatQuantity(parseQuantity(s)!);

describe("resource.Quantity", () => {
  it("prints the canonical form apimachinery prints", () => {
    // Each pair: what was written, what Quantity.String() gives back.
    const cases: Array<[string, string]> = [
      ["100m", "100m"], ["0.1", "100m"], ["1.5", "1500m"], ["2000m", "2"], ["2", "2"], ["2000", "2k"], ["1500", "1500"],
      ["70Mi", "70Mi"], ["1024Mi", "1Gi"], ["3969876Ki", "3969876Ki"], ["1024", "1024"], ["1Ki", "1Ki"], ["512Ki", "512Ki"],
      ["0.5Gi", "512Mi"], ["1.5Ki", "1536"], ["100", "100"], ["48294789041", "48294789041"], ["0", "0"], ["0Mi", "0"],
      ["1e3", "1e3"], ["1E6", "1e6"], ["12e2", "1200"], ["1n", "1n"], ["0.0000000001", "1n"], ["5u", "5u"], ["-100m", "-100m"],
    ];
    for (const [written, printed] of cases) expect([written, canon(written)]).toEqual([written, printed]);
  });

  it("refuses what ParseQuantity refuses", () => {
    for (const bad of ["", "abc", "1Xi", "1.2.3", "m", "1 Mi", "1e", "Mi"]) expect([bad, parseQuantity(bad)]).toEqual([bad, undefined]);
  });

  it("adds in the first non-zero operand's format and rounds Value/MilliValue up", () => {
    expect(formatQuantity(add(quantity("70Mi"), quantity("70Mi")))).toBe("140Mi");
    expect(formatQuantity(add(quantity("100m"), quantity("1")))).toBe("1100m");
    expect(formatQuantity(add(quantity(undefined), quantity("170Mi")))).toBe("170Mi");
    expect(formatQuantity(add(quantity("1Gi"), quantity("1G")))).toBe("2073741824");
    expect(value(quantity("1.5"))).toBe(2);
    expect(milliValue(quantity("1.0005"))).toBe(1001);
    expect(value(quantity("3867476Ki"))).toBe(3867476 * 1024);
    expect(cmp(quantity("1Gi"), quantity("1G"))).toBe(1);
    expect(cmp(quantity("1000m"), quantity("1"))).toBe(0);
  });

  it("sums a pod's requests and limits as resourcehelper does (init containers, sidecars, overhead)", () => {
    const pod: PodLike = {
      spec: {
        containers: [
          { resources: { requests: { cpu: "100m", memory: "70Mi" }, limits: { memory: "170Mi" } } },
          { resources: { requests: { cpu: "250m" } } },
        ],
        initContainers: [
          { resources: { requests: { cpu: "1", memory: "10Mi" } } },
          { restartPolicy: "Always", resources: { requests: { cpu: "50m" } } },
          { resources: { requests: { cpu: "500m" } } },
        ],
        overhead: { cpu: "10m" },
      },
    };
    const req = podResources(pod, "requests");
    // containers 350m + sidecar 50m = 400m; init max(1, 500m + 50m) = 1 wins; + overhead 10m.
    expect(formatQuantity(req.get("cpu")!)).toBe("1010m");
    expect(formatQuantity(req.get("memory")!)).toBe("70Mi");
    const lim = podResources(pod, "limits");
    expect(formatQuantity(lim.get("memory")!)).toBe("170Mi");
    expect(lim.has("cpu")).toBe(false);
  });
});
