// Helpers for writing a lab's Markdown: a fenced bash block is one run button, and the UI sends
// the whole block as one command line (so a block may hold a loop or a here-document).

/** One ```bash block: `lines` are joined with newlines and sent to the terminal together. */
export const sh = (...lines: string[]): string => "```bash\n" + lines.join("\n") + "\n```";

/** Paragraphs and blocks joined with blank lines. */
export const md = (...parts: string[]): string => parts.join("\n\n");

/** The first block of most labs: the guide works in namespace `services`, the context's default. */
export const servicesNamespace = ["kubectl create namespace services", "kubectl config set-context --current --namespace services"];

/** A check that the context's namespace was set (read from what kubectl printed). */
export const contextCheck = {
  id: "context",
  kind: "command" as const,
  command: "set-context .*--namespace[ =]services",
  output: "modified",
  title: { en: "kubectl works in namespace services", zh: "kubectl 默认使用命名空间 services" },
  hint: { en: "Run the block that creates the namespace and sets the context.", zh: "运行创建命名空间并设置上下文的代码块。" },
};

/** Writes each pod's name into its home page (lab guide §3.2, §6.2), for httpd pods. */
export const httpdNames = `for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do
  kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"
done`;

/** The same for nginx pods (lab guide §8.4). */
export const nginxNames = `for pod in $(kubectl get pods -o custom-columns=NAME:.metadata.name --no-headers); do
  kubectl exec $pod -- bash -c "echo $pod > /usr/share/nginx/html/index.html"
done`;

export const clusterIP = (svc: string, v = "IP") => `${v}=$(kubectl get svc ${svc} -o jsonpath='{.spec.clusterIP}')`;
