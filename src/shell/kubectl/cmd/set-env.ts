// kubectl set env (pkg/cmd/set/set_env.go).

import type { EnvVar } from "../../../engine/api/types.js";
import { dryRun, type DryRunStrategy, f, OUTPUT_FLAGS } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, bool, type Parsed, str } from "../flags.js";
import { podSpecOf } from "../pods.js";
import { printResult } from "../print.js";
import { get, oneTarget } from "../targets.js";

interface SetEnvOptions {
  /** KEY=VAL and KEY- words, then -e's. */
  changes: string[];
  list: boolean;
  dryRun: DryRunStrategy;
  /** -c: the containers' names, as a glob. */
  containers: RegExp;
  /** The resource words (the changes taken out), the namespace and the printing flags. */
  resources: Parsed;
}

/**
 * kubectl set env RESOURCE KEY=VAL ... KEY- (-c CONTAINER, --list): the containers' env set or
 * removed by name ("env updated"; nothing printed when nothing changes), or listed as
 * "# Deployment web, container httpd" and KEY=VAL lines.
 */
export const setEnvCommand: KubectlCommand<SetEnvOptions> = {
  name: "set env",
  flags: [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("list", "bool"), f("resolve", "bool"), f("containers", "string", "c"), f("overwrite", "bool"), f("env", "array", "e"), f("from", "string"), f("prefix", "string"), f("keys", "array"), f("filename", "array", "f")],
  complete(p) {
    const dry = dryRun(p);
    const changes = [...p.args.filter((a) => a.includes("=") || (a.endsWith("-") && !a.includes("/"))), ...arr(p, "env")];
    const pattern = str(p, "containers") ?? "*";
    const containers = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
    const resources = { ...p, args: p.args.filter((a) => !changes.includes(a)) };
    if (!resources.args.length && !arr(p, "filename").length) throw new KubectlError("one or more resources must be specified as <resource> <name> or <resource>/<name>");
    return { changes, list: bool(p, "list"), dryRun: dry, containers, resources };
  },
  validate: noValidation,
  run(o, ctx, out) {
    // Nothing to set and no --list: kubectl 1.33 prints nothing and succeeds.
    if (!o.list && !o.changes.length) return;
    const glob = o.containers;
    for (const t of oneTarget(o.resources, ctx)) {
      const obj = structuredClone(get(ctx, t.info, t.ns, t.name));
      const spec = podSpecOf(t.info, obj);
      const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].filter((c) => glob.test(c.name));
      if (o.list) {
        for (const c of containers) {
          out.out(`# ${t.info.kind} ${t.name}, container ${c.name}\n`);
          for (const e of c.env ?? []) {
            if (e.valueFrom?.configMapKeyRef) out.out(`# ${e.name} from configmap ${e.valueFrom.configMapKeyRef.name}, key ${e.valueFrom.configMapKeyRef.key}\n`);
            else if (e.valueFrom?.secretKeyRef) out.out(`# ${e.name} from secret ${e.valueFrom.secretKeyRef.name}, key ${e.valueFrom.secretKeyRef.key}\n`);
            else if (e.valueFrom?.fieldRef) out.out(`# ${e.name} from field path ${e.valueFrom.fieldRef.fieldPath}\n`);
            else if (e.valueFrom) out.out(`# ${e.name} from a resource\n`);
            else out.out(`${e.name}=${e.value ?? ""}\n`);
          }
        }
        continue;
      }
      let changed = false;
      for (const c of containers) {
        let env: EnvVar[] = [...(c.env ?? [])];
        for (const ch of o.changes) {
          if (!ch.includes("=") && ch.endsWith("-")) {
            const n = ch.slice(0, -1);
            if (env.some((e) => e.name === n)) {
              env = env.filter((e) => e.name !== n);
              changed = true;
            }
            continue;
          }
          const i = ch.indexOf("=");
          const [n, v] = [ch.slice(0, i), ch.slice(i + 1)];
          const at = env.findIndex((e) => e.name === n);
          if (at >= 0 && env[at].value === v && !env[at].valueFrom) continue;
          if (at >= 0) env[at] = { name: n, value: v };
          else env.push({ name: n, value: v });
          changed = true;
        }
        if (env.length) c.env = env;
        else delete c.env;
      }
      if (!changed) continue;
      const after = ctx.cluster.client.update(t.info, t.ns, t.name, obj, { dryRun: o.dryRun !== "none", fieldManager: "kubectl-set" });
      printResult(t.info, after, o.resources, out, "env updated");
    }
  },
};
