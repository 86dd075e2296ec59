// kubectl get --sort-by (pkg/cmd/get/sorter.go).

import { cmp, parseQuantity } from "../../../engine/api/quantity.js";
import type { KObject } from "../../../engine/api/types.js";
import { goSortArray } from "../../../kubectl/gosort.js";
import { byteOrder, goTypeName } from "../../../kubectl/gotemplate.js";
import { selectValues } from "../../../kubectl/jsonpath.js";
import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";

/**
 * `get --sort-by`: kubectl's RuntimeSort or TableSorter (a table for the default and wide
 * output) under Go's sort.Sort, which is not stable: objects with equal keys (events of the same
 * second) come out in the order that algorithm leaves them. Less takes each object's first
 * JSONPath value: one without the field sorts first, numbers by value, strings as quantities when
 * both parse as one. False when no object has the field and the output is a table (kubectl then
 * prints an empty table); other outputs fail as kubectl does.
 */
export function sortObjects(found: { obj: KObject }[], sortBy: string, table: boolean, ctx: KubectlContext): boolean {
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
