// kubectl version (pkg/cmd/version).

import { versionInfo } from "../../../kubeapi/discovery.js";
import { toYaml } from "../../../kubectl/output.js";
import { f } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";

export function cmdVersion(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("client", "bool"), f("output", "string", "o")], "kubectl version");
  const v = ctx.cluster.config.kubernetesVersion;
  const output = str(p, "output");
  if (output !== undefined && output !== "") {
    if (output !== "json" && output !== "yaml") throw new KubectlError("--output must be 'yaml' or 'json'");
    // The node's kubectl is the cluster's release, built as its apiserver was.
    const server = versionInfo(v);
    const client = { major: server.major, minor: server.minor, gitVersion: v, gitCommit: server.gitCommit, gitTreeState: server.gitTreeState, buildDate: server.buildDate, goVersion: server.goVersion, compiler: server.compiler, platform: server.platform };
    const doc = { clientVersion: client, kustomizeVersion: "v5.6.0", ...(bool(p, "client") ? {} : { serverVersion: server }) };
    o.out(output === "json" ? `${JSON.stringify(doc, null, 2)}\n` : `${toYaml(doc)}\n`);
    return;
  }
  o.out(`Client Version: ${v}\nKustomize Version: v5.6.0\n`);
  if (!bool(p, "client")) o.out(`Server Version: ${v}\n`);
}
