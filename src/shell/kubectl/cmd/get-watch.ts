// kubectl get -w / --watch-only.

import { type ResourceInfo, resourceKey } from "../../../engine/api/resources.js";
import type { KObject } from "../../../engine/api/types.js";
import { WatchFilter } from "../../../engine/api/watch-filter.js";
import { withTypeMeta } from "../../../engine/apiserver/apiserver.js";
import { withOwnWrites } from "../../../engine/apiserver/own-writes.js";
import { goCompactJson, toJson } from "../../../kubectl/output.js";
import { tableCells } from "../../../kubectl/table.js";
import { TABLE_TABWRITER, TabwriterStream } from "../../../kubectl/tabwriter.js";
import { labelColumns } from "../cmdutil.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { bool, type Parsed, str } from "../flags.js";
import { Out } from "../out.js";
import { goTemplatePrinter, outputFormat, printObjects, sortDeep, stripForOutput, TemplateExecError } from "../print.js";
import { get, list } from "../targets.js";
import { parseDuration, pause, quietMs, timeNow } from "../waiting.js";

/** The longest `get -w` runs on a simulated clock without --request-timeout. */
const SIMULATED_WATCH_MAX_MS = 600_000;
/** How often a watch looks for timers that writes from elsewhere added (they arrive as events anyway). */
const WATCH_POLL_MS = 1000;

/**
 * `kubectl get -w` / `--watch-only`: the objects (unless --watch-only), then a row for each change
 * the apiserver's watch would send, as the cluster follows the line's time. Rows are flushed one
 * by one through one tabwriter that remembers column widths, as kubectl's does (and reach the
 * terminal as they are printed). As a real kubectl, it watches until Ctrl-C or --request-timeout;
 * on a simulated clock (tests) the script stops it once nothing it shows has changed for the
 * source's quietMs (longer than the default 30 s termination grace, so a terminating pod's last
 * row shows), ending as --request-timeout does.
 */
export async function getWatch(p: Parsed, groups: { info: ResourceInfo; names: string[] }[], ctx: KubectlContext, o: Out, ns: string, all: boolean): Promise<void> {
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
  const start = timeNow(ctx);
  let last = start;
  const unsubscribe = ctx.cluster.store.subscribe((ev) => {
    if (ev.resource !== resource) return;
    const type = filter.event(ev.type, ev.object, ev.old ? filter.matches(ev.old) : undefined);
    if (!type) return;
    print(type, [withTypeMeta(info, withOwnWrites(ev.object))]);
    last = ctx.cluster.now();
  });
  try {
    const timeout = parseDuration(str(p, "request-timeout"), 0);
    const quiet = quietMs(ctx);
    let due = 0;
    for (;;) {
      const now = timeNow(ctx);
      const end = Math.min(quiet !== undefined ? last + quiet : Infinity, timeout ? start + timeout : quiet !== undefined ? start + SIMULATED_WATCH_MAX_MS : Infinity);
      if (now >= end) break;
      // To the next timer (pods starting, readiness) or the end, looking again at least every WATCH_POLL_MS.
      const next = ctx.cluster.manager.nextTimer();
      const until = Math.min(next ?? Infinity, end, now + WATCH_POLL_MS);
      // (A timer due now fires on a wait of 0; should it not, the next wait moves on 1 ms.)
      const ms = until > now ? until - now : due++ ? 1 : 0;
      if (until > now) due = 0;
      if (!(await pause(ctx, ms))) break;
    }
  } finally {
    unsubscribe();
  }
}
