// What several commands share (kubectl's cmdutil): flag declarations, the namespace, --dry-run,
// label lists, the Endpoints deprecation warning.

import type { KubectlContext } from "./context.js";
import { KubectlError } from "./errors.js";
import { arr, type FlagSpec, type Parsed, str } from "./flags.js";


export const f = (name: string, type: FlagSpec["type"], short?: string): FlagSpec => ({ name, type, short });

export const OUTPUT_FLAGS = [f("output", "string", "o"), f("dry-run", "string"), f("show-managed-fields", "bool"), f("template", "string"), f("allow-missing-template-keys", "bool")];

export const ENDPOINTS_WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n";

export function nsOf(p: Parsed, ctx: KubectlContext): string {
  return str(p, "namespace") ?? ctx.namespace;
}

/** --dry-run's strategy (kubectl's DryRunStrategy). */
export type DryRunStrategy = "none" | "client" | "server";

/** GetDryRunStrategy: read in Complete, before the command looks at anything else. */
export function dryRun(p: Parsed): DryRunStrategy {
  const d = p.flags.get("dry-run");
  if (d === undefined || d === "none" || d === false) return "none";
  if (d === "client" || d === true || d === "") return "client";
  if (d === "server") return "server";
  throw new KubectlError(`Invalid dry-run value (${String(d)}). Must be "none", "server", or "client".`);
}

/** -L/--label-columns: a string slice (repeated flags, commas between keys). */
export function labelColumns(p: Parsed): string[] {
  return arr(p, "label-columns").flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
}

export function labelsFromString(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of s.split(",")) {
    const i = kv.indexOf("=");
    if (i < 0) throw new KubectlError(`invalid label spec: ${kv}`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}
