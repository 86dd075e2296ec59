import { describe, expect, it } from "vitest";
import type { KObject } from "./types.js";
import { WatchFilter } from "./watch-filter.js";

const pod = (name: string, labels: Record<string, string>, ns = "default") => ({ metadata: { name, namespace: ns, labels }, spec: {}, status: {} }) as unknown as KObject;

describe("WatchFilter", () => {
  it("selects by namespace and labels; an object that starts matching is ADDED, one that stops is DELETED", () => {
    const f = new WatchFilter({ kind: "Pod", namespace: "default", labelSelector: "app=web" });
    expect(f.know(pod("a", { app: "web" }))).toBe(true);
    expect(f.know(pod("b", { app: "db" }))).toBe(false);
    expect(f.event("MODIFIED", pod("a", { app: "web", x: "1" }))).toBe("MODIFIED");
    expect(f.event("MODIFIED", pod("b", { app: "web" }))).toBe("ADDED");
    expect(f.event("MODIFIED", pod("a", { app: "other" }))).toBe("DELETED");
    expect(f.event("MODIFIED", pod("a", { app: "other" }))).toBeUndefined();
    expect(f.event("ADDED", pod("c", { app: "web" }, "kube-system"))).toBeUndefined();
    expect(f.event("DELETED", pod("b", { app: "web" }))).toBe("DELETED");
  });

  it("field selectors are the kind's (metadata.name for a watched object)", () => {
    const f = new WatchFilter({ kind: "Pod", fieldSelector: "metadata.name=a" });
    expect(f.event("ADDED", pod("a", {}))).toBe("ADDED");
    expect(f.event("ADDED", pod("b", {}))).toBeUndefined();
  });

  it("a watch resumed from a resourceVersion never hears of an object outside its namespace or name", () => {
    // kubectl rollout status watches one Deployment from the list's resourceVersion: a change of
    // a same-named Deployment in another namespace was once sent to it as DELETED.
    const f = new WatchFilter({ kind: "Pod", namespace: "default", fieldSelector: "metadata.name=a" });
    const elsewhere = pod("a", {}, "other");
    expect(f.event("MODIFIED", elsewhere, f.mayHaveMatched(elsewhere))).toBeUndefined();
    const other = pod("b", {});
    expect(f.event("MODIFIED", other, f.mayHaveMatched(other))).toBeUndefined();
    const own = pod("a", {});
    expect(f.event("MODIFIED", own, f.mayHaveMatched(own))).toBe("MODIFIED");
    expect(f.event("DELETED", own, f.mayHaveMatched(own))).toBe("DELETED");
  });
});
