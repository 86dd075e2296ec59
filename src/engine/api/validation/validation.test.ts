import { describe, expect, it } from "vitest";
import { applyDefaults } from "../defaults";
import { fieldErrorString, invalid } from "../status";
import { metallbWebhookDenial, validateObject, validateUpdate } from "./index";

const msgs = (kind: string, obj: any) => validateObject(kind, obj).map(fieldErrorString);
const upd = (kind: string, obj: any, old: any) => validateUpdate(kind, obj, old).map(fieldErrorString);
const defaulted = (kind: string, obj: any) => {
  applyDefaults(kind, obj);
  return obj;
};

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const svc = (spec: any, name = "web") => defaulted("Service", { metadata: { name, namespace: "default" }, spec });
const pod = (spec: any, name = "p") => defaulted("Pod", { metadata: { name, namespace: "default" }, spec });
const deploy = (spec: any) =>
  defaulted("Deployment", {
    metadata: { name: "web", namespace: "default" },
    spec: { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } }, ...spec },
  });

describe("ObjectMeta", () => {
  it("requires a name and checks namespace rules", () => {
    expect(msgs("ConfigMap", { metadata: { namespace: "default" } })).toEqual(["metadata.name: Required value: name or generateName is required"]);
    expect(msgs("ConfigMap", { metadata: { name: "x" } })).toEqual(["metadata.namespace: Required value"]);
    expect(msgs("Namespace", { metadata: { name: "x", namespace: "y" } })).toEqual(["metadata.namespace: Forbidden: not allowed on this type"]);
    expect(msgs("ConfigMap", { metadata: { name: "Bad_Name", namespace: "default" } })).toEqual([`metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`]);
  });
  it("checks label keys and values", () => {
    expect(msgs("ConfigMap", { metadata: { name: "x", namespace: "default", labels: { "a/b/c": "x", ok: "-bad" } } })).toEqual([
      "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
  it("makes name immutable on update", () => {
    const old = { metadata: { name: "a", namespace: "default" } };
    expect(upd("ConfigMap", { metadata: { name: "b", namespace: "default" } }, old)).toContain('metadata.name: Invalid value: "b": field is immutable');
  });
});

describe("Service", () => {
  it("accepts a defaulted service", () => {
    expect(msgs("Service", svc({ selector: { app: "web" }, ports: [{ port: 80 }] }))).toEqual([]);
    expect(msgs("Service", svc({ clusterIP: "None", selector: { app: "web" } }))).toEqual([]);
    expect(msgs("Service", svc({ type: "LoadBalancer", externalTrafficPolicy: "Local", ports: [{ port: 80 }] }))).toEqual([]);
  });
  it("uses DNS-1035 names", () => {
    expect(msgs("Service", svc({ ports: [{ port: 80 }] }, "1web"))).toEqual([`metadata.name: Invalid value: "1web": ${DNS1035}`]);
  });
  it("checks ports", () => {
    expect(msgs("Service", svc({ ports: [{ port: 0 }] }))).toEqual([
      "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
    expect(msgs("Service", svc({ ports: [{ port: 80 }, { port: 443 }] }))).toEqual([
      "spec.ports[0].name: Required value",
      "spec.ports[1].name: Required value",
    ]);
    expect(msgs("Service", svc({ ports: [{ name: "a", port: 80 }, { name: "b", port: 80 }] }))).toEqual([
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    expect(msgs("Service", svc({ ports: [{ name: "a", port: 80, protocol: "HTTP" }] }))).toEqual([
      'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]);
    expect(msgs("Service", svc({ ports: [{ port: 80, nodePort: 30080 }] }))).toEqual([
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
  });
  it("checks type, affinity and traffic policies", () => {
    expect(msgs("Service", svc({ type: "Foo", ports: [{ port: 80 }] }))).toContain(
      'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
    expect(msgs("Service", svc({ sessionAffinity: "Sticky", ports: [{ port: 80 }] }))).toEqual([
      'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"',
    ]);
    expect(msgs("Service", svc({ sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 90000 } }, ports: [{ port: 80 }] }))).toEqual([
      "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 and less than 86400",
    ]);
    expect(msgs("Service", svc({ externalTrafficPolicy: "Local", ports: [{ port: 80 }] }))).toEqual([
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ]);
  });
  it("forbids headless NodePort and needs externalName", () => {
    expect(msgs("Service", svc({ type: "NodePort", clusterIP: "None", ports: [{ port: 80 }] }))).toContain(
      "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services",
    );
    expect(msgs("Service", svc({ type: "ExternalName" }))).toEqual(["spec.externalName: Required value"]);
    expect(msgs("Service", svc({ type: "ExternalName", externalName: "example.com." }))).toEqual([]);
  });
  it("checks clusterIPs and ipFamilies", () => {
    expect(msgs("Service", svc({ clusterIP: "10.96.0.300", ports: [{ port: 80 }] }))).toEqual([
      'spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    expect(msgs("Service", svc({ ipFamilies: ["IPv5"], ports: [{ port: 80 }] }))).toContain(
      'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
    );
  });
  it("keeps clusterIP on update", () => {
    const old = svc({ clusterIP: "10.96.0.20", ports: [{ port: 80 }] });
    old.metadata.resourceVersion = "5";
    const next = structuredClone(old);
    next.spec.clusterIP = "10.96.0.21";
    next.spec.clusterIPs = ["10.96.0.21"];
    expect(upd("Service", next, old)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.21"}: may not change once set']);
  });
  it("renders the 422 Status as the apiserver does", () => {
    const errs = validateObject("Service", svc({ ports: [{ port: 70000 }] }));
    expect(invalid("Service", "", "web", errs).message).toBe(
      'Service "web" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]',
    );
  });
});

describe("Pod", () => {
  it("accepts a defaulted pod", () => {
    expect(msgs("Pod", pod({ containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }] }))).toEqual([]);
  });
  it("checks containers", () => {
    expect(msgs("Pod", pod({ containers: [{ name: "C_1" }] }))).toEqual([
      `spec.containers[0].name: Invalid value: "C_1": ${DNS1123_LABEL}`,
      "spec.containers[0].image: Required value",
    ]);
    expect(msgs("Pod", pod({ containers: [{ name: "c", image: "x" }, { name: "c", image: "y" }] }))).toEqual([
      'spec.containers[1].name: Duplicate value: "c"',
    ]);
    expect(msgs("Pod", pod({ containers: [{ name: "c", image: "x", ports: [{ containerPort: 70000 }] }] }))).toEqual([
      "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ]);
    expect(msgs("Pod", pod({ containers: [] }))).toEqual(["spec.containers: Required value"]);
  });
  it("checks env names, volume mounts and restartPolicy", () => {
    expect(msgs("Pod", pod({ containers: [{ name: "c", image: "x", env: [{ name: "A=B", value: "1" }] }] }))).toEqual([
      "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
    ]);
    expect(msgs("Pod", pod({ containers: [{ name: "c", image: "x", volumeMounts: [{ name: "x", mountPath: "/x" }] }] }))).toEqual([
      'spec.containers[0].volumeMounts[0].name: Not found: "x"',
    ]);
    expect(msgs("Pod", pod({ restartPolicy: "Sometimes", containers: [{ name: "c", image: "x" }] }))).toEqual([
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
  });
  it("forbids spec changes other than the mutable ones", () => {
    const old = pod({ containers: [{ name: "c", image: "x" }] });
    const next = structuredClone(old);
    next.spec.containers[0].image = "y";
    expect(upd("Pod", next, old)).toEqual([]);
    next.spec.restartPolicy = "Never";
    expect(upd("Pod", next, old)[0]).toMatch(/^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
  });
});

describe("apps/v1", () => {
  it("requires a selector that matches the template", () => {
    expect(msgs("Deployment", deploy({}))).toEqual(["spec.selector: Required value"]);
    expect(msgs("Deployment", deploy({ selector: { matchLabels: { app: "api" } } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    expect(msgs("Deployment", deploy({ selector: { matchLabels: { app: "web" } } }))).toEqual([]);
  });
  it("checks replicas and the rolling update", () => {
    expect(msgs("Deployment", deploy({ replicas: -1, selector: { matchLabels: { app: "web" } } }))).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    ]);
    expect(msgs("Deployment", deploy({ selector: { matchLabels: { app: "web" } }, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } }))).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ]);
    expect(msgs("Deployment", deploy({ selector: { matchLabels: { app: "web" } }, strategy: { rollingUpdate: { maxSurge: "1", maxUnavailable: "120%" } } }))).toEqual([
      "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"1\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ]);
    expect(msgs("Deployment", deploy({ selector: { matchLabels: { app: "web" } }, revisionHistoryLimit: -2 }))).toEqual([
      "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
    ]);
  });
  it("makes the selector immutable", () => {
    const old = deploy({ selector: { matchLabels: { app: "web" } } });
    const next = structuredClone(old);
    next.spec.selector = { matchLabels: { app: "web", v: "2" } };
    next.spec.template.metadata.labels.v = "2";
    expect(upd("Deployment", next, old)).toEqual([
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });
  it("ReplicaSet, DaemonSet and StatefulSet", () => {
    const tmpl = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const mk = (kind: string, spec: any) => msgs(kind, defaulted(kind, { metadata: { name: "web", namespace: "default" }, spec: { template: structuredClone(tmpl), ...spec } }));
    expect(mk("ReplicaSet", {})).toEqual(["spec.selector: Required value"]);
    expect(mk("DaemonSet", { selector: { matchLabels: { app: "web" } } })).toEqual([]);
    expect(mk("DaemonSet", { selector: { matchLabels: { app: "web" } }, updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } })).toEqual([
      "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
    ]);
    expect(mk("StatefulSet", { selector: { matchLabels: { app: "web" } }, serviceName: "web" })).toEqual([]);
    expect(mk("StatefulSet", { selector: { matchLabels: { app: "x" } } })).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });
});

describe("ConfigMap, Namespace, EndpointSlice, Endpoints", () => {
  it("ConfigMap keys and size", () => {
    expect(msgs("ConfigMap", { metadata: { name: "c", namespace: "d" }, data: { "a b": "x" } })).toEqual([
      "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(msgs("ConfigMap", { metadata: { name: "c", namespace: "d" }, data: { big: "x".repeat(1024 * 1024 + 1) } })).toEqual([
      ": Too long: may not be more than 1048576 bytes",
    ]);
  });
  it("Namespace names are DNS labels", () => {
    expect(msgs("Namespace", defaulted("Namespace", { metadata: { name: "dev" } }))).toEqual([]);
    expect(msgs("Namespace", { metadata: { name: "a.b" } })).toEqual(['metadata.name: Invalid value: "a.b": must not contain dots']);
  });
  it("EndpointSlice", () => {
    const es = (o: any) => defaulted("EndpointSlice", { metadata: { name: "web-abc", namespace: "default" }, ...o });
    expect(msgs("EndpointSlice", es({ addressType: "IPv4", endpoints: [{ addresses: ["10.244.1.5"] }], ports: [{ port: 80 }] }))).toEqual([]);
    expect(msgs("EndpointSlice", es({ addressType: "IP4", endpoints: [] }))).toEqual(['addressType: Unsupported value: "IP4": supported values: "FQDN", "IPv4", "IPv6"']);
    expect(msgs("EndpointSlice", es({ addressType: "IPv4", endpoints: [{ addresses: [] }] }))).toEqual([
      "endpoints[0].addresses: Required value: must contain at least 1 address",
    ]);
    const many = Array.from({ length: 1001 }, () => ({ addresses: ["10.0.0.1"] }));
    expect(msgs("EndpointSlice", es({ addressType: "IPv4", endpoints: many }))).toEqual(["endpoints: Too many: 1001: must have at most 1000 items"]);
    expect(msgs("EndpointSlice", es({ addressType: "IPv4", endpoints: [{ addresses: ["127.0.0.1"] }] }))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
  });
  it("Endpoints", () => {
    expect(msgs("Endpoints", { metadata: { name: "web", namespace: "default" }, subsets: [{ ports: [{ port: 80, protocol: "TCP" }] }] })).toEqual([
      "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
    ]);
  });
});

describe("MetalLB", () => {
  const pool = (addresses: string[], ns = "metallb-system") => defaulted("IPAddressPool", { metadata: { name: "example", namespace: ns }, spec: { addresses } });
  it("accepts CIDRs and ranges", () => {
    expect(metallbWebhookDenial("IPAddressPool", pool(["192.168.10.0/24", "192.168.9.1-192.168.9.5", "fc00:f853:ccd:e799::/124"]))).toBeNull();
    expect(msgs("IPAddressPool", pool(["192.168.10.0/24"]))).toEqual([]);
  });
  it("words denials as the webhook", () => {
    expect(metallbWebhookDenial("IPAddressPool", pool(["10.0.0.0/33"]))).toBe(
      'parsing address pool example: invalid CIDR "10.0.0.0/33" in pool "example": invalid CIDR "10.0.0.0/33"',
    );
    expect(metallbWebhookDenial("IPAddressPool", pool(["10.0.0.9-10.0.0.1"]))).toBe(
      'parsing address pool example: invalid CIDR "10.0.0.9-10.0.0.1" in pool "example": invalid IP range "10.0.0.9-10.0.0.1": start IP "10.0.0.9" is after the end IP "10.0.0.1"',
    );
    expect(metallbWebhookDenial("IPAddressPool", pool(["10.0.0.0/24"], "default"))).toBe("resource must be created in metallb-system namespace");
  });
});
