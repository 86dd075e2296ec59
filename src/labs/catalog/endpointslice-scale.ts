import type { LabInput } from "../types.js";
import { contextCheck, md, servicesNamespace, sh } from "./text.js";

const slices = "kubectl get endpointslices -l kubernetes.io/service-name=web";
const setup = sh(...servicesNamespace, "kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3", "kubectl expose deployment web --port=80", "sleep 20", slices);
const scale = sh("kubectl scale deployment web --replicas=200", "sleep 60", "kubectl get deploy web", slices);
const perSlice = sh(`for s in $(${slices} -o name); do echo "$s $(kubectl get $s -o jsonpath='{.endpoints[*].addresses[0]}' | wc -w)"; done`);
const rv = `${slices} -o custom-columns=NAME:.metadata.name,RV:.metadata.resourceVersion`;
const change = sh(rv, "kubectl delete pod $(kubectl get pods -l app=web -o name | head -1 | cut -d/ -f2)", "sleep 10", rv);
const full = `FULL=$(for s in $(${slices} -o name); do [ $(kubectl get $s -o jsonpath='{.endpoints[*].addresses[0]}' | wc -w) -ge 99 ] && echo $s; done | head -1)`;
const size = sh("kubectl get endpoints web -o yaml | wc -c", full, "kubectl get $FULL -o yaml | wc -c", "iptables-save -t nat | grep -c KUBE-SEP");

export default {
  id: "endpointslice-scale",
  title: { en: "EndpointSlices at scale", zh: "大规模下的 EndpointSlice" },
  summary: {
    en: "One Endpoints object holds every backend of a Service, rewritten whole on each change. EndpointSlices split them into slices of at most 100: scale to 200 pods, see two slices, and see a pod's change touch only its own slice.",
    zh: "一个 Endpoints 对象包含 Service 的所有后端，每次变化都要整体重写。EndpointSlice 把它们拆成每片最多 100 个：扩容到 200 个 Pod，看到两个分片，并看到一个 Pod 的变化只触及它所在的分片。",
  },
  level: "advanced",
  minutes: 15,
  source: "principles ch. 3 (Endpoints and EndpointSlice)",
  objects: [],
  steps: [
    {
      id: "small",
      title: { en: "Three pods, one slice", zh: "三个 Pod，一个分片" },
      body: {
        en: md("The EndpointSlice controller names each slice after its Service plus a random suffix and labels it `kubernetes.io/service-name`:", setup),
        zh: md("EndpointSlice 控制器用 Service 名加随机后缀为每个分片命名，并给它打上 `kubernetes.io/service-name` 标签：", setup),
      },
      checks: [
        contextCheck,
        { id: "endpoints", kind: "endpoints", namespace: "services", service: "web", min: 3, title: { en: "Service web has 3 endpoints", zh: "Service web 有 3 个端点" }, hint: { en: "Create and expose the Deployment, then wait.", zh: "创建并暴露 Deployment，然后等待。" } },
        { id: "one", kind: "count", resource: "endpointslices.discovery.k8s.io", namespace: "services", selector: "kubernetes.io/service-name=web", min: 1, max: 1, title: { en: "It has a single EndpointSlice", zh: "它只有一个 EndpointSlice" }, hint: { en: "Three endpoints fit in one slice.", zh: "三个端点放得进一个分片。" } },
      ],
    },
    {
      id: "scale",
      title: { en: "200 pods, two slices", zh: "200 个 Pod，两个分片" },
      body: {
        en: md("Scale to 200 replicas (about a minute for them all to be Ready), then count the endpoints in each slice: 100 each, the controller's maximum per slice.", scale, perSlice),
        zh: md("扩容到 200 个副本（全部就绪大约需要一分钟），再统计每个分片中的端点：每片 100 个，即控制器每个分片的上限。", scale, perSlice),
      },
      checks: [
        { id: "ready", kind: "endpoints", namespace: "services", service: "web", min: 200, title: { en: "Service web has 200 ready endpoints", zh: "Service web 有 200 个就绪端点" }, hint: { en: "Scale to 200 and wait for the pods (sleep 60).", zh: "扩容到 200 并等待 Pod（sleep 60）。" } },
        { id: "slices", kind: "count", resource: "endpointslices.discovery.k8s.io", namespace: "services", selector: "kubernetes.io/service-name=web", min: 2, title: { en: "They are split over at least 2 EndpointSlices", zh: "它们被拆分到至少 2 个 EndpointSlice 中" }, hint: { en: "One slice holds at most 100 endpoints.", zh: "一个分片最多容纳 100 个端点。" } },
        { id: "hundred", kind: "command", command: "wc -w", output: "^endpointslice\\.discovery\\.k8s\\.io/web-\\w+ 100$", title: { en: "A slice holds exactly 100 endpoints", zh: "一个分片恰好容纳 100 个端点" }, hint: { en: "Run the loop that counts the addresses of each slice.", zh: "运行统计每个分片地址数的循环。" } },
      ],
    },
    {
      id: "one-change",
      title: { en: "A change touches one slice", zh: "一次变化只触及一个分片" },
      body: {
        en: md(
          "Note each slice's resourceVersion, delete one pod, and look again: the slice that held it changed (and its replacement went into a slice with room, or a new one); the other slice kept its version, so kube-proxy on every node and every watcher received only the slice that changed.",
          change,
        ),
        zh: md("记下每个分片的 resourceVersion，删除一个 Pod，再看一次：包含它的分片变了（替代它的 Pod 进入了一个有空位的分片，或一个新分片）；另一个分片的版本没变，所以每个节点上的 kube-proxy 和每个 watcher 只收到变化的那个分片。", change),
      },
      checks: [
        { id: "deleted", kind: "command", command: "kubectl delete pod", output: '^pod "web-[a-z0-9-]+" deleted$', title: { en: "You deleted one web pod", zh: "你删除了一个 web Pod" }, hint: { en: "Run the block: it deletes the first web pod.", zh: "运行代码块：它会删除第一个 web Pod。" } },
        { id: "versions", kind: "command", command: "custom-columns=NAME:\\.metadata\\.name,RV", output: "^NAME\\s+RV$", title: { en: "You compared the slices' resourceVersions", zh: "你比较了各分片的 resourceVersion" }, hint: { en: "Run the custom-columns line before and after.", zh: "在删除前后运行 custom-columns 命令。" } },
      ],
    },
    {
      id: "size",
      title: { en: "What that saves", zh: "这节省了什么" },
      body: {
        en: md(
          "Compare the size of the Endpoints object, which every change rewrites whole, with one full slice (`FULL`): a change rewrites only its slice, half of the data here, a fiftieth with 5000 endpoints. Then count the KUBE-SEP lines iptables mode needs for 200 endpoints (a chain and rules per endpoint, walked in order): the case for IPVS or nftables at scale.",
          size,
        ),
        zh: md("比较 Endpoints 对象（每次变化都整体重写）和一个满的分片（`FULL`）的大小：一次变化只重写它所在的分片，这里是一半的数据，5000 个端点时只有五十分之一。再数一数 iptables 模式为 200 个端点需要的 KUBE-SEP 行（每个端点一条链和几条规则，按顺序遍历）：这就是大规模时选择 IPVS 或 nftables 的理由。", size),
      },
      checks: [{ id: "sep", kind: "command", command: "grep -c KUBE-SEP", output: "^[4-9]\\d\\d$", title: { en: "Hundreds of KUBE-SEP lines for one Service", zh: "一个 Service 就需要数百行 KUBE-SEP" }, hint: { en: "Run the block and read the last number.", zh: "运行代码块，看最后一个数字。" } }],
    },
  ],
} satisfies LabInput;
