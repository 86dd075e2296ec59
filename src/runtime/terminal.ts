// Which terminal the host runs. src/shell is being written; until it exports a ShellFactory
// (`createShellRunner(cluster, saved)`), commands answer 127 (see shell.ts). Wiring it in is
// this one function.
import { missingShell, type ShellFactory } from "./shell.js";

export async function shellFactory(): Promise<ShellFactory> {
  return missingShell;
}
