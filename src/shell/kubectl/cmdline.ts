// The command line before a verb parses it: where its subcommand is, whether it asks for help.

import { GLOBAL_FLAGS } from "./flags.js";

/** Verbs whose first word is a subcommand (kubectl rollout restart, kubectl create configmap...). */
export const SUBCOMMANDS = new Set(["rollout", "set", "config", "create", "auth"]);

/**
 * Flags written "-x value": their value is neither the verb nor a subcommand. Every global flag
 * that takes a value, and the verbs' own that commonly come before a subcommand.
 */
const VALUE_FLAGS = new Set([
  ...GLOBAL_FLAGS.filter((s) => s.type !== "bool").flatMap((s) => [`--${s.name}`, ...(s.short ? [`-${s.short}`] : [])]),
  ...["-f", "--filename", "-o", "--output", "-l", "--selector", "--field-manager"],
]);

/** `a` is a flag whose value is the next word. */
export function takesValue(a: string): boolean {
  return VALUE_FLAGS.has(a);
}

/**
 * `args` with the subcommand (the first word that is neither a flag nor a flag's value) first,
 * as cobra finds it wherever the flags are: `kubectl -n kube-system rollout restart ds x` and
 * `kubectl create -n ns configmap x` run `restart` and `configmap`. Unchanged without one.
 */
export function subcommandFirst(args: string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return args;
    if (a.startsWith("-")) {
      if (takesValue(a)) i++;
      continue;
    }
    return i === 0 ? args : [a, ...args.slice(0, i), ...args.slice(i + 1)];
  }
  return args;
}

/** -h / --help among the flags (before "--"). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") return false;
    if (/^(-h|--help)(=(true|1|t|TRUE|True))?$/.test(a)) return true;
  }
  return false;
}
