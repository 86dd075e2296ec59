// English and Chinese: ?lang=zh (or en) chooses and is remembered; otherwise the last choice, then
// the browser's language. Lab text comes in both languages from the lab files; the UI's own
// words are here.
import { signal } from "./signal";

export type Text = { en: string; zh: string };
type Lang = "en" | "zh";

function initial(): Lang {
  const q = new URLSearchParams(location.search).get("lang");
  if (q === "en" || q === "zh") {
    localStorage.setItem("servicelab.lang", q);
    return q;
  }
  const saved = localStorage.getItem("servicelab.lang");
  if (saved === "en" || saved === "zh") return saved;
  return navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export const lang = signal<Lang>(initial());

export function setLang(l: Lang): void {
  localStorage.setItem("servicelab.lang", l);
  document.documentElement.lang = l === "zh" ? "zh-CN" : "en";
  lang.set(l);
}

export const tx = (t: Text | undefined): string => (t ? t[lang.get()] || t.en : "");

const WORDS = {
  tagline: { en: "Kubernetes Service networking, hands on: type what you would type on a real node, and see the packet's path through the very rules it prints.", zh: "动手学习 Kubernetes Service 网络：输入你在真实节点上会输入的命令，看到数据包穿过它所打印的那些规则的路径。" },
  labs: { en: "Labs", zh: "实验" },
  start: { en: "Start lab", zh: "开始实验" },
  continue: { en: "Continue where I left off", zh: "从上次离开的地方继续" },
  minutes: { en: "min", zh: "分钟" },
  steps: { en: "steps", zh: "步" },
  beginner: { en: "Beginner", zh: "入门" },
  intermediate: { en: "Intermediate", zh: "中级" },
  advanced: { en: "Advanced", zh: "高级" },
  creating: { en: "Starting your cluster…", zh: "正在启动你的集群…" },
  check: { en: "Check", zh: "检查" },
  run: { en: "Run", zh: "运行" },
  copy: { en: "Copy", zh: "复制" },
  copied: { en: "Copied", zh: "已复制" },
  passed: { en: "passed", zh: "已通过" },
  notYet: { en: "not yet", zh: "未完成" },
  cluster: { en: "Cluster", zh: "集群" },
  traffic: { en: "Traffic", zh: "流量" },
  rules: { en: "Rules", zh: "规则" },
  changes: { en: "What changed", zh: "变化" },
  history: { en: "Commands", zh: "命令" },
  share: { en: "Share", zh: "分享" },
  shareCopied: { en: "Share link copied", zh: "分享链接已复制" },
  readOnly: { en: "Read-only view of a shared cluster", zh: "共享集群的只读视图" },
  fork: { en: "Fork into my own cluster", zh: "复制到我自己的集群" },
  reconnecting: { en: "Reconnecting…", zh: "正在重新连接…" },
  live: { en: "Live", zh: "实时" },
  gone: { en: "This cluster no longer exists: it was deleted or it expired.", zh: "这个集群已不存在：它已被删除或已过期。" },
  newCluster: { en: "Start a new cluster of this lab", zh: "为这个实验启动一个新集群" },
  unknownCluster: { en: "This browser has no key for this cluster. Open it from the browser that started it, or start your own.", zh: "这个浏览器没有该集群的密钥。请在启动它的浏览器中打开，或者启动你自己的集群。" },
  backToLabs: { en: "All labs", zh: "所有实验" },
  noTraffic: { en: "No traffic yet. Send some with a curl loop, for example:", zh: "还没有流量。用 curl 循环发送一些，例如：" },
  observed: { en: "observed", zh: "实际" },
  predicted: { en: "the rules predict", zh: "规则预测" },
  requests: { en: "requests", zh: "个请求" },
  noPod: { en: "reached no pod", zh: "未到达 Pod" },
  clickBar: { en: "Click a bar to see one of its requests' path through the rules.", zh: "点击一个柱条，查看其中一个请求穿过规则的路径。" },
  node: { en: "Node", zh: "节点" },
  mode: { en: "mode", zh: "模式" },
  service: { en: "Service", zh: "Service" },
  allRules: { en: "all rules", zh: "全部规则" },
  rulesEvaluated: { en: "rules evaluated", zh: "条规则被评估" },
  path: { en: "Path of one request", zh: "一个请求的路径" },
  clearPath: { en: "Clear path", zh: "清除路径" },
  noChanges: { en: "Run a command: the rule lines it made kube-proxy add or remove, and the objects it changed, show here.", zh: "运行一条命令：它让 kube-proxy 增加或删除的规则行，以及它改变的对象，会显示在这里。" },
  rulesAdded: { en: "rule lines added", zh: "新增的规则行" },
  rulesRemoved: { en: "rule lines removed", zh: "删除的规则行" },
  objectsChanged: { en: "objects changed", zh: "变化的对象" },
  systemPods: { en: "show kube-system", zh: "显示 kube-system" },
  noServices: { en: "No Services yet.", zh: "还没有 Service。" },
  endpointsNone: { en: "no endpoints", zh: "没有端点" },
  whatsMissing: { en: "What is still missing", zh: "还缺什么" },
  labDone: { en: "Lab complete: every step passed.", zh: "实验完成：所有步骤均已通过。" },
  progress: { en: "progress", zh: "进度" },
  hint: { en: "Hint", zh: "提示" },
  cut: { en: "[output cut: it was longer than the terminal keeps]", zh: "[输出已截断：超过了终端保留的长度]" },
  lostCommand: { en: "The connection dropped while this command was sent; once reconnected, its result (if it ran) is shown below.", zh: "发送这条命令时连接中断；重新连接后，如果它已运行，结果会显示在下面。" },
  editSave: { en: "Save and apply", zh: "保存并应用" },
  editQuit: { en: "Quit without saving", zh: "不保存退出" },
  atStart: { en: "As the cluster started", zh: "集群刚启动时" },
  after: { en: "Right after command", zh: "紧接在命令之后" },
  forkHere: { en: "Fork from here", zh: "从这里复制" },
  replaying: { en: "Replaying the commands…", zh: "正在重放命令…" },
  timeTravelHelp: { en: "Choose a command to see the cluster and its rules as they were right after it; fork from there into a new cluster.", zh: "选择一条命令，查看紧接在它之后的集群和规则；还可以从那里复制出一个新集群。" },
  teach: { en: "Teach this lab", zh: "用这个实验授课" },
  newClassroom: { en: "A classroom for this lab", zh: "为这个实验创建课堂" },
  classTitle: { en: "Title", zh: "标题" },
  minutesEach: { en: "Minutes for each student", zh: "每位学生的分钟数" },
  capacity: { en: "Students at most", zh: "最多学生数" },
  createClassroom: { en: "Create the classroom", zh: "创建课堂" },
  yourName: { en: "Your name", zh: "你的名字" },
  joinedBefore: { en: "I joined before (on another device)", zh: "我之前加入过（在另一台设备上）" },
  yourCode: { en: "Your code", zh: "你的代码" },
  joinClass: { en: "Join and start", zh: "加入并开始" },
  rejoin: { en: "Back to my cluster", zh: "回到我的集群" },
  join_closed: { en: "The teacher has closed this classroom.", zh: "老师已经关闭了这个课堂。" },
  join_ended: { en: "This classroom has ended.", zh: "这个课堂已经结束。" },
  join_not_started: { en: "This classroom has not opened yet.", zh: "这个课堂还没有开放。" },
  join_full: { en: "This classroom is full.", zh: "这个课堂已满。" },
  students: { en: "students", zh: "名学生" },
  student: { en: "Student", zh: "学生" },
  studentOne: { en: "student", zh: "名学生" },
  closed: { en: "closed", zh: "已关闭" },
  joinLink: { en: "Join link", zh: "加入链接" },
  extendAll: { en: "+10 min for everyone", zh: "全体 +10 分钟" },
  closeClassroom: { en: "Close the classroom", zh: "关闭课堂" },
  closeConfirm: { en: "Close the classroom? Every cluster becomes read-only.", zh: "关闭课堂？所有集群将变为只读。" },
  timeLeft: { en: "Time left", zh: "剩余时间" },
  timeUp: { en: "time is up", zh: "时间到" },
  lastCommand: { en: "Last command", zh: "最后一条命令" },
  watch: { en: "Watch", zh: "查看" },
  reset: { en: "Reset", zh: "重置" },
  resetConfirm: { en: "Reset {name}'s cluster to the lab's start?", zh: "把 {name} 的集群重置到实验开始时？" },
  passedCount: { en: "Passed", zh: "已通过" },
  noStudents: { en: "No student has joined yet: share the join link.", zh: "还没有学生加入：分享加入链接。" },
  stuckOn: { en: "What the class is stuck on (failed commands)", zh: "全班卡在哪里（失败的命令）" },
  nothingFailed: { en: "No command has failed yet.", zh: "还没有命令失败。" },
  left: { en: "left", zh: "剩余" },
  yourCodeIs: { en: "your code", zh: "你的代码" },
  tenMinutes: { en: "10 minutes left: your work stays, read-only, when the time is up.", zh: "还剩 10 分钟：时间到后你的工作会保留（只读）。" },
  twoMinutes: { en: "2 minutes left.", zh: "还剩 2 分钟。" },
  timeIsUp: { en: "Time is up: this cluster is read-only now, kept for your teacher's review.", zh: "时间到：这个集群现在是只读的，保留给老师查看。" },
  backToClass: { en: "Open my cluster in the classroom", zh: "打开我在课堂中的集群" },
  terminalView: { en: "Terminal text", zh: "终端文字" },
  smaller: { en: "Smaller text", zh: "缩小文字" },
  larger: { en: "Larger text", zh: "放大文字" },
  screenReader: { en: "Screen reader", zh: "屏幕阅读器" },
  changedNothing: { en: "changed nothing", zh: "没有改变任何东西" },
  ruleLines: { en: "rule lines", zh: "条规则行" },
  nextStep: { en: "Next step", zh: "下一步" },
  thenLabs: { en: "Then, in order (optional): the labs a student moves on to", zh: "然后依次进行（可选）：学生接着做的实验" },
  nextLab: { en: "Next lab", zh: "下一个实验" },
  playground: { en: "A free cluster: no steps, type anything.", zh: "自由集群：没有步骤，随意输入。" },
} satisfies Record<string, Text>;

export const t = (k: keyof typeof WORDS): string => tx(WORDS[k]);
