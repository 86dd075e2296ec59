import type { LabInput } from "../types.js";
import { clusterIP, md, nginxNames, servicesNamespace, sh } from "./text.js";

const look = sh(
  "kubectl get cm -n kube-system kube-proxy -o yaml | grep mode",
  "kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name",
  "POD=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)",
  "kubectl logs -n kube-system $POD | grep Using",
);
const toIpvs = sh(`kubectl get cm -n kube-system kube-proxy -o yaml | sed 's/mode: ""/mode: "ipvs"/' | kubectl apply -f -`);
const restart = sh(
  "kubectl rollout restart daemonset -n kube-system kube-proxy",
  "kubectl rollout status daemonset -n kube-system kube-proxy",
  "NEW=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)",
  "kubectl logs -n kube-system $NEW | grep Using",
  "ip addr show kube-ipvs0 | head -3",
);
const web = sh(...servicesNamespace, "kubectl create deployment web --image=nginx --replicas=3", "sleep 30");
const names = sh(nginxNames, "kubectl expose deployment web --port=80", clusterIP("web"), "ipvsadm -Lnt $IP:80");
const loop = "for i in {1..60}; do curl -s $IP; done | sort | uniq -c";
const toWrr = sh(`kubectl get cm -n kube-system kube-proxy -o yaml | sed 's/scheduler: ""/scheduler: "wrr"/' | kubectl apply -f -`, "kubectl get cm kube-proxy -n kube-system -o yaml | grep -e 'scheduler: \"' -e 'mode: \"'");
const restartWrr = sh("kubectl rollout restart ds kube-proxy -n kube-system", "sleep 30", "ipvsadm -Lnt $IP:80");

const editNote = {
  en: "On a real node you would type `kubectl edit configmap -n kube-system kube-proxy` and change the line in your editor; the run button cannot drive an editor, so this block makes the same change with `sed` and `kubectl apply` (kubectl warns once that the ConfigMap had no last-applied annotation: that is expected).",
  zh: "在真实节点上你会输入 `kubectl edit configmap -n kube-system kube-proxy`，在编辑器里改这一行；运行按钮无法操作编辑器，所以这个代码块用 `sed` 和 `kubectl apply` 做同样的修改（kubectl 会提示一次该 ConfigMap 缺少 last-applied 注解：这是预期的）。",
};

export default {
  id: "kube-proxy-ipvs",
  title: { en: "kube-proxy modes: IPVS with rr and wrr", zh: "kube-proxy 模式：IPVS 的 rr 与 wrr" },
  summary: {
    en: "Find kube-proxy's mode in its ConfigMap and logs, switch it from iptables to IPVS, and read the virtual servers it builds: round robin gives exactly 20/20/20 over 60 requests, where iptables only gets close.",
    zh: "在 ConfigMap 和日志中找到 kube-proxy 的模式，把它从 iptables 切换为 IPVS，阅读它建立的虚拟服务器：轮询让 60 个请求恰好分成 20/20/20，而 iptables 只能接近。",
  },
  level: "advanced",
  minutes: 25,
  source: "lab guide §8.3–8.4",
  objects: [],
  steps: [
    {
      id: "mode",
      title: { en: "Which mode runs now?", zh: "现在运行的是哪种模式？" },
      body: {
        en: md(
          "kube-proxy is a DaemonSet in kube-system reading its configuration from the ConfigMap `kube-proxy`. An empty `mode: \"\"` means the default, iptables; each pod's log says which proxier it started. (The guide types a pod name it saw, kube-proxy-9xfwh; `POD` holds one of yours.)",
          look,
        ),
        zh: md("kube-proxy 是 kube-system 中的一个 DaemonSet，从 ConfigMap `kube-proxy` 读取配置。空的 `mode: \"\"` 表示默认值 iptables；每个 Pod 的日志写明它启动了哪种 proxier。（手册输入它看到的 Pod 名 kube-proxy-9xfwh；`POD` 保存了你的一个。）", look),
      },
      checks: [
        { id: "configmap", kind: "command", command: "get cm -n kube-system kube-proxy", output: '^\\s+mode: ""$', title: { en: "The ConfigMap leaves the mode empty", zh: "ConfigMap 中的 mode 为空" }, hint: { en: "grep mode in the kube-proxy ConfigMap.", zh: "在 kube-proxy ConfigMap 中 grep mode。" } },
        { id: "log", kind: "command", command: "kubectl logs", output: '"Using iptables Proxier"', title: { en: "The log says: Using iptables Proxier", zh: "日志显示：Using iptables Proxier" }, hint: { en: "Read a kube-proxy pod's log (grep Using).", zh: "阅读一个 kube-proxy Pod 的日志（grep Using）。" } },
      ],
    },
    {
      id: "ipvs",
      title: { en: "Switch to IPVS", zh: "切换到 IPVS" },
      body: {
        en: md(
          "Set `mode: \"ipvs\"` in the ConfigMap.",
          editNote.en,
          toIpvs,
          "kube-proxy reads its configuration only when it starts: restart the DaemonSet and read a new pod's log. IPVS binds every ClusterIP to a dummy interface, `kube-ipvs0`.",
          restart,
        ),
        zh: md("在 ConfigMap 中设置 `mode: \"ipvs\"`。", editNote.zh, toIpvs, "kube-proxy 只在启动时读取配置：重启 DaemonSet，再阅读新 Pod 的日志。IPVS 把每个 ClusterIP 绑定到一个 dummy 网卡 `kube-ipvs0` 上。", restart),
      },
      checks: [
        { id: "configmap", kind: "object", resource: "configmaps", namespace: "kube-system", name: "kube-proxy", where: [{ path: "data.config\\.conf", matches: '\\nmode: "ipvs"\\n' }], title: { en: "The ConfigMap says mode: \"ipvs\"", zh: "ConfigMap 中为 mode: \"ipvs\"" }, hint: { en: "Run the sed | kubectl apply line.", zh: "运行 sed | kubectl apply 命令。" } },
        { id: "log", kind: "command", command: "kubectl logs", output: '"Using ipvs Proxier"', title: { en: "A new kube-proxy pod says: Using ipvs Proxier", zh: "新的 kube-proxy Pod 显示：Using ipvs Proxier" }, hint: { en: "Restart the DaemonSet, wait for the rollout, then read a new pod's log.", zh: "重启 DaemonSet，等待滚动完成，再阅读新 Pod 的日志。" } },
        { id: "dummy", kind: "command", command: "kube-ipvs0", output: "inet 10\\.96\\.0\\.1/32", title: { en: "ClusterIPs sit on kube-ipvs0", zh: "ClusterIP 绑定在 kube-ipvs0 上" }, hint: { en: "Run `ip addr show kube-ipvs0`.", zh: "运行 `ip addr show kube-ipvs0`。" } },
      ],
    },
    {
      id: "virtual-server",
      title: { en: "A virtual server and its real servers", zh: "虚拟服务器及其真实服务器" },
      body: {
        en: md(
          "Three nginx pods whose pages say their names, and a Service. IPVS holds it as a virtual server `ClusterIP:80` with scheduler `rr`, each pod a real server (Masq = NAT, weight 1). The lookup is a hash table, not a chain of rules.",
          web,
          names,
        ),
        zh: md("三个主页报出自己名字的 nginx Pod，以及一个 Service。IPVS 把它保存为虚拟服务器 `ClusterIP:80`，调度算法 `rr`，每个 Pod 是一台真实服务器（Masq 即 NAT，权重 1）。查找用的是哈希表，而不是一条条规则。", web, names),
      },
      checks: [
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "Service web has 3 endpoints", zh: "Service web 有 3 个端点" }, hint: { en: "Create the Deployment, wait, and expose it.", zh: "创建 Deployment，等待，再暴露它。" } },
        { id: "ipvsadm", kind: "command", command: "ipvsadm", output: "^TCP\\s+10\\.\\d+\\.\\d+\\.\\d+:80 rr\\s*$", title: { en: "ipvsadm shows the virtual server with rr", zh: "ipvsadm 显示了使用 rr 的虚拟服务器" }, hint: { en: "Run `ipvsadm -Lnt $IP:80`.", zh: "运行 `ipvsadm -Lnt $IP:80`。" } },
      ],
    },
    {
      id: "round-robin",
      title: { en: "Round robin, exactly", zh: "精确的轮询" },
      body: {
        en: md("60 requests, and each pod answers exactly 20: rr takes the real servers in turn. Run `ipvsadm -Lnt $IP:80` again after: InActConn counts the finished connections.", sh(loop, "ipvsadm -Lnt $IP:80")),
        zh: md("60 个请求，每个 Pod 恰好回答 20 个：rr 依次轮流选择真实服务器。之后再运行 `ipvsadm -Lnt $IP:80`：InActConn 统计已结束的连接。", sh(loop, "ipvsadm -Lnt $IP:80")),
      },
      checks: [
        { id: "traffic", kind: "traffic", command: "curl", min: 60, pods: 3, title: { en: "60 requests reached all 3 pods", zh: "60 个请求到达了全部 3 个 Pod" }, hint: { en: "Run the 60-request loop.", zh: "运行 60 次请求的循环。" } },
        { id: "exact", kind: "command", command: "curl", output: "^\\s+20 web-[\\s\\S]*^\\s+20 web-[\\s\\S]*^\\s+20 web-", title: { en: "Each pod answered exactly 20", zh: "每个 Pod 恰好回答了 20 个" }, hint: { en: "Look at the counts uniq -c printed.", zh: "看看 uniq -c 打印的计数。" } },
      ],
    },
    {
      id: "wrr",
      title: { en: "Another scheduler: wrr", zh: "换一个调度算法：wrr" },
      body: {
        en: md(
          "The scheduler is `ipvs.scheduler` in the same ConfigMap (rr, wrr, lc, sh, ...). Set it to `wrr` and restart kube-proxy. kube-proxy gives every real server weight 1, so weighted round robin spreads like rr; a Service with sessionAffinity: ClientIP would use persistence instead.",
          toWrr,
          restartWrr,
          sh(loop),
        ),
        zh: md("调度算法是同一个 ConfigMap 中的 `ipvs.scheduler`（rr、wrr、lc、sh 等）。把它设为 `wrr` 并重启 kube-proxy。kube-proxy 给每台真实服务器的权重都是 1，所以加权轮询的效果和 rr 一样；设置了 sessionAffinity: ClientIP 的 Service 则改用持久连接。", toWrr, restartWrr, sh(loop)),
      },
      checks: [
        { id: "configmap", kind: "object", resource: "configmaps", namespace: "kube-system", name: "kube-proxy", where: [{ path: "data.config\\.conf", matches: 'scheduler: "wrr"' }], title: { en: "The ConfigMap says scheduler: \"wrr\"", zh: "ConfigMap 中为 scheduler: \"wrr\"" }, hint: { en: "Run the sed | kubectl apply line for the scheduler.", zh: "运行修改 scheduler 的 sed | kubectl apply 命令。" } },
        { id: "ipvsadm", kind: "command", command: "ipvsadm", output: "^TCP\\s+10\\.\\d+\\.\\d+\\.\\d+:80 wrr\\s*$", title: { en: "The virtual server now uses wrr", zh: "虚拟服务器现在使用 wrr" }, hint: { en: "Restart kube-proxy, wait, and run ipvsadm again.", zh: "重启 kube-proxy，等待，再运行 ipvsadm。" } },
        { id: "traffic", kind: "traffic", command: "curl", min: 60, pods: 3, title: { en: "60 requests still reach all 3 pods", zh: "60 个请求仍然到达全部 3 个 Pod" }, hint: { en: "Run the 60-request loop again.", zh: "再次运行 60 次请求的循环。" } },
      ],
    },
  ],
} satisfies LabInput;
