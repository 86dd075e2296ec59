// Commands that wait, in a real browser against a server on the real clock: `sleep 100` waits
// until Ctrl-C, which prints ^C and gives the prompt back at once; `kubectl get pods -w` shows
// its rows as they come (a scale from outside the terminal adds them) before Ctrl-C ends it.
// Screenshots at 1280x720 and 390x844 go to test/ui/artifacts (watch-streaming-*, watch-stopped-*).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { NodeServer } from "../../src/runtime/node-server.js";
import { realTime } from "../../src/shell/time.js";
import { haveChromium, launch, server, shot, skipReason, waitPrompt } from "./browser.js";

if (skipReason) console.warn(skipReason);

/** The terminal's lines as written (a line the narrow screen wrapped is joined again). */
function logical(page: Page): Promise<string> {
  return page.evaluate(() => {
    const b = (globalThis as any).servicelab.term.buffer.active;
    let out = "";
    for (let i = 0; i < b.length; i++) {
      const l = b.getLine(i);
      out += (i && !l.isWrapped ? "\n" : "") + l.translateToString(true);
    }
    return out.replace(/\s+$/, "");
  });
}

/** The terminal's text after the last `$ line` typed. */
async function after(page: Page, line: string): Promise<string> {
  const t = await logical(page);
  return t.slice(t.lastIndexOf(line) + line.length);
}

async function running(page: Page, line: string): Promise<void> {
  await page.locator(".xterm-helper-textarea").pressSequentially(line, { delay: 0 });
  await page.keyboard.press("Enter");
}

describe.skipIf(!haveChromium)("Ctrl-C stops a command that waits (real clock)", () => {
  let s: NodeServer;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ s, url } = await server(realTime));
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  for (const [width, height] of [
    [1280, 720],
    [390, 844],
  ]) {
    it(`sleep 100 and kubectl get pods -w at ${width}x${height}`, async () => {
      const ctx = await browser.newContext({ viewport: { width, height } });
      const page = await ctx.newPage();
      page.on("pageerror", (e) => console.error("page error:", e.message));
      await page.goto(`${url}/labs/clusterip-web?lang=en`);
      await page.waitForURL(/\/c\/c[a-z0-9]+$/);
      const id = /\/c\/(c[a-z0-9]+)$/.exec(page.url())![1];
      await waitPrompt(page);
      await page.locator(".xterm-helper-textarea").focus();

      await running(page, "sleep 100");
      await page.waitForTimeout(1500);
      // Still sleeping: no prompt after the line.
      expect(await after(page, "sleep 100")).toBe("");
      const t0 = Date.now();
      await page.keyboard.press("Control+c");
      await waitPrompt(page, 5_000);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(await after(page, "sleep 100")).toMatch(/^\n\^C\n\[root@master ~\]#$/);

      await running(page, "kubectl get pods -w");
      const until = async (re: RegExp, timeout: number) => {
        for (const end = Date.now() + timeout; Date.now() < end; await page.waitForTimeout(200)) if (re.test(await after(page, "kubectl get pods -w"))) return;
        throw new Error(`the terminal never showed ${re}`);
      };
      await until(/READY\s+STATUS[\s\S]*web-/, 10_000);
      // A change from outside the terminal (a real kubectl's scale) comes in as rows while it watches.
      const scale = await fetch(`${url}/k8s/${id}/apis/apps/v1/namespaces/default/deployments/web/scale`, {
        method: "PATCH",
        headers: { "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ spec: { replicas: 4 } }),
      });
      expect(scale.status).toBe(200);
      await until(/ContainerCreating/, 10_000);
      await until(/ContainerCreating[^\n]*\n[^\n]*Running\s+0\s+\d+s$/, 15_000);
      const streamed = await after(page, "kubectl get pods -w");
      expect(streamed).toMatch(/^\nNAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n(web-\S+\s+1\/1\s+Running\s+0\s+\S+\n){3}web-\S+\s+0\/1\s+(Pending|ContainerCreating)/);
      expect(streamed).not.toMatch(/#$/);
      await shot(page, `watch-streaming-${width}`);
      await page.keyboard.press("Control+c");
      await waitPrompt(page, 5_000);
      const done = await after(page, "kubectl get pods -w");
      expect(done.startsWith(streamed)).toBe(true);
      expect(done.slice(streamed.length)).toMatch(/^\n?\^C\n\[root@master ~\]#$/);
      await shot(page, `watch-stopped-${width}`);
      // The journal kept the streamed rows and the ^C: a reload shows the same lines.
      await page.reload();
      await waitPrompt(page);
      const reloaded = await logical(page);
      expect(reloaded).toContain("sleep 100\n^C\n");
      expect(reloaded).toContain("Running");
      await ctx.close();
    }, 90_000);
  }
});
