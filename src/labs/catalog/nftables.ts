import type { LabInput } from "../types.js";
import { clusterIP, md, nginxNames, servicesNamespace, sh } from "./text.js";

const toNft = sh(`kubectl get cm -n kube-system kube-proxy -o yaml | sed 's/mode: ""/mode: "nftables"/' | kubectl apply -f -`);
const restart = sh(
  "kubectl rollout restart daemonset -n kube-system kube-proxy",
  "kubectl rollout status daemonset -n kube-system kube-proxy",
  "NEW=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)",
  "kubectl logs -n kube-system $NEW | grep Using",
);
const web = sh(...servicesNamespace, "kubectl create deployment web --image=nginx --replicas=3", "kubectl expose deployment web --port=80", "sleep 30", nginxNames, clusterIP("web"));
const table = sh("nft list table ip kube-proxy | grep -A4 'map service-ips'", "nft list table ip kube-proxy | grep -B1 -A3 'numgen random mod 3'");
const none = sh("iptables-save -t nat | grep -c KUBE-SVC");
const traffic = sh("for i in {1..90}; do curl -s $IP; done | sort | uniq -c", 'explain $IP:80 | grep -e "lookup" -e numgen -e "rules evaluated"');

export default {
  id: "nftables",
  title: { en: "kube-proxy in nftables mode", zh: "nftables 模式的 kube-proxy" },
  summary: {
    en: "Switch kube-proxy to nftables (GA in 1.33): Services become elements of sets and verdict maps in one table, looked up instead of walked, and an endpoint is chosen with numgen random mod N.",
    zh: "把 kube-proxy 切换为 nftables（1.33 中已 GA）：Service 变成一张表中集合和判决映射（verdict map）的元素，通过查找而不是遍历匹配，端点用 numgen random mod N 选出。",
  },
  level: "advanced",
  minutes: 20,
  source: "principles ch. 4.4 (nftables mode)",
  objects: [],
  steps: [
    {
      id: "switch",
      title: { en: "Switch to nftables", zh: "切换到 nftables" },
      body: {
        en: md(
          "Set `mode: \"nftables\"` in kube-proxy's ConfigMap. On a real node you would type `kubectl edit configmap -n kube-system kube-proxy`; the run button cannot drive an editor, so this block makes the change with `sed` and `kubectl apply` (the warning about the missing last-applied annotation is expected).",
          toNft,
          "Restart kube-proxy so it reads the new mode:",
          restart,
        ),
        zh: md("在 kube-proxy 的 ConfigMap 中设置 `mode: \"nftables\"`。在真实节点上你会输入 `kubectl edit configmap -n kube-system kube-proxy`；运行按钮无法操作编辑器，所以这个代码块用 `sed` 和 `kubectl apply` 做修改（关于缺少 last-applied 注解的警告是预期的）。", toNft, "重启 kube-proxy，让它读取新的模式：", restart),
      },
      checks: [
        { id: "configmap", kind: "object", resource: "configmaps", namespace: "kube-system", name: "kube-proxy", where: [{ path: "data.config\\.conf", matches: '\\nmode: "nftables"\\n' }], title: { en: "The ConfigMap says mode: \"nftables\"", zh: "ConfigMap 中为 mode: \"nftables\"" }, hint: { en: "Run the sed | kubectl apply line.", zh: "运行 sed | kubectl apply 命令。" } },
        { id: "log", kind: "command", command: "kubectl logs", output: '"Using nftables Proxier"', title: { en: "A new kube-proxy pod says: Using nftables Proxier", zh: "新的 kube-proxy Pod 显示：Using nftables Proxier" }, hint: { en: "Restart the DaemonSet, then read a new pod's log.", zh: "重启 DaemonSet，再阅读新 Pod 的日志。" } },
      ],
    },
    {
      id: "table",
      title: { en: "Sets and maps", zh: "集合与映射" },
      body: {
        en: md(
          "Three nginx pods behind a Service. kube-proxy's rules now live in `table ip kube-proxy`: the map `service-ips` takes (ClusterIP, protocol, port) straight to the Service's chain, and that chain picks an endpoint with `numgen random mod 3`.",
          web,
          table,
        ),
        zh: md("一个 Service 后面三个 nginx Pod。kube-proxy 的规则现在位于 `table ip kube-proxy`：映射 `service-ips` 把（ClusterIP、协议、端口）直接映射到 Service 的链，这条链用 `numgen random mod 3` 选出一个端点。", web, table),
      },
      checks: [
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "Service web has 3 endpoints", zh: "Service web 有 3 个端点" }, hint: { en: "Create and expose the Deployment, then wait.", zh: "创建并暴露 Deployment，然后等待。" } },
        { id: "map", kind: "command", command: "nft list", output: "map service-ips", title: { en: "You found the service-ips map", zh: "你找到了 service-ips 映射" }, hint: { en: "Run the nft list lines.", zh: "运行 nft list 命令。" } },
        { id: "numgen", kind: "command", command: "nft list", output: "numgen random mod 3 vmap", title: { en: "The Service's chain picks one of 3 endpoints with numgen", zh: "Service 的链用 numgen 从 3 个端点中选一个" }, hint: { en: "grep the table for numgen.", zh: "在表中 grep numgen。" } },
      ],
    },
    {
      id: "no-iptables",
      title: { en: "iptables is empty", zh: "iptables 是空的" },
      body: { en: md("No KUBE-SVC chains are left in iptables:", none), zh: md("iptables 中不再有 KUBE-SVC 链：", none) },
      checks: [{ id: "zero", kind: "command", command: "grep -c KUBE-SVC", output: "^0$", title: { en: "iptables holds no KUBE-SVC chain", zh: "iptables 中没有 KUBE-SVC 链" }, hint: { en: "Run `iptables-save -t nat | grep -c KUBE-SVC`.", zh: "运行 `iptables-save -t nat | grep -c KUBE-SVC`。" } }],
    },
    {
      id: "traffic",
      title: { en: "Traffic through nftables", zh: "经过 nftables 的流量" },
      body: {
        en: md("90 requests spread over the 3 pods about equally, as in iptables mode; `explain` shows the map lookups and the numgen draw, and how few rules the packet passed.", traffic),
        zh: md("90 个请求大致平均地分到 3 个 Pod，和 iptables 模式一样；`explain` 显示映射查找、numgen 抽样，以及数据包经过的规则有多少。", traffic),
      },
      checks: [
        { id: "traffic", kind: "traffic", command: "curl", min: 90, pods: 3, title: { en: "90 requests reached all 3 pods", zh: "90 个请求到达了全部 3 个 Pod" }, hint: { en: "Run the 90-request loop.", zh: "运行 90 次请求的循环。" } },
        { id: "explain", kind: "command", command: "explain", output: "rules evaluated: \\d+", title: { en: "explain counted the rules the packet passed", zh: "explain 统计了数据包经过的规则数" }, hint: { en: "Run the explain line.", zh: "运行 explain 命令。" } },
      ],
    },
  ],
} satisfies LabInput;
