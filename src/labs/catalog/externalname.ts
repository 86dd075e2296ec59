import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const create = sh(
  ...servicesNamespace,
  `cat > www.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: www
spec:
  type: ExternalName
  externalName: www.laoma.cloud
EOF`,
  "kubectl apply -f www.yaml",
  "kubectl get svc www",
);
const rules = sh("iptables-save | grep -c www");
const enter = sh("kubectl run busybox --rm -it --image=busybox /bin/sh");
const lookup = sh("nslookup www.services.svc.cluster.local", "nslookup www");
const leave = sh("exit");
const repoint = sh(`kubectl patch svc www -p '{"spec":{"externalName":"db.example.com"}}'`, "nslookup www.services.svc.cluster.local 10.96.0.10");

export default {
  id: "externalname",
  title: { en: "ExternalName: a Service that is a DNS alias", zh: "ExternalName：作为 DNS 别名的 Service" },
  summary: {
    en: "An ExternalName Service has no ClusterIP, no endpoints and no kube-proxy rules: CoreDNS answers its name with a CNAME to an outside name, and changing that name moves every client at once.",
    zh: "ExternalName Service 没有 ClusterIP、没有端点，也没有 kube-proxy 规则：CoreDNS 用指向外部名字的 CNAME 回答它的名字，修改这个名字就能一次改变所有客户端。",
  },
  level: "beginner",
  minutes: 10,
  source: "lab guide §5.4",
  objects: [],
  steps: [
    {
      id: "create",
      title: { en: "An ExternalName Service", zh: "创建 ExternalName Service" },
      body: {
        en: md("In namespace `services`, write and apply the Service `www` that stands for `www.laoma.cloud`:", create),
        zh: md("在命名空间 `services` 中，写出并应用代表 `www.laoma.cloud` 的 Service `www`：", create),
      },
      checks: [
        contextCheck,
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "www", where: [{ path: "spec.type", equals: "ExternalName" }, { path: "spec.externalName", equals: "www.laoma.cloud" }], title: { en: "Service www is an ExternalName for www.laoma.cloud", zh: "Service www 是指向 www.laoma.cloud 的 ExternalName" }, hint: { en: "Write www.yaml and apply it.", zh: "写好 www.yaml 并应用它。" } },
      ],
    },
    {
      id: "no-rules",
      title: { en: "Nothing for kube-proxy", zh: "kube-proxy 无事可做" },
      body: {
        en: md("No ClusterIP, so no rules: grep counts 0 lines (and exits 1, as grep does when nothing matched).", rules),
        zh: md("没有 ClusterIP，所以没有规则：grep 统计到 0 行（并以 1 退出，grep 什么都没匹配到时就是这样）。", rules),
      },
      checks: [{ id: "zero", kind: "command", command: "iptables-save \\| grep -c www", output: "^0$", title: { en: "iptables holds no rule for www", zh: "iptables 中没有 www 的规则" }, hint: { en: "Run `iptables-save | grep -c www`.", zh: "运行 `iptables-save | grep -c www`。" } }],
    },
    {
      id: "cname",
      title: { en: "A CNAME in CoreDNS", zh: "CoreDNS 中的 CNAME" },
      body: {
        en: md("From a pod, the Service's name resolves to a canonical name: the redirection happens in DNS, and the client then connects to the outside host itself.", enter, lookup, leave),
        zh: md("在 Pod 中，Service 的名字被解析为一个规范名字（canonical name）：重定向发生在 DNS 层，之后客户端自己去连接外部主机。", enter, lookup, leave),
      },
      checks: [
        { id: "cname", kind: "command", command: "nslookup www", output: "www\\.services\\.svc\\.cluster\\.local\\s+canonical name = www\\.laoma\\.cloud", title: { en: "www resolves to a CNAME www.laoma.cloud", zh: "www 解析为 CNAME www.laoma.cloud" }, hint: { en: "Run nslookup inside the busybox pod.", zh: "在 busybox Pod 中运行 nslookup。" } },
        { id: "left", kind: "command", command: "^exit$", output: 'pod "busybox" deleted', title: { en: "You left the busybox pod", zh: "你已退出 busybox Pod" }, hint: { en: "Type `exit`.", zh: "输入 `exit`。" } },
      ],
    },
    {
      id: "repoint",
      title: { en: "Move every client at once", zh: "一次移动所有客户端" },
      body: {
        en: md("If the outside service moves, change the Service, not the clients. From the node, ask CoreDNS (10.96.0.10) directly:", repoint),
        zh: md("如果外部服务换了地址，修改 Service 而不是客户端。在节点上直接询问 CoreDNS（10.96.0.10）：", repoint),
      },
      checks: [
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "www", where: [{ path: "spec.externalName", equals: "db.example.com" }], title: { en: "Service www now points at db.example.com", zh: "Service www 现在指向 db.example.com" }, hint: { en: "Run the kubectl patch line.", zh: "运行 kubectl patch 命令。" } },
        { id: "cname", kind: "command", command: "nslookup", output: "canonical name = db\\.example\\.com", title: { en: "CoreDNS answers with the new name", zh: "CoreDNS 用新名字回答" }, hint: { en: "nslookup www.services.svc.cluster.local 10.96.0.10.", zh: "nslookup www.services.svc.cluster.local 10.96.0.10。" } },
      ],
    },
  ],
} satisfies LabInput;
