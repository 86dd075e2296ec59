// kubectl auth can-i and auth whoami (pkg/cmd/auth/cani.go, whoami.go): a SelfSubjectAccessReview,
// SelfSubjectRulesReview or SelfSubjectReview sent to the apiserver, answered by its RBAC
// authorizer over the cluster's roles and bindings (the node's kubectl is kubeadm's admin).

import { lookupResource, type ResourceInfo } from "../../../engine/api/resources.js";
import type { KObject } from "../../../engine/api/types.js";
import { TABLE_TABWRITER, tabwrite } from "../../../kubectl/tabwriter.js";
import { f, nsOf } from "../cmdutil.js";
import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";
import { bool, str } from "../flags.js";
import { resolveType } from "../resources.js";

const SSAR = lookupResource("authorization.k8s.io", "selfsubjectaccessreviews")!;
const SSRR = lookupResource("authorization.k8s.io", "selfsubjectrulesreviews")!;
const SSR = lookupResource("authentication.k8s.io", "selfsubjectreviews")!;

const RESOURCE_VERBS = new Set(["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "use", "bind", "impersonate", "*", "approve", "sign", "escalate", "attest"]);
const NON_RESOURCE_VERBS = new Set(["get", "put", "post", "head", "options", "delete", "patch", "*"]);

interface CanIOptions {
  list: boolean;
  quiet: boolean;
  noHeaders: boolean;
  namespace: string;
  allNamespaces: boolean;
  verb: string;
  /** The resource as discovery maps it (undefined: `*`, or a type the server does not have). */
  info?: ResourceInfo;
  resource: string;
  group: string;
  name: string;
  subresource: string;
  nonResourceURL: string;
  warnings: string[];
}

export const authCanICommand: KubectlCommand<CanIOptions> = {
  name: "auth can-i",
  flags: [f("all-namespaces", "bool", "A"), f("list", "bool"), f("no-headers", "bool"), f("quiet", "bool", "q"), f("subresource", "string")],
  complete(p, ctx) {
    const allNamespaces = bool(p, "all-namespaces");
    const o: CanIOptions = {
      list: bool(p, "list"),
      quiet: bool(p, "quiet"),
      noHeaders: bool(p, "no-headers"),
      namespace: allNamespaces ? "" : nsOf(p, ctx),
      allNamespaces,
      verb: "",
      resource: "",
      group: "",
      name: "",
      subresource: str(p, "subresource") ?? "",
      nonResourceURL: "",
      warnings: [],
    };
    if (o.list) {
      if (p.args.length) throw new KubectlError("list option must be specified with no arguments");
      return o;
    }
    if (o.quiet && o.list) throw new KubectlError("list and quiet flags can not be specified together");
    if (p.args.length !== 2) throw new KubectlError("you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.");
    o.verb = p.args[0];
    const arg = p.args[1];
    if (arg.startsWith("/")) {
      o.nonResourceURL = arg;
      return o;
    }
    const [type, name] = arg.split("/", 2);
    o.name = name ?? "";
    if (type === "*") {
      o.resource = "*";
      return o;
    }
    const info = resolveType(type, (i) => ctx.cluster.api.isServed(i));
    if (info) {
      o.info = info;
      o.resource = info.resource;
      o.group = info.group;
    } else {
      // resourceFor: the name as typed, after a warning.
      const lower = type.toLowerCase();
      const dot = lower.indexOf(".");
      const [res, grp] = dot < 0 ? [lower, ""] : [lower.slice(0, dot), lower.slice(dot + 1)];
      o.warnings.push(grp ? `Warning: the server doesn't have a resource type '${res}' in group '${grp}'\n\n` : `Warning: the server doesn't have a resource type '${res}'\n\n`);
      o.resource = type;
    }
    return o;
  },
  validate(o) {
    if (o.list) return;
    if (o.nonResourceURL) {
      if (o.subresource) throw new KubectlError("--subresource can not be used with NonResourceURL");
      if (!NON_RESOURCE_VERBS.has(o.verb)) o.warnings.push(`Warning: verb '${o.verb}' is not a known verb\n\n`);
      return;
    }
    if (o.info && !o.allNamespaces && !o.info.namespaced) {
      o.warnings.push(o.group ? `Warning: resource '${o.resource}' is not namespace scoped in group '${o.group}'\n\n` : `Warning: resource '${o.resource}' is not namespace scoped\n\n`);
    }
    if (!RESOURCE_VERBS.has(o.verb)) o.warnings.push(`Warning: verb '${o.verb}' is not a known verb\n\n`);
  },
  run(o, ctx, out) {
    for (const w of o.warnings) out.err(w);
    if (o.list) {
      const review = ctx.cluster.client.create(SSRR, undefined, { spec: { namespace: o.namespace } }) as KObject & { status: RulesStatus };
      printRules(review.status, o.noHeaders, out.out.bind(out));
      return;
    }
    const spec = o.nonResourceURL
      ? { nonResourceAttributes: { path: o.nonResourceURL, verb: o.verb } }
      : { resourceAttributes: { namespace: o.namespace, verb: o.verb, group: o.group, resource: o.resource, subresource: o.subresource, name: o.name } };
    const review = ctx.cluster.client.create(SSAR, undefined, { spec }) as KObject & { status: { allowed: boolean; reason?: string } };
    const s = review.status;
    if (!o.quiet) out.out(s.allowed ? "yes\n" : `no${s.reason ? ` - ${s.reason}` : ""}\n`);
    if (!s.allowed) throw new KubectlError("", 1);
  },
};

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface RulesStatus {
  resourceRules: Rule[];
  nonResourceRules: Rule[];
}

/** Go's %v of a []string. */
const goList = (l: readonly string[] | undefined) => `[${(l ?? []).join(" ")}]`;

/** rbacutil.BreakdownRule: one rule per group, resource and name; one per non-resource URL. */
function breakdown(r: Rule): Rule[] {
  const out: Rule[] = [];
  for (const g of r.apiGroups ?? []) {
    for (const res of r.resources ?? []) {
      if (r.resourceNames?.length) for (const n of r.resourceNames) out.push({ verbs: r.verbs, apiGroups: [g], resources: [res], resourceNames: [n] });
      else out.push({ verbs: r.verbs, apiGroups: [g], resources: [res] });
    }
  }
  for (const u of r.nonResourceURLs ?? []) out.push({ verbs: r.verbs, nonResourceURLs: [u] });
  return out;
}

/** rbacutil.CompactRules: rules on one resource of one group (at most one name) merge their verbs, after the others. */
function compact(rules: Rule[]): Rule[] {
  const out: Rule[] = [];
  const simple = new Map<string, Rule>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && (r.resourceNames?.length ?? 0) <= 1 && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const k = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const have = simple.get(k);
    if (have) {
      for (const v of r.verbs) if (!have.verbs.includes(v)) have.verbs.push(v);
    } else simple.set(k, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** PolicyRule.String(), which SortableRuleSlice sorts by. */
const ruleString = (r: Rule) => `&PolicyRule{Verbs:${goList(r.verbs)},APIGroups:${goList(r.apiGroups)},Resources:${goList(r.resources)},ResourceNames:${goList(r.resourceNames)},NonResourceURLs:${goList(r.nonResourceURLs)},}`;

/** describe.CombineResourceGroup: resource.group/subresource. */
function combineResourceGroup(resources: string[] | undefined, groups: string[] | undefined): string {
  if (!resources?.length) return "";
  const [res, sub] = resources[0].split(/\/(.*)/s);
  let s = res;
  if (groups?.length && groups[0] !== "") s += `.${groups[0]}`;
  if (sub !== undefined) s += `/${sub}`;
  return s;
}

function printRules(status: RulesStatus, noHeaders: boolean, write: (s: string) => void): void {
  const rules = [...status.resourceRules.map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames })), ...status.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }))];
  const keyed = compact(rules.flatMap(breakdown)).map((r) => ({ r, k: ruleString(r) }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const lines: string[] = [];
  if (!noHeaders) lines.push("Resources\tNon-Resource URLs\tResource Names\tVerbs");
  for (const { r } of keyed) lines.push(`${combineResourceGroup(r.resources, r.apiGroups)}\t${goList(r.nonResourceURLs)}\t${goList(r.resourceNames)}\t${goList(r.verbs)}`);
  write(tabwrite(`${lines.join("\n")}\n`, TABLE_TABWRITER));
}

/** `kubectl auth whoami`: the SelfSubjectReview's user, as a table. */
export const authWhoamiCommand: KubectlCommand<{ output?: string }> = {
  name: "auth whoami",
  flags: [f("output", "string", "o")],
  complete(p) {
    if (p.args.length) throw new KubectlError(`unknown command "${p.args[0]}" for "kubectl auth whoami"`);
    return { output: str(p, "output") };
  },
  validate: noValidation,
  run(o, ctx, out) {
    const review = ctx.cluster.client.create(SSR, undefined, {}) as KObject & { status: { userInfo: { username: string; groups?: string[] } } };
    if (o.output === "json") {
      out.out(`${JSON.stringify(review, null, 4)}\n`);
      return;
    }
    const u = review.status.userInfo;
    out.out(tabwrite(`ATTRIBUTE\tVALUE\nUsername\t${u.username}\nGroups\t${goList(u.groups)}\n`, TABLE_TABWRITER));
  },
};
