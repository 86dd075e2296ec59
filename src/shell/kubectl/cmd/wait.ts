// kubectl wait (pkg/cmd/wait).

import type { Condition, KObject } from "../../../engine/api/types.js";
import type { ResourceInfo } from "../../../engine/api/resources.js";
import { isStatusError } from "../../../engine/api/status.js";
import { executeJsonPath } from "../../../kubectl/jsonpath.js";
import { f, nsOf } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { arr, type Parsed, str } from "../flags.js";
import { objRef } from "../resources.js";
import { get, list, NO_RESOURCES, resourceArgs } from "../targets.js";
import { parseDuration, pause, timeNow } from "../waiting.js";

interface WaitOptions {
  /** --for: delete, condition=..., jsonpath=... */
  condition: string;
  timeoutMs: number;
  namespace: string;
  args: string[];
  /** The selectors. */
  p: Parsed;
}

export const waitCommand: KubectlCommand<WaitOptions> = {
  name: "wait",
  flags: [f("for", "string"), f("timeout", "string"), f("selector", "string", "l"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("output", "string", "o"), f("filename", "array", "f")],
  complete(p, ctx) {
    // conditionFuncFor: the condition is understood before any object is looked for.
    const condition = str(p, "for") ?? "";
    if (condition !== "delete" && !/^condition=/i.test(condition) && !/^jsonpath=/.test(condition)) throw new KubectlError(`unrecognized condition: ${JSON.stringify(condition)}`);
    if (!p.args.length && !arr(p, "filename").length) throw new KubectlError(NO_RESOURCES);
    return { condition, timeoutMs: parseDuration(str(p, "timeout"), 30_000), namespace: nsOf(p, ctx), args: p.args, p };
  },
  validate: noValidation,
  async run(o, ctx, out) {
    const { condition: cond, timeoutMs: timeout, namespace: ns } = o;
    const targets: { info: ResourceInfo; name: string }[] = [];
    for (const g of resourceArgs(o.args, ctx)) {
      if (g.names.length) for (const n of g.names) targets.push({ info: g.info, name: n });
      else for (const obj of list(ctx, g.info, ns, o.p)) targets.push({ info: g.info, name: obj.metadata.name! });
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
            out.out(`${objRef(t.info, t.name)} condition met\n`);
            break;
          }
          throw e;
        }
        if (cond !== "delete" && met(cond, obj)) {
          out.out(`${objRef(t.info, t.name)} condition met\n`);
          break;
        }
        if (timeNow(ctx) - start >= timeout) throw new KubectlError(`timed out waiting for the condition on ${t.info.resource}/${t.name}`);
        if (!(await pause(ctx, Math.min(1000, start + timeout - timeNow(ctx))))) return;
      }
    }
  },
};

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
