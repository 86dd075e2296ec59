// kubectl set env (pkg/cmd/set/set_env.go).

import type { EnvVar } from "../../../engine/api/types.js";
import { f, OUTPUT_FLAGS } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { arr, bool, parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { podSpecOf } from "../pods.js";
import { printResult } from "../print.js";
import { get, oneTarget } from "../targets.js";

/**
 * kubectl set env RESOURCE KEY=VAL ... KEY- (-c CONTAINER, --list): the containers' env set or
 * removed by name ("env updated"; nothing printed when nothing changes), or listed as
 * "# Deployment web, container httpd" and KEY=VAL lines.
 */
export function cmdSetEnv(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("list", "bool"), f("resolve", "bool"), f("containers", "string", "c"), f("overwrite", "bool"), f("env", "array", "e"), f("from", "string"), f("prefix", "string"), f("keys", "array"), f("filename", "array", "f")], "kubectl set env");
  const changes = [...p.args.filter((a) => a.includes("=") || (a.endsWith("-") && !a.includes("/"))), ...arr(p, "env")];
  p.args = p.args.filter((a) => !changes.includes(a));
  const list = bool(p, "list");
  // Nothing to set and no --list: kubectl 1.33 prints nothing and succeeds.
  if (!list && !changes.length) return;
  const pattern = str(p, "containers") ?? "*";
  const glob = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
  for (const t of oneTarget(p, ctx, "set env")) {
    const obj = structuredClone(get(ctx, t.info, t.ns, t.name));
    const spec = podSpecOf(t.info, obj);
    const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].filter((c) => glob.test(c.name));
    if (list) {
      for (const c of containers) {
        o.out(`# ${t.info.kind} ${t.name}, container ${c.name}\n`);
        for (const e of c.env ?? []) {
          if (e.valueFrom?.configMapKeyRef) o.out(`# ${e.name} from configmap ${e.valueFrom.configMapKeyRef.name}, key ${e.valueFrom.configMapKeyRef.key}\n`);
          else if (e.valueFrom?.secretKeyRef) o.out(`# ${e.name} from secret ${e.valueFrom.secretKeyRef.name}, key ${e.valueFrom.secretKeyRef.key}\n`);
          else if (e.valueFrom?.fieldRef) o.out(`# ${e.name} from field path ${e.valueFrom.fieldRef.fieldPath}\n`);
          else if (e.valueFrom) o.out(`# ${e.name} from a resource\n`);
          else o.out(`${e.name}=${e.value ?? ""}\n`);
        }
      }
      continue;
    }
    let changed = false;
    for (const c of containers) {
      let env: EnvVar[] = [...(c.env ?? [])];
      for (const ch of changes) {
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
    const after = ctx.cluster.client.update(t.info, t.ns, t.name, obj);
    printResult(t.info, after, p, o, "env updated");
  }
}
