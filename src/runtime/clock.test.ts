// Time as on a node (issue 19 item 4), with the simulated time source a host injects in tests:
// commands that wait move the host's clock and the cluster follows it, so after `sleep 30`,
// `rollout status` and `get -w` the cluster is neither frozen nor ahead of the host's clock; a
// line stopped while it waits ends as bash ends it, and its replay stops at the same place.
import { describe, expect, it } from "vitest";
import { ClusterCore, instantiate, labTemplate } from "./core.js";
import { interruptStop } from "./budget.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { sessionShell } from "./terminal.js";
import { replayTo } from "./time-travel.js";
import { SimulatedTime } from "../shell/time.js";
import type { KObject } from "../engine/api/types.js";

const START = Date.parse("2026-12-02T03:00:00Z");

/** A cluster as a host holds it: every request at the source's time, every line waiting on it. */
function host(lab = "empty") {
  const time = new SimulatedTime(START);
  const { state } = instantiate(labTemplate(lab, START, sessionShell), "c1", null, START);
  const core = ClusterCore.restore("c1", state, sessionShell);
  const exec = (line: string, opts: Parameters<ClusterCore["exec"]>[3] = {}) => {
    time.advance(100); // the student types the next line
    return core.exec(line, time.now(), DEFAULT_LIMITS, { time, ...opts });
  };
  return { time, core, exec };
}

/** Seconds (in 1 s steps of `sleep 1`) until a pod created now runs. */
async function startup(h: ReturnType<typeof host>, name: string): Promise<number> {
  await h.exec(`kubectl run ${name} --image=hub.laoma.cloud/library/nginx`);
  for (let s = 0; s < 120; s++) {
    const pod = h.core.cluster.store.get("pods", "default", name) as { status?: { phase?: string } } | undefined;
    if (pod?.status?.phase === "Running") return s;
    await h.exec("sleep 1");
  }
  throw new Error(`${name} never ran`);
}

/** Every timestamp the cluster wrote, in ms. */
function stamps(core: ClusterCore): number[] {
  const out: number[] = [];
  const walk = (v: unknown, key = ""): void => {
    if (typeof v === "string" && /(Timestamp|Time|lastTransitionTime|startedAt|time)$/.test(key) && /^\d{4}-\d\d-\d\dT/.test(v)) out.push(Date.parse(v));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const objs of Object.values(core.cluster.store.dump())) for (const o of objs as KObject[]) walk(o);
  return out;
}

describe("the cluster follows the host's clock through commands that wait", () => {
  it("after sleep 30, rollout status and get -w, a new pod starts as on a fresh cluster and no AGE is negative", async () => {
    const fresh = await startup(host(), "first");

    const h = host();
    await h.exec("kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=2");
    expect((await h.exec("sleep 30")).exitCode).toBe(0);
    // The host's clock moved with the wait, and the cluster with it: neither is ahead.
    expect(h.core.cluster.now()).toBe(h.time.now());
    await h.exec("kubectl scale deployment web --replicas=3");
    const rollout = await h.exec("kubectl rollout status deployment/web");
    expect(rollout.stdout).toContain('deployment "web" successfully rolled out');
    expect(h.core.cluster.now()).toBe(h.time.now());
    const watch = await h.exec("kubectl get pods -w");
    expect(watch.stdout).toMatch(/^NAME\s+READY\s+STATUS/);
    expect(h.core.cluster.now()).toBe(h.time.now());

    expect(await startup(h, "after")).toBe(fresh);
    const table = (await h.exec("kubectl get pods -A")).stdout;
    expect(table).not.toMatch(/<invalid>|\s-\d/);
    expect(Math.max(...stamps(h.core))).toBeLessThanOrEqual(h.time.now());
    // A pod's sleep waits as the node's does (one definition of sleep).
    const before = h.time.now();
    await h.exec("kubectl exec after -- sleep 2m");
    expect(h.time.now() - before).toBeGreaterThanOrEqual(120_000);
    expect(h.core.cluster.now()).toBe(h.time.now());
  }, 120_000);

  it("a line stopped in a wait ends with ^C and 130, keeps what it printed, and replays the same", async () => {
    const h = host("clusterip-web");
    // The host presses Ctrl-C once the watch has printed its list and waited 5 s.
    let printed = "";
    const run = h.exec("kubectl get pods -w", {
      write: (chunk) => {
        printed += chunk;
      },
      around: {
        before: () => {
          if (h.time.now() - START > 5_000 + 200) h.core.stopLine(interruptStop());
        },
        after: () => undefined,
      },
    });
    const r = await run;
    expect(r.exitCode).toBe(130);
    expect(r.stopped).toBe("interrupt");
    expect(r.stdout).toMatch(/^NAME\s+READY/);
    expect(r.stdout.endsWith("^C\n")).toBe(true);
    // Streamed: the rows went to the terminal as they were printed, and are in the result too.
    expect(r.stdout.startsWith(printed)).toBe(true);
    expect(printed.length).toBeGreaterThan(0);
    const entry = h.core.journal.all.at(-1)!;
    expect(entry.stopped).toBe("interrupt");
    expect(entry.waits?.length).toBeGreaterThan(0);
    await h.exec("kubectl scale deployment web --replicas=4");
    await h.exec("sleep 7");
    const replay = await replayTo(h.core, h.core.journal.all.at(-1)!.seq, sessionShell, DEFAULT_LIMITS);
    expect(JSON.stringify(replay.cluster.store.dump())).toBe(JSON.stringify(h.core.cluster.store.dump()));
    expect(replay.journal.all.map((e) => [e.stdout, e.exitCode])).toEqual(h.core.journal.all.map((e) => [e.stdout, e.exitCode]));
  }, 120_000);

  it("the exec's time limit stops a wait at the limit; watch exits 0 on Ctrl-C as procps' does", async () => {
    const h = host();
    const t0 = h.time.now();
    const r = await h.exec("sleep 100; echo never", { timeLimitMs: 3_000 });
    expect(r).toMatchObject({ exitCode: 124, stopped: "timeout", stdout: "" });
    expect(h.time.now() - t0).toBeLessThan(4_000);
    let screen = "";
    const w = await h.exec("watch -n 5 date", {
      write: (chunk) => {
        screen += chunk;
      },
      around: {
        before: () => {
          if (h.core.journal.all.length && h.time.now() - t0 > 12_000) h.core.stopLine(interruptStop());
        },
        after: () => undefined,
      },
    });
    // procps' watch: the alternate screen, a screen per interval, and the screen as it was after;
    // date in en_US.UTF-8's format (a 12-hour clock).
    expect(w).toMatchObject({ exitCode: 0, stdout: "" });
    expect(screen).toMatch(/^\x1b\[\?1049h\x1b\[H\x1b\[2JEvery 5\.0s: date {2,}master: \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d 2026\n\n\w{3} \w{3} +\d+ \d\d:\d\d:\d\d [AP]M UTC 2026\n\x1b\[H\x1b\[2JEvery/);
    expect(screen.endsWith("\x1b[?1049l")).toBe(true);
    expect(screen.split("Every 5.0s").length - 1).toBe(3);
  }, 60_000);

  it("a dry-run delete does not wait: nothing was deleted (kubectl's delete.go skips the wait)", async () => {
    const h = host();
    await h.exec("kubectl create service clusterip bad --tcp=80:80");
    const before = h.time.now();
    for (const dry of ["server", "client"]) {
      const r = await h.exec(`kubectl delete svc bad --dry-run=${dry}`);
      expect(r.stdout).toBe(`service "bad" deleted (${dry === "server" ? "server " : ""}dry run)\n`);
    }
    // Only the typing between the lines moved the clock; the service is still there.
    expect(h.time.now() - before).toBeLessThan(1000);
    expect((await h.exec("kubectl get svc bad -o name")).stdout).toBe("service/bad\n");
  });
});
