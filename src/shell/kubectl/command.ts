// A kubectl command as pkg/cmd/<verb> writes one: its flags, then Complete (the parsed line into
// options, and what kubectl looks up there), Validate (checks on the options alone), Run. Commands
// with subcommands (create, rollout, set, config) are groups that pick one by its word.

import { SUBCOMMAND_ALIASES } from "./commands.js";
import type { KubectlContext } from "./context.js";
import { KubectlError, notInServiceLab } from "./errors.js";
import { type FlagSpec, type Parsed, parseFlags } from "./flags.js";
import type { Out } from "./out.js";

export interface KubectlCommand<O> {
  /** The path after "kubectl": "scale", "create deployment". */
  name: string;
  /** Its own flags (the global ones are added); undefined: it reads no flags (top, cluster-info). */
  flags?: FlagSpec[];
  /** cobra's MarkFlagRequired: checked after parsing, before Complete. */
  required?: string[];
  complete(p: Parsed, ctx: KubectlContext, out: Out): O | Promise<O>;
  validate(o: O): void;
  run(o: O, ctx: KubectlContext, out: Out): void | Promise<void>;
}

/** A command with subcommands: `pick` finds the one the line names, and the words it gets. */
export interface CommandGroup {
  name: string;
  subcommands: Readonly<Record<string, Command>>;
  /** cobra's DefaultSubCommandRun: run alone, the group prints its help here and exits 1 (kubectl.ts). */
  helpAlone?: "stdout" | "stderr";
  pick(args: string[], out: Out): { command: Command; args: string[] };
}

/** What the verb table holds (method parameters are bivariant, so any command's options fit). */
export type Command = KubectlCommand<unknown> | CommandGroup;

export function isGroup(c: Command): c is CommandGroup {
  return "subcommands" in c;
}

/** Runs a command line's words through the command: parse, required flags, Complete, Validate, Run. */
export async function execute(command: Command, args: string[], ctx: KubectlContext, out: Out): Promise<void> {
  if (isGroup(command)) {
    const next = command.pick(args, out);
    return execute(next.command, next.args, ctx, out);
  }
  const p: Parsed = command.flags ? parseFlags(args, command.flags, `kubectl ${command.name}`) : { flags: new Map(), args };
  const missing = (command.required ?? []).filter((name) => !p.flags.has(name));
  if (missing.length) throw new KubectlError(`required flag(s) ${missing.map((n) => JSON.stringify(n)).join(", ")} not set`);
  const o = await command.complete(p, ctx, out);
  command.validate(o);
  await command.run(o, ctx, out);
}

/** No checks beyond Complete's (kubectl's Validate is empty or absent). */
export function noValidation(): void {}

/** A table's own entry (a word such as "constructor" names nothing, not Object's). */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * rollout, set, config and auth: the first word names the subcommand (kubectl.ts already refused a
 * missing or unknown one, as cobra does); one of kubectl's that ServiceLab does not run is said so.
 */
export function subcommandGroup(name: string, subcommands: Readonly<Record<string, Command>>, helpAlone: "stdout" | "stderr" = "stderr"): CommandGroup {
  return {
    name,
    subcommands,
    helpAlone,
    pick(args) {
      const sub = own(SUBCOMMAND_ALIASES[name] ?? {}, args[0]) ?? args[0];
      const command = own(subcommands, sub);
      if (!command) throw notInServiceLab(`kubectl ${name} ${sub}`);
      return { command, args: args.slice(1) };
    },
  };
}
