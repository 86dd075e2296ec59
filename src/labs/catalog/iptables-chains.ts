import type { LabInput } from "../types.js";
import { clusterIP, md, servicesNamespace, sh } from "./text.js";

const setup = sh(...servicesNamespace, "kubectl create deployment web --image=nginx --replicas=3", "kubectl expose deployment web --port=80", "sleep 30");
const services = sh("iptables-save > iptables.list", clusterIP("web"), "grep $IP iptables.list");
const svc = sh(`SVC=$(grep -- "-A KUBE-SERVICES -d $IP/32" iptables.list | grep -o 'KUBE-SVC-[A-Z0-9]*')`, "grep $SVC iptables.list");
const sep = sh(`SEP=$(grep -- "-A $SVC" iptables.list | grep -o 'KUBE-SEP-[A-Z0-9]*' | tr '\\n' ' ')`, "set -- $SEP; grep -e $1 -e $2 -e $3 iptables.list | grep DNAT");
const explain = sh('explain $IP:80 | grep -e "statistic random" -e DNAT -e "rules evaluated"');
const count = sh("for i in {1..90}; do curl -s $IP; done | wc -l", 'grep -c -- "--probability" iptables.list');

export default {
  id: "iptables-chains",
  title: { en: "Tracing a Service through iptables", zh: "在 iptables 中追踪一个 Service" },
  summary: {
    en: "Follow a ClusterIP through kube-proxy's iptables rules: KUBE-SERVICES matches it, KUBE-SVC-* picks an endpoint by probability (1/3, 1/2, the rest), KUBE-SEP-* DNATs to the pod. Then watch one packet take that path.",
    zh: "沿着 kube-proxy 的 iptables 规则追踪一个 ClusterIP：KUBE-SERVICES 匹配它，KUBE-SVC-* 按概率（1/3、1/2、其余）选出一个端点，KUBE-SEP-* 把它 DNAT 到 Pod。然后看一个数据包走过这条路径。",
  },
  level: "advanced",
  minutes: 20,
  source: "lab guide §8.5",
  objects: [],
  steps: [
    {
      id: "setup",
      title: { en: "A Service of three pods", zh: "三个 Pod 的 Service" },
      body: { en: md("Three nginx pods and their Service, in namespace `services`:", setup), zh: md("在命名空间 `services` 中创建三个 nginx Pod 及其 Service：", setup) },
      checks: [{ id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "Service web has 3 endpoints", zh: "Service web 有 3 个端点" }, hint: { en: "Run the block and wait (sleep 30).", zh: "运行代码块并等待（sleep 30）。" } }],
    },
    {
      id: "services",
      title: { en: "KUBE-SERVICES: the entry", zh: "KUBE-SERVICES：总入口" },
      body: {
        en: md(
          "Save the rules to a file and look for the ClusterIP: `KUBE-SERVICES` matches destination ClusterIP and port and jumps to the Service's own chain; inside it, traffic from outside the pod network (`! -s 10.244.0.0/16`) is first marked for masquerade.",
          services,
        ),
        zh: md("把规则保存到文件，查找 ClusterIP：`KUBE-SERVICES` 匹配目的 ClusterIP 和端口，跳转到该 Service 专属的链；在那条链里，来自 Pod 网段之外的流量（`! -s 10.244.0.0/16`）先被打上伪装标记。", services),
      },
      checks: [
        { id: "entry", kind: "command", command: "grep \\$IP iptables\\.list", output: "^-A KUBE-SERVICES -d 10\\.\\d+\\.\\d+\\.\\d+/32 .*-j KUBE-SVC-", title: { en: "You found the KUBE-SERVICES rule for the ClusterIP", zh: "你找到了该 ClusterIP 的 KUBE-SERVICES 规则" }, hint: { en: "Save iptables-save to iptables.list, set IP, and grep it.", zh: "把 iptables-save 保存到 iptables.list，设置 IP，再 grep。" } },
        { id: "masq", kind: "command", command: "grep \\$IP iptables\\.list", output: "! -s 10\\.244\\.0\\.0/16 .*-j KUBE-MARK-MASQ", title: { en: "…and the masquerade mark for traffic from outside the pod network", zh: "……以及对 Pod 网段之外流量的伪装标记" }, hint: { en: "Read the second line grep printed.", zh: "阅读 grep 打印的第二行。" } },
      ],
    },
    {
      id: "svc",
      title: { en: "KUBE-SVC: probabilities", zh: "KUBE-SVC：概率" },
      body: {
        en: md(
          "The guide types the chain's name it saw (KUBE-SVC-7D76YWGERGEPC4GC); `SVC` holds yours. Three endpoints: the first rule is taken with probability 1/3, the second with 1/2 of what is left, the last always: each pod gets 1/3.",
          svc,
        ),
        zh: md("手册输入它看到的链名（KUBE-SVC-7D76YWGERGEPC4GC）；`SVC` 保存了你的。三个端点：第一条规则以 1/3 的概率命中，第二条以剩余流量的 1/2 命中，最后一条无条件命中：每个 Pod 各得 1/3。", svc),
      },
      checks: [
        { id: "third", kind: "command", command: "grep \\$SVC", output: "--probability 0\\.33333", title: { en: "The first endpoint rule has probability 1/3", zh: "第一条端点规则的概率为 1/3" }, hint: { en: "Set SVC and grep it in iptables.list.", zh: "设置 SVC 并在 iptables.list 中 grep 它。" } },
        { id: "half", kind: "command", command: "grep \\$SVC", output: "--probability 0\\.50000", title: { en: "The second has 1/2", zh: "第二条为 1/2" }, hint: { en: "Read the rules of the KUBE-SVC chain in order.", zh: "按顺序阅读 KUBE-SVC 链的规则。" } },
      ],
    },
    {
      id: "sep",
      title: { en: "KUBE-SEP: the DNAT", zh: "KUBE-SEP：DNAT" },
      body: {
        en: md("Each endpoint chain ends in `DNAT --to-destination <podIP>:80`: here the ClusterIP becomes a pod's address.", sep),
        zh: md("每条端点链最后都是 `DNAT --to-destination <PodIP>:80`：ClusterIP 在这里变成了 Pod 的地址。", sep),
      },
      checks: [{ id: "dnat", kind: "command", command: "grep DNAT", output: "(DNAT --to-destination 10\\.244\\.\\d+\\.\\d+:80[\\s\\S]*){3}", title: { en: "Three KUBE-SEP chains DNAT to the three pods", zh: "三条 KUBE-SEP 链分别 DNAT 到三个 Pod" }, hint: { en: "Set SEP from the KUBE-SVC chain and grep the DNAT rules.", zh: "从 KUBE-SVC 链中取出 SEP，再 grep DNAT 规则。" } }],
    },
    {
      id: "packet",
      title: { en: "One packet, rule by rule", zh: "一个数据包，逐条规则" },
      body: {
        en: md(
          "`explain` sends one connection through the rules and prints every rule it passed, the random draw against each probability, and the DNAT (the Rules view highlights the same path). Then count: 90 requests, and 5 probability rules in the whole table, one per non-last endpoint of each Service.",
          explain,
          count,
          "The cost of iptables mode: every new connection walks these chains rule by rule, and every change rewrites them; with thousands of Services that is slow, which is what IPVS and nftables fix.",
        ),
        zh: md("`explain` 让一个连接穿过这些规则，打印它经过的每一条规则、每次随机抽样与概率的比较，以及 DNAT（“规则”视图高亮同样的路径）。然后数一数：90 个请求，整个表中有 5 条概率规则，每个 Service 除最后一个端点外每个端点一条。", explain, count, "iptables 模式的代价：每个新连接都要逐条走过这些链，每次变化都要重写它们；Service 多达数千个时就很慢，这正是 IPVS 和 nftables 要解决的。"),
      },
      checks: [
        { id: "draw", kind: "command", command: "explain", output: "statistic random: draw [\\d.]+ ", title: { en: "You saw the random draw against the probability", zh: "你看到了随机抽样与概率的比较" }, hint: { en: "Run the explain line.", zh: "运行 explain 命令。" } },
        { id: "traffic", kind: "traffic", command: "curl", min: 90, pods: 3, title: { en: "90 requests reached all 3 pods", zh: "90 个请求到达了全部 3 个 Pod" }, hint: { en: "Run the 90-request loop.", zh: "运行 90 次请求的循环。" } },
      ],
    },
  ],
} satisfies LabInput;
