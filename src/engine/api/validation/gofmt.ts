// Go's %#v rendering of the values field.Error prints for non-primitive bad values, for the
// internal types the apiserver validates (k8s.io/kubernetes/pkg/apis/core, apps; metav1).

import { GoValue } from "../status";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** %q of a string (JSON quoting coincides with Go's for printable text). */
export const goQ = (s: string): string => JSON.stringify(s);

function goMapText(m: Record<string, string> | null | undefined): string {
  if (m === null || m === undefined) return "map[string]string(nil)";
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQ(k)}:${goQ(m[k])}`).join(", ")}}`;
}

export const goMap = (m: Record<string, string> | null | undefined): GoValue => new GoValue(goMapText(m));

function goStringSliceText(v: readonly string[] | null | undefined): string {
  if (v === null || v === undefined) return "[]string(nil)";
  return `[]string{${v.map(goQ).join(", ")}}`;
}

/** metav1.LabelSelector (a dereferenced *LabelSelector: no Stringer, so %#v). */
export function goLabelSelector(sel: any): GoValue {
  const exprs = sel?.matchExpressions;
  const exprText =
    exprs === null || exprs === undefined
      ? "[]v1.LabelSelectorRequirement(nil)"
      : `[]v1.LabelSelectorRequirement{${(exprs as any[])
          .map((e) => `v1.LabelSelectorRequirement{Key:${goQ(e?.key ?? "")}, Operator:${goQ(e?.operator ?? "")}, Values:${goStringSliceText(e?.values)}}`)
          .join(", ")}}`;
  return new GoValue(`v1.LabelSelector{MatchLabels:${goMapText(sel?.matchLabels)}, MatchExpressions:${exprText}}`);
}

/** intstr.IntOrString as a value (its String() has a pointer receiver, so %#v applies). */
function goIntOrStringText(v: unknown): string {
  if (typeof v === "string") return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQ(v)}}`;
  const n = typeof v === "number" ? v : 0;
  return `intstr.IntOrString{Type:0, IntVal:${n}, StrVal:""}`;
}
export const goIntOrString = (v: unknown): GoValue => new GoValue(goIntOrStringText(v));

/** The core.ServicePort key the duplicate-port check builds: only Protocol and Port are set. */
export function goServicePortKey(protocol: string, port: number): GoValue {
  return new GoValue(
    `core.ServicePort{Name:"", Protocol:${goQ(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:${goIntOrStringText(0)}, NodePort:0}`,
  );
}

/** A pointer-typed struct field in %#v: nil or an address (which a simulation cannot reproduce). */
export const goPtr = (typeName: string, v: unknown): string => (v === null || v === undefined ? `(*${typeName})(nil)` : `(*${typeName})(0xc000010000)`);
