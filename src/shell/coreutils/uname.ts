// GNU uname on the node and in a GNU userland's container (a container shares the node's
// kernel): Rocky Linux 9.4's kernel, and RHEL's patched coreutils, whose -p and -i say x86_64
// where upstream's (Debian's) say unknown and -a leaves them out.
import { KERNEL_RELEASE } from "../../engine/bootstrap.js";
import { getoptLong } from "./getopt.js";
import { helpText, UNAME_8_32_HELP, UNAME_9_1_HELP } from "./help.js";
import { quote, utf8Locale } from "./quote.js";

/** The kernel's build (`uname -v`) for Rocky Linux 9.4's 5.14.0-427.13.1.el9_4. */
const KERNEL_VERSION = "#1 SMP PREEMPT_DYNAMIC Wed May 1 19:11:28 UTC 2024";

const LONG = [
  ["all", "a"], ["kernel-name", "s"], ["sysname", "s"], ["nodename", "n"], ["kernel-release", "r"], ["release", "r"],
  ["kernel-version", "v"], ["machine", "m"], ["processor", "p"], ["hardware-platform", "i"], ["operating-system", "o"], ["help", "help"], ["version", "version"],
].map(([name, key]) => ({ name, arg: "none" as const, key }));

export function uname(args: string[], env: (name: string) => string | undefined, hostname: string, coreutils: "8.32" | "9.1"): { stdout: string; stderr: string; exitCode: number } {
  const parsed = getoptLong("uname", args, "asnrvmpio", LONG);
  const tryHelp = "Try 'uname --help' for more information.\n";
  if ("error" in parsed) return { stdout: "", stderr: parsed.error + tryHelp, exitCode: 1 };
  if (parsed.options.some((o) => o.key === "help")) return { stdout: helpText(coreutils === "8.32" ? UNAME_8_32_HELP : UNAME_9_1_HELP, env), stderr: "", exitCode: 0 };
  if (parsed.options.some((o) => o.key === "version")) {
    const year = coreutils === "8.32" ? 2020 : 2022;
    return { stdout: `uname (GNU coreutils) ${coreutils}\nCopyright (C) ${year} Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n\nWritten by David MacKenzie.\n`, stderr: "", exitCode: 0 };
  }
  if (parsed.operands.length) return { stdout: "", stderr: `uname: extra operand ${quote(parsed.operands[0], utf8Locale(env))}\n${tryHelp}`, exitCode: 1 };
  const asked = new Set(parsed.options.map((o) => o.key));
  const all = asked.has("a");
  if (!asked.size) asked.add("s");
  // RHEL's coreutils know the processor and platform; upstream's say "unknown", which -a leaves out.
  const known = coreutils === "8.32" ? "x86_64" : undefined;
  const fields: [string, string | undefined][] = [
    ["s", "Linux"], ["n", hostname], ["r", KERNEL_RELEASE], ["v", KERNEL_VERSION], ["m", "x86_64"], ["p", known], ["i", known], ["o", "GNU/Linux"],
  ];
  const out = fields.filter(([k, v]) => (all && v !== undefined) || asked.has(k)).map(([, v]) => v ?? "unknown");
  return { stdout: `${out.join(" ")}\n`, stderr: "", exitCode: 0 };
}
