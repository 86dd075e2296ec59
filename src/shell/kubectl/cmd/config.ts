// kubectl config (pkg/cmd/config): the one context of the node's admin kubeconfig.

import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError, notInServiceLab } from "../errors.js";
import { bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";

export function cmdConfig(argv: string[], ctx: KubectlContext, o: Out): void {
  const sub = argv[0] === "use" ? "use-context" : argv[0];
  const p = parseFlags(argv.slice(1), [f("current", "bool"), f("minify", "bool"), f("raw", "bool"), f("flatten", "bool"), f("output", "string", "o"), f("cluster", "string"), f("user", "string")], `kubectl config ${sub ?? ""}`);
  switch (sub) {
    case "current-context":
      o.out("kubernetes-admin@kubernetes\n");
      return;
    case "get-contexts":
      o.out(tabwrite(`CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n*\tkubernetes-admin@kubernetes\tkubernetes\tkubernetes-admin\t${ctx.namespace === "default" ? "" : ctx.namespace}\n`, TABLE_TABWRITER));
      return;
    case "view":
      o.out(kubeconfigText(ctx, bool(p, "raw")));
      return;
    case "set-context": {
      const ns = str(p, "namespace");
      if (!bool(p, "current") && !p.args[0]) throw new KubectlError("you must specify a non-empty context name or --current");
      if (ns !== undefined) ctx.setNamespace(ns);
      o.out(`Context "kubernetes-admin@kubernetes" modified.\n`);
      return;
    }
    case "use-context":
      if (p.args[0] !== "kubernetes-admin@kubernetes") throw new KubectlError(`no context exists with the name: "${p.args[0] ?? ""}"`);
      o.out(`Switched to context "kubernetes-admin@kubernetes".\n`);
      return;
    default:
      throw notInServiceLab(`kubectl config ${sub}`);
  }
}

export function kubeconfigText(ctx: { cluster: KubectlContext["cluster"]; namespace: string }, raw: boolean): string {
  const ip = ctx.cluster.config.nodes.find((n) => n.controlPlane)?.ip ?? ctx.cluster.config.nodes[0].ip;
  const data = raw ? "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJU2VydmljZUxhYgotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==" : "DATA+OMITTED";
  const key = raw ? "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpTZXJ2aWNlTGFiCi0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==" : "DATA+OMITTED";
  const nsLine = ctx.namespace !== "default" ? `    namespace: ${ctx.namespace}\n` : "";
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${data}
    server: https://${ip}:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
${nsLine}    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
preferences: {}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: ${data}
    client-key-data: ${key}
`;
}
