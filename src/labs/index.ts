// The lab catalog: one file per lab in catalog/, each a LabDefinition (see types.ts and
// docs/labs.md). A lab's cluster starts from its objects, written through the apiserver like
// any client write (so they are validated and defaulted); its steps and checks are data.
import { LabDefinition } from "./types.js";
import { CATALOG } from "./catalog/index.js";

export type { LabDefinition } from "./types.js";

/** Parses a lab as the format defines it: a malformed lab throws, naming the lab and the field. */
export function defineLab(input: unknown): LabDefinition {
  const r = LabDefinition.safeParse(input);
  if (!r.success) {
    const id = (input as { id?: unknown } | null)?.id;
    throw new Error(`lab ${JSON.stringify(id)}: ${r.error.issues.map((i) => `${i.path.join(".") || "(lab)"}: ${i.message}`).join("; ")}`);
  }
  return r.data;
}

export const LABS: Record<string, LabDefinition> = Object.fromEntries(CATALOG.map((l) => [l.id, defineLab(l)]));

export function lab(id: string): LabDefinition | undefined {
  return Object.hasOwn(LABS, id) ? LABS[id] : undefined;
}

/** What the catalog page shows of a lab. */
export function labSummary(l: LabDefinition) {
  return { id: l.id, title: l.title, summary: l.summary, level: l.level, minutes: l.minutes, source: l.source, steps: l.steps.length };
}
