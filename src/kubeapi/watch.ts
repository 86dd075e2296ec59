// Watches (?watch=true): newline-delimited JSON {type, object}, fed from the host's live channel
// (every change after it was persisted, in revision order). A watch from resourceVersion N gets
// the changes after N; without one (or "0") it starts with ADDED for what exists; a revision
// older than the store's change log is answered as kube-apiserver's watch cache answers it: one
// ERROR event carrying the 410 Expired Status "too old resource version".

import { authorizeResource } from "./impersonation.js";
import { parseFieldSelector } from "../engine/api/fields.js";
import { parseSelector } from "../engine/api/labels.js";
import { WatchFilter } from "../engine/api/watch-filter.js";
import { lookupResource, resourceKey, type ResourceInfo } from "../engine/api/resources.js";
import { badRequest, methodNotAllowed, notServed } from "../engine/api/status.js";
import { withTypeMeta } from "../engine/apiserver/apiserver.js";
import { withOwnWrites } from "../engine/apiserver/own-writes.js";
import type { KObject } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import type { LiveMessage } from "../runtime/core.js";
import { type KubeRequest, parseTarget } from "./serve.js";
import { type IncludeObject, includeObjectOf, toTable, wantsTable } from "./table.js";

export interface WatchPlan {
  info: ResourceInfo;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this revision; undefined: start with the current state as ADDED events. */
  since?: number;
  table: boolean;
  include: IncludeObject;
  timeoutSeconds?: number;
}

/** A WatchPlan as plain data, to cross an RPC boundary (the kind's info is looked up again). */
export type WireWatchPlan = Omit<WatchPlan, "info"> & { group: string; resource: string };

export function planToWire({ info, ...rest }: WatchPlan): WireWatchPlan {
  return { ...rest, group: info.group, resource: info.resource };
}

export function planFromWire({ group, resource, ...rest }: WireWatchPlan): WatchPlan {
  const info = lookupResource(group, resource);
  if (!info) throw notServed();
  return { ...rest, info };
}

/** Is this request a watch (?watch=true, or the legacy /watch/ path)? Rewrites the legacy path. */
export function asWatch(req: KubeRequest): KubeRequest | undefined {
  if (req.method !== "GET") return undefined;
  const segs = req.path.split("/").filter(Boolean);
  const legacyAt = segs[0] === "api" ? 2 : segs[0] === "apis" ? 3 : -1;
  if (legacyAt > 0 && segs[legacyAt] === "watch") {
    return { ...req, path: "/" + [...segs.slice(0, legacyAt), ...segs.slice(legacyAt + 1)].join("/"), query: { ...req.query, watch: "true" } };
  }
  const w = req.query.watch;
  return w === "true" || w === "1" ? req : undefined;
}

/** Checks the watch against the cluster (served kind, selectors) and fixes what it selects. */
export function watchPlan(cluster: Cluster, req: KubeRequest): WatchPlan {
  const t = parseTarget(req.path.split("/").filter(Boolean).map(decodeURIComponent), cluster);
  if (!t) throw notServed();
  if (t.sub !== undefined) throw methodNotAllowed("watch is not supported on subresources");
  authorizeResource(cluster, req.impersonate, { verb: "watch", group: t.info.group, resource: t.info.resource, namespace: t.info.namespaced ? t.namespace : undefined, name: t.name });
  if (!t.info.verbs.includes("watch")) throw methodNotAllowed(`GET is not supported on resources of kind "${t.info.resource}"`);
  const q = req.query;
  if (q.labelSelector) parseSelector(q.labelSelector);
  if (q.fieldSelector) parseFieldSelector(t.info.kind, q.fieldSelector);
  const rv = q.resourceVersion;
  let since: number | undefined;
  if (rv !== undefined && rv !== "" && rv !== "0") {
    since = Number(rv);
    if (!Number.isInteger(since) || since < 0) throw badRequest(`invalid resource version: strconv.ParseUint: parsing "${rv}": invalid syntax`);
  }
  let fieldSelector = q.fieldSelector;
  // A watch of one named object (kubectl get NAME -w, rollout status, wait): metadata.name.
  if (t.name !== undefined) fieldSelector = [fieldSelector, `metadata.name=${t.name}`].filter(Boolean).join(",");
  const timeout = q.timeoutSeconds !== undefined ? Number(q.timeoutSeconds) : undefined;
  return {
    info: t.info,
    namespace: t.info.namespaced ? t.namespace : undefined,
    labelSelector: q.labelSelector || undefined,
    fieldSelector: fieldSelector || undefined,
    since,
    table: wantsTable(req.accept),
    include: includeObjectOf(q.includeObject),
    timeoutSeconds: timeout !== undefined && Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
  };
}

/** Turns live-channel messages into watch lines for one plan; `done` once the watch must end. */
export class WatchStream {
  done = false;
  private readonly key: string;
  private readonly filter: WatchFilter;

  constructor(private readonly plan: WatchPlan, private readonly now: () => number) {
    this.key = resourceKey(plan.info.group, plan.info.resource);
    this.filter = new WatchFilter({ kind: plan.info.kind, namespace: plan.namespace, labelSelector: plan.labelSelector, fieldSelector: plan.fieldSelector });
  }

  private line(type: string, o: KObject): string {
    const obj = withTypeMeta(this.plan.info, withOwnWrites(o));
    const object = this.plan.table ? toTable(this.plan.info, [obj], this.now(), { resourceVersion: obj.metadata.resourceVersion }, this.plan.include) : obj;
    return JSON.stringify({ type, object }) + "\n";
  }

  /** The lines for one message of the live channel. */
  onMessage(m: LiveMessage): string[] {
    if (this.done) return [];
    switch (m.type) {
      case "reset": {
        if (this.plan.since !== undefined) {
          this.done = true;
          return [tooOld(this.plan.since, m.rv)];
        }
        return (m.objects[this.key] ?? []).filter((o) => this.filter.know(o)).map((o) => this.line("ADDED", o));
      }
      case "change": {
        if (m.resource !== this.key) return [];
        // Resumed from a resourceVersion, the watcher was never told what it already had: the
        // channel does not carry old objects, so a change of an existing object is MODIFIED.
        // (Only an object whose namespace and name the watch selects can have matched before.)
        const resumed = this.plan.since !== undefined && m.verb !== "ADDED";
        const type = this.filter.event(m.verb, m.object, resumed ? this.filter.mayHaveMatched(m.object) : undefined);
        return type ? [this.line(type, m.object)] : [];
      }
      case "gone":
        this.done = true;
        return [];
      default:
        return [];
    }
  }
}

function tooOld(rv: number, current: number): string {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `too old resource version: ${rv} (${current})`,
    reason: "Expired",
    code: 410,
  };
  return JSON.stringify({ type: "ERROR", object: status }) + "\n";
}
