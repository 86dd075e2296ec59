import type { LabInput } from "../types.js";
import { httpdWeb } from "./objects.js";
import { clusterIP, httpdNames, md, sh } from "./text.js";

const curl100 = "for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c";

export default {
  id: "clusterip-web",
  title: { en: "ClusterIP and load balancing", zh: "ClusterIP 与负载均衡" },
  summary: {
    en: "Give three httpd pods one stable address with a ClusterIP Service, watch kube-proxy spread 100 requests over them, and see new pods join the Service by their labels.",
    zh: "用 ClusterIP Service 给三个 httpd Pod 一个稳定的地址，观察 kube-proxy 把 100 个请求分散到它们上面，并看到新 Pod 凭标签自动加入 Service。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §3.1–3.2",
  objects: [httpdWeb],
  steps: [
    {
      id: "expose",
      title: { en: "Give the pods one address", zh: "给 Pod 一个统一的地址" },
      body: {
        en: md(
          "The Deployment `web` (created for you with `kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3`) runs three httpd pods, each with its own IP that changes whenever a pod is replaced. Create a ClusterIP Service whose port 8080 forwards to the pods' port 80 (`--tcp=8080:80`):",
          sh("kubectl create service clusterip web --tcp=8080:80", "kubectl get svc web"),
        ),
        zh: md(
          "Deployment `web`（已用 `kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3` 为你创建）运行着三个 httpd Pod，每个都有自己的 IP，Pod 一被替换 IP 就会变化。创建一个 ClusterIP Service，把它的 8080 端口转发到 Pod 的 80 端口（`--tcp=8080:80`）：",
          sh("kubectl create service clusterip web --tcp=8080:80", "kubectl get svc web"),
        ),
      },
      checks: [
        { id: "service", kind: "object", resource: "services", name: "web", where: [{ path: "spec.ports.0.port", equals: 8080 }, { path: "spec.ports.0.targetPort", equals: 80 }], title: { en: "Service web listens on 8080 and forwards to port 80", zh: "Service web 监听 8080 并转发到 80 端口" }, hint: { en: "Run `kubectl create service clusterip web --tcp=8080:80`.", zh: "运行 `kubectl create service clusterip web --tcp=8080:80`。" } },
        { id: "endpoints", kind: "endpoints", service: "web", min: 3, title: { en: "Its EndpointSlice lists the 3 pods", zh: "它的 EndpointSlice 列出了 3 个 Pod" }, hint: { en: "The Service's selector app=web must match the pods' labels.", zh: "Service 的选择器 app=web 必须匹配 Pod 的标签。" } },
      ],
    },
    {
      id: "describe",
      title: { en: "What the Service knows", zh: "Service 知道些什么" },
      body: {
        en: md(
          "`describe` shows the Service's selector, its ClusterIP and the Endpoints it found: the pods' `IP:port`. Then reach the pods through the ClusterIP (the variable saves you typing the IP you saw):",
          sh("kubectl describe service web", "kubectl describe svc web | grep -e Endpoints -e IP:"),
          sh(clusterIP("web"), "curl $IP:8080"),
          "A ClusterIP is on no network interface: it exists only in the rules kube-proxy wrote on every node.",
        ),
        zh: md(
          "`describe` 显示 Service 的选择器、ClusterIP，以及它找到的 Endpoints：Pod 的 `IP:端口`。然后通过 ClusterIP 访问 Pod（变量省去了手动输入你看到的 IP）：",
          sh("kubectl describe service web", "kubectl describe svc web | grep -e Endpoints -e IP:"),
          sh(clusterIP("web"), "curl $IP:8080"),
          "ClusterIP 不在任何网卡上：它只存在于 kube-proxy 在每个节点上写下的规则中。",
        ),
      },
      checks: [
        { id: "describe", kind: "command", command: "describe (service|svc) web", output: "Endpoints:\\s+10\\.244\\.\\d+\\.\\d+:80,10\\.244\\.\\d+\\.\\d+:80,10\\.244\\.\\d+\\.\\d+:80", title: { en: "describe lists three pod endpoints", zh: "describe 列出了三个 Pod 端点" }, hint: { en: "Run the describe block and read the Endpoints line.", zh: "运行 describe 代码块，阅读 Endpoints 那一行。" } },
        { id: "curl", kind: "command", command: "curl", output: "It works!", title: { en: "A request to the ClusterIP reached a pod", zh: "对 ClusterIP 的请求到达了一个 Pod" }, hint: { en: "curl the ClusterIP on port 8080 (not 80).", zh: "用 8080 端口（不是 80）curl ClusterIP。" } },
      ],
    },
    {
      id: "balance",
      title: { en: "Load balancing, counted", zh: "数一数负载均衡" },
      body: {
        en: md(
          "Make each pod's home page say its own name, then send 100 requests and count the answers per pod:",
          sh(httpdNames),
          sh(curl100),
          "Each pod gets about a third. Open the Traffic view to compare the counts with the share the rules predict.",
        ),
        zh: md(
          "让每个 Pod 的主页显示它自己的名字，然后发送 100 个请求，按 Pod 统计回答次数：",
          sh(httpdNames),
          sh(curl100),
          "每个 Pod 大约得到三分之一。打开“流量”视图，把计数和规则预测的比例对比一下。",
        ),
      },
      checks: [
        { id: "names", kind: "command", command: "curl", output: "^\\s+\\d+ web-[a-z0-9]+-[a-z0-9]{5}$", title: { en: "The pods answer with their own names", zh: "Pod 用自己的名字回答" }, hint: { en: "Run the loop that writes each pod's name into htdocs/index.html, then the curl loop again.", zh: "先运行把 Pod 名写入 htdocs/index.html 的循环，再运行 curl 循环。" } },
        { id: "traffic", kind: "traffic", command: "curl", min: 90, pods: 3, title: { en: "100 requests reached all three pods", zh: "100 个请求到达了全部三个 Pod" }, hint: { en: "Send the 100 requests to $IP:8080.", zh: "向 $IP:8080 发送 100 个请求。" } },
      ],
    },
    {
      id: "rules",
      title: { en: "The rules behind the split", zh: "分流背后的规则" },
      body: {
        en: md(
          "kube-proxy (iptables mode) wrote a `KUBE-SVC-…` chain for the Service: one rule per endpoint, the first taken with probability 1/3, the second with 1/2 of the rest, the last always. Together each pod gets 1/3.",
          sh("iptables-save -t nat | grep web"),
        ),
        zh: md(
          "kube-proxy（iptables 模式）为这个 Service 写了一条 `KUBE-SVC-…` 链：每个端点一条规则，第一条以 1/3 的概率命中，第二条以剩余流量的 1/2 命中，最后一条无条件命中。合起来每个 Pod 各得 1/3。",
          sh("iptables-save -t nat | grep web"),
        ),
      },
      checks: [
        { id: "rules", kind: "command", command: "iptables-save", output: "-A KUBE-SVC-\\S+ .*--probability 0\\.3333", title: { en: "You found the KUBE-SVC rule with probability 1/3", zh: "你找到了概率为 1/3 的 KUBE-SVC 规则" }, hint: { en: "Run `iptables-save -t nat | grep web`.", zh: "运行 `iptables-save -t nat | grep web`。" } },
      ],
    },
    {
      id: "new-pods",
      title: { en: "New pods join by their labels", zh: "新 Pod 凭标签加入" },
      body: {
        en: md(
          "Any pod labelled `app=web` becomes a backend. Scale to 4, then replace every pod with a rollout restart: the Service finds the new pods by itself.",
          sh("kubectl scale deployment web --replicas=4", "kubectl rollout restart deployment web", "kubectl rollout status deployment web", "kubectl get endpoints web"),
          sh(curl100),
          "The new pods serve httpd's default page again: the names you wrote lived in the old containers.",
        ),
        zh: md(
          "任何带 `app=web` 标签的 Pod 都会成为后端。扩容到 4 个，再用 rollout restart 替换所有 Pod：Service 会自己找到新 Pod。",
          sh("kubectl scale deployment web --replicas=4", "kubectl rollout restart deployment web", "kubectl rollout status deployment web", "kubectl get endpoints web"),
          sh(curl100),
          "新 Pod 又返回 httpd 的默认页面：你写入的名字只存在于旧容器里。",
        ),
      },
      checks: [
        { id: "endpoints", kind: "endpoints", service: "web", min: 4, title: { en: "The Service has 4 ready endpoints", zh: "Service 有 4 个就绪端点" }, hint: { en: "Scale the Deployment to 4 replicas and wait for the rollout.", zh: "把 Deployment 扩容到 4 个副本并等待滚动完成。" } },
        { id: "traffic", kind: "traffic", command: "curl", min: 90, pods: 4, title: { en: "The requests reached the 4 new pods", zh: "请求到达了 4 个新 Pod" }, hint: { en: "Run the curl loop again after the rollout.", zh: "滚动完成后再次运行 curl 循环。" } },
      ],
    },
  ],
} satisfies LabInput;
