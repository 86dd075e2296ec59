// What kubectl 1.33 prints for `--help` (and `-h`, `kubectl help <command>`): help-texts.json,
// taken from kubectl v1.33.1 itself by help-texts.gen.ts, one text per command path ("" is the
// root). A command that only groups others prints its help when run alone as well: the root on
// stdout with exit 0 (`kubectl`, `kubectl help`), rollout on stdout and set and config on stderr,
// each with exit 1 (cmdutil.DefaultSubCommandRun). test/kubeapi/kubectl.e2e.test.ts compares
// them with the real kubectl when it is there.
import { commandPath } from "./commands.js";
import texts from "./help-texts.json";

const HELP: Readonly<Record<string, string>> = texts;

/** The help text of a command path ("get", "create deployment", "" for the root), if kubectl has it. */
export function helpText(path: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(HELP, path) ? HELP[path] : undefined;
}

/**
 * The help of the command `words` name (["create", "deploy", "web"]: create deployment's), or
 * of the nearest command above it that kubectl has; the root's at the least.
 */
export function helpFor(words: readonly string[]): string {
  return HELP[commandPath(words, known)] ?? HELP[""];
}

/** Does kubectl have the command `words` name, aliases included (["set", "sa"])? */
export function isCommand(words: readonly string[]): boolean {
  return words.length > 0 && commandPath(words, known).split(" ").length === words.length;
}

const known = (path: string) => helpText(path) !== undefined;

export const ROOT_HELP = HELP[""];
/** `kubectl options`. */
export const OPTIONS_TEXT = HELP.options;
/** What `kubectl help <unknown>` prints after "Unknown help topic [`<unknown>`]". */
export const UNKNOWN_TOPIC_USAGE = HELP["help: unknown topic usage"];
