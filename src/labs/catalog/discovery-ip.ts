import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const mysqlYaml = `kubectl run mysql --image=hub.laoma.cloud/library/mysql --image-pull-policy=IfNotPresent \\
--env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom \\
--env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog \\
--dry-run=client -o yaml > pod-mysql.yaml`;
const mysql = [sh(...servicesNamespace), sh(mysqlYaml, "cat pod-mysql.yaml"), sh("kubectl apply -f pod-mysql.yaml", "kubectl expose pod mysql --port=3306 --target-port=3306", "sleep 20", "kubectl get svc mysql")];
const wordpress = sh(
  "MYSQL_IP=$(kubectl get svc mysql -o jsonpath='{.spec.clusterIP}')",
  `kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --image-pull-policy=IfNotPresent \\
--env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat \\
--env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=$MYSQL_IP`,
  "kubectl expose pod wordpress --port=80 --target-port=80 --type NodePort",
  "sleep 30",
  "kubectl get pods -o wide",
  "kubectl get svc",
);
const test = sh("curl -I $(kubectl get svc wordpress -o jsonpath='{.spec.clusterIP}')", `curl -s -o /dev/null -w "%{http_code}\\n" http://10.1.8.31:$(kubectl get svc wordpress -o jsonpath='{.spec.ports[0].nodePort}')`);
const broken = sh("kubectl run wp-broken --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_HOST=10.96.0.254", "sleep 30", "curl -s $(kubectl get pod wp-broken -o jsonpath='{.status.podIP}') | grep h1");

export default {
  id: "discovery-ip",
  title: { en: "Service discovery by IP: WordPress and MySQL", zh: "通过 IP 发现服务：WordPress 与 MySQL" },
  summary: {
    en: "Put MySQL behind a ClusterIP Service and hand WordPress that IP as its database host: a client finds its backend through the Service's stable address, not a pod's.",
    zh: "把 MySQL 放在一个 ClusterIP Service 后面，把这个 IP 作为数据库地址交给 WordPress：客户端通过 Service 稳定的地址找到后端，而不是某个 Pod 的地址。",
  },
  level: "beginner",
  minutes: 15,
  source: "lab guide §4.1",
  objects: [],
  steps: [
    {
      id: "mysql",
      title: { en: "MySQL behind a Service", zh: "Service 后面的 MySQL" },
      body: {
        en: md("Work in namespace `services`:", mysql[0], "Write the MySQL pod as YAML with a dry run (read what `kubectl run` would create), then apply it and expose port 3306:", mysql[1], mysql[2]),
        zh: md("在命名空间 `services` 中工作：", mysql[0], "用 dry run 把 MySQL Pod 写成 YAML（读一读 `kubectl run` 将会创建什么），然后应用它并暴露 3306 端口：", mysql[1], mysql[2]),
      },
      checks: [
        contextCheck,
        { id: "pod", kind: "object", resource: "pods", namespace: "services", name: "mysql", where: [{ path: "status.phase", equals: "Running" }], title: { en: "Pod mysql is running", zh: "Pod mysql 正在运行" }, hint: { en: "Apply pod-mysql.yaml.", zh: "应用 pod-mysql.yaml。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "mysql", min: 1, title: { en: "Service mysql has the pod as its endpoint", zh: "Service mysql 以该 Pod 为端点" }, hint: { en: "Run `kubectl expose pod mysql --port=3306 --target-port=3306`.", zh: "运行 `kubectl expose pod mysql --port=3306 --target-port=3306`。" } },
      ],
    },
    {
      id: "wordpress",
      title: { en: "WordPress with the Service's IP", zh: "使用 Service IP 的 WordPress" },
      body: {
        en: md(
          "The guide types the ClusterIP it saw (`WORDPRESS_DB_HOST=10.111.69.45`); here the variable `MYSQL_IP` holds yours. Expose WordPress as a NodePort so a browser outside could reach it.",
          wordpress,
        ),
        zh: md(
          "手册里直接输入它看到的 ClusterIP（`WORDPRESS_DB_HOST=10.111.69.45`）；这里变量 `MYSQL_IP` 保存了你的 IP。把 WordPress 暴露为 NodePort，集群外的浏览器也能访问它。",
          wordpress,
        ),
      },
      checks: [
        { id: "env", kind: "object", resource: "pods", namespace: "services", name: "wordpress", where: [{ path: "spec.containers.0.env", matches: '"WORDPRESS_DB_HOST","value":"10\\.\\d+\\.\\d+\\.\\d+"' }], title: { en: "WordPress's database host is the mysql Service's IP", zh: "WordPress 的数据库地址是 mysql Service 的 IP" }, hint: { en: "Set MYSQL_IP first, then run kubectl run wordpress with --env=WORDPRESS_DB_HOST=$MYSQL_IP.", zh: "先设置 MYSQL_IP，再用 --env=WORDPRESS_DB_HOST=$MYSQL_IP 运行 kubectl run wordpress。" } },
        { id: "nodeport", kind: "object", resource: "services", namespace: "services", name: "wordpress", where: [{ path: "spec.type", equals: "NodePort" }], title: { en: "Service wordpress is a NodePort", zh: "Service wordpress 是 NodePort 类型" }, hint: { en: "Expose the pod with --type NodePort.", zh: "用 --type NodePort 暴露该 Pod。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "wordpress", min: 1, title: { en: "WordPress is ready behind its Service", zh: "WordPress 已在其 Service 后就绪" }, hint: { en: "Wait for the pod to be Ready (sleep 30).", zh: "等 Pod 就绪（sleep 30）。" } },
      ],
    },
    {
      id: "test",
      title: { en: "WordPress reaches its database", zh: "WordPress 连上了数据库" },
      body: {
        en: md(
          "A WordPress that reaches its database answers with a redirect to its installer (302 and `Location: …/wp-admin/install.php`). Try its ClusterIP and a node's IP with the NodePort:",
          test,
        ),
        zh: md("连上数据库的 WordPress 会重定向到安装页面（302 和 `Location: …/wp-admin/install.php`）。试试它的 ClusterIP，以及节点 IP 加 NodePort：", test),
      },
      checks: [
        { id: "installer", kind: "command", command: "curl", output: "Location: \\S+/wp-admin/install\\.php", title: { en: "WordPress sent you to its installer", zh: "WordPress 把你引导到安装页面" }, hint: { en: "curl -I the wordpress Service's ClusterIP.", zh: "curl -I wordpress Service 的 ClusterIP。" } },
        { id: "nodeport", kind: "command", command: "curl .*10\\.1\\.8\\.\\d+:", output: "^302$", title: { en: "The NodePort answers 302 too", zh: "NodePort 也返回 302" }, hint: { en: "curl a node's IP on the NodePort.", zh: "用 NodePort curl 一个节点的 IP。" } },
      ],
    },
    {
      id: "broken",
      title: { en: "A wrong database host", zh: "错误的数据库地址" },
      body: {
        en: md("For contrast, a WordPress whose database host answers nothing (no Service has 10.96.0.254) shows WordPress's error page:", broken),
        zh: md("作为对比，数据库地址没有任何应答的 WordPress（没有 Service 使用 10.96.0.254）会显示 WordPress 的错误页：", broken),
      },
      checks: [
        { id: "error", kind: "command", command: "curl", output: "Error establishing a database connection", title: { en: "You saw WordPress fail without its database", zh: "你看到了 WordPress 在没有数据库时的失败" }, hint: { en: "Start wp-broken, wait 30 s, and curl its pod IP.", zh: "启动 wp-broken，等 30 秒，再 curl 它的 Pod IP。" } },
      ],
    },
  ],
} satisfies LabInput;
