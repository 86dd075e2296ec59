// A classroom in a real browser: the teacher makes one from the catalog, a student joins from
// the link with a name and works; the teacher's dashboard shows the step passed and the last
// command, extends the time and closes the class, and the student's terminal becomes read-only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { NodeServer } from "../../src/runtime/node-server.js";
import { haveChromium, launch, server, shot, skipReason, terminalText, type, waitPrompt } from "./browser.js";

if (skipReason) console.warn(skipReason);

describe.skipIf(!haveChromium)("classroom in Chromium", () => {
  let s: NodeServer;
  let url: string;
  let browser: Browser;
  let teacher: Page;
  let student: Page;

  beforeAll(async () => {
    ({ s, url } = await server());
    browser = await launch();
    teacher = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    student = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    for (const p of [teacher, student]) p.on("pageerror", (e) => console.error("page error:", e.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("a teacher makes a classroom, a student joins and works, the dashboard follows", async () => {
    await teacher.goto(`${url}/?lang=en`);
    await teacher.locator('[data-lab="clusterip-web"] a', { hasText: "Teach this lab" }).click();
    await teacher.waitForURL(/\/teach\/clusterip-web$/);
    await teacher.getByLabel("Title").fill("Period 3: Services");
    await teacher.getByLabel("Minutes for each student").fill("30");
    await teacher.getByRole("button", { name: "Create the classroom" }).click();
    await teacher.waitForURL(/\/t\/slt_/);
    const joinUrl = (await teacher.locator("[data-join]").textContent())!;
    expect(joinUrl).toMatch(/\/j\/slj_/);

    await student.goto(joinUrl);
    await student.getByLabel("Your name").fill("Ada");
    await student.getByRole("button", { name: "Join and start" }).click();
    await student.waitForURL(/\/c\/c[a-z0-9]+$/);
    await waitPrompt(student);
    expect(await student.locator(".timer").textContent()).toMatch(/^(29|30):\d\d left/);
    const code = await student.locator("[data-code]").textContent();
    expect(code).toMatch(/^[A-Z2-9]{6}$/);
    await student.locator(".xterm-helper-textarea").focus();
    await type(student, "kubectl create service clusterip web --tcp=8080:80");
    await type(student, "kubectl get svcs");
    await student.waitForSelector('[data-step="expose"].passed');

    // The dashboard hears it on its live channel and reads the class again.
    // Within 5 s: the live channel (the slow poll is every 10 s).
    await teacher.waitForSelector('tr[data-student="Ada"] td[data-step="expose"].passed', { timeout: 5_000 });
    // (a refresh may land between the two commands: the last one shows by the next)
    await teacher.waitForFunction(() => (globalThis as any).document.querySelector('tr[data-student="Ada"] .last code')?.textContent === "kubectl get svcs", null, { timeout: 10_000 });
    expect(await teacher.locator('[data-count="expose"]').textContent()).toBe("1/1");
    await teacher.waitForFunction(() => ((globalThis as any).document.querySelector(".stuck")?.textContent ?? "").includes("kubectl get svcs"));
    await shot(teacher, "dashboard-1280");
    await shot(student, "student-workspace-1280");

    // The same browser comes back to its seat from the link.
    await student.goto(joinUrl);
    await student.waitForURL(/\/c\/c[a-z0-9]+$/);
    await waitPrompt(student);
  }, 90_000);

  it("closing the class makes the student's cluster read-only", async () => {
    teacher.once("dialog", (d) => void d.accept());
    await teacher.getByRole("button", { name: "Close the classroom" }).click();
    await teacher.waitForFunction(() => ((globalThis as any).document.querySelector(".dash-head .muted")?.textContent ?? "").includes("closed"));
    // The student's next look at the workspace (a live change, or a reload) sees the time is up.
    await student.reload();
    await student.waitForSelector(".timer.up", { timeout: 15_000 });
    await student.waitForFunction(() => ((globalThis as any).document.body.textContent ?? "").includes("read-only now"));
    const before = await terminalText(student);
    await student.locator(".xterm-helper-textarea").pressSequentially("kubectl get pods");
    await student.keyboard.press("Enter");
    await student.waitForTimeout(300);
    expect(await terminalText(student)).toBe(before);
    await shot(student, "student-time-up-1280");
  }, 60_000);

  it("a course: the teacher ticks a second lab; a student who finishes the first moves on with one click", async () => {
    await teacher.goto(`${url}/teach/clusterip-web?lang=en`);
    await teacher.getByLabel("Title").fill("Course");
    await teacher.locator(".then label", { hasText: "Headless" }).locator("input").check();
    await teacher.getByRole("button", { name: "Create the classroom" }).click();
    await teacher.waitForURL(/\/t\/slt_/);
    const joinUrl = (await teacher.locator("[data-join]").textContent())!;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    await page.goto(joinUrl);
    await page.getByLabel("Your name").fill("Bo");
    await page.getByRole("button", { name: "Join and start" }).click();
    await page.waitForURL(/\/c\/c[a-z0-9]+$/);
    await waitPrompt(page);
    const first = page.url();
    // The first lab's commands, typed through the API to keep the test short.
    const seat = await page.evaluate(() => JSON.parse((globalThis as any).localStorage.getItem("servicelab.clusters"))[0]);
    const { LABS } = await import("../../src/labs/index.js");
    const { splitCommands } = await import("../../src/shell/command-lines.js");
    for (const step of LABS["clusterip-web"].steps)
      for (const m of step.body.en.matchAll(/^```bash\n([\s\S]*?)\n```$/gm))
        for (const line of splitCommands(m[1])) await fetch(`${url}/v1/clusters/${seat.id}/exec`, { method: "POST", headers: { authorization: `Bearer ${seat.token}` }, body: JSON.stringify({ command: line }) });
    await page.reload();
    await page.getByRole("button", { name: /^Next lab: Headless/ }).click();
    await page.waitForURL((u) => u.href !== first && /\/c\/c[a-z0-9]+$/.test(u.href));
    await waitPrompt(page);
    expect(await page.locator(".steps h1").textContent()).toMatch(/Headless/);
    // The teacher's grid has both labs' steps, the first all passed.
    await teacher.waitForFunction(() => (globalThis as any).document.querySelectorAll('tr[data-student="Bo"] td.cell.passed').length >= 5, null, { timeout: 15_000 });
    await shot(teacher, "dashboard-course-1280");
  }, 90_000);
});
