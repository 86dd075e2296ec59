// Printing objects as kubectl's printers do: -o yaml/json/name/jsonpath/custom-columns/go-template,
// and a changed object's `<ref> <verb>` line.

import type { ResourceInfo } from "../../engine/api/resources.js";
import type { KObject } from "../../engine/api/types.js";
import { GoTemplateError } from "../../kubectl/gotemplate.js";
import { executeJsonPath, executeJsonPathAsJson, jsonPathText, selectValues } from "../../kubectl/jsonpath.js";
import { asList, goCompactJson, GoTemplatePrinter, type TemplateResult, toJson, toTypedJson, toYaml } from "../../kubectl/output.js";
import { TABLE_TABWRITER, tabwrite } from "../../kubectl/tabwriter.js";
import { KubectlError } from "./errors.js";
import { bool, type Parsed, str } from "./flags.js";
import { Out } from "./out.js";
import { objRef } from "./resources.js";

export function stripForOutput(obj: KObject, p: Parsed): KObject {
  if (bool(p, "show-managed-fields") || !obj.metadata?.managedFields) return obj;
  const { managedFields: _m, ...meta } = obj.metadata;
  return { ...obj, metadata: meta } as KObject;
}

const TEMPLATE_FORMATS = ["go-template", "go-template-file", "template", "templatefile"];

/** A go-template printer's execution error: kubectl reports it after what the printer wrote. */
export class TemplateExecError extends KubectlError {}

/**
 * The -o format, as kubectl's PrintFlags take it: --template without -o means go-template; a
 * jsonpath format takes its template from --template too.
 */
export function outputFormat(p: Parsed): string | undefined {
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
export function goTemplatePrinter(p: Parsed, o: Out): GoTemplatePrinter | undefined {
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
export function printObjects(objs: { info: ResourceInfo; obj: KObject }[], p: Parsed, o: Out, single: boolean, raw?: (data: unknown) => string): boolean {
  const fmt = outputFormat(p);
  if (!fmt || fmt === "wide") return false;
  // kubectl omits managedFields from JSON and YAML only: templates and JSONPath see them.
  const items = objs.map((x) => (fmt === "yaml" || fmt === "json" ? stripForOutput(x.obj, p) : x.obj));
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
export function printResult(info: ResourceInfo, obj: KObject, p: Parsed, o: Out, verb: string): void {
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

export function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === "object") {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) o[k] = sortDeep((v as Record<string, unknown>)[k]);
    return o;
  }
  return v;
}
