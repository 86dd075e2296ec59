// meta.k8s.io/v1 Table responses (kubectl get sends Accept: application/json;as=Table;v=v1;
// g=meta.k8s.io). Columns and cells come from src/kubectl/table.ts, the one printer layer the
// terminal uses too. As kube-apiserver's TableConvertor, the server prints with Wide: true (all
// columns, priority 1 marking the -o wide ones); kubectl adds NAMESPACE, LABELS and the kind
// prefix itself from each row's object.

import type { ResourceInfo } from "../engine/api/resources.js";
import type { KObject } from "../engine/api/types.js";
import { tableCells, tableFor } from "../kubectl/table.js";
import { mediaTypes } from "./discovery.js";

export const TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** Does the Accept header ask for a Table (v1 or v1beta1) in JSON? */
export function wantsTable(accept: string | undefined): boolean {
  return mediaTypes(accept).some((m) => m.type === "application/json" && m.params.as === "Table" && m.params.g === "meta.k8s.io");
}

export type IncludeObject = "None" | "Metadata" | "Object";

export function includeObjectOf(q: string | undefined): IncludeObject {
  return q === "None" || q === "Object" ? q : "Metadata";
}

export function toTable(
  info: ResourceInfo,
  objs: readonly KObject[],
  now: number,
  meta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  include: IncludeObject,
  noHeaders = false,
): Record<string, unknown> {
  const def = tableFor(info);
  const { rows } = tableCells(info, objs, now, { wide: true });
  const columnDefinitions = noHeaders
    ? []
    : def.columns.map((c, i) => ({
        name: c.name,
        type: "string",
        format: i === 0 && c.name === "NAME" ? "name" : "",
        description: "",
        priority: c.priority,
      }));
  const metadata: Record<string, unknown> = {};
  if (meta.resourceVersion !== undefined) metadata.resourceVersion = meta.resourceVersion;
  if (meta.continue) metadata.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata.remainingItemCount = meta.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions,
    rows: rows.map((cells, i) => {
      const o = objs[i];
      const row: Record<string, unknown> = { cells };
      if (include === "Metadata") row.object = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata };
      else if (include === "Object") row.object = o;
      return row;
    }),
  };
}
