// Which terminal the host runs. src/shell is being written; until it exports a ShellFactory
// (`(cluster, saved) => ShellRunner`), commands answer 127 (see shell.ts). Wiring it in is this
// function's body. Tests inside workerd swap in their own runner with useShell().
import { missingShell, type ShellFactory } from "./shell.js";

let override: ShellFactory | undefined;

/** Replaces the terminal for this isolate (tests). */
export function useShell(f: ShellFactory | undefined): void {
  override = f;
}

export async function shellFactory(): Promise<ShellFactory> {
  return override ?? missingShell;
}
