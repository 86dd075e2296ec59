import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const setup = sh(...servicesNamespace, "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3");
const download = sh("wget https://laoma.cloud/.../metallb-0.14.8.tar.gz", "tar -xf metallb-0.14.8.tar.gz", "sed -i 's/quay.io/hub.laoma.cloud/g' metallb-0.14.8/config/manifests/metallb-native.yaml", "grep image: metallb-0.14.8/config/manifests/metallb-native.yaml");
const install = sh("kubectl apply -f metallb-0.14.8/config/manifests/metallb-native.yaml", "sleep 30", "kubectl get all -n metallb-system");
const pool = sh(`cat > ippool.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: first-pool
  namespace: metallb-system
spec:
  addresses:
  - 10.1.8.40-10.1.8.80
EOF`);
const l2 = sh(`cat > L2.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: example
  namespace: metallb-system
EOF`);
const applyPool = sh("kubectl apply -f ippool.yaml", "kubectl apply -f L2.yaml");
const service = sh(
  `kubectl expose deployment web --type LoadBalancer --port=80 --target-port=80 \\
-o yaml --dry-run=client > service-LoadBalancer.yaml`,
  "kubectl apply -f service-LoadBalancer.yaml",
  "sleep 5",
  "kubectl get service",
);
const curl = sh("curl http://10.1.8.40:80");
const path = sh('explain --from 192.168.1.5 10.1.8.40:80 | grep -e "enters" -e DNAT -e "^path"');

export default {
  id: "loadbalancer-metallb",
  title: { en: "LoadBalancer with MetalLB", zh: "用 MetalLB 实现 LoadBalancer" },
  summary: {
    en: "Kubernetes does not implement LoadBalancer itself. Install MetalLB, give it an address pool announced over L2 (ARP), and reach a LoadBalancer Service on its external IP: MetalLB only owns the address, kube-proxy still forwards.",
    zh: "Kubernetes 本身不实现 LoadBalancer。安装 MetalLB，给它一个通过 L2（ARP）宣告的地址池，再通过外部 IP 访问 LoadBalancer Service：MetalLB 只负责占用地址，转发仍由 kube-proxy 完成。",
  },
  level: "intermediate",
  minutes: 20,
  source: "lab guide §5.3",
  objects: [],
  steps: [
    {
      id: "install",
      title: { en: "Install MetalLB", zh: "安装 MetalLB" },
      body: {
        en: md(
          "Three web pods to expose:",
          setup,
          "Download MetalLB's release, point its images at the lab's registry, and apply its manifest: a `controller` Deployment that assigns addresses and a `speaker` DaemonSet (one per node) that announces them.",
          download,
          install,
        ),
        zh: md("准备三个要暴露的 web Pod：", setup, "下载 MetalLB 的发布包，把镜像地址改为实验环境的仓库，并应用它的清单：分配地址的 `controller` Deployment，和宣告地址的 `speaker` DaemonSet（每个节点一个）。", download, install),
      },
      checks: [
        contextCheck,
        { id: "controller", kind: "object", resource: "deployments.apps", namespace: "metallb-system", name: "controller", where: [{ path: "status.readyReplicas", equals: 1 }], title: { en: "MetalLB's controller is ready", zh: "MetalLB 的 controller 已就绪" }, hint: { en: "Apply metallb-native.yaml and wait (sleep 30).", zh: "应用 metallb-native.yaml 并等待（sleep 30）。" } },
        { id: "speakers", kind: "object", resource: "daemonsets.apps", namespace: "metallb-system", name: "speaker", where: [{ path: "status.numberReady", equals: 3 }], title: { en: "A speaker runs on each of the 3 nodes", zh: "3 个节点上各运行一个 speaker" }, hint: { en: "Wait until kubectl get all -n metallb-system shows 3 speakers Running.", zh: "等到 kubectl get all -n metallb-system 显示 3 个 speaker 都在运行。" } },
      ],
    },
    {
      id: "pool",
      title: { en: "An address pool, announced over L2", zh: "通过 L2 宣告的地址池" },
      body: {
        en: md("Give MetalLB the addresses 10.1.8.40-10.1.8.80 of the nodes' network, and an L2Advertisement so a speaker answers ARP for them:", pool, l2, applyPool),
        zh: md("把节点网络中的地址 10.1.8.40-10.1.8.80 交给 MetalLB，再加一个 L2Advertisement，让 speaker 为这些地址应答 ARP：", pool, l2, applyPool),
      },
      checks: [
        { id: "pool", kind: "object", resource: "ipaddresspools.metallb.io", namespace: "metallb-system", name: "first-pool", where: [{ path: "spec.addresses.0", equals: "10.1.8.40-10.1.8.80" }], title: { en: "IPAddressPool first-pool holds 10.1.8.40-10.1.8.80", zh: "IPAddressPool first-pool 包含 10.1.8.40-10.1.8.80" }, hint: { en: "Write ippool.yaml and apply it.", zh: "写好 ippool.yaml 并应用它。" } },
        { id: "l2", kind: "object", resource: "l2advertisements.metallb.io", namespace: "metallb-system", name: "example", title: { en: "L2Advertisement example exists", zh: "L2Advertisement example 已存在" }, hint: { en: "Write L2.yaml and apply it.", zh: "写好 L2.yaml 并应用它。" } },
      ],
    },
    {
      id: "service",
      title: { en: "A LoadBalancer Service", zh: "LoadBalancer Service" },
      body: {
        en: md(
          "Expose the Deployment as a LoadBalancer. MetalLB writes the first free address of the pool into the Service's status, shown as EXTERNAL-IP; the Service also gets a NodePort and a ClusterIP, as every LoadBalancer does.",
          service,
          "Reach it on the external IP and the Service's port 80 (not the NodePort):",
          curl,
        ),
        zh: md("把 Deployment 暴露为 LoadBalancer。MetalLB 把地址池中第一个空闲地址写入 Service 的 status，显示为 EXTERNAL-IP；和所有 LoadBalancer 一样，该 Service 也有 NodePort 和 ClusterIP。", service, "用外部 IP 和 Service 的 80 端口（不是 NodePort）访问它：", curl),
      },
      checks: [
        { id: "ip", kind: "object", resource: "services", namespace: "services", name: "web", where: [{ path: "spec.type", equals: "LoadBalancer" }, { path: "status.loadBalancer.ingress.0.ip", equals: "10.1.8.40" }], title: { en: "Service web got the external IP 10.1.8.40", zh: "Service web 获得外部 IP 10.1.8.40" }, hint: { en: "Apply service-LoadBalancer.yaml after the pool exists.", zh: "在地址池存在之后应用 service-LoadBalancer.yaml。" } },
        { id: "curl", kind: "command", command: "curl http://10\\.1\\.8\\.40", output: "It works!", title: { en: "The external IP answered on port 80", zh: "外部 IP 在 80 端口应答了" }, hint: { en: "curl http://10.1.8.40:80.", zh: "curl http://10.1.8.40:80。" } },
      ],
    },
    {
      id: "path",
      title: { en: "Who forwards?", zh: "谁在转发？" },
      body: {
        en: md(
          "A client outside (192.168.1.5) sends to 10.1.8.40: the node whose speaker announced it receives the packet, and that node's kube-proxy rules DNAT it to a pod, as for any Service. `explain` shows the path (the Rules view draws it):",
          path,
        ),
        zh: md("集群外的客户端（192.168.1.5）向 10.1.8.40 发送：宣告该地址的 speaker 所在节点收到数据包，该节点的 kube-proxy 规则把它 DNAT 到一个 Pod，和任何 Service 一样。`explain` 显示路径（“规则”视图会把它画出来）：", path),
      },
      checks: [
        { id: "enters", kind: "command", command: "explain", output: "from outside enters (master|node1|node2)", title: { en: "The packet entered the announcing node", zh: "数据包进入了宣告地址的节点" }, hint: { en: "Run the explain line.", zh: "运行 explain 命令。" } },
        { id: "dnat", kind: "command", command: "explain", output: "DNAT 10\\.1\\.8\\.40:80 -> 10\\.244\\.", title: { en: "kube-proxy's rule DNATed it to a pod", zh: "kube-proxy 的规则把它 DNAT 到了 Pod" }, hint: { en: "Look for the DNAT line in explain's output.", zh: "在 explain 的输出中找到 DNAT 那一行。" } },
      ],
    },
  ],
} satisfies LabInput;
