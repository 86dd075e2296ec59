// klog's header, as kubectl's own warnings print it on stderr:
// "W1202 11:03:06.853677   16332 prune.go:71] message" (severity, month and day, the time, the
// process id right-aligned in 7, the Go file and line that logged).

import type { KubectlContext } from "./context.js";
import { timeNow } from "./waiting.js";

const two = (n: number) => String(n).padStart(2, "0");

/** One klog line at the command's time; `where` is the Go source that logs it ("prune.go:71"). */
export function klogLine(ctx: KubectlContext, severity: "I" | "W" | "E", where: string, message: string): string {
  const t = new Date(timeNow(ctx));
  const micros = String(t.getUTCMilliseconds() * 1000).padStart(6, "0");
  // A process id that stays put for one command: kubectl is a new process each time.
  const pid = 1000 + (Math.floor(t.getTime() / 1000) % 30000);
  const stamp = `${two(t.getUTCMonth() + 1)}${two(t.getUTCDate())} ${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}.${micros}`;
  return `${severity}${stamp} ${String(pid).padStart(7, " ")} ${where}] ${message}\n`;
}
