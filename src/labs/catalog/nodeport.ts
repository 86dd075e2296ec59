import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const setup = sh(
  ...servicesNamespace,
  "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3",
  `kubectl expose deployment web --type NodePort --port=8080 --target-port=80 \\
-o yaml --dry-run=client > service-NodePort.yaml`,
  "cat service-NodePort.yaml",
);
const apply = sh("kubectl apply -f service-NodePort.yaml", "sleep 20", "kubectl get service");
const curl = sh("NP=$(kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')", "curl http://10.1.8.30:$NP", "curl http://10.1.8.31:$NP", "curl http://10.1.8.32:$NP");
const rules = sh("iptables-save | grep $NP");
const chain = sh("SVC=$(iptables-save | grep -- \"--dport $NP \" | grep -o 'KUBE-EXT-[A-Z0-9]*' | sed 's/EXT/SVC/')", "iptables-save | grep $SVC");
const fixed = sh(`kubectl patch svc web -p '{"spec":{"ports":[{"port":8080,"nodePort":30080}]}}'`, "kubectl get svc web", "curl http://10.1.8.32:30080");

export default {
  id: "nodeport",
  title: { en: "NodePort: a port on every node", zh: "NodePort：每个节点上的端口" },
  summary: {
    en: "A NodePort Service opens the same port on every node, pod or no pod: reach the web pods through each node's IP, and follow KUBE-NODEPORTS into the Service's chain.",
    zh: "NodePort Service 在每个节点上打开同一个端口，不管节点上有没有 Pod：通过每个节点的 IP 访问 web Pod，并沿着 KUBE-NODEPORTS 进入 Service 的链。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §5.2",
  objects: [],
  steps: [
    {
      id: "service",
      title: { en: "A NodePort Service from YAML", zh: "从 YAML 创建 NodePort Service" },
      body: {
        en: md("Write the Service as YAML first (`--dry-run=client -o yaml`), read it, then apply it. `kubectl get service` shows `8080:<nodePort>/TCP`: the nodePort was picked from 30000-32767.", setup, apply),
        zh: md("先把 Service 写成 YAML（`--dry-run=client -o yaml`），读一读，再应用它。`kubectl get service` 显示 `8080:<nodePort>/TCP`：nodePort 从 30000-32767 中选出。", setup, apply),
      },
      checks: [
        contextCheck,
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.type", equals: "NodePort" }, { path: "spec.ports.0.nodePort", atLeast: 30000 }], title: { en: "Service web is a NodePort with a port in 30000-32767", zh: "Service web 是 NodePort，端口在 30000-32767 之间" }, hint: { en: "Apply service-NodePort.yaml.", zh: "应用 service-NodePort.yaml。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "It has the 3 pods as endpoints", zh: "它以 3 个 Pod 为端点" }, hint: { en: "Wait for the pods (sleep 20).", zh: "等待 Pod 就绪（sleep 20）。" } },
      ],
    },
    {
      id: "every-node",
      title: { en: "Every node answers", zh: "每个节点都会应答" },
      body: {
        en: md(
          "Three ports to keep apart: `nodePort` (on each node), `port` (on the ClusterIP, 8080) and `targetPort` (on the pods, 80). The guide types the NodePort it saw (31917 there); `NP` holds yours. The master runs no web pod, and still answers:",
          curl,
        ),
        zh: md("三个端口要分清：`nodePort`（每个节点上）、`port`（ClusterIP 上，8080）和 `targetPort`（Pod 上，80）。手册输入它看到的 NodePort（那里是 31917）；`NP` 保存了你的。master 上没有 web Pod，照样应答：", curl),
      },
      checks: [
        { id: "master", kind: "command", command: "curl http://10\\.1\\.8\\.30:", output: "It works!", title: { en: "The master's IP answered", zh: "master 的 IP 应答了" }, hint: { en: "curl http://10.1.8.30:$NP.", zh: "curl http://10.1.8.30:$NP。" } },
        { id: "node1", kind: "command", command: "curl http://10\\.1\\.8\\.31:", output: "It works!", title: { en: "node1 answered on the NodePort", zh: "node1 在 NodePort 上应答了" }, hint: { en: "curl 10.1.8.31 on the same port.", zh: "用同一个端口 curl 10.1.8.31。" } },
        { id: "node2", kind: "command", command: "curl http://10\\.1\\.8\\.32:", output: "It works!", title: { en: "node2 answered on the NodePort", zh: "node2 在 NodePort 上应答了" }, hint: { en: "curl 10.1.8.32 on the same port.", zh: "用同一个端口 curl 10.1.8.32。" } },
        { id: "traffic", kind: "traffic", command: "curl http://10\\.1\\.8\\.3", min: 1, title: { en: "The requests reached a web pod", zh: "请求到达了 web Pod" }, hint: { en: "Set NP first: without it the URL has no port.", zh: "先设置 NP：没有它 URL 里就没有端口。" } },
      ],
    },
    {
      id: "rules",
      title: { en: "KUBE-NODEPORTS", zh: "KUBE-NODEPORTS" },
      body: {
        en: md(
          "Every node got a rule in `KUBE-NODEPORTS` for the port. In v1.33 it jumps to `KUBE-EXT-<hash>`, which marks the packet for masquerade and jumps to the Service's `KUBE-SVC-<hash>` chain (the guide's output skips the EXT hop), whose rules split the traffic by probability:",
          rules,
          chain,
        ),
        zh: md("每个节点都为该端口在 `KUBE-NODEPORTS` 中加了一条规则。v1.33 中它跳到 `KUBE-EXT-<hash>`，后者给数据包打上伪装标记，再跳到 Service 的 `KUBE-SVC-<hash>` 链（手册的输出省略了 EXT 这一跳），链中的规则按概率分流：", rules, chain),
      },
      checks: [
        { id: "nodeports", kind: "command", command: "iptables-save", output: "^-A KUBE-NODEPORTS .*--dport \\d+ -j KUBE-EXT-", title: { en: "You found the KUBE-NODEPORTS rule", zh: "你找到了 KUBE-NODEPORTS 规则" }, hint: { en: "Run `iptables-save | grep $NP`.", zh: "运行 `iptables-save | grep $NP`。" } },
        { id: "svc", kind: "command", command: "iptables-save \\| grep \\$SVC", output: "--probability 0\\.33333", title: { en: "You read the KUBE-SVC chain it leads to", zh: "你阅读了它通往的 KUBE-SVC 链" }, hint: { en: "Run the block that sets SVC and greps it.", zh: "运行设置 SVC 并 grep 它的代码块。" } },
      ],
    },
    {
      id: "fixed",
      title: { en: "A NodePort of your choosing", zh: "自己指定 NodePort" },
      body: {
        en: md("A fixed port (inside 30000-32767) is written in `spec.ports[].nodePort`; a port outside the range is refused with 422. Patch the Service to 30080:", fixed),
        zh: md("固定端口（在 30000-32767 之内）写在 `spec.ports[].nodePort` 中；范围外的端口会被 422 拒绝。把 Service 修改为 30080：", fixed),
      },
      checks: [
        { id: "port", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.ports.0.nodePort", equals: 30080 }], title: { en: "Service web uses nodePort 30080", zh: "Service web 使用 nodePort 30080" }, hint: { en: "Run the kubectl patch line.", zh: "运行 kubectl patch 命令。" } },
        { id: "curl", kind: "command", command: ":30080", output: "It works!", title: { en: "A node answers on 30080", zh: "节点在 30080 上应答" }, hint: { en: "curl http://10.1.8.32:30080.", zh: "curl http://10.1.8.32:30080。" } },
      ],
    },
  ],
} satisfies LabInput;
