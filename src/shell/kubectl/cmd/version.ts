// kubectl version (pkg/cmd/version).

import { versionInfo } from "../../../kubeapi/discovery.js";
import { toYaml } from "../../../kubectl/output.js";
import { f } from "../cmdutil.js";
import type { KubectlCommand } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool, str } from "../flags.js";

interface VersionOptions {
  args: string[];
  clientOnly: boolean;
  output: string;
}

export const versionCommand: KubectlCommand<VersionOptions> = {
  name: "version",
  flags: [f("client", "bool"), f("output", "string", "o")],
  complete: (p) => ({ args: p.args, clientOnly: bool(p, "client"), output: str(p, "output") ?? "" }),
  validate(o) {
    if (o.args.length) throw new KubectlError(`extra arguments: [${o.args.join(" ")}]`);
    if (o.output !== "" && o.output !== "json" && o.output !== "yaml") throw new KubectlError("--output must be 'yaml' or 'json'");
  },
  run(o, ctx, out) {
    const v = ctx.cluster.config.kubernetesVersion;
    if (o.output) {
      // The node's kubectl is the cluster's release, built as its apiserver was.
      const server = versionInfo(v);
      const client = { major: server.major, minor: server.minor, gitVersion: v, gitCommit: server.gitCommit, gitTreeState: server.gitTreeState, buildDate: server.buildDate, goVersion: server.goVersion, compiler: server.compiler, platform: server.platform };
      const doc = { clientVersion: client, kustomizeVersion: "v5.6.0", ...(o.clientOnly ? {} : { serverVersion: server }) };
      out.out(o.output === "json" ? `${JSON.stringify(doc, null, 2)}\n` : `${toYaml(doc)}\n`);
      return;
    }
    out.out(`Client Version: ${v}\nKustomize Version: v5.6.0\n`);
    if (!o.clientOnly) out.out(`Server Version: ${v}\n`);
  },
};
