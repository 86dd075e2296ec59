import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const setup = sh(...servicesNamespace, "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=2", "kubectl expose deployment web --type NodePort --port=80", "sleep 20", "kubectl get pods -o wide");
const np = "NP=$(kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')";
const seen = (node: string) => `explain --from 192.168.1.5 ${node}:$NP | grep -e MASQUERADE -e "receives" -e "source seen" -e "^path"`;
const logs = "kubectl logs -l app=web --prefix | grep GET | tail -4";
const curls = "for i in 1 2 3 4; do curl -s -o /dev/null http://10.1.8.31:$NP; curl -s -o /dev/null http://10.1.8.32:$NP; done";
const local = sh(`kubectl patch svc web -p '{"spec":{"externalTrafficPolicy":"Local"}}'`, "kubectl describe svc web | grep -i 'traffic policy'");

export default {
  id: "external-traffic-policy",
  title: { en: "externalTrafficPolicy: Cluster or Local", zh: "externalTrafficPolicy：Cluster 还是 Local" },
  summary: {
    en: "With the default Cluster policy a NodePort forwards to any node's pod and masquerades, so the pod sees a node's address; with Local it only uses the node's own pods and the pod sees the real client IP, at the price of nodes without pods dropping traffic.",
    zh: "默认的 Cluster 策略下，NodePort 会转发到任意节点上的 Pod 并做伪装，Pod 看到的是节点的地址；Local 策略只使用本节点的 Pod，Pod 能看到真实的客户端 IP，代价是没有 Pod 的节点会丢弃流量。",
  },
  level: "advanced",
  minutes: 20,
  source: "principles ch. 7 (externalTrafficPolicy)",
  objects: [],
  steps: [
    {
      id: "setup",
      title: { en: "One pod on each worker", zh: "每个工作节点一个 Pod" },
      body: {
        en: md("Two web pods (one lands on node1, one on node2; the master runs none) behind a NodePort Service:", setup),
        zh: md("NodePort Service 后面两个 web Pod（一个在 node1，一个在 node2；master 上没有）：", setup),
      },
      checks: [
        contextCheck,
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.type", equals: "NodePort" }, { path: "spec.externalTrafficPolicy", equals: "Cluster" }], title: { en: "Service web is a NodePort with policy Cluster", zh: "Service web 是策略为 Cluster 的 NodePort" }, hint: { en: "Expose the Deployment with --type NodePort.", zh: "用 --type NodePort 暴露 Deployment。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 2, title: { en: "It has the 2 pods as endpoints", zh: "它以 2 个 Pod 为端点" }, hint: { en: "Wait for the pods (sleep 20).", zh: "等待 Pod 就绪（sleep 20）。" } },
      ],
    },
    {
      id: "cluster",
      title: { en: "Cluster: the source IP is lost", zh: "Cluster：源 IP 丢失" },
      body: {
        en: md(
          "A client outside the cluster, 192.168.1.5, connects to node2's NodePort. `explain` follows it: the rules may send it to the pod on node1, and the packet is masqueraded on its way, so the pod sees a node's address, not 192.168.1.5.",
          sh(np, seen("10.1.8.32")),
          "From the master (the client is then 10.1.8.30), send a few requests to both workers and read the pods' access logs: the client addresses are the nodes' pod-network gateways (10.244.x.0 / 10.244.x.1), never 10.1.8.30.",
          sh(curls, logs),
        ),
        zh: md(
          "集群外的客户端 192.168.1.5 连接 node2 的 NodePort。`explain` 跟踪它：规则可能把它发往 node1 上的 Pod，途中数据包被伪装，所以 Pod 看到的是节点的地址，而不是 192.168.1.5。",
          sh(np, seen("10.1.8.32")),
          "在 master 上（此时客户端是 10.1.8.30）向两个工作节点发几个请求，再阅读 Pod 的访问日志：客户端地址是节点 Pod 网络的网关（10.244.x.0 / 10.244.x.1），而不是 10.1.8.30。",
          sh(curls, logs),
        ),
      },
      checks: [
        { id: "masq", kind: "command", command: "explain", output: "source seen by the destination: \\S+ \\(masqueraded\\)", title: { en: "explain: the pod sees a masqueraded source", zh: "explain：Pod 看到的是被伪装的源地址" }, hint: { en: "Set NP, then run the explain line.", zh: "设置 NP，再运行 explain 命令。" } },
        { id: "logs", kind: "command", command: "kubectl logs", output: "\\] 10\\.244\\.\\d+\\.[01] - - ", title: { en: "The access log shows a node's pod-network address", zh: "访问日志显示的是节点的 Pod 网络地址" }, hint: { en: "Send the requests, then read the logs.", zh: "发送请求，再阅读日志。" } },
      ],
    },
    {
      id: "local",
      title: { en: "Local: the client's own address", zh: "Local：客户端自己的地址" },
      body: {
        en: md(
          "Switch the policy. Now each node sends NodePort traffic only to its own pods, without masquerading: the pod sees 192.168.1.5, and the requests from the master show up as 10.1.8.30.",
          local,
          sh(seen("10.1.8.32")),
          sh(curls, logs),
        ),
        zh: md("切换策略。现在每个节点只把 NodePort 流量发给自己的 Pod，而且不做伪装：Pod 看到 192.168.1.5，来自 master 的请求显示为 10.1.8.30。", local, sh(seen("10.1.8.32")), sh(curls, logs)),
      },
      checks: [
        { id: "policy", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.externalTrafficPolicy", equals: "Local" }], title: { en: "Service web has externalTrafficPolicy Local", zh: "Service web 的 externalTrafficPolicy 为 Local" }, hint: { en: "Run the kubectl patch line.", zh: "运行 kubectl patch 命令。" } },
        { id: "client", kind: "command", command: "explain", output: "^source seen by the destination: 192\\.168\\.1\\.5:\\d+$", title: { en: "explain: the pod sees 192.168.1.5", zh: "explain：Pod 看到 192.168.1.5" }, hint: { en: "Run explain again after the patch.", zh: "修改之后再次运行 explain。" } },
        { id: "logs", kind: "command", command: "kubectl logs", output: "\\] 10\\.1\\.8\\.30 - - ", title: { en: "The access log shows the master's own IP", zh: "访问日志显示 master 自己的 IP" }, hint: { en: "Send the requests again, then read the logs.", zh: "再次发送请求，然后阅读日志。" } },
      ],
    },
    {
      id: "no-pod",
      title: { en: "The price: a node without pods", zh: "代价：没有 Pod 的节点" },
      body: {
        en: md(
          "The master has no web pod. With Local, a client that reaches the master's NodePort gets nothing: kube-proxy drops it rather than forward it to another node. An external load balancer must health-check the nodes and skip such ones. Load is uneven too: each node's pods share that node's traffic.",
          sh("explain --from 192.168.1.5 10.1.8.30:$NP | tail -3"),
        ),
        zh: md("master 上没有 web Pod。在 Local 策略下，到达 master NodePort 的客户端什么也得不到：kube-proxy 宁可丢弃，也不转发到其他节点。外部负载均衡器必须对节点做健康检查并跳过这样的节点。负载也会不均：每个节点的流量只由该节点上的 Pod 分担。", sh("explain --from 192.168.1.5 10.1.8.30:$NP | tail -3")),
      },
      checks: [{ id: "dropped", kind: "command", command: "explain .*10\\.1\\.8\\.30:", output: "^verdict: (timeout|refused)", title: { en: "A connection to the master's NodePort reached no pod", zh: "到 master NodePort 的连接没有到达任何 Pod" }, hint: { en: "explain a connection from 192.168.1.5 to 10.1.8.30:$NP.", zh: "explain 一个从 192.168.1.5 到 10.1.8.30:$NP 的连接。" } }],
    },
  ],
} satisfies LabInput;
