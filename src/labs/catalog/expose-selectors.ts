import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const setup = sh(...servicesNamespace, "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3", "sleep 20", "kubectl get pods --show-labels");
const exposeOther = sh("kubectl expose deployment web --port=8080 --target-port=80 --selector=app2=web2", "kubectl get endpoints web");
const label = sh("kubectl label pod --all app2=web2", "kubectl get endpoints web", "kubectl describe svc web | grep -e Selector -e Endpoints");
const yaml = sh("kubectl delete svc web", "kubectl create service clusterip web --tcp=8080:80 -o yaml --dry-run=client > svc-web.yml", "cat svc-web.yml");
const apply = sh("kubectl apply -f svc-web.yml", "kubectl get svc web -o yaml | grep -A6 ports:");
const ping = sh("ping -c 2 $(kubectl get svc web -o jsonpath='{.spec.clusterIP}')", "ping -c 2 $(kubectl get pods -o jsonpath='{.items[0].status.podIP}')");

export default {
  id: "expose-selectors",
  title: { en: "expose, selectors and YAML", zh: "expose、选择器与 YAML" },
  summary: {
    en: "A Service finds its pods only through its label selector: expose a Deployment with a selector no pod matches, fix it by labelling the pods, then write the Service as YAML. And why a ClusterIP does not answer ping.",
    zh: "Service 只通过标签选择器找到 Pod：用一个没有 Pod 匹配的选择器暴露 Deployment，给 Pod 打标签修好它，再把 Service 写成 YAML。以及为什么 ping 不通 ClusterIP。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §3.3",
  objects: [],
  steps: [
    {
      id: "setup",
      title: { en: "A namespace and three pods", zh: "一个命名空间和三个 Pod" },
      body: {
        en: md("Work in a namespace `services` (the context's default from now on) and start three httpd pods. Note their labels: `app=web`.", setup),
        zh: md("在命名空间 `services` 中工作（从现在起作为上下文的默认命名空间），启动三个 httpd Pod。注意它们的标签：`app=web`。", setup),
      },
      checks: [
        contextCheck,
        { id: "deploy", kind: "object", resource: "deployments.apps", namespace: "services", name: "web", where: [{ path: "status.readyReplicas", equals: 3 }], title: { en: "Deployment web has 3 ready pods", zh: "Deployment web 有 3 个就绪 Pod" }, hint: { en: "Create the Deployment and wait (sleep 20).", zh: "创建 Deployment 并等待（sleep 20）。" } },
      ],
    },
    {
      id: "other-selector",
      title: { en: "A selector that matches nothing", zh: "一个什么都选不中的选择器" },
      body: {
        en: md(
          "`kubectl expose` takes the Deployment's selector unless you give one. Give one no pod has, `app2=web2`: the Service is created, but its Endpoints stay `<none>`.",
          exposeOther,
          "`--port` is the Service's port, `--target-port` the pods' port.",
        ),
        zh: md(
          "`kubectl expose` 默认使用 Deployment 的选择器，除非你另外指定。指定一个没有 Pod 拥有的标签 `app2=web2`：Service 创建成功，但它的 Endpoints 是 `<none>`。",
          exposeOther,
          "`--port` 是 Service 的端口，`--target-port` 是 Pod 的端口。",
        ),
      },
      checks: [
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.selector.app2", equals: "web2" }], title: { en: "Service web selects app2=web2", zh: "Service web 选择 app2=web2" }, hint: { en: "Run the expose command with --selector=app2=web2.", zh: "运行带 --selector=app2=web2 的 expose 命令。" } },
        { id: "empty", kind: "command", command: "get endpoints web", output: "^web\\s+<none>", title: { en: "You saw that it has no endpoints", zh: "你看到了它没有端点" }, hint: { en: "Run `kubectl get endpoints web` before labelling any pod.", zh: "在给 Pod 打标签之前运行 `kubectl get endpoints web`。" } },
      ],
    },
    {
      id: "label",
      title: { en: "Label the pods", zh: "给 Pod 打标签" },
      body: {
        en: md("The Deployment's selector and the Service's may differ: a pod only needs the labels each one asks for. Add `app2=web2` to every pod and the endpoints appear.", label),
        zh: md("Deployment 的选择器和 Service 的选择器可以不同：Pod 只需带上各自要求的标签。给每个 Pod 加上 `app2=web2`，端点就出现了。", label),
      },
      checks: [
        { id: "labels", kind: "count", resource: "pods", namespace: "services", selector: "app=web,app2=web2", min: 3, title: { en: "The 3 pods carry app2=web2", zh: "3 个 Pod 都带有 app2=web2" }, hint: { en: "Run `kubectl label pod --all app2=web2`.", zh: "运行 `kubectl label pod --all app2=web2`。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "Service web has 3 endpoints", zh: "Service web 有 3 个端点" }, hint: { en: "The Service selects app2=web2: the pods need that label.", zh: "Service 选择 app2=web2：Pod 需要这个标签。" } },
      ],
    },
    {
      id: "yaml",
      title: { en: "The Service as YAML", zh: "Service 的 YAML" },
      body: {
        en: md(
          "Let kubectl write the YAML for you with `--dry-run=client -o yaml`, then apply it. Read the fields: `selector`, `port` (the ClusterIP's port), `targetPort` (the pods' port).",
          yaml,
          apply,
        ),
        zh: md(
          "用 `--dry-run=client -o yaml` 让 kubectl 帮你写出 YAML，再应用它。读一读这些字段：`selector`、`port`（ClusterIP 监听的端口）、`targetPort`（Pod 的端口）。",
          yaml,
          apply,
        ),
      },
      checks: [
        { id: "file", kind: "command", command: "cat svc-web.yml", output: "targetPort: 80", title: { en: "svc-web.yml holds the Service's YAML", zh: "svc-web.yml 中是 Service 的 YAML" }, hint: { en: "Run the block with --dry-run=client -o yaml > svc-web.yml.", zh: "运行包含 --dry-run=client -o yaml > svc-web.yml 的代码块。" } },
        { id: "service", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.selector.app", equals: "web" }, { path: "spec.selector.app2", exists: false }, { path: "spec.ports.0.name", equals: "8080-80" }], title: { en: "Service web, applied from the file, selects app=web", zh: "从文件应用的 Service web 选择 app=web" }, hint: { en: "Delete the old Service first, then `kubectl apply -f svc-web.yml`.", zh: "先删除旧 Service，再 `kubectl apply -f svc-web.yml`。" } },
      ],
    },
    {
      id: "ping",
      title: { en: "A ClusterIP does not answer ping", zh: "ClusterIP 不响应 ping" },
      body: {
        en: md("The rules kube-proxy writes translate TCP and UDP ports; nothing answers ICMP for a ClusterIP. A pod IP is a real interface and answers.", ping),
        zh: md("kube-proxy 写下的规则只转换 TCP 和 UDP 端口；没有任何东西为 ClusterIP 回应 ICMP。Pod IP 是真实的网卡，会回应。", ping),
      },
      checks: [
        { id: "clusterip", kind: "command", command: "ping", output: "100% packet loss", title: { en: "ping to the ClusterIP got no answer", zh: "ping ClusterIP 没有回应" }, hint: { en: "ping the Service's clusterIP.", zh: "ping Service 的 clusterIP。" } },
        { id: "pod", kind: "command", command: "ping", output: " 0% packet loss", title: { en: "ping to a pod IP was answered", zh: "ping Pod IP 有回应" }, hint: { en: "ping a pod's podIP.", zh: "ping 一个 Pod 的 podIP。" } },
      ],
    },
  ],
} satisfies LabInput;
