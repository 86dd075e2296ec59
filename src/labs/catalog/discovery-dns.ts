import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const setup = sh(
  ...servicesNamespace,
  "kubectl run mysql --image=hub.laoma.cloud/library/mysql --env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom --env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog",
  "kubectl expose pod mysql --port=3306 --target-port=3306",
  "kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=mysql",
  "kubectl expose pod wordpress --port=80 --target-port=80 --type NodePort",
  "sleep 30",
  "kubectl get svc -n kube-system kube-dns",
);
const enter = sh("kubectl run busybox --rm -it --image=busybox /bin/sh");
const resolv = sh("cat /etc/resolv.conf");
const short = sh("wget wordpress:80", "grep title index.html");
const long = sh("wget -O - wordpress.services:80 | grep title", "wget -O - wordpress.services.svc.cluster.local:80 | grep title");
const leave = sh("exit");
const enterDefault = sh("kubectl run busybox -n default --rm -it --image=busybox /bin/sh");
const cross = sh("wget -O - wordpress:80");
const crossLong = sh("wget -O - wordpress.services:80 | grep title");

export default {
  id: "discovery-dns",
  title: { en: "Service discovery by DNS", zh: "通过 DNS 发现服务" },
  summary: {
    en: "CoreDNS gives every Service a name: WordPress finds MySQL as plain `mysql`. Read a pod's resolv.conf, resolve short and full names, and see which names work from another namespace.",
    zh: "CoreDNS 为每个 Service 提供名字：WordPress 直接用 `mysql` 找到 MySQL。阅读 Pod 的 resolv.conf，解析短名字和完整名字，看看从另一个命名空间哪些名字可用。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §4.3",
  objects: [],
  steps: [
    {
      id: "setup",
      title: { en: "WordPress finds mysql by name", zh: "WordPress 按名字找到 mysql" },
      body: {
        en: md(
          "This time WordPress's database host is just `WORDPRESS_DB_HOST=mysql`, the Service's name. kubeadm installed CoreDNS behind the Service `kube-dns` (10.96.0.10, port 53); it adds a record for each new Service.",
          setup,
        ),
        zh: md("这次 WordPress 的数据库地址只是 `WORDPRESS_DB_HOST=mysql`，即 Service 的名字。kubeadm 安装的 CoreDNS 位于 Service `kube-dns`（10.96.0.10，端口 53）之后；每个新 Service 都会得到一条记录。", setup),
      },
      checks: [
        contextCheck,
        { id: "env", kind: "object", resource: "pods", namespace: "services", name: "wordpress", where: [{ path: "spec.containers.0.env", matches: '"WORDPRESS_DB_HOST","value":"mysql"' }], title: { en: "WordPress's database host is the name mysql", zh: "WordPress 的数据库地址是名字 mysql" }, hint: { en: "Run kubectl run wordpress with --env=WORDPRESS_DB_HOST=mysql.", zh: "用 --env=WORDPRESS_DB_HOST=mysql 运行 kubectl run wordpress。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "wordpress", min: 1, title: { en: "WordPress is ready behind its Service", zh: "WordPress 已在其 Service 后就绪" }, hint: { en: "Expose the wordpress pod and wait (sleep 30).", zh: "暴露 wordpress Pod 并等待（sleep 30）。" } },
      ],
    },
    {
      id: "resolv",
      title: { en: "A pod's resolver", zh: "Pod 的解析配置" },
      body: {
        en: md(
          "Open a shell in a busybox pod and read its resolver: the nameserver is kube-dns's ClusterIP, and the search list tries `<name>.services.svc.cluster.local` first.",
          enter,
          resolv,
        ),
        zh: md("在 busybox Pod 中打开 shell，阅读它的解析配置：nameserver 是 kube-dns 的 ClusterIP，search 列表首先尝试 `<名字>.services.svc.cluster.local`。", enter, resolv),
      },
      checks: [
        { id: "resolv", kind: "command", command: "resolv\\.conf", output: "^nameserver 10\\.96\\.0\\.10$", title: { en: "The pod asks 10.96.0.10", zh: "Pod 向 10.96.0.10 查询" }, hint: { en: "Run `cat /etc/resolv.conf` inside the busybox pod.", zh: "在 busybox Pod 中运行 `cat /etc/resolv.conf`。" } },
        { id: "search", kind: "command", command: "resolv\\.conf", output: "^search services\\.svc\\.cluster\\.local ", title: { en: "Its search list starts with its own namespace", zh: "它的 search 列表以自己的命名空间开头" }, hint: { en: "Read the search line of /etc/resolv.conf.", zh: "阅读 /etc/resolv.conf 的 search 行。" } },
      ],
    },
    {
      id: "names",
      title: { en: "Three names for one Service", zh: "一个 Service 的三种名字" },
      body: {
        en: md(
          "In the same namespace the short name works; `<service>.<namespace>` and the full `<service>.<namespace>.svc.cluster.local` work from anywhere. (busybox's wget saves to index.html and refuses to overwrite it, so the next ones print to stdout with `-O -`.)",
          short,
          long,
          leave,
        ),
        zh: md(
          "在同一命名空间中短名字就能用；`<service>.<namespace>` 和完整的 `<service>.<namespace>.svc.cluster.local` 在任何地方都能用。（busybox 的 wget 保存到 index.html 且不会覆盖它，所以后面的命令用 `-O -` 输出到标准输出。）",
          short,
          long,
          leave,
        ),
      },
      checks: [
        { id: "short", kind: "command", command: "wget wordpress:80", output: "saved", title: { en: "The short name wordpress resolved", zh: "短名字 wordpress 解析成功" }, hint: { en: "Run `wget wordpress:80` in the busybox pod.", zh: "在 busybox Pod 中运行 `wget wordpress:80`。" } },
        { id: "full", kind: "command", command: "wordpress\\.services\\.svc\\.cluster\\.local", output: "<title>WordPress", title: { en: "The full name reached WordPress", zh: "完整名字访问到了 WordPress" }, hint: { en: "wget -O - wordpress.services.svc.cluster.local:80.", zh: "wget -O - wordpress.services.svc.cluster.local:80。" } },
        { id: "left", kind: "command", command: "^exit$", output: 'pod "busybox" deleted', title: { en: "You left the busybox pod (it was deleted)", zh: "你已退出 busybox Pod（它已被删除）" }, hint: { en: "Type `exit`.", zh: "输入 `exit`。" } },
      ],
    },
    {
      id: "cross",
      title: { en: "From another namespace", zh: "从另一个命名空间" },
      body: {
        en: md(
          "A pod in namespace `default` searches `default.svc.cluster.local`: the short name finds nothing there, the name with the namespace does.",
          enterDefault,
          cross,
          crossLong,
          leave,
        ),
        zh: md("命名空间 `default` 中的 Pod 搜索 `default.svc.cluster.local`：短名字在那里找不到任何东西，带命名空间的名字可以。", enterDefault, cross, crossLong, leave),
      },
      checks: [
        { id: "bad", kind: "command", command: "^wget -O - wordpress:80$", output: "bad address 'wordpress'", title: { en: "From default, the short name does not resolve", zh: "在 default 中短名字无法解析" }, hint: { en: "Start the busybox pod with -n default and try `wget -O - wordpress:80`.", zh: "用 -n default 启动 busybox Pod，试试 `wget -O - wordpress:80`。" } },
        { id: "good", kind: "command", command: "wordpress\\.services:80", output: "<title>WordPress", title: { en: "wordpress.services works across namespaces", zh: "wordpress.services 可以跨命名空间使用" }, hint: { en: "wget -O - wordpress.services:80 from the default namespace.", zh: "在 default 命名空间中 wget -O - wordpress.services:80。" } },
      ],
    },
  ],
} satisfies LabInput;
