// A real headless Chromium (Debian's chromium package) driven by playwright-core, against a Node
// server started in process with the real terminal. No browser is downloaded: without
// /usr/bin/chromium the tests are skipped, and with CI=true that is a failure.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { startNodeServer, type NodeServer } from "../../src/runtime/node-server.js";
import { sessionShell } from "../../src/runtime/terminal.js";
import { FastForwardTime, type TimeSource } from "../../src/shell/time.js";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: the browser tests cannot run (CI=true makes this a failure); .ci/run installs Debian's chromium`);
export const skipReason = haveChromium ? "" : `${CHROMIUM} not found: browser tests skipped (apt-get install chromium)`;

/** Screenshots kept for people to look at (test/ui/artifacts, not committed). */
export const ARTIFACTS = join(import.meta.dirname, "artifacts");

export const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"];

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** Builds web/ into web/dist as npm start does, so the tests never run a stale UI (about 1 s). */
async function buildWeb(): Promise<void> {
  const { build } = await import("vite");
  await build({ configFile: join(import.meta.dirname, "../../web/vite.config.ts"), logLevel: "warn" });
}

/**
 * A server with the real terminal. Its commands' waits are skipped (the Run buttons' `sleep 20`
 * take no time; the clock moves on by them) unless `time` says otherwise (realTime: Ctrl-C tests).
 */
export async function server(time: TimeSource = new FastForwardTime()): Promise<{ s: NodeServer; url: string }> {
  await buildWeb();
  const dataDir = mkdtempSync(join(tmpdir(), "servicelab-ui-"));
  const s = await startNodeServer({ port: 0, dataDir, allowAnonymous: true, idleMs: 3_600_000, shell: sessionShell, historyDelayMs: 20, time });
  return { s, url: `http://127.0.0.1:${s.port}` };
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** The terminal's text, as xterm's buffer holds it (lines joined, trailing blanks trimmed). */
export async function terminalText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const term = (globalThis as unknown as { servicelab: { term: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } } }).servicelab.term;
    const b = term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < b.length; i++) out.push(b.getLine(i)?.translateToString(true) ?? "");
    return out.join("\n").trimEnd();
  });
}

/** Waits until the terminal shows a prompt at its end (a command finished). */
export async function waitPrompt(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const t = (globalThis as unknown as { servicelab?: { term: { buffer: { active: { cursorY: number; baseY: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } } }).servicelab?.term;
      if (!t || (globalThis as any).document.querySelector(".spinner")) return false;
      const b = t.buffer.active;
      const line = b.getLine(b.baseY + b.cursorY)?.translateToString(true) ?? "";
      return /[#$] ?$/.test(line);
    },
    null,
    { timeout },
  );
}

/** Types a command line into the terminal as a student does, and waits for its prompt. */
export async function type(page: Page, line: string): Promise<void> {
  await page.locator(".xterm-helper-textarea").pressSequentially(line, { delay: 0 });
  await page.keyboard.press("Enter");
  await page.waitForTimeout(50);
  await waitPrompt(page);
}

/**
 * Waits until the terminal is quiet: it ends at a prompt and has not changed for `ms` (a Run
 * button's block runs line by line, and between two lines the terminal shows a prompt too).
 */
export async function waitIdle(page: Page, ms = 800, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let last = "";
  let since = Date.now();
  while (Date.now() < deadline) {
    await page.waitForTimeout(100);
    const now = await terminalText(page);
    const busy = await page.evaluate(() => !!(globalThis as any).document.querySelector(".spinner"));
    if (now !== last || busy || !/[#$]$/.test(now)) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= ms) return;
  }
  throw new Error("the terminal did not come to rest");
}

/**
 * Waits for a lab step to pass. When it does not, the error carries what a person would look at:
 * the terminal's last lines, each step's state and a screenshot (artifacts/stuck-STEP.png).
 */
export async function waitStepPassed(page: Page, step: string, timeout = 30_000): Promise<void> {
  try {
    await page.waitForSelector(`[data-step="${step}"].passed`, { timeout });
  } catch (e) {
    await shot(page, `stuck-${step}`).catch(() => undefined);
    const tail = (await terminalText(page).catch(() => "")).split("\n").slice(-25).join("\n");
    const steps = await page.locator("[data-step]").evaluateAll((els) => els.map((el) => `${el.getAttribute("data-step")}:${el.className}`)).catch(() => []);
    throw new Error(`step ${step} did not pass: ${(e as Error).message.split("\n")[0]}\nsteps: ${steps.join(" ")}\nterminal:\n${tail}`);
  }
}
