import type { LabInput } from "../types.js";
import { clusterIP, contextCheck, httpdNames, md, servicesNamespace, sh } from "./text.js";

const setup = sh(...servicesNamespace, "kubectl create deployment web --image=hub.laoma.cloud/library/httpd --replicas=2", "kubectl expose deployment web --port 80", "sleep 20");
const loop = "for i in {1..20}; do curl -s $IP; done | sort | uniq -c";
const patch = sh(`kubectl patch svc web -p '{"spec":{"sessionAffinity":"ClientIP"}}'`, "kubectl describe svc web | grep -i affinity");
const rules = sh('iptables-save | grep -c -- "--rcheck --seconds 10800"', "iptables-save | grep -- --rcheck | head -2");

export default {
  id: "session-affinity",
  title: { en: "Session affinity: ClientIP", zh: "会话保持：ClientIP" },
  summary: {
    en: "By default each new connection may land on any pod. With sessionAffinity: ClientIP kube-proxy remembers which pod a client IP was sent to (3 hours by default) and sends it there again.",
    zh: "默认情况下，每个新连接都可能落到任何一个 Pod 上。设置 sessionAffinity: ClientIP 后，kube-proxy 会记住某个客户端 IP 被发往哪个 Pod（默认 3 小时），并再次发往那里。",
  },
  level: "intermediate",
  minutes: 15,
  source: "lab guide §6",
  objects: [],
  steps: [
    {
      id: "setup",
      title: { en: "Two pods that say their names", zh: "两个报出自己名字的 Pod" },
      body: {
        en: md("Two httpd pods behind a Service, each home page set to the pod's name:", setup, sh(httpdNames)),
        zh: md("一个 Service 后面两个 httpd Pod，每个主页都改成 Pod 的名字：", setup, sh(httpdNames)),
      },
      checks: [
        contextCheck,
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 2, title: { en: "Service web has 2 endpoints", zh: "Service web 有 2 个端点" }, hint: { en: "Create the Deployment, expose it, and wait (sleep 20).", zh: "创建 Deployment、暴露它，并等待（sleep 20）。" } },
      ],
    },
    {
      id: "none",
      title: { en: "No affinity: both pods answer", zh: "无亲和：两个 Pod 都会回答" },
      body: {
        en: md("The guide types the ClusterIP it saw (10.111.90.183 there); `IP` holds yours. 20 requests from the same client spread over both pods:", sh(clusterIP("web"), loop)),
        zh: md("手册输入它看到的 ClusterIP（那里是 10.111.90.183）；`IP` 保存了你的。同一个客户端的 20 个请求分散到两个 Pod：", sh(clusterIP("web"), loop)),
      },
      checks: [
        { id: "names", kind: "command", command: "curl", output: "^\\s+\\d+ web-[a-z0-9]+-[a-z0-9]{5}$", title: { en: "The pods answer with their own names", zh: "Pod 用自己的名字回答" }, hint: { en: "Run the loop of the first step that writes each pod's name, then the curl loop.", zh: "先运行第一步中写入 Pod 名字的循环，再运行 curl 循环。" } },
        { id: "spread", kind: "traffic", command: "curl", min: 20, pods: 2, title: { en: "20 requests reached both pods", zh: "20 个请求到达了两个 Pod" }, hint: { en: "Run the 20-request loop.", zh: "运行 20 次请求的循环。" } },
      ],
    },
    {
      id: "clientip",
      title: { en: "ClientIP: one client, one pod", zh: "ClientIP：一个客户端，一个 Pod" },
      body: {
        en: md("Turn on affinity and send the same 20 requests: all of them go to one pod.", patch, sh(loop)),
        zh: md("开启亲和，再发送同样的 20 个请求：它们全部落到同一个 Pod。", patch, sh(loop)),
      },
      checks: [
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.sessionAffinity", equals: "ClientIP" }, { path: "spec.sessionAffinityConfig.clientIP.timeoutSeconds", equals: 10800 }], title: { en: "Service web has sessionAffinity ClientIP (10800 s)", zh: "Service web 的 sessionAffinity 为 ClientIP（10800 秒）" }, hint: { en: "Run the kubectl patch line.", zh: "运行 kubectl patch 命令。" } },
        { id: "one-pod", kind: "command", command: "curl", output: "^\\s*20 web-", title: { en: "All 20 requests were answered by the same pod", zh: "20 个请求全部由同一个 Pod 回答" }, hint: { en: "Send the 20 requests after the patch.", zh: "修改之后再发送 20 个请求。" } },
        { id: "traffic", kind: "traffic", command: "curl", min: 20, title: { en: "The 20 requests reached a pod", zh: "20 个请求都到达了 Pod" }, hint: { en: "Run the loop again.", zh: "再次运行循环。" } },
      ],
    },
    {
      id: "rules",
      title: { en: "How iptables remembers", zh: "iptables 如何记住" },
      body: {
        en: md(
          "In iptables mode each endpoint's chain records the client with `-m recent --set`, and the Service's chain first checks `--rcheck --seconds 10800` for a client seen before. (In IPVS mode, affinity becomes IPVS persistence, and the scheduler is bypassed for known clients.)",
          rules,
        ),
        zh: md("在 iptables 模式下，每个端点的链用 `-m recent --set` 记下客户端，Service 的链先用 `--rcheck --seconds 10800` 检查是否见过这个客户端。（在 IPVS 模式下，亲和性变成 IPVS 的持久连接，已知客户端绕过调度算法。）", rules),
      },
      checks: [
        { id: "rcheck", kind: "command", command: "iptables-save", output: "--rcheck --seconds 10800", title: { en: "You found the --rcheck rules", zh: "你找到了 --rcheck 规则" }, hint: { en: "grep iptables-save for --rcheck.", zh: "在 iptables-save 的输出中 grep --rcheck。" } },
      ],
    },
  ],
} satisfies LabInput;
