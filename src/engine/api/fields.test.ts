import { describe, expect, it } from "vitest";
import { convertFieldSelector, fieldLabels, matchesFields, parseFieldSelector } from "./fields";

const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("fields.ParseSelector", () => {
  it("parses =, == and != terms, sorted", () => {
    const s = parseFieldSelector("metadata.namespace!=kube-system,metadata.name==x");
    expect(s.toString()).toBe("metadata.name=x,metadata.namespace!=kube-system");
    expect(s.requiresExactMatch("metadata.name")).toBe("x");
  });
  it("handles escapes", () => {
    expect(parseFieldSelector("a=b\\,c").requirements[0].value).toBe("b,c");
    expect(parseFieldSelector("a=b\\,c").toString()).toBe("a=b\\,c");
  });
  it("words its errors as apimachinery", () => {
    expect(err(() => parseFieldSelector("foo"))).toBe("invalid selector: 'foo'; can't understand 'foo'");
    expect(err(() => parseFieldSelector("a=b\\x"))).toBe("invalid field selector: invalid escape sequence: \\x");
    expect(err(() => parseFieldSelector("a=b=c"))).toBe("invalid field selector: unescaped character in value: 61");
  });
});

describe("per-kind field labels", () => {
  const pod = {
    metadata: { name: "web-1", namespace: "default" },
    spec: { nodeName: "node-1", restartPolicy: "Always", schedulerName: "default-scheduler", serviceAccountName: "default" },
    status: { phase: "Running", podIP: "10.244.1.5", podIPs: [{ ip: "10.244.1.5" }] },
  };
  it("matches pods on their selectable fields", () => {
    expect(matchesFields("Pod", pod, "spec.nodeName=node-1")).toBe(true);
    expect(matchesFields("Pod", pod, "spec.nodeName=node-2")).toBe(false);
    expect(matchesFields("Pod", pod, "status.phase!=Pending,metadata.namespace=default")).toBe(true);
    expect(matchesFields("Pod", pod, "spec.hostNetwork=false")).toBe(true);
    expect(matchesFields("Pod", pod, "status.podIP=10.244.1.5")).toBe(true);
    expect(matchesFields("Pod", pod, "spec.host=node-1")).toBe(true);
    expect(matchesFields("Pod", { metadata: { name: "p" }, spec: {} }, "spec.nodeName=")).toBe(true);
  });
  it("supports the event, service, node, namespace and replicaset labels", () => {
    const ev = { metadata: { name: "e" }, involvedObject: { kind: "Pod", name: "web-1" }, reason: "Scheduled", type: "Normal", source: { component: "default-scheduler" } };
    expect(matchesFields("Event", ev, "involvedObject.kind=Pod,involvedObject.name=web-1,reason=Scheduled,source=default-scheduler,type=Normal")).toBe(true);
    expect(matchesFields("Service", { metadata: { name: "s" }, spec: { type: "NodePort", clusterIP: "10.96.0.5" } }, "spec.type=NodePort,spec.clusterIP=10.96.0.5")).toBe(true);
    expect(matchesFields("Node", { metadata: { name: "n" }, spec: {} }, "spec.unschedulable=false")).toBe(true);
    expect(matchesFields("Namespace", { metadata: { name: "d" }, status: { phase: "Active" } }, "status.phase=Active")).toBe(true);
    expect(matchesFields("ReplicaSet", { metadata: { name: "r" }, status: { replicas: 3 } }, "status.replicas=3")).toBe(true);
    expect(fieldLabels("Deployment")).toEqual(["metadata.name", "metadata.namespace"]);
  });
  it("refuses unknown labels with the apiserver's text", () => {
    expect(err(() => convertFieldSelector("Pod", parseFieldSelector("foo=bar")))).toBe("field label not supported: foo");
    expect(err(() => matchesFields("Node", {}, "metadata.namespace=x"))).toBe("field label not supported: metadata.namespace");
    expect(err(() => matchesFields("Deployment", {}, "spec.replicas=1"))).toBe(
      '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });
});

describe("parseFieldSelector(kind, selector)", () => {
  it("parses and converts for the kind", () => {
    expect(parseFieldSelector("Pod", "spec.host=n1").toString()).toBe("spec.nodeName=n1");
    expect(err(() => parseFieldSelector("Service", "spec.ports=1"))).toBe("field label not supported: spec.ports");
  });
});
