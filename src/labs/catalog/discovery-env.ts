import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const mysql = sh(...servicesNamespace, "kubectl run mysql --image=hub.laoma.cloud/library/mysql --env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom --env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog", "kubectl expose pod mysql --port=3306 --target-port=3306", "sleep 20");
const enter = sh("kubectl run test --rm -it --image=busybox sh");
const env = sh("env | grep MYSQL");
const leave = sh("exit");
const wordpress = sh(
  "kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST='$(MYSQL_SERVICE_HOST)'",
  "sleep 30",
  "kubectl exec wordpress -- env | grep WORDPRESS_DB_HOST",
);
const code = sh(`curl -s -o /dev/null -w "%{http_code}\\n" $(kubectl get pod wordpress -o jsonpath='{.status.podIP}')`);
const later = sh("kubectl expose pod wordpress --port=80", "kubectl exec mysql -- env | grep -c WORDPRESS_SERVICE");
const fresh = sh("kubectl run env-check --image=busybox -- sleep 3600", "sleep 10", "kubectl exec env-check -- env | grep WORDPRESS_SERVICE");

export default {
  id: "discovery-env",
  title: { en: "Service discovery by environment variables", zh: "通过环境变量发现服务" },
  summary: {
    en: "The kubelet writes every Service that exists when a pod starts into its environment (MYSQL_SERVICE_HOST, ...). Use one as WordPress's database host, and see why a Service created later is missing.",
    zh: "Pod 启动时，kubelet 把当时已存在的每个 Service 写入它的环境变量（MYSQL_SERVICE_HOST 等）。用它作为 WordPress 的数据库地址，并看看为什么之后创建的 Service 不在其中。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §4.2",
  objects: [],
  steps: [
    {
      id: "mysql",
      title: { en: "MySQL and its Service", zh: "MySQL 及其 Service" },
      body: {
        en: md("In namespace `services`, start MySQL and expose it. The Service must exist before the pods that want its variables.", mysql),
        zh: md("在命名空间 `services` 中启动 MySQL 并暴露它。Service 必须先于需要其变量的 Pod 创建。", mysql),
      },
      checks: [
        contextCheck,
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "mysql", min: 1, title: { en: "Service mysql has a ready endpoint", zh: "Service mysql 有一个就绪端点" }, hint: { en: "Run the block and wait for the pod (sleep 20).", zh: "运行代码块并等待 Pod（sleep 20）。" } },
      ],
    },
    {
      id: "variables",
      title: { en: "The variables a pod gets", zh: "Pod 得到的变量" },
      body: {
        en: md(
          "Open a shell in a throwaway busybox pod (`--rm -it`: deleted when you leave), list the MYSQL variables, and leave:",
          enter,
          env,
          leave,
          "`MYSQL_SERVICE_HOST` and `MYSQL_SERVICE_PORT` are the Service's ClusterIP and port; the `MYSQL_PORT_3306_TCP_*` ones are the older Docker-link style.",
        ),
        zh: md(
          "在一个临时 busybox Pod 中打开 shell（`--rm -it`：退出时删除），列出 MYSQL 相关变量，然后退出：",
          enter,
          env,
          leave,
          "`MYSQL_SERVICE_HOST` 和 `MYSQL_SERVICE_PORT` 是 Service 的 ClusterIP 和端口；`MYSQL_PORT_3306_TCP_*` 是较老的 Docker link 风格。",
        ),
      },
      checks: [
        { id: "env", kind: "command", command: "^env", output: "^MYSQL_SERVICE_HOST=10\\.\\d+\\.\\d+\\.\\d+$", title: { en: "The pod's environment holds MYSQL_SERVICE_HOST", zh: "Pod 的环境变量中有 MYSQL_SERVICE_HOST" }, hint: { en: "Run `env | grep MYSQL` inside the busybox pod.", zh: "在 busybox Pod 中运行 `env | grep MYSQL`。" } },
        { id: "left", kind: "command", command: "^exit$", output: 'pod "test" deleted', title: { en: "You left, and the throwaway pod was deleted", zh: "你已退出，临时 Pod 已删除" }, hint: { en: "Type `exit` in the pod's shell.", zh: "在 Pod 的 shell 中输入 `exit`。" } },
      ],
    },
    {
      id: "wordpress",
      title: { en: "WordPress through $(MYSQL_SERVICE_HOST)", zh: "通过 $(MYSQL_SERVICE_HOST) 的 WordPress" },
      body: {
        en: md(
          "Give WordPress the variable instead of an IP: the kubelet expands `$(MYSQL_SERVICE_HOST)` in the pod's env when it starts the container (the single quotes keep your shell from expanding it first).",
          wordpress,
          code,
        ),
        zh: md(
          "把变量而不是 IP 交给 WordPress：kubelet 启动容器时会展开 Pod env 中的 `$(MYSQL_SERVICE_HOST)`（单引号防止你的 shell 先把它展开）。",
          wordpress,
          code,
        ),
      },
      checks: [
        { id: "spec", kind: "object", resource: "pods", namespace: "services", name: "wordpress", where: [{ path: "spec.containers.0.env", matches: "\\$\\(MYSQL_SERVICE_HOST\\)" }], title: { en: "The pod's spec names $(MYSQL_SERVICE_HOST)", zh: "Pod 的 spec 引用了 $(MYSQL_SERVICE_HOST)" }, hint: { en: "Keep the single quotes around '$(MYSQL_SERVICE_HOST)'.", zh: "保留 '$(MYSQL_SERVICE_HOST)' 两边的单引号。" } },
        { id: "expanded", kind: "command", command: "exec wordpress", output: "^WORDPRESS_DB_HOST=10\\.\\d+\\.\\d+\\.\\d+$", title: { en: "In the container it became the ClusterIP", zh: "在容器中它变成了 ClusterIP" }, hint: { en: "Run `kubectl exec wordpress -- env | grep WORDPRESS_DB_HOST`.", zh: "运行 `kubectl exec wordpress -- env | grep WORDPRESS_DB_HOST`。" } },
        { id: "works", kind: "command", command: "curl", output: "^302$", title: { en: "WordPress reached its database (302 to the installer)", zh: "WordPress 连上了数据库（302 到安装页）" }, hint: { en: "curl the wordpress pod's IP.", zh: "curl wordpress Pod 的 IP。" } },
      ],
    },
    {
      id: "order",
      title: { en: "A Service created later is not injected", zh: "之后创建的 Service 不会被注入" },
      body: {
        en: md(
          "Expose WordPress now. The mysql pod started before this Service existed, so it has no WORDPRESS variables (grep counts 0); a pod started afterwards has them. Variables also only cover Services of the pod's own namespace: DNS (next lab) has neither limit.",
          later,
          fresh,
        ),
        zh: md(
          "现在暴露 WordPress。mysql Pod 在这个 Service 存在之前就启动了，所以它没有 WORDPRESS 变量（grep 计数为 0）；之后启动的 Pod 才有。环境变量也只包含 Pod 所在命名空间的 Service：DNS（下一个实验）没有这两个限制。",
          later,
          fresh,
        ),
      },
      checks: [
        { id: "none", kind: "command", command: "exec mysql", output: "^0$", title: { en: "The older mysql pod has no WORDPRESS variables", zh: "较早的 mysql Pod 没有 WORDPRESS 变量" }, hint: { en: "Expose wordpress, then count WORDPRESS_SERVICE in mysql's env.", zh: "暴露 wordpress，然后统计 mysql 环境变量中的 WORDPRESS_SERVICE。" } },
        { id: "fresh", kind: "command", command: "exec env-check", output: "^WORDPRESS_SERVICE_HOST=", title: { en: "A pod started after the Service has them", zh: "在 Service 之后启动的 Pod 拥有这些变量" }, hint: { en: "Start env-check after exposing wordpress and read its env.", zh: "暴露 wordpress 之后启动 env-check，再查看它的环境变量。" } },
      ],
    },
  ],
} satisfies LabInput;
