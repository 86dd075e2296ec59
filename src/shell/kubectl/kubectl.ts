// kubectl 1.33 in the terminal: verbs, flags, outputs and error texts as the real client prints
// them, talking to the cluster through the same apiserver the REST API uses. This file runs one
// command line: global flags, help, the verb (from the table in verbs.ts), kubectl's exit codes.

import { isStatusError } from "../../engine/api/status.js";
import { JsonPathError } from "../../kubectl/jsonpath.js";
import { checkClientConfig } from "./client-config.js";
import { subcommandFirst, SUBCOMMANDS, takesValue, wantsHelp } from "./cmdline.js";
import { ROOT_COMMANDS, unknownCommandMessage } from "./commands.js";
import { execute, isGroup, own } from "./command.js";
import type { KubectlContext, Output } from "./context.js";
import { KubectlError, notInServiceLab, serverError } from "./errors.js";
import { HelpRequested, UsageError } from "./flags.js";
import { helpFor, isCommand, ROOT_HELP, UNKNOWN_TOPIC_USAGE } from "./help-texts.js";
import { Out, readCommandFiles } from "./out.js";
import { VERBS } from "./verbs.js";

export async function kubectl(argv: string[], ctx: KubectlContext): Promise<Output> {
  const o = new Out(ctx.tty);
  try {
    await dispatch(argv, ctx, o);
    return { stdout: o.stdout, stderr: o.stderr, exitCode: 0 };
  } catch (e) {
    if (e instanceof HelpRequested) return { stdout: o.stdout + helpFor(e.command.split(" ").slice(1)), stderr: o.stderr, exitCode: 0 };
    if (e instanceof UsageError || e instanceof KubectlError || e instanceof JsonPathError) {
      const raw = e instanceof KubectlError && e.opts.raw;
      const msg = raw || /^(Error from server|The |Warning|error: )/.test(e.message) ? e.message : `error: ${e.message}`;
      return { stdout: o.stdout, stderr: o.stderr + (e.message ? msg + "\n" : ""), exitCode: e instanceof KubectlError ? e.exitCode : 1 };
    }
    if (isStatusError(e)) return { stdout: o.stdout, stderr: o.stderr + serverError(e) + "\n", exitCode: 1 };
    throw e;
  }
}

async function dispatch(argv: string[], ctx: KubectlContext, o: Out): Promise<void> {
  await readCommandFiles(argv, ctx, o);
  // Global flags may come before the verb (kubectl -n kube-system get pods).
  const pre: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i].startsWith("-")) {
    pre.push(argv[i]);
    if (takesValue(argv[i])) pre.push(argv[++i]);
    i++;
  }
  const verb = argv[i];
  if (verb === undefined || (verb === "help" && i === argv.length - 1)) {
    o.out(ROOT_HELP);
    return;
  }
  if (verb === "help") return helpCommand(argv.slice(i + 1), o);
  const command = own(VERBS, verb);
  // Commands that do not parse their flags here (parseFlags answers -h for the others).
  if (!command || NO_FLAGS.has(verb)) {
    if (wantsHelp(argv.slice(i + 1)) && ROOT_COMMANDS.includes(verb)) {
      o.out(helpFor([verb, ...argv.slice(i + 1).filter((a) => !a.startsWith("-"))]));
      return;
    }
  }
  if (!command) {
    if (ROOT_COMMANDS.includes(verb)) throw notInServiceLab(`kubectl ${verb}`);
    // kubectl looks for a plugin first, and takes the first word for its name.
    if (pre.length) throw new KubectlError(`Error: flags cannot be placed before plugin name: ${pre[0]}`, 1, { raw: true });
    throw new KubectlError(unknownCommandMessage(verb));
  }
  let args = [...pre, ...argv.slice(i + 1)];
  if (SUBCOMMANDS.has(verb)) args = subcommandFirst(args);
  if (isGroup(command) && command.helpAlone) checkGroupSubcommand(verb, command.helpAlone, args, o);
  // The client's configuration is loaded before any request (config and options make none).
  if (verb !== "config" && verb !== "options" && !wantsHelp(args)) await checkClientConfig(args, ctx);
  await execute(command, args, ctx, o);
}

/** Verbs run here without parsing flags. */
const NO_FLAGS = new Set(["top", "cluster-info"]);

/** `kubectl help [command...]`: that command's help, or cobra's "Unknown help topic" and the root's usage. */
function helpCommand(args: string[], o: Out): void {
  const words = args.filter((a) => !a.startsWith("-"));
  if (words.length && !ROOT_COMMANDS.includes(words[0])) {
    o.err(`Unknown help topic [\`${words.join(" ")}\`]\n${UNKNOWN_TOPIC_USAGE}`);
    return;
  }
  o.out(helpFor(words));
}

/**
 * A group (rollout, set, config, auth), whose own run (cmdutil.DefaultSubCommandRun) prints the
 * command's help when no subcommand is given (rollout on stdout, the others on stderr) and
 * fails on words that are not one of its subcommands; both exit 1.
 */
function checkGroupSubcommand(verb: string, helpOn: "stdout" | "stderr", args: string[], o: Out): void {
  const sub = args[0];
  const known = sub !== undefined && isCommand([verb, sub]);
  // -h without one of its subcommands: the command's own help, on stdout, exit 0.
  if (!known && wantsHelp(args)) throw new HelpRequested(`kubectl ${verb}`);
  if (sub === undefined || sub.startsWith("-")) {
    if (helpOn === "stdout") o.out(helpFor([verb]));
    else o.err(helpFor([verb]));
    throw new KubectlError("", 1);
  }
  if (known) return;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (takesValue(args[i])) i++;
    else if (!args[i].startsWith("-")) words.push(args[i]);
  }
  throw new KubectlError(`unknown command ${JSON.stringify(words.join(" "))}\nSee 'kubectl ${verb} -h' for help and examples`);
}
