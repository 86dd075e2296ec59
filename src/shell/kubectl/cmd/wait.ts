// kubectl wait (pkg/cmd/wait).

import type { Condition, KObject } from "../../../engine/api/types.js";
import type { ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import { executeJsonPath } from "../../../kubectl/jsonpath.js";
import { f, nsOf } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { parseFlags, str } from "../flags.js";
import { Out } from "../out.js";
import { objRef } from "../resources.js";
import { get, list, resourceArgs } from "../targets.js";
import { parseDuration, pause, timeNow } from "../waiting.js";

export async function cmdWait(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("for", "string"), f("timeout", "string"), f("selector", "string", "l"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("output", "string", "o"), f("filename", "array", "f")], "kubectl wait");
  const cond = str(p, "for");
  if (!cond) throw new KubectlError("--for must be specified");
  const timeout = parseDuration(str(p, "timeout"), 30_000);
  const ns = nsOf(p, ctx);
  const groups = resourceArgs(p.args, ctx);
  const targets: { info: ResourceInfo; name: string }[] = [];
  for (const g of groups) {
    if (g.names.length) for (const n of g.names) targets.push({ info: g.info, name: n });
    else for (const obj of list(ctx, g.info, ns, p)) targets.push({ info: g.info, name: obj.metadata.name! });
  }
  if (!targets.length) throw new KubectlError("no matching resources found");
  const start = timeNow(ctx);
  for (const t of targets) {
    for (;;) {
      let obj: KObject;
      try {
        obj = get(ctx, t.info, ns, t.name);
      } catch (e) {
        if (cond === "delete" && isStatusError(e) && e.reason === "NotFound") {
          o.out(`${objRef(t.info, t.name)} condition met\n`);
          break;
        }
        throw e;
      }
      if (cond !== "delete" && met(cond, obj)) {
        o.out(`${objRef(t.info, t.name)} condition met\n`);
        break;
      }
      if (timeNow(ctx) - start >= timeout) throw new KubectlError(`timed out waiting for the condition on ${t.info.resource}/${t.name}`);
      if (!(await pause(ctx, Math.min(1000, start + timeout - timeNow(ctx))))) return;
    }
  }
}

function met(cond: string, obj: KObject): boolean {
  const m = /^condition=([^=]+)(?:=(.*))?$/i.exec(cond);
  if (m) {
    const want = (m[2] ?? "True").toLowerCase();
    const conditions = (obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
    return conditions.some((c) => c.type.toLowerCase() === m[1].toLowerCase() && String(c.status).toLowerCase() === want);
  }
  const j = /^jsonpath=(.*?)(?:=(.*))?$/.exec(cond);
  if (j) {
    let expr = j[1].replace(/^'|'$/g, "");
    if (!expr.includes("{")) expr = `{${expr}}`;
    const v = executeJsonPath(expr, obj);
    return j[2] === undefined ? v !== "" : v === j[2];
  }
  throw new KubectlError(`unrecognized condition: "${cond}"`);
}
