// kubectl 1.33's command tree, as far as a mistyped or missing command needs it: the root's
// commands in the order cmd.go adds them (cobra suggests in that order), the explicit
// suggestions some carry (SuggestFor), and subcommand aliases. The names are kubectl's, whether
// or not ServiceLab runs the command; the subcommands themselves are the help texts' paths.

/**
 * The root's available commands (cobra's IsAvailableCommand: not hidden, not the help command,
 * runnable or with subcommands; "alpha" has none in 1.33), in the order cmd.go adds them.
 */
export const ROOT_COMMANDS: readonly string[] = [
  "create", "expose", "run", "set",
  "explain", "get", "edit", "delete",
  "rollout", "scale", "autoscale",
  "certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint",
  "describe", "logs", "attach", "exec", "port-forward", "proxy", "cp", "auth", "debug", "events",
  "diff", "apply", "patch", "replace", "wait", "kustomize",
  "label", "annotate", "completion",
  "config", "plugin", "version", "api-versions", "api-resources", "options",
];

/** Commands' SuggestFor: names that suggest them whatever the distance. */
const SUGGEST_FOR: Readonly<Record<string, readonly string[]>> = { get: ["list", "ps"], delete: ["rm"], wait: ["list", "ps"] };

/**
 * cobra's SuggestionsFor on the root: each command within Levenshtein distance 2 of the typed
 * name (case ignored) or starting with it, and each whose SuggestFor holds it, in command order.
 */
export function suggestionsFor(typed: string): string[] {
  const t = typed.toLowerCase();
  const out: string[] = [];
  for (const name of ROOT_COMMANDS) {
    if (levenshtein(t, name) <= 2 || name.startsWith(t)) out.push(name);
    for (const s of SUGGEST_FOR[name] ?? []) if (s === t) out.push(name);
  }
  return out;
}

/** The root's error for a command it does not have, as cobra words it, with its suggestions. */
export function unknownCommandMessage(typed: string): string {
  const s = suggestionsFor(typed);
  const head = `unknown command "${typed}" for "kubectl"`;
  return s.length === 0 ? head : `${head}\n\nDid you mean this?\n${s.map((n) => `\t${n}`).join("\n")}`;
}

/** Edit distance (insertions, deletions, substitutions), as cobra's ld. */
function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** Subcommand aliases (cobra's Aliases), by parent command path. */
export const SUBCOMMAND_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  create: { cm: "configmap", cj: "cronjob", deploy: "deployment", ing: "ingress", ns: "namespace", pdb: "poddisruptionbudget", pc: "priorityclass", resourcequota: "quota", svc: "service", sa: "serviceaccount" },
  config: { use: "use-context" },
  set: { sa: "serviceaccount" },
  top: { nodes: "node", no: "node", pods: "pod", po: "pod" },
};

/**
 * The path of the command `words` name (subcommands followed while `known` has them, aliases
 * resolved), as help texts are keyed: ["create", "deploy", "web"] -> "create deployment".
 */
export function commandPath(words: readonly string[], known: (path: string) => boolean): string {
  let path = "";
  for (const w of words) {
    const name = SUBCOMMAND_ALIASES[path]?.[w] ?? w;
    const next = path === "" ? name : `${path} ${name}`;
    if (!known(next)) break;
    path = next;
  }
  return path;
}

