// What a command works on: `TYPE NAME...`, `TYPE/NAME`, `t1,t2` resolved through discovery, and
// the objects read from the cluster.

import { type ResourceInfo, RESOURCES } from "../../engine/api/resources.js";
import type { KObject } from "../../engine/api/types.js";
import { nsOf } from "./cmdutil.js";
import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { type Parsed, str } from "./flags.js";
import { resolveType } from "./resources.js";

export function served(ctx: KubectlContext) {
  return (i: ResourceInfo) => ctx.cluster.api.isServed(i);
}

export function typeOrThrow(name: string, ctx: KubectlContext): ResourceInfo {
  const info = resolveType(name, served(ctx));
  if (!info) throw new KubectlError(`the server doesn't have a resource type "${name}"`);
  return info;
}

/** Splits `type name...`, `type/name ...` and `t1,t2` arguments into (type, names) groups. */
export function resourceArgs(args: string[], ctx: KubectlContext, allowAll = false): { info: ResourceInfo; names: string[] }[] {
  if (!args.length) return [];
  if (args.some((a) => a.includes("/"))) {
    return args.map((a) => {
      const [t, n] = a.split("/");
      if (!n) throw new KubectlError(`arguments in resource/name form must have a single resource and name`);
      return { info: typeOrThrow(t, ctx), names: [n] };
    });
  }
  const [types, ...names] = args;
  const out: { info: ResourceInfo; names: string[] }[] = [];
  for (const t of types.split(",")) {
    if (allowAll && t === "all") {
      for (const info of RESOURCES) if (info.categories.includes("all") && ctx.cluster.api.isServed(info)) out.push({ info, names });
      continue;
    }
    out.push({ info: typeOrThrow(t, ctx), names });
  }
  return out;
}

/** The objects of a type (`T`: the type's own, which the apiserver decoded them as). */
export function list<T extends KObject = KObject>(ctx: KubectlContext, info: ResourceInfo, ns: string | undefined, p?: Parsed): T[] {
  return ctx.cluster.client.list(info, info.namespaced ? ns : undefined, {
    labelSelector: p ? str(p, "selector") : undefined,
    fieldSelector: p ? str(p, "field-selector") : undefined,
  }).items as T[];
}

/** One object (`T`: its type's own, which the apiserver decoded it as). */
export function get<T extends KObject = KObject>(ctx: KubectlContext, info: ResourceInfo, ns: string, name: string): T {
  return ctx.cluster.client.get(info, info.namespaced ? ns : undefined, name) as T;
}

/** The resource builder's error when the line names nothing to work on. */
export const NO_RESOURCES = `You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'`;

/** One object a command works on, by type, name and namespace. */
export interface Target {
  info: ResourceInfo;
  name: string;
  ns: string;
}

/** The objects `TYPE NAME...` or `TYPE/NAME...` name, in -n's namespace, or kubectl's error when none. */
export function oneTarget(p: Parsed, ctx: KubectlContext): Target[] {
  const groups = resourceArgs(p.args, ctx);
  const out: Target[] = [];
  for (const g of groups) for (const n of g.names) out.push({ info: g.info, name: n, ns: nsOf(p, ctx) });
  if (!out.length) throw new KubectlError(NO_RESOURCES);
  return out;
}
