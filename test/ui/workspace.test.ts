// The lab workspace in a real browser: the catalog, the canary lab typed in the terminal with its
// checks turning green, the traffic bars near 80/20 and the rules view highlighting a request's
// path; a reload that keeps the scrollback; a share link that opens read-only and forks; a lost
// connection that shows "reconnecting" and resumes. Screenshots go to test/ui/artifacts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { NodeServer } from "../../src/runtime/node-server.js";
import { haveChromium, launch, server, shot, skipReason, terminalText, type, waitIdle, waitPrompt, waitStepPassed } from "./browser.js";

if (skipReason) console.warn(skipReason);

describe.skipIf(!haveChromium)("lab workspace in Chromium", () => {
  let s: NodeServer;
  let url: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ s, url } = await server());
    browser = await launch();
    ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    page = await ctx.newPage();
    page.on("pageerror", (e) => console.error("page error:", e.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("lists every lab in the catalog, in English and in Chinese", async () => {
    await page.goto(`${url}/?lang=en`);
    await page.waitForSelector(".card");
    const labs = await page.locator(".card").count();
    const api = (await (await fetch(`${url}/v1/labs`)).json()) as { items: unknown[] };
    expect(labs).toBe(api.items.length);
    await expect(page.locator('[data-lab="canary"] h2').textContent()).resolves.toContain("Canary");
    await shot(page, "catalog-1280");
    await page.getByRole("button", { name: "中文" }).click();
    await expect(page.locator('[data-lab="canary"] h2').textContent()).resolves.toContain("金丝雀");
    // Remembered: the next visit, without ?lang, is in Chinese too.
    await page.goto(`${url}/`);
    await page.waitForSelector(".card");
    await expect(page.locator('[data-lab="canary"] h2').textContent()).resolves.toContain("金丝雀");
    await shot(page, "catalog-zh-1280");
    await page.getByRole("button", { name: "EN" }).click();
  });

  it("runs the canary lab: typed commands, checks turn green, 80/20 bars, a highlighted path", async () => {
    const t0 = Date.now();
    await page.goto(`${url}/labs/canary`);
    await page.waitForURL(/\/c\/c[a-z0-9]+$/);
    await waitPrompt(page);
    const openMs = Date.now() - t0;
    expect(openMs).toBeLessThan(5000);
    await page.locator(".xterm-helper-textarea").focus();

    // Step 1 typed as a student types it.
    await type(page, "kubectl create namespace services");
    await type(page, "kubectl config set-context --current --namespace services");
    await waitStepPassed(page, "namespace");
    expect(await terminalText(page)).toContain("namespace/services created");

    // Step 2 typed; a step's checks turn green on their own.
    await type(page, "mkdir web");
    await type(page, "echo hello nginx 1.28 > web/index28.html");
    await type(page, "echo hello nginx 1.29 > web/index29.html");
    await type(page, "kubectl create configmap web --from-file=./web");
    await waitStepPassed(page, "pages");

    // Steps 3-4 hold long here-documents: their Run buttons type them.
    for (const step of ["stable", "canary"]) {
      const li = page.locator(`[data-step="${step}"]`);
      if (!(await li.locator(".step-body").count())) await li.locator(".step-title").click();
      await li.locator(".step-body button.run").first().waitFor();
      const runs = li.locator("button.run");
      for (let i = 0; i < (await runs.count()); i++) {
        await runs.nth(i).click();
        await waitIdle(page);
      }
      await waitStepPassed(page, step);
    }
    await shot(page, "workspace-steps-1280");

    // Step 5 typed: 8:2, then 50 requests.
    await type(page, "kubectl scale deployment web-28 --replicas 8");
    await type(page, "kubectl scale deployment web-29 --replicas 2");
    await type(page, "sleep 30");
    await type(page, "IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')");
    await type(page, "for i in {1..100}; do curl -s $IP; done | sort -n | uniq -c");
    await waitStepPassed(page, "eight-two");
    expect(await terminalText(page)).toMatch(/\d+ hello nginx 1\.28\n\s+\d+ hello nginx 1\.29/);

    // The traffic view opened by itself: per Deployment, near 80/20 next to the rules' 80/20.
    await page.waitForSelector('[data-owner="services/web-29"]');
    const canary = await page.locator('[data-owner="services/web-29"] .bar-num').textContent();
    const [observed, predicted] = canary!.split("/").map((x) => Number(x.replace(/[^0-9]/g, "")));
    expect(predicted).toBe(20);
    expect(observed).toBeGreaterThan(5);
    expect(observed).toBeLessThan(40);
    await shot(page, "traffic-1280");

    // A bar opens one of its requests' path, highlighted in the rules the terminal prints.
    await page.locator(".bar-row:not([disabled])").first().click();
    await page.waitForSelector(".ruleset .hit");
    const hits = await page.locator(".ruleset .hit").allTextContents();
    expect(hits.some((h) => h.includes("KUBE-SERVICES"))).toBe(true);
    expect(hits.some((h) => h.includes("--probability"))).toBe(true);
    expect(await page.locator(".path-head").textContent()).toMatch(/\d+ rules evaluated/);
    await shot(page, "rules-path-1280");

    await page.click('[data-tab="cluster"]');
    await page.waitForSelector('[data-svc="services/web"]');
    expect(await page.locator(".pod").count()).toBeGreaterThanOrEqual(10);
    await shot(page, "cluster-1280");
    await page.click('[data-tab="changes"]');
    await shot(page, "changes-1280");
  }, 180_000);

  it("keeps the scrollback and the cluster across a reload", async () => {
    const before = page.url();
    await page.reload();
    await waitPrompt(page);
    expect(page.url()).toBe(before);
    const text = await terminalText(page);
    expect(text).toContain("kubectl create namespace services");
    expect(text).toContain("hello nginx 1.29");
    // History: the up arrow brings back the last command.
    await page.locator(".xterm-helper-textarea").focus();
    await page.keyboard.press("ArrowUp");
    await page.waitForTimeout(100);
    expect((await terminalText(page)).split("\n").at(-1)).toContain("for i in {1..100}");
    await page.keyboard.press("Control+C");
  });

  it("travels back to any command and forks from there", async () => {
    const here = page.url();
    await page.click('[data-tab="history"]');
    await page.locator(".history .cmd", { hasText: "kubectl apply -f webapp-1.29.yaml" }).click();
    await page.waitForSelector(".past-bar");
    // Right after the canary's first apply: one web-29 pod, and the stable track's ten.
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.past .pod[data-pod^="services/web-29"]').length === 1);
    expect(await page.locator('.past .pod[data-pod^="services/web-28"]').count()).toBe(10);
    await shot(page, "time-travel-1280");
    await page.getByRole("button", { name: "Fork from here" }).click();
    await page.waitForURL((u) => u.href !== here && /\/c\/c[a-z0-9]+$/.test(u.href));
    await waitPrompt(page);
    await page.locator(".xterm-helper-textarea").focus();
    await type(page, "kubectl get deploy web-29 -o jsonpath='{.spec.replicas}'");
    expect(await terminalText(page)).toMatch(/\n1\[root@master ~\]#|\n1\n/);
    await page.goto(here);
    await waitPrompt(page);
  }, 60_000);

  it("shows reconnecting when the live channel drops, then resumes", async () => {
    await page.evaluate(() => (globalThis as unknown as { servicelab: { live(): { drop(): void } } }).servicelab.live().drop());
    await page.waitForSelector(".live-state.reconnecting");
    await page.waitForSelector(".live-state.open", { timeout: 10_000 });
    // A change made elsewhere arrives over the resumed channel.
    await type(page, "kubectl scale deployment web-29 --replicas 3");
    await page.click('[data-tab="cluster"]');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.pod[data-pod^="services/web-29"]').length === 3);
  });

  it("opens a share link read-only, replays the terminal, and forks it", async () => {
    await page.getByRole("button", { name: "Share" }).click();
    await page.waitForSelector(".notice");
    const link = /https?:\/\/\S+\/s\/\S+/.exec((await page.locator(".notice").textContent()) ?? "")![0];
    const viewer = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    await viewer.goto(link);
    await viewer.waitForSelector(".read-only");
    await viewer.waitForFunction(() => !!(globalThis as unknown as { servicelab?: unknown }).servicelab);
    await viewer.waitForFunction(() => (globalThis as any).document.querySelector(".xterm-rows")?.textContent?.includes("hello nginx"));
    expect(await viewer.locator("button.run").count()).toBe(0);
    // The owner's next command shows up live in the viewer's terminal.
    await type(page, "echo from-the-owner");
    await viewer.waitForFunction(() => (globalThis as any).document.querySelector(".xterm-rows")?.textContent?.includes("from-the-owner"), null, { timeout: 10_000 });
    await shot(viewer, "shared-read-only-1280");
    await viewer.getByRole("button", { name: "Fork into my own cluster" }).click();
    await viewer.waitForURL(/\/c\/c[a-z0-9]+$/);
    expect(viewer.url()).not.toBe(page.url());
    await waitPrompt(viewer);
    await viewer.locator(".xterm-helper-textarea").focus();
    await type(viewer, "kubectl get deploy web-29 -o jsonpath='{.spec.replicas}'");
    expect(await terminalText(viewer)).toMatch(/\n3\[root@master ~\]#|\n3\n/);
  }, 60_000);

  it("lays out on a 390-pixel phone: steps above, terminal below", async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    const known = await page.evaluate(() => (globalThis as any).localStorage.getItem("servicelab.clusters"));
    await phone.goto(`${url}/`);
    await phone.evaluate((v) => (globalThis as any).localStorage.setItem("servicelab.clusters", v ?? "[]"), known);
    await phone.goto(page.url());
    await waitPrompt(phone);
    const steps = await phone.locator(".ws-steps").boundingBox();
    const term = await phone.locator(".term-wrap").boundingBox();
    expect(steps!.y + steps!.height).toBeLessThanOrEqual(term!.y + 1);
    expect(term!.width).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: `${(await import("./browser.js")).ARTIFACTS}/workspace-phone.png`, fullPage: true });
    await phone.goto(`${url}/`);
    await phone.waitForSelector(".card");
    await shot(phone, "catalog-phone");
  });

  it("kubectl edit opens the hosted editor: an invalid save reopens with kubectl's reason, a valid one applies", async () => {
    await page.goto(page.url());
    await waitPrompt(page);
    await page.locator(".xterm-helper-textarea").focus();
    await page.locator(".xterm-helper-textarea").pressSequentially("kubectl edit deployment web-29");
    await page.keyboard.press("Enter");
    const area = page.locator(".editor textarea");
    await area.waitFor();
    // (the dialog puts the file in as it opens)
    await page.waitForFunction(() => ((globalThis as any).document.querySelector(".editor textarea")?.value ?? "").startsWith("# Please"));
    const text = await area.inputValue();
    expect(text).toMatch(/^# Please edit the object below/);
    await area.fill(text.replace(/replicas: \d+/, "replicas: -1"));
    await page.keyboard.press("Control+s");
    await page.waitForFunction(() => ((globalThis as any).document.querySelector(".editor textarea")?.value ?? "").includes("was not valid"));
    await shot(page, "editor-reopened-1280");
    const again = await area.inputValue();
    expect(again).toContain('# deployments "web-29" was not valid:\n# * spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    await area.fill(again.replace("replicas: -1", "replicas: 1"));
    await page.keyboard.press("Control+s");
    await waitPrompt(page);
    expect(await terminalText(page)).toContain("deployment.apps/web-29 edited");
    // Quit without saving.
    await page.locator(".xterm-helper-textarea").pressSequentially("kubectl edit svc web");
    await page.keyboard.press("Enter");
    await area.waitFor();
    await page.waitForFunction(() => ((globalThis as any).document.querySelector(".editor textarea")?.value ?? "").startsWith("# Please"));
    await page.keyboard.press("Escape");
    await waitPrompt(page);
    expect(await terminalText(page)).toContain("Edit cancelled, no changes made.");
  }, 60_000);

  it("completes kubectl's words and the cluster's names with Tab", async () => {
    const input = page.locator(".xterm-helper-textarea");
    await input.pressSequentially("kubectl desc");
    await page.keyboard.press("Tab");
    await input.pressSequentially("deployme");
    await page.keyboard.press("Tab");
    await input.pressSequentially("web-2");
    await page.keyboard.press("Tab");
    await page.waitForTimeout(100);
    expect((await terminalText(page)).split("\n").at(-1)).toContain("kubectl describe deployments web-2");
    await page.keyboard.press("Control+C");
  });

  it("works from the keyboard: Escape leaves the terminal, arrows move between the views", async () => {
    await page.locator('[data-tab="cluster"]').click();
    await page.locator(".xterm-helper-textarea").focus();
    await page.keyboard.press("Escape");
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("data-tab"))).toBe("cluster");
    await page.keyboard.press("ArrowRight");
    expect(await page.locator('[data-tab="traffic"]').getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("data-tab"))).toBe("traffic");
    await page.keyboard.press("ArrowLeft");
    expect(await page.locator('[data-tab="cluster"]').getAttribute("aria-selected")).toBe("true");
  });

  it("says what happened to a deleted cluster and offers a new one", async () => {
    const known = JSON.parse((await page.evaluate(() => (globalThis as any).localStorage.getItem("servicelab.clusters"))) ?? "[]") as Array<{ id: string; token: string }>;
    const c = known[0];
    const r = await fetch(`${url}/v1/clusters/${c.id}`, { method: "DELETE", headers: { authorization: `Bearer ${c.token}` } });
    expect(r.status).toBe(200);
    await page.goto(`${url}/c/${c.id}`);
    await page.waitForSelector(".gone");
    expect(await page.locator(".gone").textContent()).toContain("no longer exists");
    await shot(page, "gone-1280");
  });
});
