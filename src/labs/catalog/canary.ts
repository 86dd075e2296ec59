import type { LabInput } from "../types.js";

const stableYaml = `cat <<EOF > webapp-1.28.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app: web}
  name: web-28
spec:
  replicas: 10
  selector:
    matchLabels: {app: web, tier: frontend, track: stable}
  template:
    metadata:
      labels: {app: web, tier: frontend, track: stable}
    spec:
      containers:
      - image: hub.laoma.cloud/library/nginx:1.28
        name: nginx
        imagePullPolicy: IfNotPresent
        ports:
        - containerPort: 80
        volumeMounts:
        - name: webcontent
          mountPath: "/usr/share/nginx/html"
      volumes:
      - name: webcontent
        configMap:
          name: web
          items:
          - key: index28.html
            path: index.html
EOF`;

const serviceYaml = `cat <<EOF > webapp-svc.yaml
apiVersion: v1
kind: Service
metadata:
  labels: {app: web}
  name: web
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 80
  selector:
    app: web
    tier: frontend
EOF`;

const canarySed = `sed -e "s/web-28/web-29/" -e "s/stable/canary/g" -e "s/1.28/1.29/" -e "s/index28/index29/" -e "s/replicas: 10/replicas: 1/" webapp-1.28.yaml > webapp-1.29.yaml`;

const curlLoop = "for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c";

export default {
  id: "canary",
  title: { en: "Canary release: 8:2, then 6:4", zh: "金丝雀发布：8:2，再到 6:4" },
  summary: {
    en: "Two Deployments behind one Service: the number of pods of each version sets the share of traffic it gets, through the probabilities in kube-proxy's rules.",
    zh: "一个 Service 后面两个 Deployment：每个版本的 Pod 数量通过 kube-proxy 规则中的概率决定它分到的流量比例。",
  },
  level: "intermediate",
  minutes: 20,
  source: "lab guide §7",
  objects: [],
  steps: [
    {
      id: "namespace",
      title: { en: "A namespace of your own", zh: "创建自己的命名空间" },
      body: {
        en: "Work in a namespace `services`, and make it the default of your kubectl context:\n\n```bash\nkubectl create namespace services\nkubectl config set-context --current --namespace services\n```",
        zh: "在命名空间 `services` 中工作，并把它设为 kubectl 上下文的默认命名空间：\n\n```bash\nkubectl create namespace services\nkubectl config set-context --current --namespace services\n```",
      },
      checks: [
        { id: "ns", kind: "object", resource: "namespaces", name: "services", title: { en: "Namespace services exists", zh: "命名空间 services 已存在" }, hint: { en: "Run `kubectl create namespace services`.", zh: "运行 `kubectl create namespace services`。" } },
        { id: "context", kind: "command", command: "set-context .*--namespace[ =]services", output: "modified", title: { en: "Your context uses it", zh: "上下文已使用它" }, hint: { en: "Run the second command of the block.", zh: "运行代码块中的第二条命令。" } },
      ],
    },
    {
      id: "pages",
      title: { en: "Two versions of a page", zh: "两个版本的页面" },
      body: {
        en: "Each version serves its own `index.html` from one ConfigMap:\n\n```bash\nmkdir web\necho hello nginx 1.28 > web/index28.html\necho hello nginx 1.29 > web/index29.html\nkubectl create configmap web --from-file=./web\n```",
        zh: "每个版本从同一个 ConfigMap 提供自己的 `index.html`：\n\n```bash\nmkdir web\necho hello nginx 1.28 > web/index28.html\necho hello nginx 1.29 > web/index29.html\nkubectl create configmap web --from-file=./web\n```",
      },
      checks: [
        { id: "configmap", kind: "object", resource: "configmaps", namespace: "services", name: "web", where: [{ path: "data.index28\\.html", equals: "hello nginx 1.28\n" }, { path: "data.index29\\.html", equals: "hello nginx 1.29\n" }], title: { en: "ConfigMap web holds index28.html and index29.html", zh: "ConfigMap web 包含 index28.html 和 index29.html" }, hint: { en: "Write both files into web/, then `kubectl create configmap web --from-file=./web`.", zh: "把两个文件写入 web/，再运行 `kubectl create configmap web --from-file=./web`。" } },
      ],
    },
    {
      id: "stable",
      title: { en: "The stable version and its Service", zh: "稳定版本及其 Service" },
      body: {
        en: "Write the stable Deployment (10 replicas, labels `app=web, tier=frontend, track=stable`) and a Service that selects only `app=web, tier=frontend`, so it will select the canary too:\n\n```bash\n" +
          stableYaml + "\n```\n\n```bash\n" + serviceYaml + "\n```\n\n```bash\nkubectl apply -f webapp-1.28.yaml\nkubectl apply -f webapp-svc.yaml\nsleep 30\nkubectl get deploy\n```",
        zh: "写出稳定版 Deployment（10 个副本，标签 `app=web, tier=frontend, track=stable`），以及只选择 `app=web, tier=frontend` 的 Service，这样它也会选中金丝雀版本：\n\n```bash\n" +
          stableYaml + "\n```\n\n```bash\n" + serviceYaml + "\n```\n\n```bash\nkubectl apply -f webapp-1.28.yaml\nkubectl apply -f webapp-svc.yaml\nsleep 30\nkubectl get deploy\n```",
      },
      checks: [
        { id: "deploy", kind: "object", resource: "deployments.apps", namespace: "services", name: "web-28", where: [{ path: "status.readyReplicas", equals: 10 }], title: { en: "Deployment web-28 has 10 ready pods", zh: "Deployment web-28 有 10 个就绪的 Pod" }, hint: { en: "Apply webapp-1.28.yaml and wait (sleep 30).", zh: "应用 webapp-1.28.yaml 并等待（sleep 30）。" } },
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 10, title: { en: "Service web has the 10 stable pods as endpoints", zh: "Service web 以 10 个稳定版 Pod 为端点" }, hint: { en: "Apply webapp-svc.yaml: it selects app=web, tier=frontend.", zh: "应用 webapp-svc.yaml：它选择 app=web, tier=frontend。" } },
      ],
    },
    {
      id: "canary",
      title: { en: "Add the canary", zh: "加入金丝雀版本" },
      body: {
        en: "Make the canary's manifest from the stable one with `sed`, and apply it:\n\n```bash\n" + canarySed + "\nkubectl apply -f webapp-1.29.yaml\n```",
        zh: "用 `sed` 从稳定版清单生成金丝雀清单，并应用它：\n\n```bash\n" + canarySed + "\nkubectl apply -f webapp-1.29.yaml\n```",
      },
      checks: [
        { id: "deploy", kind: "object", resource: "deployments.apps", namespace: "services", name: "web-29", where: [{ path: "spec.template.metadata.labels.track", equals: "canary" }, { path: "spec.template.spec.containers.0.image", matches: "nginx:1\\.29$" }], title: { en: "Deployment web-29 runs nginx 1.29 on the canary track", zh: "Deployment web-29 以 canary 轨道运行 nginx 1.29" }, hint: { en: "Run the sed line, then apply webapp-1.29.yaml.", zh: "运行 sed 命令，再应用 webapp-1.29.yaml。" } },
      ],
    },
    {
      id: "eight-two",
      title: { en: "8:2", zh: "8:2" },
      body: {
        en: "Scale to 8 stable and 2 canary pods, then send 50 requests. With 10 endpoints, each gets 1/10 of the new connections, so the canary should answer about 20%. Open the Traffic view to compare.\n\n```bash\nkubectl scale deployment web-28 --replicas 8\nkubectl scale deployment web-29 --replicas 2\nsleep 30\nkubectl get pods -l track=canary\n```\n\n```bash\nIP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')\n" + curlLoop + "\n```",
        zh: "缩放为 8 个稳定版和 2 个金丝雀 Pod，然后发送 50 个请求。10 个端点各得到 1/10 的新连接，所以金丝雀应回答约 20%。打开“流量”视图对比。\n\n```bash\nkubectl scale deployment web-28 --replicas 8\nkubectl scale deployment web-29 --replicas 2\nsleep 30\nkubectl get pods -l track=canary\n```\n\n```bash\nIP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')\n" + curlLoop + "\n```",
      },
      checks: [
        { id: "stable", kind: "object", resource: "deployments.apps", namespace: "services", name: "web-28", where: [{ path: "spec.replicas", equals: 8 }], title: { en: "web-28 has 8 replicas", zh: "web-28 有 8 个副本" }, hint: { en: "`kubectl scale deployment web-28 --replicas 8`.", zh: "`kubectl scale deployment web-28 --replicas 8`。" } },
        { id: "canary", kind: "object", resource: "deployments.apps", namespace: "services", name: "web-29", where: [{ path: "spec.replicas", equals: 2 }, { path: "status.readyReplicas", equals: 2 }], title: { en: "web-29 has 2 ready replicas", zh: "web-29 有 2 个就绪副本" }, hint: { en: "`kubectl scale deployment web-29 --replicas 2`, then wait.", zh: "`kubectl scale deployment web-29 --replicas 2`，然后等待。" } },
        { id: "split", kind: "traffic", command: "curl", min: 40, share: { pod: "/web-29-", low: 0.04, high: 0.45 }, title: { en: "About 20% of 50 requests reached the canary", zh: "50 个请求中约 20% 到达金丝雀" }, hint: { en: "Scale first, then run the 50-request loop.", zh: "先缩放，再运行 50 次请求的循环。" } },
      ],
    },
    {
      id: "six-four",
      title: { en: "6:4", zh: "6:4" },
      body: {
        en: "Move more traffic to the canary: 6 stable, 4 canary. The rules now give the canary about 40%.\n\n```bash\nkubectl scale deployment web-28 --replicas 6\nkubectl scale deployment web-29 --replicas 4\nsleep 30\nkubectl get deploy\n```\n\n```bash\n" + curlLoop + "\n```",
        zh: "把更多流量移到金丝雀：6 个稳定版，4 个金丝雀。现在规则给金丝雀约 40%。\n\n```bash\nkubectl scale deployment web-28 --replicas 6\nkubectl scale deployment web-29 --replicas 4\nsleep 30\nkubectl get deploy\n```\n\n```bash\n" + curlLoop + "\n```",
      },
      checks: [
        { id: "canary", kind: "object", resource: "deployments.apps", namespace: "services", name: "web-29", where: [{ path: "spec.replicas", equals: 4 }, { path: "status.readyReplicas", equals: 4 }], title: { en: "web-29 has 4 ready replicas", zh: "web-29 有 4 个就绪副本" }, hint: { en: "Scale web-28 to 6 and web-29 to 4, then wait.", zh: "把 web-28 缩放到 6、web-29 扩容到 4，然后等待。" } },
        { id: "split", kind: "traffic", command: "curl", min: 40, share: { pod: "/web-29-", low: 0.2, high: 0.65 }, title: { en: "About 40% of the requests reached the canary", zh: "约 40% 的请求到达金丝雀" }, hint: { en: "After scaling, run the 50-request loop again.", zh: "缩放之后再次运行 50 次请求的循环。" } },
      ],
    },
  ],
} satisfies LabInput;
