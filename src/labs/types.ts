// The lab format (docs/labs.md): a lab is data. Its cluster starts from `objects`; its steps are
// Markdown in English and Chinese; each step's checks read the student's cluster, what their
// commands printed, or the traffic their commands sent, and never change anything.
import { z } from "zod";

/** Text in both languages the UI offers. */
export const Text = z.object({ en: z.string().min(1), zh: z.string().min(1) }).strict();
export type Text = z.infer<typeof Text>;

/**
 * One condition on an object, read at a dotted path ("spec.replicas", "status.readyReplicas",
 * "metadata.labels.app", "spec.ports.0.nodePort"). Exactly one of the comparisons is given.
 */
export const Condition = z
  .object({
    path: z.string().min(1),
    equals: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
    matches: z.string().optional(),
    atLeast: z.number().optional(),
    exists: z.boolean().optional(),
  })
  .strict()
  .refine((c) => [c.equals, c.matches, c.atLeast, c.exists].filter((v) => v !== undefined).length === 1, {
    message: "a condition has exactly one of equals, matches, atLeast, exists",
  });
export type Condition = z.infer<typeof Condition>;

const checkBase = {
  id: z.string().regex(/^[a-z0-9-]+$/),
  /** What the check wants, as the student reads it in the step ("The Service web exists"). */
  title: Text,
  /** Shown when the check fails and the student asks: what to do next. */
  hint: Text.optional(),
};
/** "default", a namespace name, or "*" for any namespace. */
const namespace = z.string().min(1).optional();

export const Check = z.discriminatedUnion("kind", [
  /** An object exists (and meets every condition). */
  z.object({ ...checkBase, kind: z.literal("object"), resource: z.string().min(1), namespace, name: z.string().min(1), where: z.array(Condition).optional() }).strict(),
  /** How many objects match a label selector and every condition. */
  z
    .object({
      ...checkBase,
      kind: z.literal("count"),
      resource: z.string().min(1),
      namespace,
      selector: z.string().optional(),
      where: z.array(Condition).optional(),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().nonnegative().optional(),
    })
    .strict(),
  /** A Service has ready endpoints in its EndpointSlices (a failure explains the selector). */
  z.object({ ...checkBase, kind: z.literal("endpoints"), namespace, service: z.string().min(1), min: z.number().int().positive().default(1) }).strict(),
  /** The student ran a command line matching `command` (a regular expression), whose output matched `output`. */
  z.object({ ...checkBase, kind: z.literal("command"), command: z.string().min(1), output: z.string().optional(), exitCode: z.number().int().optional() }).strict(),
  /**
   * A command sent at least `min` connections that pods answered, reaching at least `pods`
   * distinct pods; with `share`, the pods whose name matches `share.pod` got between `low` and
   * `high` of them (fractions).
   */
  z
    .object({
      ...checkBase,
      kind: z.literal("traffic"),
      command: z.string().optional(),
      min: z.number().int().positive(),
      pods: z.number().int().positive().optional(),
      share: z.object({ pod: z.string().min(1), low: z.number().min(0).max(1), high: z.number().min(0).max(1) }).strict().optional(),
    })
    .strict(),
]);
export type Check = z.infer<typeof Check>;

const Step = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    title: Text,
    /** Markdown. Fenced ```bash blocks get a copy and a run button; one command line per line. */
    body: Text,
    checks: z.array(Check).min(1),
  })
  .strict();
type Step = z.infer<typeof Step>;

export const LabDefinition = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    title: Text,
    /** What the lab teaches, in a sentence or two (the catalog card). */
    summary: Text,
    level: z.enum(["beginner", "intermediate", "advanced"]),
    minutes: z.number().int().positive(),
    /** Where it comes from: the lab guide's section, or the principles document. */
    source: z.string().optional(),
    /** Objects the cluster starts with, as `kubectl apply -f` would send them. */
    objects: z.array(z.record(z.string(), z.unknown())),
    steps: z.array(Step),
  })
  .strict()
  .superRefine((lab, ctx) => {
    const ids = new Set<string>();
    for (const s of lab.steps) {
      if (ids.has(s.id)) ctx.addIssue({ code: "custom", message: `step id "${s.id}" is used twice` });
      ids.add(s.id);
      const checks = new Set<string>();
      for (const c of s.checks) {
        if (checks.has(c.id)) ctx.addIssue({ code: "custom", message: `step "${s.id}": check id "${c.id}" is used twice` });
        checks.add(c.id);
        for (const re of [c.kind === "command" ? c.command : undefined, c.kind === "command" ? c.output : undefined, c.kind === "traffic" ? c.command : undefined, c.kind === "traffic" ? c.share?.pod : undefined]) {
          if (re === undefined) continue;
          try {
            new RegExp(re);
          } catch (e) {
            ctx.addIssue({ code: "custom", message: `step "${s.id}", check "${c.id}": ${(e as Error).message}` });
          }
        }
      }
    }
  });
export type LabDefinition = z.infer<typeof LabDefinition>;

/** A lab as its file writes it (defaults not yet filled in). */
export type LabInput = z.input<typeof LabDefinition>;
