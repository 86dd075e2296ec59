// kubectl config (pkg/cmd/config): the one context of the node's admin kubeconfig.

import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, type Parsed, str } from "../flags.js";
import { helpFor } from "../help-texts.js";
import type { Out } from "../out.js";

/** The flags every config subcommand takes here. */
const CONFIG_FLAGS = [f("current", "bool"), f("minify", "bool"), f("raw", "bool"), f("flatten", "bool"), f("output", "string", "o"), f("cluster", "string"), f("user", "string")];

/** The one context's name. */
const CONTEXT = "kubernetes-admin@kubernetes";

/** A config subcommand over the parsed line (they read a flag or a name, and check little). */
function configCommand(sub: string, run: (p: Parsed, ctx: KubectlContext, out: Out) => void): KubectlCommand<Parsed> {
  return { name: `config ${sub}`, flags: CONFIG_FLAGS, complete: (p) => p, validate: noValidation, run };
}

export const configCurrentContext = configCommand("current-context", (_p, _ctx, out) => out.out(`${CONTEXT}\n`));

export const configGetContexts = configCommand("get-contexts", (_p, ctx, out) => {
  out.out(tabwrite(`CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n*\t${CONTEXT}\tkubernetes\tkubernetes-admin\t${ctx.namespace === "default" ? "" : ctx.namespace}\n`, TABLE_TABWRITER));
});

export const configView = configCommand("view", (p, ctx, out) => out.out(kubeconfigText(ctx, bool(p, "raw"))));

export const configSetContext: KubectlCommand<{ name?: string; current: boolean; namespace?: string }> = {
  name: "config set-context",
  flags: CONFIG_FLAGS,
  complete: (p) => ({ name: p.args[0], current: bool(p, "current"), namespace: str(p, "namespace") }),
  validate(o) {
    if (!o.current && !o.name) throw new KubectlError("you must specify a non-empty context name or --current");
  },
  run(o, ctx, out) {
    if (o.namespace !== undefined) ctx.setNamespace(o.namespace);
    out.out(`Context "${CONTEXT}" modified.\n`);
  },
};

export const configUseContext = configCommand("use-context", (p, _ctx, out) => {
  // cobra's ExactArgs(1): the command's usage on stdout, then the error.
  if (p.args.length !== 1) {
    out.out(helpFor(["config", "use-context"]));
    throw new KubectlError(`Unexpected args: [${p.args.join(" ")}]`);
  }
  if (p.args[0] !== CONTEXT) throw new KubectlError(`no context exists with the name: "${p.args[0] ?? ""}"`);
  out.out(`Switched to context "${CONTEXT}".\n`);
});

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
