// kubectl 1.33 in the terminal: verbs, flags, outputs and error texts as the real client prints
// them, talking to the cluster through the same apiserver the REST API uses.

import { parseAllDocuments } from "yaml";
import { type PatchType, withTypeMeta } from "../../engine/apiserver/apiserver.js";
import { lookupKind, R, RESOURCES, resourceKey, type ResourceInfo } from "../../engine/api/resources.js";
import { WatchFilter } from "../../engine/api/watch-filter.js";
import { isStatusError, type Status, StatusError } from "../../engine/api/status.js";
import { isInt32, scaleOf, scaleReplicasInvalid } from "../../engine/api/scale.js";
import type { KObject, Pod } from "../../engine/api/types.js";
import { rfc3339 } from "../../engine/clock.js";
import { describe, podTemplateText } from "../../kubectl/describe.js";
import { executeJsonPath, executeJsonPathAsJson, JsonPathError, jsonPathText, selectValues } from "../../kubectl/jsonpath.js";
import { asList, goCompactJson, GoTemplatePrinter, type TemplateResult, toJson, toTypedJson, toYaml } from "../../kubectl/output.js";
import { byteOrder, GoTemplateError, goTypeName } from "../../kubectl/gotemplate.js";
import { DESCRIBE_TABWRITER, TABLE_TABWRITER, TabwriterStream, tabwrite } from "../../kubectl/tabwriter.js";
import { tableCells, tableText } from "../../kubectl/table.js";
import { explain, ExplainError } from "../../kubectl/explain.js";
import { goSortArray } from "../../kubectl/gosort.js";
import { cmp, parseQuantity } from "../../engine/api/quantity.js";
import { gvDocument } from "../../kubeapi/openapi.js";
import { versionInfo } from "../../kubeapi/discovery.js";
import { serveKube } from "../../kubeapi/serve.js";
import type { Editor, KubectlContext, Output } from "./context.js";
import { ROOT_COMMANDS, unknownCommandMessage } from "./commands.js";
import { arr, bool, type FlagSpec, HelpRequested, type Parsed, parseFlags, str, UsageError } from "./flags.js";
import { helpFor, isCommand, OPTIONS_TEXT, ROOT_HELP, UNKNOWN_TOPIC_USAGE } from "./help-texts.js";
import { objRef, qualified, resolveType } from "./resources.js";
import { ApplyPatchError, kubectlApplyPatch, withLastApplied } from "../../kubectl/apply-patch.js";
import type { JsonObject } from "../../engine/api/patch/json.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

export class KubectlError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** Printed as is, without kubectl's "error: " prefix (a klog line, a message kubectl writes itself). */
    readonly opts: { raw?: boolean } = {},
  ) {
    super(message);
  }
}

const ENDPOINTS_WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

class Out {
  stdout = "";
  stderr = "";
  /** Files the command line names (readCommandFiles), read before it runs (undefined: unreadable). */
  commandFiles = new Map<string, string | undefined>();
  out(s: string): void {
    this.stdout += s;
  }
  err(s: string): void {
    this.stderr += s;
  }
}

const f = (name: string, type: FlagSpec["type"], short?: string): FlagSpec => ({ name, type, short });
const OUTPUT_FLAGS = [f("output", "string", "o"), f("dry-run", "string"), f("show-managed-fields", "bool"), f("template", "string"), f("allow-missing-template-keys", "bool")];

function serverError(e: unknown): string {
  if (isStatusError(e)) {
    const s = e.status;
    if (s.reason === "Invalid") return invalidMessage(s);
    return `Error from server (${s.reason}): ${s.message}`;
  }
  throw e;
}

/**
 * A 422 as kubectl's CheckErr words it: "The <Kind> "<name>" is invalid" (the details' kind, not
 * the message's Kind.group), then the causes as "field: message", one inline or several as a
 * "* " list; without details, the request is invalid with the server's message.
 */
function invalidMessage(s: StatusError["status"]): string {
  const d = s.details;
  let head = "The request is invalid";
  if (!d) return s.message ? `${head}: ${s.message}` : head;
  if (d.kind || d.name) head = `The ${d.kind ?? ""} ${JSON.stringify(d.name ?? "")} is invalid`;
  else if (s.message && !d.causes?.length) head += `: ${s.message}`;
  const causes = [...new Set((d.causes ?? []).map((c) => `${c.field ?? ""}: ${c.message ?? ""}`))];
  if (!causes.length) return head;
  if (causes.length === 1) return `${head}: ${causes[0]}`;
  return `${head}: \n${causes.map((c) => `* ${c}`).join("\n")}`;
}

export async function kubectl(argv: string[], ctx: KubectlContext): Promise<Output> {
  const o = new Out();
  try {
    await dispatch(argv, ctx, o);
    return { stdout: o.stdout, stderr: o.stderr, exitCode: 0 };
  } catch (e) {
    if (e instanceof HelpRequested) return { stdout: o.stdout + helpFor(e.command.split(" ").slice(1)), stderr: o.stderr, exitCode: 0 };
    if (e instanceof UsageError || e instanceof KubectlError || e instanceof JsonPathError) {
      const raw = e instanceof KubectlError && e.opts.raw;
      const msg = raw || /^(Error from server|The |Warning|error: )/.test(e.message) ? e.message : `error: ${e.message}`;
      return { stdout: o.stdout, stderr: o.stderr + (e.message ? msg + "\n" : ""), exitCode: e instanceof KubectlError ? e.exitCode : 1 };
    }
    if (isStatusError(e)) return { stdout: o.stdout, stderr: o.stderr + serverError(e) + "\n", exitCode: 1 };
    throw e;
  }
}

const VERBS: Record<string, (args: string[], ctx: KubectlContext, o: Out) => Promise<void> | void> = {
  get: cmdGet,
  describe: cmdDescribe,
  create: cmdCreate,
  run: cmdRun,
  expose: cmdExpose,
  apply: cmdApply,
  delete: cmdDelete,
  scale: cmdScale,
  patch: cmdPatch,
  label: (a, c, o) => cmdLabel(a, c, o, "labels"),
  annotate: (a, c, o) => cmdLabel(a, c, o, "annotations"),
  edit: cmdEdit,
  replace: cmdReplace,
  set: cmdSet,
  rollout: cmdRollout,
  wait: cmdWait,
  config: cmdConfig,
  exec: cmdExec,
  logs: cmdLogs,
  "api-resources": cmdApiResources,
  "api-versions": cmdApiVersions,
  autoscale: cmdAutoscale,
  explain: cmdExplain,
  version: cmdVersion,
  cordon: (a, c, o) => cmdCordon(a, c, o, true),
  uncordon: (a, c, o) => cmdCordon(a, c, o, false),
  // `kubectl options`: the flags every command takes (its own --help prints nothing).
  options: (a, _c, o) => void (wantsHelp(a) || o.out(OPTIONS_TEXT)),
  // A kubeadm cluster has no metrics-server: top has nothing to read.
  top: () => {
    throw new KubectlError("Metrics API not available");
  },
  "cluster-info": (_a, c, o) => {
    const ip = c.cluster.config.nodes.find((n) => n.controlPlane)?.ip ?? c.cluster.config.nodes[0].ip;
    o.out(`\x1b[0;32mKubernetes control plane\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443\x1b[0m\n\x1b[0;32mCoreDNS\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\x1b[0m\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`);
  },
};

/**
 * Reads the files a command line names (-o go-template-file=PATH, -o templatefile=PATH,
 * --template PATH, patch's --patch-file PATH) before the command runs: commands are synchronous.
 */
async function readCommandFiles(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const paths = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /(?:^|=)(?:go-template-file|templatefile|jsonpath-file|custom-columns-file)=(.*)$/s.exec(argv[i]) ?? /^(?:-o|--output)?(?:go-template-file|templatefile|jsonpath-file|custom-columns-file)=(.*)$/s.exec(argv[i]);
    if (m) paths.add(m[1]);
    for (const flag of ["--template", "--patch-file"]) {
      if (argv[i] === flag && i + 1 < argv.length) paths.add(argv[i + 1]);
      else if (argv[i].startsWith(`${flag}=`)) paths.add(argv[i].slice(flag.length + 1));
    }
  }
  for (const path of paths) {
    if (!path || o.commandFiles.has(path)) continue;
    try {
      o.commandFiles.set(path, await ctx.readFile(path));
    } catch {
      o.commandFiles.set(path, undefined);
    }
  }
}

async function dispatch(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  await readCommandFiles(argv, ctx, o);
  // Global flags may come before the verb (kubectl -n kube-system get pods).
  const pre: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i].startsWith("-")) {
    pre.push(argv[i]);
    if (VALUE_FLAGS.test(argv[i])) pre.push(argv[++i]);
    i++;
  }
  const verb = argv[i];
  if (verb === undefined || (verb === "help" && i === argv.length - 1)) {
    o.out(ROOT_HELP);
    return;
  }
  if (verb === "help") return helpCommand(argv.slice(i + 1), o);
  const fn = VERBS[verb];
  // Commands that do not parse their flags here (parseFlags answers -h for the others).
  if (!fn || NO_FLAGS.has(verb)) {
    if (wantsHelp(argv.slice(i + 1)) && ROOT_COMMANDS.includes(verb)) {
      o.out(helpFor([verb, ...argv.slice(i + 1).filter((a) => !a.startsWith("-"))]));
      return;
    }
  }
  if (!fn) {
    if (ROOT_COMMANDS.includes(verb)) throw notInServiceLab(`kubectl ${verb}`);
    // kubectl looks for a plugin first, and takes the first word for its name.
    if (pre.length) throw new KubectlError(`Error: flags cannot be placed before plugin name: ${pre[0]}`, 1, { raw: true });
    throw new KubectlError(unknownCommandMessage(verb));
  }
  let args = [...pre, ...argv.slice(i + 1)];
  if (SUBCOMMANDS.has(verb)) args = subcommandFirst(args);
  if (verb === "rollout" || verb === "set" || verb === "config") checkGroupSubcommand(verb, args, o);
  await fn(args, ctx, o);
}

/** Verbs run here without parsing flags. */
const NO_FLAGS = new Set(["top", "cluster-info"]);

/** -h / --help among the flags (before "--"). */
function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") return false;
    if (/^(-h|--help)(=(true|1|t|TRUE|True))?$/.test(a)) return true;
  }
  return false;
}

/** `kubectl help [command...]`: that command's help, or cobra's "Unknown help topic" and the root's usage. */
function helpCommand(args: string[], o: Out): void {
  const words = args.filter((a) => !a.startsWith("-"));
  if (words.length && !ROOT_COMMANDS.includes(words[0])) {
    o.err(`Unknown help topic [\`${words.join(" ")}\`]\n${UNKNOWN_TOPIC_USAGE}`);
    return;
  }
  o.out(helpFor(words));
}

/**
 * kubectl rollout / set / config, whose own run (cmdutil.DefaultSubCommandRun) prints the
 * command's help when no subcommand is given (rollout on stdout, set and config on stderr) and
 * fails on words that are not one of its subcommands; both exit 1.
 */
function checkGroupSubcommand(verb: "rollout" | "set" | "config", args: string[], o: Out): void {
  const sub = args[0];
  const known = sub !== undefined && isCommand([verb, sub]);
  // -h without one of its subcommands: the command's own help, on stdout, exit 0.
  if (!known && wantsHelp(args)) throw new HelpRequested(`kubectl ${verb}`);
  if (sub === undefined || sub.startsWith("-")) {
    if (verb === "rollout") o.out(helpFor([verb]));
    else o.err(helpFor([verb]));
    throw new KubectlError("", 1);
  }
  if (known) return;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (VALUE_FLAGS.test(args[i])) i++;
    else if (!args[i].startsWith("-")) words.push(args[i]);
  }
  throw new KubectlError(`unknown command ${JSON.stringify(words.join(" "))}\nSee 'kubectl ${verb} -h' for help and examples`);
}

/** A command kubectl has and ServiceLab's does not run: said plainly, not as kubectl's unknown command. */
function notInServiceLab(command: string): KubectlError {
  return new KubectlError(`"${command}" is not available in ServiceLab's kubectl`);
}

/** Verbs whose first word is a subcommand (kubectl rollout restart, kubectl create configmap...). */
const SUBCOMMANDS = new Set(["rollout", "set", "config", "create"]);
/** Flags written "-x value": their value is neither the verb nor a subcommand. */
const VALUE_FLAGS = /^(-n|--namespace|--context|--kubeconfig|--cluster|--user|-s|--server|--token|--as|--request-timeout|-f|--filename|-o|--output|-l|--selector|--field-manager)$/;

/**
 * `args` with the subcommand (the first word that is neither a flag nor a flag's value) first,
 * as cobra finds it wherever the flags are: `kubectl -n kube-system rollout restart ds x` and
 * `kubectl create -n ns configmap x` run `restart` and `configmap`. Unchanged without one.
 */
function subcommandFirst(args: string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return args;
    if (a.startsWith("-")) {
      if (VALUE_FLAGS.test(a)) i++;
      continue;
    }
    return i === 0 ? args : [a, ...args.slice(0, i), ...args.slice(i + 1)];
  }
  return args;
}

function nsOf(p: Parsed, ctx: KubectlContext): string {
  return str(p, "namespace") ?? ctx.namespace;
}

function served(ctx: KubectlContext) {
  return (i: ResourceInfo) => ctx.cluster.api.isServed(i);
}

function typeOrThrow(name: string, ctx: KubectlContext): ResourceInfo {
  const info = resolveType(name, served(ctx));
  if (!info) throw new KubectlError(`the server doesn't have a resource type "${name}"`);
  return info;
}

/** Splits `type name...`, `type/name ...` and `t1,t2` arguments into (type, names) groups. */
function resourceArgs(args: string[], ctx: KubectlContext, allowAll = false): { info: ResourceInfo; names: string[] }[] {
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

function list(ctx: KubectlContext, info: ResourceInfo, ns: string | undefined, p?: Parsed): KObject[] {
  return ctx.cluster.client.list(info, info.namespaced ? ns : undefined, {
    labelSelector: p ? str(p, "selector") : undefined,
    fieldSelector: p ? str(p, "field-selector") : undefined,
  }).items;
}

function get(ctx: KubectlContext, info: ResourceInfo, ns: string, name: string): KObject {
  return ctx.cluster.client.get(info, info.namespaced ? ns : undefined, name);
}

function stripForOutput(obj: KObject, p: Parsed): KObject {
  if (bool(p, "show-managed-fields") || !obj.metadata?.managedFields) return obj;
  const { managedFields: _m, ...meta } = obj.metadata;
  return { ...obj, metadata: meta } as KObject;
}

// ---------------------------------------------------------------------------------------------
// Printing objects with -o

const TEMPLATE_FORMATS = ["go-template", "go-template-file", "template", "templatefile"];

/** A go-template printer's execution error: kubectl reports it after what the printer wrote. */
class TemplateExecError extends KubectlError {}

/**
 * The -o format, as kubectl's PrintFlags take it: --template without -o means go-template; a
 * jsonpath format takes its template from --template too.
 */
function outputFormat(p: Parsed): string | undefined {
  const fmt = str(p, "output");
  const tpl = str(p, "template");
  if (!fmt && tpl) return "go-template";
  if (fmt && tpl && /^(jsonpath|jsonpath-as-json)$/.test(fmt)) return `${fmt}=${tpl}`;
  return fmt;
}

/**
 * GoTemplatePrintFlags.ToPrinter: the go-template printer for -o go-template=..., -o
 * template=..., -o go-template-file=PATH, -o templatefile=PATH, or one of those formats with
 * --template; undefined when the format is another printer's. Errors as kubectl words them.
 */
function goTemplatePrinter(p: Parsed, o: Out): GoTemplatePrinter | undefined {
  let fmt = outputFormat(p);
  if (!fmt) return undefined;
  let text = str(p, "template") ?? "";
  if (!text) {
    const f = TEMPLATE_FORMATS.find((f) => fmt!.startsWith(f + "="));
    if (f) {
      text = fmt.slice(f.length + 1);
      fmt = f;
    }
  }
  if (!TEMPLATE_FORMATS.includes(fmt)) return undefined;
  if (!text) throw new KubectlError("template format specified but no template given");
  if (fmt === "go-template-file" || fmt === "templatefile") {
    const content = o.commandFiles.get(text);
    if (content === undefined) throw new KubectlError(`error reading --template ${text}, open ${text}: no such file or directory`);
    text = content;
  }
  try {
    return new GoTemplatePrinter(text, p.flags.get("allow-missing-template-keys") !== false);
  } catch (e) {
    if (e instanceof GoTemplateError) throw new KubectlError(e.message);
    throw e;
  }
}

/** Writes a template's output; an execution error is thrown after it, as kubectl returns it. */
function templateOut(r: TemplateResult, o: Out, wrap = (e: string) => e): void {
  o.out(r.out);
  if (r.error) throw new TemplateExecError(wrap(r.error));
}

/**
 * Prints objects with -o (false: the format is a table's). `raw` is the JSON kubectl would have
 * marshalled, for a go-template's debugging output (a typed object's is in struct order).
 */
function printObjects(objs: { info: ResourceInfo; obj: KObject }[], p: Parsed, o: Out, single: boolean, raw?: (data: unknown) => string): boolean {
  const fmt = outputFormat(p);
  if (!fmt || fmt === "wide") return false;
  const items = objs.map((x) => stripForOutput(x.obj, p));
  const data = single && items.length === 1 ? items[0] : asList(items);
  const tpl = goTemplatePrinter(p, o);
  if (tpl) templateOut(tpl.print(data, raw?.(data)), o);
  else if (fmt === "yaml") o.out(toYaml(data));
  else if (fmt === "json") o.out(toJson(data));
  else if (fmt === "name") for (const x of objs) o.out(`${objRef(x.info, x.obj.metadata.name!)}\n`);
  else if (fmt.startsWith("jsonpath=") || fmt.startsWith("jsonpath-as-json=")) {
    let tpl = fmt.slice(fmt.indexOf("=") + 1);
    if (!tpl.includes("{")) tpl = `{${tpl}}`;
    o.out(fmt.startsWith("jsonpath-as-json=") ? executeJsonPathAsJson(tpl, data) : executeJsonPath(tpl, data));
  } else if (fmt.startsWith("jsonpath-file=")) {
    const path = fmt.slice("jsonpath-file=".length);
    const text = o.commandFiles.get(path);
    if (text === undefined) throw new KubectlError(`error reading --template ${path}, open ${path}: no such file or directory`);
    o.out(executeJsonPath(text, data));
  } else if (fmt.startsWith("custom-columns=") || fmt.startsWith("custom-columns-file=")) {
    let cols: { header: string; expr: string }[];
    if (fmt.startsWith("custom-columns-file=")) {
      // NewCustomColumnsPrinterFromTemplate: a line of headers, a line of field specs.
      const path = fmt.slice("custom-columns-file=".length);
      const text = o.commandFiles.get(path);
      if (text === undefined) throw new KubectlError(`error reading template ${path}, open ${path}: no such file or directory`);
      // bufio.Scanner's lines: a final newline ends the last line and starts no other.
      const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
      const words = (l: string | undefined) => (l ?? "").split(/\s+/).filter(Boolean);
      const expected = "Expected format is one line of space separated headers, one line of space separated column specs.";
      if (lines.length < 1) throw new KubectlError(`invalid template, missing header line. ${expected}`);
      if (lines.length < 2) throw new KubectlError(`invalid template, missing spec line. ${expected}`);
      const headers = words(lines[0]);
      const specs = words(lines[1]);
      if (headers.length !== specs.length) throw new KubectlError(`number of headers (${headers.length}) and field specifications (${specs.length}) don't match`);
      cols = headers.map((h, i) => ({ header: h, expr: specs[i] }));
    } else {
      cols = fmt.slice("custom-columns=".length).split(",").map((c) => {
        const i = c.indexOf(":");
        if (i < 0) throw new KubectlError(`unexpected custom-columns spec: ${c}, expected <header>:<json-path-expr>`);
        return { header: c.slice(0, i), expr: c.slice(i + 1) };
      });
    }
    const lines: string[] = [];
    if (!bool(p, "no-headers")) lines.push(cols.map((c) => c.header).join("\t"));
    for (const it of items) {
      lines.push(cols.map((c) => {
        const vals = selectValues(c.expr, it);
        return vals.length ? vals.map(jsonPathText).join(",") : "<none>";
      }).join("\t"));
    }
    o.out(tabwrite(lines.join("\n") + "\n", TABLE_TABWRITER));
  } else {
    throw new KubectlError(`unable to match a printer suitable for the output format "${fmt}", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml`);
  }
  return true;
}

/** Prints a created/changed object: -o yaml etc., or `<ref> <verb>` (with " (dry run)"). */
function printResult(info: ResourceInfo, obj: KObject, p: Parsed, o: Out, verb: string): void {
  const dry = str(p, "dry-run");
  if (dry === "client" && str(p, "output") === "json") {
    // kubectl built this object itself: its JSON is the Go type's, in struct order.
    o.out(toTypedJson(info.schema, stripForOutput(obj, p)));
    return;
  }
  // What kubectl built itself is a typed object: a template's debugging output has its JSON in struct order.
  const raw = dry === "client" ? (data: unknown) => goCompactJson(JSON.parse(toTypedJson(info.schema, data))) : undefined;
  if (printObjects([{ info, obj }], p, o, true, raw)) return;
  const suffix = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
  o.out(`${objRef(info, obj.metadata.name!)} ${verb}${suffix}\n`);
}

/** -L/--label-columns: a string slice (repeated flags, commas between keys). */
function labelColumns(p: Parsed): string[] {
  return arr(p, "label-columns").flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
}

function dryRun(p: Parsed): "none" | "client" | "server" {
  const d = p.flags.get("dry-run");
  if (d === undefined || d === "none" || d === false) return "none";
  if (d === "client" || d === true || d === "") return "client";
  if (d === "server") return "server";
  throw new KubectlError(`Invalid dry-run value (${String(d)}). Must be "none", "server", or "client".`);
}

// ---------------------------------------------------------------------------------------------
// get

const GET_FLAGS = [
  ...OUTPUT_FLAGS,
  f("all-namespaces", "bool", "A"),
  f("selector", "string", "l"),
  f("field-selector", "string"),
  f("show-labels", "bool"),
  f("no-headers", "bool"),
  f("watch", "bool", "w"),
  f("watch-only", "bool"),
  f("output-watch-events", "bool"),
  f("sort-by", "string"),
  f("label-columns", "array", "L"),
  f("ignore-not-found", "bool"),
  f("chunk-size", "string"),
  f("show-kind", "bool"),
  f("raw", "string"),
  f("filename", "array", "f"),
  f("recursive", "bool", "R"),
];

function cmdGet(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, GET_FLAGS, "kubectl get");
  const raw = str(p, "raw");
  if (raw) return getRaw(raw, p, ctx, o);
  if (!p.args.length) {
    throw new KubectlError(`You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse "kubectl explain <resource>" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples`, 1, { raw: true });
  }
  const all = bool(p, "all-namespaces");
  const ns = nsOf(p, ctx);
  const groups = resourceArgs(p.args, ctx, true);
  const isAll = p.args[0].split(",").includes("all");
  if (groups.some((g) => g.info === R.endpoints)) o.err(ENDPOINTS_WARNING);
  if (bool(p, "watch") || bool(p, "watch-only")) return getWatch(p, groups, ctx, o, ns, all);
  // multipleGVKsRequested: the kind column only when more than one kind was asked for.
  const multi = new Set(groups.map((g) => g.info)).size > 1 || isAll || bool(p, "show-kind");
  const found: { info: ResourceInfo; obj: KObject }[] = [];
  const errors: string[] = [];
  const byName = groups.some((g) => g.names.length > 0);
  for (const g of groups) {
    if (g.names.length) {
      for (const n of g.names) {
        try {
          found.push({ info: g.info, obj: get(ctx, g.info, ns, n) });
        } catch (e) {
          if (isStatusError(e) && e.reason === "NotFound" && bool(p, "ignore-not-found")) continue;
          errors.push(serverError(e));
        }
      }
    } else {
      for (const obj of list(ctx, g.info, all ? undefined : ns, p)) found.push({ info: g.info, obj });
    }
  }
  const sortBy = str(p, "sort-by");
  if (sortBy) {
    const fmt = outputFormat(p);
    const table = !fmt || fmt === "wide";
    if (!sortObjects(found, sortBy, table, ctx)) {
      // kubectl's table sorter fails the same way, and the empty table says there is nothing.
      o.err(noResources(groups, all, ns));
      return;
    }
  }
  const single = byName && found.length === 1 && groups.length === 1 && groups[0].names.length === 1;
  let printed: boolean;
  try {
    printed = printObjects(found, p, o, single);
  } catch (e) {
    // kubectl prints the objects it got, then reports every error.
    if (!(e instanceof TemplateExecError)) throw e;
    errors.push(`error: ${e.message}`);
    printed = true;
  }
  if (!printed) {
    // A table per run of objects of one kind, in the order they came (get.go starts a new
    // printer when the mapping changes): svc/a svc/b is one table, svc/a deploy/b svc/c three.
    const now = ctx.cluster.now();
    for (let i = 0; i < found.length; ) {
      const start = i;
      const info = found[i].info;
      const objs: KObject[] = [];
      for (; i < found.length && found[i].info === info; i++) objs.push(found[i].obj);
      if (start > 0) o.out("\n");
      o.out(
        tabwrite(
          tableText(info, objs, now, {
            wide: str(p, "output") === "wide",
            withNamespace: all && info.namespaced,
            showLabels: bool(p, "show-labels"),
            labelColumns: labelColumns(p),
            withKind: multi ? `${info.kind.toLowerCase()}${info.group ? "." + info.group : ""}` : undefined,
            noHeaders: bool(p, "no-headers"),
          }),
          TABLE_TABWRITER,
        ),
      );
    }
  }
  if (!found.length && !errors.length && !byName) o.err(noResources(groups, all, ns));
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

/** What `get` says when it has nothing to print (the namespace only when every type is namespaced). */
/**
 * kubectl get --raw PATH (get.go's Complete and Validate, then rawhttp.RawGet): the response body
 * as the apiserver sends it, or the Status it answered with, printed as kubectl prints a server error.
 * The path is the API's own ("/api/v1/..."), served here by the same code as /k8s/{id}.
 */
function getRaw(path: string, p: Parsed, ctx: KubectlContext, o: Out): void {
  if (p.args.length) throw new KubectlError("arguments may not be passed when --raw is specified");
  if (bool(p, "watch") || bool(p, "watch-only") || str(p, "selector")) throw new KubectlError("--raw may not be specified with other flags that filter the server request or alter the output");
  if (str(p, "output")) throw new KubectlError("--raw and --output are mutually exclusive");
  // url.ParseRequestURI: an absolute path (or an absolute URL) and nothing else.
  if (!path.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(path)) throw new KubectlError(`--raw must be a valid URL path: parse ${JSON.stringify(path)}: invalid URI for request`);
  const u = new URL(path, "https://apiserver");
  const res = serveKube(ctx.cluster, { method: "GET", path: u.pathname, query: Object.fromEntries(u.searchParams), accept: "application/json, */*", prefix: "" });
  if (res.status < 300) {
    o.out(res.body);
    return;
  }
  // serveKube answers every failure with a Status: printed as any server error (serverError).
  throw new StatusError(JSON.parse(res.body) as Status);
}

function noResources(groups: { info: ResourceInfo }[], all: boolean, ns: string): string {
  const scoped = groups.every((g) => g.info.namespaced);
  return all || !scoped ? "No resources found\n" : `No resources found in ${ns} namespace.\n`;
}

/**
 * `get --sort-by`: kubectl's RuntimeSort or TableSorter (a table for the default and wide
 * output) under Go's sort.Sort, which is not stable: objects with equal keys (events of the same
 * second) come out in the order that algorithm leaves them. Less takes each object's first
 * JSONPath value: one without the field sorts first, numbers by value, strings as quantities when
 * both parse as one. False when no object has the field and the output is a table (kubectl then
 * prints an empty table); other outputs fail as kubectl does.
 */
function sortObjects(found: { obj: KObject }[], sortBy: string, table: boolean, ctx: KubectlContext): boolean {
  const field = /^\{.*\}$/.test(sortBy) ? sortBy : `{${sortBy.startsWith(".") ? sortBy : "." + sortBy}}`;
  const values = found.map((x) => {
    const v = selectValues(field, x.obj as never)[0];
    return v === null ? undefined : v;
  });
  if (found.length && values.every((v) => v === undefined)) {
    if (table) return false;
    throw new KubectlError(`couldn't find any field with path "${field}" in the list of objects`);
  }
  const less = (a: unknown, b: unknown): boolean => {
    if (a === undefined) return true;
    if (b === undefined) return false;
    if (typeof a === "number" && typeof b === "number") return a < b;
    if (typeof a === "string" && typeof b === "string") {
      const qa = parseQuantity(a);
      const qb = qa && parseQuantity(b);
      return qa && qb ? cmp(qa, qb) < 0 : byteOrder(a, b) < 0;
    }
    const err = typeof a === "string" || typeof a === "number" ? "unsortable interface: interface" : `unsortable type: ${goTypeName(a)}`;
    // klog.Exitf: a fatal line with klog's header, then exit 1.
    const t = new Date(ctx.cluster.now());
    const p2 = (n: number, w = 2) => String(n).padStart(w, "0");
    const header = `F${p2(t.getUTCMonth() + 1)}${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}.${p2(t.getUTCMilliseconds(), 3)}000 ${String(KUBECTL_PID).padStart(7)}`;
    const where = table ? "sorter.go:375] Field %s in [][][]reflect.Value" : "sorter.go:329] Field %s in *unstructured.Unstructured";
    throw new KubectlError(`${header} ${where.replace("%s", field)} is an unsortable type: interface, err: ${err}`, 1, { raw: true });
  };
  const order = found.map((x, i) => ({ x, v: values[i] }));
  goSortArray(order, (a, b) => less(a.v, b.v));
  for (let i = 0; i < order.length; i++) found[i] = order[i].x;
  return true;
}

/** The process id a fatal kubectl line names (a kubectl process on the node). */
const KUBECTL_PID = 26857;

/** How long `get -w` goes on after the last change it printed (cluster time). */
const WATCH_QUIET_MS = 45_000;
/** The longest `get -w` runs without --request-timeout (cluster time). */
const WATCH_MAX_MS = 600_000;

/**
 * `kubectl get -w` / `--watch-only`: the objects (unless --watch-only), then a row for each change
 * the apiserver's watch would send, while the cluster's clock runs on. Rows are flushed one by one
 * through one tabwriter that remembers column widths, as kubectl's does. A real kubectl watches
 * until Ctrl-C; here the watch ends, as if interrupted, once nothing it shows has changed for
 * WATCH_QUIET_MS of cluster time (longer than the default 30 s termination grace, so a terminating
 * pod's last row shows), when --request-timeout passes, or after WATCH_MAX_MS.
 */
function getWatch(p: Parsed, groups: { info: ResourceInfo; names: string[] }[], ctx: KubectlContext, o: Out, ns: string, all: boolean): void {
  if (new Set(groups.map((g) => g.info)).size > 1) throw new KubectlError("watch is only supported on individual resources and resource collections - more than 1 resource was found");
  const { info, names } = groups[0];
  const objs = names.length ? names.map((n) => get(ctx, info, ns, n)) : list(ctx, info, all ? undefined : ns, p);
  const fmt = outputFormat(p);
  const events = bool(p, "output-watch-events");
  const writer = new TabwriterStream(TABLE_TABWRITER);
  const tpl = goTemplatePrinter(p, o);
  let headerDone = bool(p, "no-headers");
  let printed = 0;
  const print = (type: string, objList: readonly KObject[]) => {
    if (!objList.length) return;
    if (tpl) {
      // Each object (or metav1.WatchEvent: type, then object) through the template, into the
      // table's tabwriter, flushed after the list and after each event.
      let text = "";
      for (const obj of objList) {
        const o1 = stripForOutput(obj, p);
        const item = events ? { type, object: o1 } : o1;
        const r = tpl.print(item, events ? `{"type":${JSON.stringify(type)},"object":${goCompactJson(sortDeep(o1))}}` : undefined);
        text += r.out;
        if (r.error) {
          o.out(writer.flush(text));
          throw new TemplateExecError(`unable to output the provided object: ${r.error}`);
        }
      }
      o.out(writer.flush(text));
      return;
    }
    if (fmt && fmt !== "wide") {
      for (const obj of objList) {
        if (fmt === "yaml" && printed++ > 0) o.out("---\n");
        if (events && fmt === "json") {
          // A metav1.WatchEvent is a struct: "type" before "object", not sorted as a map would be.
          o.out(`{\n    "type": "${type}",\n    "object": ${toJson(stripForOutput(obj, p)).trimEnd().replace(/\n/g, "\n    ")}\n}\n`);
          continue;
        }
        const item = events && fmt === "yaml" ? { type, object: stripForOutput(obj, p) } : obj;
        printObjects([{ info, obj: item as KObject }], p, o, true);
      }
      return;
    }
    const { header, rows } = tableCells(info, objList, ctx.cluster.now(), { wide: fmt === "wide", withNamespace: all && info.namespaced, showLabels: bool(p, "show-labels"), labelColumns: labelColumns(p) });
    const lines = rows.map((r) => (events ? [type, ...r] : r).join("\t"));
    if (!headerDone) lines.unshift((events ? ["EVENT", ...header] : header).join("\t"));
    headerDone = true;
    o.out(writer.flush(lines.join("\n") + "\n"));
  };
  if (!bool(p, "watch-only")) print("ADDED", objs);
  if (names.length > 1) throw new KubectlError("you may only watch a single resource or type of resource at a time");

  const fieldSelector = [str(p, "field-selector"), names.length ? `metadata.name=${names[0]}` : undefined].filter(Boolean).join(",");
  const filter = new WatchFilter({ kind: info.kind, namespace: info.namespaced && !all ? ns : undefined, labelSelector: str(p, "selector"), fieldSelector: fieldSelector || undefined });
  for (const obj of objs) filter.know(obj);
  const resource = resourceKey(info.group, info.resource);
  const start = ctx.cluster.now();
  let last = start;
  const unsubscribe = ctx.cluster.store.subscribe((ev) => {
    if (ev.resource !== resource) return;
    const type = filter.event(ev.type, ev.object, ev.old ? filter.matches(ev.old) : undefined);
    if (!type) return;
    print(type, [withTypeMeta(info, ev.object)]);
    last = ctx.cluster.now();
  });
  try {
    const timeout = parseDuration(str(p, "request-timeout"), 0);
    for (;;) {
      const end = Math.min(last + WATCH_QUIET_MS, start + (timeout || WATCH_MAX_MS));
      const next = ctx.cluster.manager.nextTimer();
      if (next === undefined || next > end) {
        // Nothing happens before the end: the watch has been quiet (or ran out of time) by then.
        ctx.cluster.advanceTo(end);
        break;
      }
      ctx.cluster.manager.advanceTo(next);
    }
  } finally {
    unsubscribe();
  }
}

// ---------------------------------------------------------------------------------------------
// describe

function cmdDescribe(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("show-events", "bool"), f("filename", "array", "f")], "kubectl describe");
  if (!p.args.length) throw new KubectlError(`You must specify the type of resource to describe. Use "kubectl api-resources" for a complete list of supported resources.`);
  const ns = nsOf(p, ctx);
  const all = bool(p, "all-namespaces");
  const groups = resourceArgs(p.args, ctx);
  if (groups.some((g) => g.info === R.endpoints)) o.err(ENDPOINTS_WARNING);
  const src = { now: ctx.cluster.now(), list: (info: ResourceInfo, n: string | undefined) => list(ctx, info, n) };
  let first = true;
  for (const g of groups) {
    let objs: KObject[];
    if (g.names.length) {
      objs = [];
      for (const n of g.names) {
        try {
          objs.push(get(ctx, g.info, ns, n));
        } catch (e) {
          if (!isStatusError(e) || e.reason !== "NotFound") throw e;
          // describe falls back to name prefixes before giving up (DescribeMatchingResources),
          // and prints each match followed by a blank line.
          const pref = list(ctx, g.info, ns).filter((x) => x.metadata.name!.startsWith(n));
          if (!pref.length) throw e;
          for (const x of pref) o.out(describe(g.info, x, src) + "\n");
        }
      }
    } else {
      objs = list(ctx, g.info, all ? undefined : ns, p);
      if (!objs.length) {
        o.err(`No resources found in ${ns} namespace.\n`);
        continue;
      }
    }
    // One describer's text after another, two blank lines apart.
    for (const obj of objs) {
      o.out((first ? "" : "\n\n") + describe(g.info, obj, src));
      first = false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// create / run / expose

function labelsFromString(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of s.split(",")) {
    const i = kv.indexOf("=");
    if (i < 0) throw new KubectlError(`invalid label spec: ${kv}`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

/**
 * What a generator built, with the namespace set when -n/--namespace was given (kubectl's
 * EnforceNamespace: the flag, not the context's namespace), as a client dry run prints it.
 */
function enforceNamespace(info: ResourceInfo, obj: Obj, p: Parsed): Obj {
  const ns = str(p, "namespace");
  if (!info.namespaced || ns === undefined) return obj;
  return { ...obj, metadata: { ...obj.metadata, namespace: ns } };
}

/**
 * Sends what a `kubectl create <generator>` built. `failure`: the generator's wrapping of a
 * server error ("failed to create deployment: " + the Status message), if it has one.
 */
function finishCreate(info: ResourceInfo, obj: Obj, p: Parsed, ctx: KubectlContext, o: Out, verb = "created", ns?: string, failure?: string): void {
  const mode = dryRun(p);
  if (mode === "client") {
    printResult(info, enforceNamespace(info, obj, p), p, o, verb);
    return;
  }
  const warnings: string[] = [];
  let created: KObject;
  try {
    created = ctx.cluster.client.create(info, info.namespaced ? ns ?? nsOf(p, ctx) : undefined, obj, { dryRun: mode === "server", warnings });
  } catch (e) {
    if (failure && isStatusError(e)) throw new KubectlError(`${failure}: ${e.status.message}`);
    throw e;
  }
  for (const w of warnings) o.err(`Warning: ${w}\n`);
  printResult(info, created, p, o, verb);
}

function cmdCreate(argv: string[], ctx: KubectlContext, o: Out): Promise<void> | void {
  const sub = argv.find((a) => !a.startsWith("-"));
  const subIdx = sub === undefined ? -1 : argv.indexOf(sub);
  const known = ["deployment", "deploy", "service", "svc", "configmap", "cm", "namespace", "ns"];
  if (sub === undefined || !known.includes(sub) || argv.slice(0, subIdx).some((a) => /^-f$|^--filename/.test(a))) {
    return cmdApplyLike(argv, ctx, o, "create");
  }
  const rest = [...argv.slice(0, subIdx), ...argv.slice(subIdx + 1)];
  switch (sub) {
    case "deployment":
    case "deploy": {
      const p = parseFlags(rest, [...OUTPUT_FLAGS, f("image", "array"), { ...f("replicas", "int", "r"), bits: 32 }, f("port", "int"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], "kubectl create deployment");
      const name = p.args[0];
      // cobra checks required flags before the command looks at its arguments.
      const images = arr(p, "image");
      if (!images.length) throw new KubectlError("required flag(s) \"image\" not set");
      if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create deployment -h' for help and examples");
      const labels = { app: name };
      const containers = images.map((img) => {
        const base = img.split("/").pop()!.split(":")[0].split("@")[0];
        const c: Obj = { image: img, name: base, resources: {} };
        if (str(p, "port")) c.ports = [{ containerPort: Number(str(p, "port")) }];
        return c;
      });
      const obj = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { creationTimestamp: null, labels, name },
        spec: {
          replicas: Number(str(p, "replicas") ?? 1),
          selector: { matchLabels: labels },
          strategy: {},
          template: { metadata: { creationTimestamp: null, labels }, spec: { containers } },
        },
        status: {},
      };
      return finishCreate(R.deployments, obj, p, ctx, o, "created", undefined, "failed to create deployment");
    }
    case "service":
    case "svc": {
      const kind = rest.find((a) => !a.startsWith("-"));
      const kinds: Record<string, string> = { clusterip: "ClusterIP", nodeport: "NodePort", loadbalancer: "LoadBalancer", externalname: "ExternalName" };
      if (!kind || !kinds[kind]) {
        throw new KubectlError(kind ? `unknown command "${kind}" for "kubectl create service"` : `must specify a type of service: clusterip, externalname, loadbalancer, nodeport`);
      }
      const r2 = rest.filter((a, i) => i !== rest.indexOf(kind));
      const p = parseFlags(r2, [...OUTPUT_FLAGS, f("tcp", "array"), f("clusterip", "string"), f("node-port", "int"), f("external-name", "string"), f("save-config", "bool"), f("validate", "string"), f("field-manager", "string")], `kubectl create service ${kind}`);
      const name = p.args[0];
      if (!name) throw new KubectlError(`exactly one NAME is required, got 0\nSee 'kubectl create service ${kind} -h' for help and examples`);
      const type = kinds[kind];
      const ports: Obj[] = [];
      for (const spec of arr(p, "tcp").flatMap((x) => x.split(","))) {
        const [port, target] = spec.split(":");
        const pn = Number(port);
        const tn = target === undefined ? pn : /^\d+$/.test(target) ? Number(target) : target;
        const sp: Obj = { name: `${port}-${target ?? port}`, port: pn, protocol: "TCP", targetPort: tn };
        if (type === "NodePort" && str(p, "node-port")) sp.nodePort = Number(str(p, "node-port"));
        ports.push(sp);
      }
      if (type !== "ExternalName" && !ports.length && str(p, "clusterip") !== "None") throw new KubectlError("at least one tcp port specifier must be provided");
      const spec: Obj = { ports, selector: { app: name }, type };
      if (type === "ExternalName") {
        const en = str(p, "external-name");
        if (!en) throw new KubectlError("required flag(s) \"external-name\" not set");
        spec.externalName = en;
        if (!ports.length) delete spec.ports;
      }
      if (str(p, "clusterip")) spec.clusterIP = str(p, "clusterip");
      const obj = { apiVersion: "v1", kind: "Service", metadata: { creationTimestamp: null, labels: { app: name }, name }, spec, status: { loadBalancer: {} } };
      return finishCreate(R.services, obj, p, ctx, o, "created", undefined, `failed to create ${type} service`);
    }
    case "configmap":
    case "cm":
      return createConfigMap(rest, ctx, o);
    case "namespace":
    case "ns": {
      const p = parseFlags(rest, [...OUTPUT_FLAGS, f("save-config", "bool"), f("validate", "string")], "kubectl create namespace");
      const name = p.args[0];
      if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples");
      return finishCreate(R.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { creationTimestamp: null, name }, spec: {}, status: {} }, p, ctx, o);
    }
  }
}

async function createConfigMap(rest: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(rest, [...OUTPUT_FLAGS, f("from-file", "array"), f("from-literal", "array"), f("from-env-file", "array"), f("append-hash", "bool"), f("save-config", "bool"), f("validate", "string")], "kubectl create configmap");
  const name = p.args[0];
  if (!name) throw new KubectlError("exactly one NAME is required, got 0\nSee 'kubectl create configmap -h' for help and examples");
  const data: Record<string, string> = {};
  for (const lit of arr(p, "from-literal")) {
    const i = lit.indexOf("=");
    if (i <= 0) throw new KubectlError(`invalid literal source ${lit}, expected key=value`);
    data[lit.slice(0, i)] = lit.slice(i + 1);
  }
  for (const spec of arr(p, "from-file")) {
    const eq = spec.indexOf("=");
    const key = eq > 0 ? spec.slice(0, eq) : undefined;
    const path = eq > 0 ? spec.slice(eq + 1) : spec;
    const files = await ctx.listDir(path);
    if (files) {
      if (key) throw new KubectlError(`cannot give a key name for a directory path`);
      for (const file of files) data[file] = await ctx.readFile(`${path.replace(/\/$/, "")}/${file}`);
    } else {
      let content: string;
      try {
        content = await ctx.readFile(path);
      } catch {
        throw new KubectlError(`error reading ${path}: no such file or directory`);
      }
      data[key ?? path.split("/").pop()!] = content;
    }
  }
  const obj = { apiVersion: "v1", data, kind: "ConfigMap", metadata: { creationTimestamp: null, name } };
  finishCreate(R.configmaps, obj, p, ctx, o, "created", undefined, "failed to create configmap");
}

const RUN_FLAGS = [
  ...OUTPUT_FLAGS,
  f("image", "string"),
  f("env", "array"),
  f("port", "string"),
  f("labels", "string", "l"),
  f("image-pull-policy", "string"),
  f("restart", "string"),
  f("command", "bool"),
  f("rm", "bool"),
  f("stdin", "bool", "i"),
  f("tty", "bool", "t"),
  f("attach", "bool"),
  f("expose", "bool"),
  f("annotations", "array"),
  f("privileged", "bool"),
  f("overrides", "string"),
  f("pod-running-timeout", "string"),
  f("quiet", "bool", "q"),
];

async function cmdRun(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, RUN_FLAGS, "kubectl run");
  const name = p.args[0];
  // --image is a required flag: cobra says so before run looks at NAME.
  const image = str(p, "image");
  if (!image) throw new KubectlError('required flag(s) "image" not set');
  if (!name) throw new KubectlError("NAME is required for run\nSee 'kubectl run -h' for help and examples");
  const extra = [...p.args.slice(1), ...(p.rest ?? [])];
  const container: Obj = { name, image };
  if (bool(p, "command") && extra.length) container.command = extra;
  else if (extra.length) container.args = extra;
  const env = arr(p, "env").map((kv) => {
    const i = kv.indexOf("=");
    return { name: kv.slice(0, i), value: kv.slice(i + 1) };
  });
  if (env.length) container.env = env;
  if (str(p, "image-pull-policy")) container.imagePullPolicy = str(p, "image-pull-policy");
  if (str(p, "port")) container.ports = [{ containerPort: Number(str(p, "port")) }];
  container.resources = {};
  const interactive = bool(p, "stdin");
  const tty = bool(p, "tty");
  if (interactive) {
    container.stdin = true;
    container.stdinOnce = true;
  }
  if (tty) container.tty = true;
  const restart = str(p, "restart") ?? "Always";
  if (!["Always", "OnFailure", "Never"].includes(restart)) throw new KubectlError(`invalid restart policy: ${restart}`);
  if (bool(p, "rm") && !interactive) throw new KubectlError("--rm should only be used for attached containers");
  const labels = str(p, "labels") ? labelsFromString(str(p, "labels")!) : { run: name };
  const obj: Obj = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { creationTimestamp: null, labels, name },
    spec: { containers: [container], dnsPolicy: "ClusterFirst", restartPolicy: restart },
    status: {},
  };
  const mode = dryRun(p);
  if (mode === "client") {
    printResult(R.pods, enforceNamespace(R.pods, obj, p), p, o, "created");
    return;
  }
  const ns = nsOf(p, ctx);
  const created = ctx.cluster.client.create(R.pods, ns, obj, { dryRun: mode === "server" });
  if (!interactive) {
    printResult(R.pods, created, p, o, "created");
    return;
  }
  // Attach: wait for the container to run, then hand the terminal to its shell.
  const pod = waitRunning(ctx, ns, name);
  const cmd = [...(container.command ?? []), ...(container.args ?? [])];
  const profile = ctx.cluster.kubelet.profile(pod);
  const shell = cmd.length ? cmd[0].split("/").pop()! : profile?.shell ?? "sh";
  if (!/^(sh|bash|ash)$/.test(shell)) {
    // A command that is not a shell runs once and the pod goes away with --rm.
    const r = await ctx.execInPod(pod, name, cmd, "");
    o.out(r.stdout);
    o.err(r.stderr);
    if (bool(p, "rm")) {
      ctx.cluster.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
      o.out(`pod "${name}" deleted\n`);
    }
    return;
  }
  if (tty) o.err("If you don't see a command prompt, try pressing enter.\n");
  ctx.attach({ pod, container: name, shell, removeOnExit: bool(p, "rm") });
}

function waitRunning(ctx: KubectlContext, ns: string, name: string): Pod {
  for (let i = 0; i < 600; i++) {
    const pod = get(ctx, R.pods, ns, name) as Pod;
    if (ctx.cluster.kubelet.containerState(pod) === "running") return pod;
    if (pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded") throw new KubectlError(`pod ${ns}/${name} terminated (${pod.status.phase})`);
    ctx.cluster.advance(500);
  }
  throw new KubectlError(`timed out waiting for the condition`);
}

async function cmdExpose(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("port", "string"), f("target-port", "string"), f("type", "string"), f("selector", "string"), f("name", "string"), f("protocol", "string"), f("labels", "string", "l"), f("external-ip", "string"), f("cluster-ip", "string"), f("session-affinity", "string"), f("load-balancer-ip", "string"), f("filename", "array", "f"), f("save-config", "bool"), f("override-type", "string"), f("overrides", "string")], "kubectl expose");
  const groups = resourceArgs(p.args, ctx);
  if (!groups.length || !groups[0].names.length) throw new KubectlError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
  const { info, names } = groups[0];
  const ns = nsOf(p, ctx);
  const src = get(ctx, info, ns, names[0]) as Obj;
  let selector: Record<string, string> | undefined;
  let ports: number[] = [];
  let protocol = str(p, "protocol");
  if (info === R.pods) {
    selector = src.metadata.labels;
    ports = (src.spec.containers ?? []).flatMap((c: Obj) => (c.ports ?? []).map((x: Obj) => x.containerPort));
  } else if (info === R.services) {
    selector = src.spec.selector;
    ports = (src.spec.ports ?? []).map((x: Obj) => x.port);
  } else if ([R.deployments, R.replicasets, R.daemonsets, R.statefulsets].includes(info)) {
    const ml = src.spec.selector?.matchLabels;
    if (src.spec.selector?.matchExpressions?.length) throw new KubectlError(`couldn't retrieve selectors via --selector flag or introspection: the ${info.kind} has match expressions`);
    selector = ml;
    ports = (src.spec.template?.spec?.containers ?? []).flatMap((c: Obj) => (c.ports ?? []).map((x: Obj) => x.containerPort));
  } else {
    throw new KubectlError(`cannot expose a ${info.kind}`);
  }
  if (str(p, "selector")) selector = labelsFromString(str(p, "selector")!);
  if (!selector || !Object.keys(selector).length) throw new KubectlError(`couldn't retrieve selectors via --selector flag or introspection: the ${info.kind} has no labels`);
  const portFlag = str(p, "port");
  const svcPorts: Obj[] = [];
  const tp = str(p, "target-port");
  const target = (port: number) => (tp === undefined ? port : /^\d+$/.test(tp) ? Number(tp) : tp);
  if (portFlag) {
    for (const x of portFlag.split(",")) svcPorts.push({ port: Number(x), protocol: protocol ?? "TCP", targetPort: target(Number(x)) });
  } else {
    if (!ports.length) throw new KubectlError(`couldn't find port via --port flag or introspection\nSee 'kubectl expose -h' for help and examples`);
    ports.forEach((x, i) => svcPorts.push({ ...(ports.length > 1 ? { name: `port-${i + 1}` } : {}), port: x, protocol: protocol ?? "TCP", targetPort: target(x) }));
  }
  protocol = undefined;
  const name = str(p, "name") ?? names[0];
  const labels = str(p, "labels") ? labelsFromString(str(p, "labels")!) : src.metadata.labels;
  const spec: Obj = { ports: svcPorts, selector };
  if (str(p, "type")) spec.type = str(p, "type");
  if (str(p, "cluster-ip")) spec.clusterIP = str(p, "cluster-ip");
  if (str(p, "external-ip")) spec.externalIPs = str(p, "external-ip")!.split(",");
  if (str(p, "session-affinity")) spec.sessionAffinity = str(p, "session-affinity");
  if (str(p, "load-balancer-ip")) spec.loadBalancerIP = str(p, "load-balancer-ip");
  const metadata: Obj = { creationTimestamp: null, name };
  if (labels && Object.keys(labels).length) metadata.labels = labels;
  const obj = { apiVersion: "v1", kind: "Service", metadata, spec, status: { loadBalancer: {} } };
  finishCreate(R.services, obj, p, ctx, o, "exposed", ns);
}

// ---------------------------------------------------------------------------------------------
// apply / create -f / delete -f

interface Manifest {
  info: ResourceInfo;
  obj: Obj;
  source: string;
}

async function readManifests(files: string[], recursive: boolean, ctx: KubectlContext): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const file of files) {
    let sources: string[];
    if (file === "-") sources = ["-"];
    else if (/^https?:\/\//.test(file)) throw new KubectlError(`unable to read URL "${file}", server reported 404 Not Found, status code=404`);
    else {
      const entries = await ctx.listDir(file);
      sources = entries ? entries.filter((e) => /\.(ya?ml|json)$/.test(e)).sort().map((e) => `${file.replace(/\/$/, "")}/${e}`) : [file];
      void recursive;
    }
    for (const src of sources) {
      let text: string;
      if (src === "-") text = ctx.stdin;
      else {
        try {
          text = await ctx.readFile(src);
        } catch {
          throw new KubectlError(`the path "${src}" does not exist`);
        }
      }
      let docs;
      try {
        docs = parseAllDocuments(text);
      } catch (e) {
        throw new KubectlError(`error parsing ${src}: ${(e as Error).message}`);
      }
      for (const d of Array.isArray(docs) ? docs : [docs]) {
        if (d.errors.length) {
          const line = d.errors[0].linePos?.[0]?.line ?? 1;
          throw new KubectlError(`error converting YAML to JSON: yaml: line ${line}: ${d.errors[0].message.split("\n")[0].replace(/ at line.*$/, "")}`);
        }
        let obj: Obj;
        try {
          obj = d.toJS() as Obj;
        } catch (e) {
          // An alias bomb ("billion laughs"): the yaml library stops at its alias count, as
          // go-yaml stops at its aliasing ratio; kubectl says so in go-yaml's words.
          if (!/Excessive alias count/.test((e as Error).message)) throw e;
          throw new KubectlError(`error parsing ${src}: error converting YAML to JSON: yaml: document contains excessive aliasing`);
        }
        if (obj === null || obj === undefined) continue;
        if (typeof obj !== "object") throw new KubectlError(`error validating "${src}": error validating data: invalid object to validate; if you choose to ignore these errors, turn validation off with --validate=false`);
        if (obj.kind === "List" && Array.isArray(obj.items)) {
          for (const it of obj.items) out.push(manifest(it, src, ctx));
          continue;
        }
        out.push(manifest(obj, src, ctx));
      }
    }
  }
  if (!out.length) throw new KubectlError("no objects passed to apply");
  return out;
}

function manifest(obj: Obj, src: string, ctx: KubectlContext): Manifest {
  if (!obj.apiVersion || !obj.kind) {
    const missing = !obj.apiVersion ? "apiVersion" : "kind";
    throw new KubectlError(`error validating "${src}": error validating data: ${missing} not set; if you choose to ignore these errors, turn validation off with --validate=false`);
  }
  const info = lookupKind(obj.apiVersion, obj.kind);
  if (!info || !ctx.cluster.api.isServed(info)) {
    throw new KubectlError(`resource mapping not found for name: "${obj.metadata?.name ?? ""}" namespace: "${obj.metadata?.namespace ?? ""}" from "${src}": no matches for kind "${obj.kind}" in version "${obj.apiVersion}"\nensure CRDs are installed first`);
  }
  return { info, obj, source: src };
}

/** kubectl apply's patch for a live object; its errors are kubectl's. */
function applyPatchFor(info: ResourceInfo, live: KObject, modified: Obj): { type: PatchType; patch: Obj } {
  try {
    return kubectlApplyPatch(info, live as JsonObject, modified);
  } catch (e) {
    if (e instanceof ApplyPatchError) throw new KubectlError(e.message);
    throw e;
  }
}

function sortDeep(v: Obj): Obj {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === "object") {
    const o: Obj = {};
    for (const k of Object.keys(v).sort()) o[k] = sortDeep(v[k]);
    return o;
  }
  return v;
}

async function cmdApply(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  return cmdApplyLike(argv, ctx, o, "apply");
}

async function cmdApplyLike(argv: string[], ctx: KubectlContext, o: Out, verb: "apply" | "create"): Promise<void> {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("filename", "array", "f"), f("recursive", "bool", "R"), f("validate", "string"), f("force", "bool"), f("server-side", "bool"), f("field-manager", "string"), f("prune", "bool"), f("selector", "string", "l"), f("save-config", "bool"), f("overwrite", "bool"), f("wait", "bool"), f("kustomize", "string", "k")], `kubectl ${verb}`);
  // Complete, then Validate: words that are not flags first, then the files.
  if (p.args.length) throw new KubectlError(`Unexpected args: [${p.args.join(" ")}]\nSee 'kubectl ${verb} -h' for help and examples`);
  const files = arr(p, "filename");
  if (!files.length) throw new KubectlError("must specify one of -f and -k");
  const manifests = await readManifests(files, bool(p, "recursive"), ctx);
  const mode = dryRun(p);
  const errors: string[] = [];
  for (const m of manifests) {
    const ns = m.info.namespaced ? m.obj.metadata?.namespace ?? nsOf(p, ctx) : undefined;
    if (m.info.namespaced && str(p, "namespace") && m.obj.metadata?.namespace && m.obj.metadata.namespace !== str(p, "namespace")) {
      errors.push(`error: the namespace from the provided object "${m.obj.metadata.namespace}" does not match the namespace "${str(p, "namespace")}". You must pass '--namespace=${m.obj.metadata.namespace}' to perform this operation.`);
      continue;
    }
    const name = m.obj.metadata?.name;
    try {
      const warnings: string[] = [];
      const body = verb === "apply" ? withLastApplied(m.obj, ns) : structuredClone(m.obj);
      let live: KObject | undefined;
      if (verb === "apply" && name) {
        try {
          live = ctx.cluster.client.get(m.info, ns, name);
        } catch (e) {
          if (!isStatusError(e) || e.reason !== "NotFound") throw e;
        }
      }
      if (!live) {
        if (mode === "client") {
          printResult(m.info, body, p, o, "created");
          continue;
        }
        const created = ctx.cluster.client.create(m.info, ns, body, { dryRun: mode === "server", warnings });
        for (const w of warnings) o.err(`Warning: ${w}\n`);
        printResult(m.info, created, p, o, "created");
        continue;
      }
      if (mode === "client") {
        printResult(m.info, live, p, o, "configured");
        continue;
      }
      if (!live.metadata.annotations?.[LAST_APPLIED]) o.err(`Warning: resource ${m.info.resource}/${name} is missing the ${LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n`);
      const { type, patch } = applyPatchFor(m.info, live, body);
      if (Object.keys(patch).length === 0) {
        printResult(m.info, live, p, o, "unchanged");
        continue;
      }
      const updated = ctx.cluster.client.patch(m.info, ns, name, type, patch, { dryRun: mode === "server", warnings });
      for (const w of warnings) o.err(`Warning: ${w}\n`);
      printResult(m.info, updated, p, o, "configured");
    } catch (e) {
      if (isStatusError(e)) {
        const s = e.status;
        if (s.reason === "AlreadyExists" || s.reason === "Invalid") errors.push(verb === "apply" && s.reason === "Invalid" ? `The ${s.message}` : serverError(e));
        else errors.push(`Error from server (${s.reason}): error when ${live_verb(verb)} "${m.source}": ${s.message}`);
      } else throw e;
    }
  }
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

function live_verb(verb: string): string {
  return verb === "apply" ? "creating" : "creating";
}

async function cmdDelete(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("filename", "array", "f"), f("recursive", "bool", "R"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("field-selector", "string"), f("force", "bool"), f("grace-period", "int"), f("now", "bool"), f("wait", "bool"), f("ignore-not-found", "bool"), f("cascade", "string"), f("dry-run", "string"), f("output", "string", "o"), f("timeout", "string")], "kubectl delete");
  const targets: { info: ResourceInfo; ns: string | undefined; name: string }[] = [];
  const ns = nsOf(p, ctx);
  if (arr(p, "filename").length) {
    for (const m of await readManifests(arr(p, "filename"), bool(p, "recursive"), ctx)) {
      targets.push({ info: m.info, ns: m.info.namespaced ? m.obj.metadata?.namespace ?? ns : undefined, name: m.obj.metadata?.name });
    }
  } else {
    if (!p.args.length) throw new KubectlError(`You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'`);
    for (const g of resourceArgs(p.args, ctx)) {
      if (g.names.length) for (const n of g.names) targets.push({ info: g.info, ns, name: n });
      else if (bool(p, "all") || str(p, "selector") || str(p, "field-selector")) {
        for (const obj of list(ctx, g.info, bool(p, "all-namespaces") ? undefined : ns, p)) targets.push({ info: g.info, ns: obj.metadata.namespace, name: obj.metadata.name! });
      } else throw new KubectlError(`resource(s) were provided, but no name was specified`);
    }
    if (!targets.length) o.err(`No resources found\n`);
  }
  const grace = str(p, "grace-period") !== undefined ? Number(str(p, "grace-period")) : bool(p, "now") ? 1 : bool(p, "force") ? 0 : undefined;
  const errors: string[] = [];
  const deleted: typeof targets = [];
  const cascade = str(p, "cascade");
  const dry = dryRun(p);
  const dryNote = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
  for (const t of targets) {
    try {
      // A client dry run only checks that the object is there; a server dry run goes through admission.
      if (dry === "client") get(ctx, t.info, t.ns ?? ns, t.name);
      else {
        ctx.cluster.client.delete(t.info, t.ns, t.name, {
          gracePeriodSeconds: grace,
          propagationPolicy: cascade === "orphan" ? "Orphan" : cascade === "foreground" ? "Foreground" : "Background",
          dryRun: dry === "server",
        });
      }
      if (bool(p, "force") && grace === 0) o.err("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n");
      o.out(`${t.info.kind.toLowerCase()}${t.info.group ? "." + t.info.group : ""} "${t.name}" deleted${dryNote}\n`);
      deleted.push(t);
    } catch (e) {
      if (isStatusError(e) && e.reason === "NotFound" && bool(p, "ignore-not-found")) continue;
      if (isStatusError(e) && e.reason === "NotFound" && arr(p, "filename").length) {
        errors.push(`Error from server (NotFound): error when deleting "${arr(p, "filename")[0]}": ${e.status.message}`);
        continue;
      }
      errors.push(serverError(e));
    }
  }
  // --wait=true (the default): block until the objects are gone, on the cluster's clock.
  if (p.flags.get("wait") !== false) {
    for (let i = 0; i < 3600; i++) {
      const left = deleted.filter((t) => ctx.cluster.api.peek(t.info, t.ns, t.name));
      if (!left.length) break;
      ctx.cluster.advance(1000);
    }
  }
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// scale / patch / label / annotate / edit / set image

function oneTarget(p: Parsed, ctx: KubectlContext, cmd: string): { info: ResourceInfo; name: string; ns: string }[] {
  const groups = resourceArgs(p.args, ctx);
  const out: { info: ResourceInfo; name: string; ns: string }[] = [];
  for (const g of groups) for (const n of g.names) out.push({ info: g.info, name: n, ns: nsOf(p, ctx) });
  if (!out.length) throw new KubectlError(`You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'`);
  void cmd;
  return out;
}

function cmdScale(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("replicas", "int"), f("current-replicas", "int"), f("resource-version", "string"), f("selector", "string", "l"), f("all", "bool"), f("timeout", "string")], "kubectl scale");
  const r = str(p, "replicas");
  if (r === undefined) throw new KubectlError("required flag(s) \"replicas\" not set");
  if (Number(r) < 0) throw new KubectlError("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
  // The builder continues on errors: the objects found are scaled, the lookups that failed are
  // reported at the end, and with nothing found the command says there was nothing to scale.
  const found: { info: ResourceInfo; ns: string; name: string; obj: Obj }[] = [];
  const missing: StatusError[] = [];
  for (const t of oneTarget(p, ctx, "scale")) {
    try {
      found.push({ ...t, obj: get(ctx, t.info, t.ns, t.name) as Obj });
    } catch (e) {
      if (!isStatusError(e) || e.reason !== "NotFound") throw e;
      missing.push(e);
    }
  }
  if (!found.length && missing.length) {
    const msgs = missing.map((e) => e.message);
    throw new KubectlError(`no objects passed to scale ${msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`}`);
  }
  for (const t of found) {
    if (![R.deployments, R.replicasets, R.statefulsets].includes(t.info)) throw new KubectlError(`cannot scale a ${t.info.kind}`);
    const current = str(p, "current-replicas");
    if (current !== undefined && Number(current) >= 0) {
      // The scaler's precondition, checked against the object before the write.
      const was = t.obj.spec?.replicas ?? 1;
      if (was !== Number(current)) throw new KubectlError(`Expected replicas to be ${current}, was ${was}`);
    }
    // kubectl's --replicas is an int, the Scale's replicas an int32: the scaler's merge patch of
    // the scale subresource is refused as the apiserver refuses it, before anything changes.
    const replicas = Number(r);
    if (!isInt32(replicas)) {
      const patched = scaleOf(t.info, t.obj as KObject);
      patched.spec = { replicas };
      throw scaleReplicasInvalid(patched);
    }
    const obj = ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { spec: { replicas } });
    printResult(t.info, obj, p, o, "scaled");
  }
  if (missing.length) throw new KubectlError(missing.map((e) => serverError(e)).join("\n"));
}

function cmdPatch(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("patch", "string", "p"), f("type", "string"), f("patch-file", "string"), f("local", "bool"), f("subresource", "string"), f("filename", "array", "f")], "kubectl patch");
  const patch = str(p, "patch");
  const file = str(p, "patch-file");
  if (patch && file) throw new KubectlError("cannot specify --patch and --patch-file together");
  if (!patch && !file) throw new KubectlError("must specify --patch or --patch-file containing the contents of the patch");
  const type = (str(p, "type") ?? "strategic") as PatchType;
  if (!["strategic", "merge", "json"].includes(type)) throw new KubectlError(`--type must be one of [json merge strategic], not "${type}"`);
  // --patch-file was read before the command ran (readCommandFiles).
  const text = patch || o.commandFiles.get(file!);
  if (text === undefined) throw new KubectlError(`unable to read patch file: open ${file}: no such file or directory`);
  // kubectl's yaml.ToJSON: what starts like JSON goes to the server as it is (which answers a
  // syntax error with encoding/json's words); anything else is YAML, converted here.
  let body: unknown = text;
  if (!/^[ \t\r\n]*[{[]/.test(text)) {
    try {
      const d = parseAllDocuments(text);
      body = (Array.isArray(d) ? d[0] : d).toJS();
    } catch {
      throw new KubectlError(`unable to parse "${text}": yaml: did not find expected node content`);
    }
  }
  for (const t of oneTarget(p, ctx, "patch")) {
    if (type === "strategic" && t.info.crd) throw new KubectlError(`application/strategic-merge-patch+json is not supported by ${t.info.group}/${t.info.version}, Kind=${t.info.kind}: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
    const before = get(ctx, t.info, t.ns, t.name);
    const after = ctx.cluster.client.patch(t.info, t.ns, t.name, type, body, { dryRun: dryRun(p) !== "none" });
    const same = before.metadata.resourceVersion === after.metadata.resourceVersion && dryRun(p) === "none";
    // kubectl patch names no dry run in its message (it prints what the server returned).
    if (!printObjects([{ info: t.info, obj: after }], p, o, true)) o.out(`${objRef(t.info, after.metadata.name!)} ${same ? "patched (no change)" : "patched"}\n`);
  }
}

function cmdLabel(argv: string[], ctx: KubectlContext, o: Out, field: "labels" | "annotations"): void {
  const cmd = field === "labels" ? "label" : "annotate";
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("overwrite", "bool"), f("all", "bool"), f("all-namespaces", "bool", "A"), f("selector", "string", "l"), f("list", "bool"), f("resource-version", "string"), f("local", "bool"), f("filename", "array", "f")], `kubectl ${cmd}`);
  const changes = p.args.filter((a) => a.includes("=") || a.endsWith("-"));
  const resArgs = p.args.filter((a) => !changes.includes(a));
  // Validate: the resources first, then the updates.
  if (!resArgs.length && !arr(p, "filename").length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
  if (!changes.length && !bool(p, "list")) throw new KubectlError(`at least one ${field === "labels" ? "label" : "annotation"} update is required`);
  const set: Record<string, string | null> = {};
  for (const c of changes) {
    if (c.endsWith("-") && !c.includes("=")) set[c.slice(0, -1)] = null;
    else {
      const i = c.indexOf("=");
      set[c.slice(0, i)] = c.slice(i + 1);
    }
  }
  const targets: { info: ResourceInfo; name: string; ns: string }[] = [];
  const groups = resourceArgs(resArgs, ctx);
  for (const g of groups) {
    if (g.names.length) for (const n of g.names) targets.push({ info: g.info, name: n, ns: nsOf(p, ctx) });
    else if (bool(p, "all") || str(p, "selector")) for (const obj of list(ctx, g.info, nsOf(p, ctx), p)) targets.push({ info: g.info, name: obj.metadata.name!, ns: obj.metadata.namespace ?? "" });
  }
  if (!targets.length) throw new KubectlError(`one or more resources must be specified as <resource> <name> or <resource>/<name>`);
  for (const t of targets) {
    const obj = get(ctx, t.info, t.ns, t.name);
    const cur = (obj.metadata[field] ?? {}) as Record<string, string>;
    if (bool(p, "list")) {
      for (const k of Object.keys(cur).sort()) o.out(`${k}=${cur[k]}\n`);
      continue;
    }
    let changed = false;
    for (const [k, v] of Object.entries(set)) {
      if (v !== null && k in cur && cur[k] !== v && !bool(p, "overwrite")) {
        throw new KubectlError(`'${k}' already has a value (${cur[k]}), and --overwrite is false`);
      }
      if (v === null ? k in cur : cur[k] !== v) changed = true;
    }
    const after = changed ? ctx.cluster.client.patch(t.info, t.ns, t.name, "merge", { metadata: { [field]: set } }) : obj;
    const verb = field === "labels" ? "labeled" : "annotated";
    printResult(t.info, after, p, o, changed ? verb : `not ${verb}`);
  }
}

async function cmdEdit(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("output", "string", "o"), f("filename", "array", "f"), f("save-config", "bool"), f("validate", "string"), f("windows-line-endings", "bool"), f("subresource", "string"), f("field-manager", "string")], "kubectl edit");
  // kubectl finds the objects first (errors about them come before any editor).
  const targets = oneTarget(p, ctx, "edit").map((t) => ({ t, obj: get(ctx, t.info, t.ns, t.name) }));
  // The host's editor (the web UI's) when it lends one, else KUBE_EDITOR / EDITOR in the shell.
  const editor = ctx.editor ?? shellEditor(ctx, o);
  if (!editor) throw new KubectlError(`unable to launch the editor "vi"`);
  for (const { t, obj } of targets) {
    const file = `/tmp/kubectl-edit-${t.name}.yaml`;
    const yaml = toYaml(stripForOutput(obj, p));
    // kubectl's edit loop (editoptions.go): an invalid save reopens the file with the reasons in
    // its header; quitting after that without a new change stores a copy and gives up.
    let text = EDIT_HEADER + yaml;
    let failed: { reason: string; body: string } | undefined;
    for (;;) {
      let edited: string | undefined;
      try {
        edited = await editor(text, file);
      } catch (e) {
        if (e instanceof KubectlError && failed) o.err(`A copy of your changes has been stored to "${file}"\n`);
        throw e;
      }
      const body = (edited ?? "").split("\n").filter((l) => !l.startsWith("#")).join("\n");
      if (edited === undefined || edited === text) {
        if (!failed) {
          o.err("Edit cancelled, no changes made.\n");
          break;
        }
        await ctx.writeFile?.(file, failed.body);
        throw new KubectlError(`error: ${failed.reason}\nA copy of your changes has been stored to "${file}"\nerror: Edit cancelled, no valid changes were saved.`, 1, { raw: true });
      }
      if (!body.trim()) {
        o.err("Edit cancelled, saved file was empty.\n");
        break;
      }
      let next: Obj;
      try {
        const d = parseAllDocuments(body);
        const doc = Array.isArray(d) ? d[0] : d;
        if (doc.errors.length) throw new Error(doc.errors[0].message);
        next = doc.toJS();
      } catch (e) {
        const msg = (e as Error).message.split("\n")[0];
        failed = { reason: `the edited file had a syntax error: ${msg}`, body };
        text = EDIT_HEADER + editReason(`The edited file had a syntax error: ${msg}`, []) + body;
        continue;
      }
      if (JSON.stringify(sortDeep(next)) === JSON.stringify(sortDeep(obj))) {
        o.err("Edit cancelled, no changes made.\n");
        break;
      }
      try {
        const updated = ctx.cluster.client.update(t.info, t.ns, t.name, next);
        printResult(t.info, updated, p, o, "edited");
        break;
      } catch (e) {
        if (!isStatusError(e) || e.status.reason !== "Invalid") throw e;
        const causes = (e.status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
        failed = { reason: `${qualifiedName(t.info)} "${t.name}" is invalid`, body };
        text = EDIT_HEADER + editReason(`${t.info.resource} "${t.name}" was not valid`, causes.length ? causes : [e.status.message]) + body;
      }
    }
  }
}

/**
 * KUBE_EDITOR, then EDITOR (default vi), run as kubectl's editor.go runs it: a value without
 * spaces is the program, one with spaces but no quotes or backslashes is split on spaces, and
 * anything else goes to $SHELL -c with the file's path appended (%q). The editor runs in the
 * node's shell on the file kubectl wrote, and what it prints reaches the terminal.
 */
function shellEditor(ctx: KubectlContext, o: Out): Editor | undefined {
  const run = ctx.runShell;
  const write = ctx.writeFile;
  if (!run || !write) return undefined;
  let value = "";
  for (const k of ["KUBE_EDITOR", "EDITOR"]) if ((value = ctx.getenv?.(k) ?? "")) break;
  if (!value) value = "vi";
  const q = (w: string) => `'${w.replace(/'/g, "'\\''")}'`;
  let args: string[];
  let command: (path: string) => string;
  const viaShell = value.includes(" ") && /["'\\]/.test(value);
  if (!viaShell) {
    args = value.includes(" ") ? value.split(" ") : [value];
    command = (path) => [...args, path].map(q).join(" ");
  } else {
    args = [ctx.getenv?.("SHELL") || "/bin/bash", "-c", value];
    command = (path) => `${value} ${JSON.stringify(path)}`;
  }
  return async (text, file) => {
    await write(file, text);
    const r = await run(command(file));
    const launched = viaShell || r.exitCode !== 127 || !/command not found|No such file or directory/.test(r.stderr);
    if (!launched) throw new KubectlError(`unable to launch the editor ${JSON.stringify(args.join(" "))}`);
    o.out(r.stdout);
    o.err(r.stderr);
    if (r.exitCode !== 0) throw new KubectlError(`there was a problem with the editor ${JSON.stringify(args.join(" "))}`);
    return ctx.readFile(file);
  };
}

const EDIT_HEADER = "# Please edit the object below. Lines beginning with a '#' will be ignored,\n# and an empty file will abort the edit. If an error occurs while saving this file will be\n# reopened with the relevant failures.\n#\n";

/** One reason at the top of a reopened file, as kubectl's editHeader writes it. */
function editReason(head: string, other: string[]): string {
  const hash = (s: string) => s.replace(/\n/g, "\n# ");
  return `# ${hash(head)}${other.length ? ":" : ""}\n${other.map((x) => `# * ${hash(x)}\n`).join("")}#\n`;
}

/** "deployments.apps", "pods": the resource as kubectl names it in errors. */
function qualifiedName(info: ResourceInfo): string {
  return info.group ? `${info.resource}.${info.group}` : info.resource;
}

/**
 * kubectl replace -f FILE (or -f -): a PUT of the file's object ("replaced"); --force deletes the
 * live object first and creates the file's ("<kind> "<name>" deleted", then "replaced").
 * Errors name the file as kubectl's AddSourceToErr does ("error when replacing "STDIN": ...").
 */
async function cmdReplace(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("filename", "array", "f"), f("recursive", "bool", "R"), f("force", "bool"), f("grace-period", "int"), f("cascade", "string"), f("wait", "bool"), f("timeout", "string"), f("validate", "string"), f("save-config", "bool"), f("subresource", "string"), f("field-manager", "string"), f("kustomize", "string", "k"), f("raw", "string")], "kubectl replace");
  if (p.args.length) throw new KubectlError(`Unexpected args: [${p.args.join(" ")}]\nSee 'kubectl replace -h' for help and examples`);
  const files = arr(p, "filename");
  if (!files.length) throw new KubectlError("must specify one of -f and -k");
  const manifests = await readManifests(files, bool(p, "recursive"), ctx);
  const mode = dryRun(p);
  const errors: string[] = [];
  for (const m of manifests) {
    const ns = m.info.namespaced ? m.obj.metadata?.namespace ?? nsOf(p, ctx) : undefined;
    const name = m.obj.metadata?.name;
    const source = m.source === "-" ? "STDIN" : m.source;
    try {
      if (bool(p, "force")) {
        if (mode === "none") {
          try {
            ctx.cluster.client.delete(m.info, ns, name, {});
            o.out(`${m.info.kind.toLowerCase()}${m.info.group ? "." + m.info.group : ""} "${name}" deleted\n`);
          } catch (e) {
            if (!isStatusError(e) || e.reason !== "NotFound") throw e;
          }
          // --force waits for the object to be gone (a pod's kubelet finishes its deletion).
          for (let i = 0; i < 600; i++) {
            try {
              ctx.cluster.client.get(m.info, ns, name);
            } catch {
              break;
            }
            ctx.cluster.advance(1000);
          }
        }
        const body = structuredClone(m.obj);
        if (body.metadata) delete body.metadata.resourceVersion;
        const created = mode === "client" ? body : ctx.cluster.client.create(m.info, ns, body, { dryRun: mode === "server" });
        printResult(m.info, created, p, o, "replaced");
        continue;
      }
      if (mode === "client") {
        printResult(m.info, m.obj, p, o, "replaced");
        continue;
      }
      const updated = ctx.cluster.client.update(m.info, ns, name, m.obj, { dryRun: mode === "server" });
      printResult(m.info, updated, p, o, "replaced");
    } catch (e) {
      if (!isStatusError(e)) throw e;
      const s = e.status;
      errors.push(s.reason === "Invalid" ? serverError(e) : `Error from server (${s.reason}): error when replacing "${source}": ${s.message}`);
    }
  }
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

/**
 * kubectl set env RESOURCE KEY=VAL ... KEY- (-c CONTAINER, --list): the containers' env set or
 * removed by name ("env updated"; nothing printed when nothing changes), or listed as
 * "# Deployment web, container httpd" and KEY=VAL lines.
 */
function cmdSetEnv(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("list", "bool"), f("resolve", "bool"), f("containers", "string", "c"), f("overwrite", "bool"), f("env", "array", "e"), f("from", "string"), f("prefix", "string"), f("keys", "array"), f("filename", "array", "f")], "kubectl set env");
  const changes = [...p.args.filter((a) => a.includes("=") || (a.endsWith("-") && !a.includes("/"))), ...arr(p, "env")];
  p.args = p.args.filter((a) => !changes.includes(a));
  const list = bool(p, "list");
  // Nothing to set and no --list: kubectl 1.33 prints nothing and succeeds.
  if (!list && !changes.length) return;
  const pattern = str(p, "containers") ?? "*";
  const glob = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
  for (const t of oneTarget(p, ctx, "set env")) {
    const obj = structuredClone(get(ctx, t.info, t.ns, t.name)) as Obj;
    const spec = t.info === R.pods ? obj.spec : obj.spec?.template?.spec;
    const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].filter((c: Obj) => glob.test(c.name));
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
      let env: Obj[] = [...(c.env ?? [])];
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

function cmdSet(argv: string[], ctx: KubectlContext, o: Out): void {
  if (argv[0] === "env") return cmdSetEnv(argv.slice(1), ctx, o);
  if (argv[0] !== "image") throw notInServiceLab(`kubectl set ${argv[0]}`);
  const p = parseFlags(argv.slice(1), [...OUTPUT_FLAGS, f("all", "bool"), f("selector", "string", "l"), f("local", "bool"), f("record", "bool")], "kubectl set image");
  const assigns = p.args.filter((a) => a.includes("="));
  p.args = p.args.filter((a) => !a.includes("="));
  for (const t of oneTarget(p, ctx, "set image")) {
    const obj = get(ctx, t.info, t.ns, t.name) as Obj;
    const spec = t.info === R.pods ? obj.spec : obj.spec?.template?.spec;
    const containers = (spec?.containers ?? []).map((c: Obj) => ({ name: c.name }));
    let any = false;
    for (const a of assigns) {
      const [cname, image] = a.split("=");
      for (const c of containers) {
        if (cname === "*" || c.name === cname) {
          c.image = image;
          any = true;
        }
      }
      if (!any) throw new KubectlError(`unable to find container named "${cname}"`);
    }
    const patch = t.info === R.pods ? { spec: { containers } } : { spec: { template: { spec: { containers } } } };
    const after = ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", patch);
    printResult(t.info, after, p, o, "image updated");
  }
}

// ---------------------------------------------------------------------------------------------
// cordon / uncordon

/**
 * kubectl cordon / uncordon NODE... (drain.go's RunCordonOrUncordon): spec.unschedulable
 * patched when it differs ("cordoned", "uncordoned"), left when it does not ("already ...").
 * The node lifecycle controller adds or removes the unschedulable taint after.
 */
function cmdCordon(argv: string[], ctx: KubectlContext, o: Out, desired: boolean): void {
  const verb = desired ? "cordon" : "uncordon";
  const p = parseFlags(argv, [f("dry-run", "string"), f("selector", "string", "l")], `kubectl ${verb}`);
  const sel = str(p, "selector");
  if (!p.args.length && !sel) throw new KubectlError(`USAGE: ${verb} NODE [flags]\nSee 'kubectl ${verb} -h' for help and examples`);
  const nodes = sel ? (list(ctx, R.nodes, undefined, p) as Obj[]) : p.args.map((n) => get(ctx, R.nodes, "", n) as Obj);
  const dry = dryRun(p);
  const suffix = dry === "none" ? "" : dry === "server" ? " (server dry run)" : " (dry run)";
  for (const node of nodes) {
    const ref = objRef(R.nodes, node.metadata.name);
    if (Boolean(node.spec?.unschedulable) === desired) {
      o.out(`${ref} already ${verb}ed${suffix}\n`);
      continue;
    }
    if (dry !== "client") ctx.cluster.client.patch(R.nodes, undefined, node.metadata.name, "strategic", { spec: { unschedulable: desired ? true : null } }, dry === "server" ? { dryRun: true } : undefined);
    o.out(`${ref} ${verb}ed${suffix}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// rollout

function restartedAt(ctx: KubectlContext): string {
  return rfc3339(ctx.cluster.now()).replace(/\.\d+Z$|Z$/, "Z");
}

function cmdRollout(argv: string[], ctx: KubectlContext, o: Out): void {
  const sub = argv[0];
  const p = parseFlags(argv.slice(1), [...OUTPUT_FLAGS, f("watch", "bool", "w"), f("timeout", "string"), f("revision", "int"), f("to-revision", "int"), f("selector", "string", "l")], `kubectl rollout ${sub ?? ""}`);
  // Each subcommand's Complete: no resource, no run.
  if (!p.args.length) throw new KubectlError("required resource not specified");
  const targets = oneTarget(p, ctx, "rollout");
  const errors: string[] = [];
  for (const t of targets) {
    const ref = objRef(t.info, t.name);
    if (sub === "pause" || sub === "resume") {
      // polymorphichelpers' ObjectPauser / ObjectResumer: deployments only; a patch of
      // spec.paused, or the object as it is when there is nothing to change.
      const pause = sub === "pause";
      const obj = get(ctx, t.info, t.ns, t.name) as Obj;
      const resource = `${t.info.resource}${t.info.group ? `.${t.info.group}` : ""}`;
      if (t.info !== R.deployments) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "pausing" : "resuming"} is not supported`);
      else if (Boolean(obj.spec?.paused) === pause) errors.push(`error: ${resource} ${JSON.stringify(t.name)} ${pause ? "is already paused" : "is not paused"}`);
      else {
        ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", { spec: { paused: pause ? true : null } });
        o.out(`${ref} ${pause ? "paused" : "resumed"}\n`);
      }
      continue;
    }
    if (![R.deployments, R.daemonsets, R.statefulsets].includes(t.info)) throw new KubectlError(`no ${sub === "restart" ? "restarter" : "viewer"} has been implemented for "${t.info.kind}"`);
    switch (sub) {
      case "restart": {
        const after = ctx.cluster.client.patch(t.info, t.ns, t.name, "strategic", {
          spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt(ctx) } } } },
        });
        void after;
        o.out(`${ref} restarted\n`);
        break;
      }
      case "status":
        rolloutStatus(t.info, t.ns, t.name, p, ctx, o);
        break;
      case "history": {
        const revs = revisions(t.info, t.ns, t.name, ctx);
        const want = Number(str(p, "revision") ?? 0);
        if (want < 0) throw new KubectlError(`revision must be a positive integer: ${want}`);
        if (want > 0) {
          const r = revs.find((x) => x.rev === want);
          if (!r) throw new KubectlError("unable to find the specified revision");
          o.out(`${ref} with revision #${want}\n${podTemplateText(r.template as KObject)}\n`);
          break;
        }
        o.out(`${ref} \n`);
        o.out(tabwrite("REVISION\tCHANGE-CAUSE\n" + revs.map((r) => `${r.rev}\t${r.cause ?? "<none>"}\n`).join(""), DESCRIBE_TABWRITER) + "\n");
        break;
      }
      case "undo": {
        const revs = revisions(t.info, t.ns, t.name, ctx);
        const want = str(p, "to-revision") ? Number(str(p, "to-revision")) : 0;
        const current = revs[revs.length - 1];
        const target = want ? revs.find((r) => r.rev === want) : revs[revs.length - 2];
        if (!target) throw new KubectlError(want ? `unable to find specified revision ${want} in history` : `no rollout history found for ${t.info.kind.toLowerCase()} "${t.name}"`);
        if (target === current) {
          o.out(`${ref} skipped rollback (current template already matches revision ${target.rev})\n`);
          break;
        }
        const template = structuredClone(target.template);
        if (template.metadata?.labels) delete template.metadata.labels["pod-template-hash"];
        const obj = get(ctx, t.info, t.ns, t.name) as Obj;
        ctx.cluster.client.update(t.info, t.ns, t.name, { ...obj, spec: { ...obj.spec, template } });
        o.out(`${ref} rolled back\n`);
        break;
      }
      default:
        throw notInServiceLab(`kubectl rollout ${sub}`);
    }
  }
  // The errors of a run that went on past them: an aggregate, one line each (MultipleErrors).
  if (errors.length) throw new KubectlError(errors.join("\n"));
}

function revisions(info: ResourceInfo, ns: string, name: string, ctx: KubectlContext): { rev: number; cause?: string; template: Obj }[] {
  const owner = get(ctx, info, ns, name) as Obj;
  const owned = (x: Obj) => (x.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === owner.metadata.uid);
  if (info === R.deployments) {
    return (list(ctx, R.replicasets, ns) as Obj[])
      .filter(owned)
      .map((rs) => ({ rev: Number(rs.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0), cause: rs.metadata.annotations?.["kubernetes.io/change-cause"], template: rs.spec.template }))
      .sort((a, b) => a.rev - b.rev);
  }
  return (list(ctx, R.controllerrevisions, ns) as Obj[])
    .filter(owned)
    .map((cr) => ({ rev: cr.revision, cause: cr.metadata.annotations?.["kubernetes.io/change-cause"], template: cr.data?.spec?.template }))
    .sort((a, b) => a.rev - b.rev);
}

function parseDuration(s: string | undefined, def: number): number {
  if (!s) return def;
  let ms = 0;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let m: RegExpExecArray | null;
  let any = false;
  while ((m = re.exec(s))) {
    any = true;
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as "ms" | "s" | "m" | "h"];
  }
  if (!any && /^\d+$/.test(s)) return Number(s) * 1000;
  return any ? ms : def;
}

function rolloutStatus(info: ResourceInfo, ns: string, name: string, p: Parsed, ctx: KubectlContext, o: Out): void {
  const timeout = parseDuration(str(p, "timeout"), 600_000);
  const watch = p.flags.get("watch") !== false;
  const start = ctx.cluster.now();
  let lastMsg = "";
  for (;;) {
    const obj = get(ctx, info, ns, name) as Obj;
    const [msg, done] = statusMessage(info, obj);
    if (msg !== lastMsg) o.out(msg);
    lastMsg = msg;
    if (done || !watch) return;
    if (ctx.cluster.now() - start >= timeout) throw new KubectlError("timed out waiting for the condition");
    ctx.cluster.advance(1000);
  }
}

function statusMessage(info: ResourceInfo, d: Obj): [string, boolean] {
  const st = d.status ?? {};
  const n = d.metadata.name;
  if (info === R.deployments) {
    if ((d.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) return [`Waiting for deployment spec update to be observed...\n`, false];
    const want = d.spec.replicas ?? 1;
    const prog = (st.conditions ?? []).find((c: Obj) => c.type === "Progressing");
    if (prog?.reason === "ProgressDeadlineExceeded") throw new KubectlError(`deployment "${n}" exceeded its progress deadline`);
    if ((st.updatedReplicas ?? 0) < want) return [`Waiting for deployment "${n}" rollout to finish: ${st.updatedReplicas ?? 0} out of ${want} new replicas have been updated...\n`, false];
    if ((st.replicas ?? 0) > (st.updatedReplicas ?? 0)) return [`Waiting for deployment "${n}" rollout to finish: ${(st.replicas ?? 0) - (st.updatedReplicas ?? 0)} old replicas are pending termination...\n`, false];
    if ((st.availableReplicas ?? 0) < (st.updatedReplicas ?? 0)) return [`Waiting for deployment "${n}" rollout to finish: ${st.availableReplicas ?? 0} of ${st.updatedReplicas ?? 0} updated replicas are available...\n`, false];
    return [`deployment "${n}" successfully rolled out\n`, true];
  }
  if (info === R.daemonsets) {
    if ((d.metadata.generation ?? 0) > (st.observedGeneration ?? 0)) return [`Waiting for daemon set spec update to be observed...\n`, false];
    const want = st.desiredNumberScheduled ?? 0;
    if ((st.updatedNumberScheduled ?? 0) < want) return [`Waiting for daemon set "${n}" rollout to finish: ${st.updatedNumberScheduled ?? 0} out of ${want} new pods have been updated...\n`, false];
    if ((st.numberAvailable ?? 0) < want) return [`Waiting for daemon set "${n}" rollout to finish: ${st.numberAvailable ?? 0} of ${want} updated pods are available...\n`, false];
    return [`daemon set "${n}" successfully rolled out\n`, true];
  }
  const want = d.spec.replicas ?? 1;
  if ((st.readyReplicas ?? 0) < want) return [`Waiting for ${want - (st.readyReplicas ?? 0)} pods to be ready...\n`, false];
  return [`partitioned roll out complete: ${st.updatedReplicas ?? want} new pods have been updated...\n`, true];
}

// ---------------------------------------------------------------------------------------------
// wait

function cmdWait(argv: string[], ctx: KubectlContext, o: Out): void {
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
  const start = ctx.cluster.now();
  for (const t of targets) {
    for (;;) {
      let obj: Obj | undefined;
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
      if (ctx.cluster.now() - start >= timeout) throw new KubectlError(`timed out waiting for the condition on ${t.info.resource}/${t.name}`);
      ctx.cluster.advance(1000);
    }
  }
}

function met(cond: string, obj: Obj): boolean {
  const m = /^condition=([^=]+)(?:=(.*))?$/i.exec(cond);
  if (m) {
    const want = (m[2] ?? "True").toLowerCase();
    return (obj.status?.conditions ?? []).some((c: Obj) => c.type.toLowerCase() === m[1].toLowerCase() && String(c.status).toLowerCase() === want);
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

// ---------------------------------------------------------------------------------------------
// config

function cmdConfig(argv: string[], ctx: KubectlContext, o: Out): void {
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

// ---------------------------------------------------------------------------------------------
// exec / logs

async function cmdExec(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  const p = parseFlags(argv, [f("stdin", "bool", "i"), f("tty", "bool", "t"), f("container", "string", "c"), f("quiet", "bool", "q"), f("filename", "array", "f"), f("pod-running-timeout", "string")], "kubectl exec");
  const target = p.args[0];
  if (!target) throw new KubectlError("pod or type/name must be specified");
  const cmd = p.rest ?? p.args.slice(1);
  if (!p.rest && p.args.length > 1) throw new KubectlError(`exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples`);
  if (!cmd.length) throw new KubectlError("you must specify at least one command for the container");
  const ns = nsOf(p, ctx);
  const { pod } = podFor(target, ns, ctx, "attach");
  const containers = pod.spec.containers.map((c) => c.name);
  const cname = str(p, "container") ?? containers[0];
  if (!containers.includes(cname)) throw new KubectlError(`container ${cname} not found in pod ${pod.metadata.name}`);
  if (!str(p, "container") && containers.length > 1) o.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
  const state = ctx.cluster.kubelet.containerState(pod, cname);
  if (state !== "running") {
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") throw new KubectlError(`cannot exec into a container in a completed pod; current phase is ${pod.status.phase}`);
    throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${pod.metadata.name}`.replace(/^error: /, ""));
  }
  const interactive = bool(p, "stdin") && bool(p, "tty");
  const bin = cmd[0].split("/").pop()!;
  if (interactive && cmd.length === 1 && /^(sh|bash|ash)$/.test(bin)) {
    const r = await ctx.execInPod(pod, cname, ["__check_shell__", bin], "");
    if (r.exitCode !== 0) {
      o.err(r.stderr);
      throw new KubectlError("", 1);
    }
    ctx.attach({ pod, container: cname, shell: bin, removeOnExit: false });
    return;
  }
  const r = await ctx.execInPod(pod, cname, cmd, bool(p, "stdin") ? ctx.stdin : "");
  o.out(r.stdout);
  o.err(r.stderr);
  if (r.exitCode !== 0) {
    if (r.exitCode >= 126 && r.stderr.startsWith("error: Internal error")) throw new KubectlError("", 1);
    throw new KubectlError(`command terminated with exit code ${r.exitCode}`, r.exitCode);
  }
}

/**
 * The pod a command on POD or TYPE/NAME works on, and how many the object's selector matched:
 * polymorphichelpers' GetFirstPod, the first pod of the list in Go's sort.Sort by podutils'
 * ByLogging (logs) or by ActivePods reversed (exec, attach).
 */
function podFor(target: string, ns: string, ctx: KubectlContext, order: "logging" | "attach"): { pod: Pod; count: number } {
  if (!target.includes("/")) return { pod: get(ctx, R.pods, ns, target) as Pod, count: 1 };
  const [t, n] = target.split("/");
  const info = typeOrThrow(t, ctx);
  if (info === R.pods) return { pod: get(ctx, R.pods, ns, n) as Pod, count: 1 };
  const owner = get(ctx, info, ns, n) as Obj;
  const sel = owner.spec?.selector?.matchLabels ?? owner.spec?.selector;
  const selStr = Object.entries(sel ?? {}).map(([k, v]) => `${k}=${v}`).join(",");
  const pods = ctx.cluster.client.list(R.pods, ns, { labelSelector: selStr }).items as Pod[];
  if (!pods.length) throw new KubectlError(`cannot attach to ${info.kind} ${n}: no pods found`);
  const sorted = goSortArray([...pods], order === "logging" ? byLogging : (a, b) => activePodsLess(b, a));
  return { pod: sorted[0], count: pods.length };
}

// podutils (k8s.io/kubectl/pkg/util/podutils) orders.
const podReady = (p: Pod) => (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
/** The Ready condition's transition time in ms, 0 for none (Go's zero time). */
const readyTime = (p: Pod) => Date.parse((p.status?.conditions ?? []).find((c) => c.type === "Ready" && c.status === "True")?.lastTransitionTime ?? "") || 0;
const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;
const deleting = (p: Pod) => p.metadata.deletionTimestamp != null;
const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
/** afterOrZero: a zero time first, else the later one. */
const afterOrZero = (t1: number, t2: number) => (t1 === 0 || t2 === 0 ? t1 === 0 : t1 > t2);
const scheduled = (p: Pod) => (p.spec?.nodeName ?? "") !== "";

function byLogging(a: Pod, b: Pod): boolean {
  if ((a.spec?.nodeName ?? "") !== (b.spec?.nodeName ?? "") && (!scheduled(a) || !scheduled(b))) return scheduled(a);
  const rank: Record<string, number> = { Running: 0, Unknown: 1, Pending: 2 };
  const ra = rank[a.status?.phase ?? ""] ?? 0;
  const rb = rank[b.status?.phase ?? ""] ?? 0;
  if (ra !== rb) return ra < rb;
  if (podReady(a) !== podReady(b)) return podReady(a);
  if (podReady(a) && podReady(b) && readyTime(a) !== readyTime(b)) return afterOrZero(readyTime(b), readyTime(a));
  if (restarts(a) !== restarts(b)) return restarts(a) > restarts(b);
  if (created(a) !== created(b)) return afterOrZero(created(b), created(a));
  return false;
}

function activePodsLess(a: Pod, b: Pod): boolean {
  if ((a.spec?.nodeName ?? "") !== (b.spec?.nodeName ?? "") && (!scheduled(a) || !scheduled(b))) return !scheduled(a);
  const rank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  const ra = rank[a.status?.phase ?? ""] ?? 0;
  const rb = rank[b.status?.phase ?? ""] ?? 0;
  if (ra !== rb) return ra < rb;
  if (podReady(a) !== podReady(b)) return !podReady(a);
  if (deleting(a) !== deleting(b)) return deleting(a);
  const da = Date.parse(a.metadata.deletionTimestamp ?? "") || 0;
  const db = Date.parse(b.metadata.deletionTimestamp ?? "") || 0;
  if (deleting(a) && deleting(b) && da !== db) return da < db;
  if (podReady(a) && podReady(b) && readyTime(a) !== readyTime(b)) return afterOrZero(readyTime(a), readyTime(b));
  if (restarts(a) !== restarts(b)) return restarts(a) > restarts(b);
  if (created(a) !== created(b)) return afterOrZero(created(a), created(b));
  return false;
}

function cmdLogs(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("follow", "bool", "f"), f("previous", "bool", "p"), f("container", "string", "c"), f("tail", "int"), f("selector", "string", "l"), f("timestamps", "bool"), f("all-containers", "bool"), f("since", "string"), f("prefix", "bool"), f("max-log-requests", "int"), f("ignore-errors", "bool")], "kubectl logs");
  const ns = nsOf(p, ctx);
  let pods: Pod[];
  if (str(p, "selector")) {
    pods = ctx.cluster.client.list(R.pods, ns, { labelSelector: str(p, "selector") }).items as Pod[];
    if (!pods.length) {
      o.err(`No resources found in ${ns} namespace.\n`);
      return;
    }
  } else {
    if (!p.args[0] || p.args.length > 2) throw new KubectlError("expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples");
    try {
      const first = podFor(p.args[0], ns, ctx, "logging");
      if (first.count > 1) o.err(`Found ${first.count} pods, using pod/${first.pod.metadata.name}\n`);
      pods = [first.pod];
    } catch (e) {
      // The logs command's object lookup words a NotFound as its own error.
      if (!isStatusError(e) || e.reason !== "NotFound") throw e;
      const d = e.status.details ?? {};
      const what = d.group ? `${d.kind}.${d.group}` : d.kind;
      throw new KubectlError(`error from server (NotFound): ${what} "${d.name}" not found in namespace "${ns}"`);
    }
  }
  const tailFlag = str(p, "tail");
  const tail = tailFlag !== undefined ? Number(tailFlag) : str(p, "selector") ? 10 : -1;
  for (const pod of pods) {
    const containers = pod.spec.containers.map((c) => c.name);
    const cname = str(p, "container") ?? p.args[1] ?? containers[0];
    if (!containers.includes(cname)) throw new KubectlError(`Error from server (BadRequest): container ${cname} is not valid for pod ${pod.metadata.name}`);
    if (!str(p, "container") && containers.length > 1 && !str(p, "selector")) o.err(`Defaulted container "${cname}" out of: ${containers.join(", ")}\n`);
    const previous = bool(p, "previous");
    const lines = ctx.cluster.kubelet.logs(pod, cname, previous);
    if (lines === undefined || (!previous && ctx.cluster.kubelet.containerState(pod, cname) === "waiting" && !lines.length)) {
      if (previous) throw new KubectlError(`Error from server (BadRequest): previous terminated container "${cname}" in pod "${pod.metadata.name}" not found`);
      const reason = (pod.status?.containerStatuses ?? []).find((c) => c.name === cname)?.state?.waiting?.reason ?? "ContainerCreating";
      throw new KubectlError(`Error from server (BadRequest): container "${cname}" in pod "${pod.metadata.name}" is waiting to start: ${reason === "ContainerCreating" ? "ContainerCreating" : `trying and failing to pull image`}`);
    }
    let text = lines.map((l) => l.line);
    // Integration point: the network module supplies kube-proxy's start-up lines (mode, syncs).
    if (!previous && ctx.extraLogs) {
      const extra = ctx.extraLogs(pod, cname);
      if (extra) text = [...extra, ...text];
    }
    if (tail >= 0) text = text.slice(Math.max(0, text.length - tail));
    const prefix = bool(p, "prefix") ? `[pod/${pod.metadata.name}/${cname}] ` : "";
    for (const l of text) o.out(prefix + l + "\n");
  }
}

// ---------------------------------------------------------------------------------------------
// api-resources / explain / version

function cmdApiResources(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("output", "string", "o"), f("namespaced", "string"), f("api-group", "string"), f("no-headers", "bool"), f("verbs", "array"), f("sort-by", "string"), f("categories", "array"), f("cached", "bool")], "kubectl api-resources");
  const rows = RESOURCES.filter((i) => ctx.cluster.api.isServed(i))
    .filter((i) => str(p, "namespaced") === undefined || String(i.namespaced) === str(p, "namespaced"))
    .filter((i) => str(p, "api-group") === undefined || i.group === str(p, "api-group"))
    .sort((a, b) => (a.group === b.group ? (a.resource < b.resource ? -1 : 1) : a.group === "" ? -1 : b.group === "" ? 1 : a.group < b.group ? -1 : 1));
  if (str(p, "output") === "name") {
    for (const i of rows) o.out(`${i.group ? `${i.resource}.${i.group}` : i.resource}\n`);
    return;
  }
  const wide = str(p, "output") === "wide";
  const lines: string[] = [];
  if (!bool(p, "no-headers")) lines.push(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", ...(wide ? ["VERBS", "CATEGORIES"] : [])].join("\t"));
  for (const i of rows) {
    lines.push([i.resource, i.shortNames.join(","), i.group ? `${i.group}/${i.version}` : i.version, String(i.namespaced), i.kind, ...(wide ? [i.verbs.join(","), i.categories.join(",")] : [])].join("\t"));
  }
  o.out(tabwrite(lines.join("\n") + "\n", TABLE_TABWRITER));
}

/**
 * `kubectl autoscale`: checked as kubectl checks it, then the HorizontalPodAutoscaler create,
 * which this cluster's apiserver does not serve (no autoscaling API): the 404 a real kubectl gets
 * from it.
 */
function cmdAutoscale(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [...OUTPUT_FLAGS, f("max", "int"), f("min", "int"), f("cpu-percent", "int"), f("name", "string"), f("filename", "array", "f")], "kubectl autoscale");
  void o;
  const max = str(p, "max");
  if (max === undefined) throw new KubectlError('required flag(s) "max" not set');
  const min = str(p, "min");
  if (min !== undefined && Number(min) > Number(max)) throw new KubectlError(`--max=MAXPODS must be larger or equal to --min=MINPODS, max: ${max}, min: ${min}`);
  for (const t of oneTarget(p, ctx, "autoscale")) {
    if (![R.deployments, R.replicasets, R.statefulsets].includes(t.info)) {
      throw new KubectlError(`cannot autoscale a ${t.info.kind}: could not find scale subresource for ${t.info.group}/${t.info.version}, Resource=${t.info.resource} in discovery information`);
    }
    get(ctx, t.info, t.ns, t.name);
    throw new KubectlError("Error from server (NotFound): the server could not find the requested resource");
  }
}

/** `kubectl api-versions`: every group/version discovery serves, sorted as sort.Strings sorts. */
function cmdApiVersions(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [], "kubectl api-versions");
  if (p.args.length) throw new KubectlError(`unexpected arguments: [${p.args.join(" ")}]\nSee 'kubectl api-versions -h' for help and examples`);
  const gvs = new Set<string>();
  for (const i of RESOURCES) if (ctx.cluster.api.isServed(i)) gvs.add(i.group ? `${i.group}/${i.version}` : i.version);
  for (const gv of [...gvs].sort(byteOrder)) o.out(`${gv}\n`);
}

/**
 * `kubectl explain TYPE[.FIELD...]`: kubectl's explain template over the OpenAPI v3 document of
 * the type's group-version, the one a real kubectl reads from /k8s.
 */
function cmdExplain(argv: string[], ctx: KubectlContext, o: Out): void {
  const p = parseFlags(argv, [f("recursive", "bool"), f("api-version", "string"), f("output", "string")], "kubectl explain");
  const what = p.args[0];
  if (!what) throw new KubectlError("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.");
  const [t, ...path] = what.split(".");
  const info = resolveType(t, served(ctx));
  // checkErr's NoResourceMatchError case: the message alone, without "error: ".
  if (!info) throw new KubectlError(`the server doesn't have a resource type "${t}"`, 1, { raw: true });
  const doc = gvDocument(ctx.cluster, info.group ? `apis/${info.group}/${info.version}` : `api/${info.version}`);
  try {
    o.out(explain(doc ?? {}, { group: info.group, version: info.version, kind: info.kind, fieldPath: path, recursive: bool(p, "recursive") }));
  } catch (e) {
    if (!(e instanceof ExplainError)) throw e;
    // The header goes to stdout before kubectl finds out the field does not exist.
    const at = e.message.lastIndexOf("error: ");
    o.out(e.message.slice(0, at));
    throw new KubectlError(e.message.slice(at + "error: ".length));
  }
}

function cmdVersion(argv: string[], ctx: KubectlContext, o: Out): void {
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
