import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const create = sh(
  ...servicesNamespace,
  "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3",
  `cat > web-headless.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: web-headless
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 80
EOF`,
  "kubectl apply -f web-headless.yaml",
  "sleep 20",
  "kubectl get svc web-headless",
);
const slices = sh("kubectl get endpointslices -l kubernetes.io/service-name=web-headless", "kubectl get pods -o wide");
const rules = sh("iptables-save | grep -c web-headless");
const enter = sh("kubectl run busybox --rm -it --image=busybox /bin/sh");
const lookup = sh("nslookup web-headless");
const normal = sh("kubectl expose deployment web --port=80", "nslookup web.services.svc.cluster.local 10.96.0.10");
const leave = sh("exit");

export default {
  id: "headless",
  title: { en: "Headless Services: DNS straight to the pods", zh: "Headless Service：DNS 直达 Pod" },
  summary: {
    en: "With clusterIP: None a Service gets no virtual IP and no kube-proxy rules; its EndpointSlice still lists the pods, and DNS answers with every pod's A record so clients choose for themselves.",
    zh: "设置 clusterIP: None 后，Service 没有虚拟 IP，也没有 kube-proxy 规则；它的 EndpointSlice 仍然列出 Pod，DNS 返回每个 Pod 的 A 记录，由客户端自己选择。",
  },
  level: "intermediate",
  minutes: 15,
  source: "lab guide §5.5",
  objects: [],
  steps: [
    {
      id: "create",
      title: { en: "A Service without a ClusterIP", zh: "没有 ClusterIP 的 Service" },
      body: {
        en: md("Three pods and a Service with `clusterIP: None` selecting them. `kubectl get svc` shows CLUSTER-IP `None`.", create),
        zh: md("三个 Pod，以及一个设置 `clusterIP: None` 并选择它们的 Service。`kubectl get svc` 显示 CLUSTER-IP 为 `None`。", create),
      },
      checks: [
        contextCheck,
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web-headless", where: [{ path: "spec.clusterIP", equals: "None" }], title: { en: "Service web-headless has clusterIP None", zh: "Service web-headless 的 clusterIP 为 None" }, hint: { en: "Write web-headless.yaml with clusterIP: None and apply it.", zh: "写好带 clusterIP: None 的 web-headless.yaml 并应用它。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web-headless", min: 3, title: { en: "Its EndpointSlice lists the 3 pods", zh: "它的 EndpointSlice 列出了 3 个 Pod" }, hint: { en: "The selector app=web must match the pods; wait for them to be Ready.", zh: "选择器 app=web 必须匹配 Pod；等它们就绪。" } },
      ],
    },
    {
      id: "no-proxy",
      title: { en: "Endpoints, but no rules", zh: "有端点，但没有规则" },
      body: {
        en: md("The control plane still keeps an EndpointSlice with the pods' IPs, but kube-proxy has nothing to translate: there is no virtual IP.", slices, rules),
        zh: md("控制平面仍然维护着包含 Pod IP 的 EndpointSlice，但 kube-proxy 没有东西可转换：根本没有虚拟 IP。", slices, rules),
      },
      checks: [
        { id: "slice", kind: "command", command: "get endpointslices", output: "^web-headless-\\w+\\s+IPv4\\s+80\\s+10\\.244\\.", title: { en: "You saw the EndpointSlice with the pod IPs", zh: "你看到了包含 Pod IP 的 EndpointSlice" }, hint: { en: "Run the kubectl get endpointslices line.", zh: "运行 kubectl get endpointslices 命令。" } },
        { id: "zero", kind: "command", command: "grep -c web-headless", output: "^0$", title: { en: "iptables holds no rule for it", zh: "iptables 中没有它的规则" }, hint: { en: "Run `iptables-save | grep -c web-headless`.", zh: "运行 `iptables-save | grep -c web-headless`。" } },
      ],
    },
    {
      id: "dns",
      title: { en: "DNS answers with the pods", zh: "DNS 返回 Pod" },
      body: {
        en: md(
          "From a pod, the headless name resolves to the three pod IPs (compare with `kubectl get pods -o wide`). Then, back on the node, give the Deployment an ordinary Service too and ask CoreDNS (10.96.0.10) for it: its name resolves to one ClusterIP.",
          enter,
          lookup,
          leave,
          normal,
        ),
        zh: md("在 Pod 中，headless 名字解析为三个 Pod IP（和 `kubectl get pods -o wide` 对比）。然后回到节点上，再给 Deployment 建一个普通 Service，并向 CoreDNS（10.96.0.10）查询它：它的名字只解析为一个 ClusterIP。", enter, lookup, leave, normal),
      },
      checks: [
        { id: "pods", kind: "command", command: "nslookup web-headless", output: "(Address: 10\\.244\\.\\d+\\.\\d+[\\s\\S]*){3}", title: { en: "web-headless resolves to the 3 pod IPs", zh: "web-headless 解析为 3 个 Pod IP" }, hint: { en: "Run `nslookup web-headless` inside the busybox pod.", zh: "在 busybox Pod 中运行 `nslookup web-headless`。" } },
        { id: "clusterip", kind: "command", command: "nslookup web\\.services", output: "Address: 10\\.(9[6-9]|10\\d|11[01])\\.", title: { en: "An ordinary Service's name resolves to its ClusterIP", zh: "普通 Service 的名字解析为它的 ClusterIP" }, hint: { en: "Expose the Deployment as web and nslookup web.", zh: "把 Deployment 暴露为 web，再 nslookup web。" } },
        { id: "left", kind: "command", command: "^exit$", output: 'pod "busybox" deleted', title: { en: "You left the busybox pod", zh: "你已退出 busybox Pod" }, hint: { en: "Type `exit`.", zh: "输入 `exit`。" } },
      ],
    },
  ],
} satisfies LabInput;
